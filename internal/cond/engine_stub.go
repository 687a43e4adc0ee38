package cond

// TEMPORARY: replaced by the engine-expr branch. (Trimmed by engine-txn's
// merge of engine-expr to what that branch does not provide yet.)

import (
	"errors"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

func (e *Expr) Names() []string  { return nil }
func (e *Expr) Values() []string { return nil }

type Projection struct{}

func ParseProjection(expr string) (*Projection, error) { return nil, errors.New("not implemented") }
func (p *Projection) Names() []string                  { return nil }
func (p *Projection) Paths(names map[string]string) ([]Path, error) {
	return nil, nil
}
func Project(item map[string]types.AttributeValue, paths []Path) map[string]types.AttributeValue {
	return nil
}
