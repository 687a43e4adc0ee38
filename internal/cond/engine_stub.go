package cond

// TEMPORARY: replaced by the engine-expr branch.

import (
	"errors"
	"strings"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

type PathElem struct {
	Name    string
	Index   int
	IsIndex bool
}
type Path []PathElem

func (e *Expr) Names() []string  { return nil }
func (e *Expr) Values() []string { return nil }

type Update struct{}

func ParseUpdate(expr string) (*Update, error) {
	return nil, errors.New("cond: update: not implemented")
}
func (u *Update) Names() []string  { return nil }
func (u *Update) Values() []string { return nil }
func (u *Update) Apply(item map[string]types.AttributeValue, names map[string]string, values map[string]types.AttributeValue, keyNames []string) (map[string]types.AttributeValue, error) {
	out := map[string]types.AttributeValue{}
	for k, v := range item {
		out[k] = v
	}
	return out, nil
}
func (u *Update) Paths(names map[string]string) ([]Path, error) { return nil, nil }

type Projection struct{}

func ParseProjection(expr string) (*Projection, error) { return nil, errors.New("not implemented") }
func (p *Projection) Names() []string                  { return nil }
func (p *Projection) Paths(names map[string]string) ([]Path, error) {
	return nil, nil
}
func Project(item map[string]types.AttributeValue, paths []Path) map[string]types.AttributeValue {
	return nil
}
func Message(err error) string { return strings.TrimPrefix(err.Error(), "cond: invalid expression: ") }
