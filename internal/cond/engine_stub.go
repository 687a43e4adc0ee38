package cond

// TEMPORARY: the rest comes with the engine-expr branch.

import (
	"errors"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// Names returns the #name placeholders the expression uses, in order of
// first use.
func (e *Expr) Names() []string { return e.placeholders().names }

// Values returns the :value placeholders the expression uses, in order of
// first use.
func (e *Expr) Values() []string { return e.placeholders().values }

func (e *Expr) placeholders() *placeholders {
	p := &placeholders{}
	var walk func(n *node)
	walk = func(n *node) {
		switch n.kind {
		case kPath:
			p.addPath(n.path)
		case kValue:
			p.addValue(n.value)
		}
		for _, k := range n.kids {
			walk(k)
		}
	}
	walk(e.root)
	return p
}

type Projection struct{}

func ParseProjection(expr string) (*Projection, error) { return nil, errors.New("not implemented") }
func (p *Projection) Names() []string                  { return nil }
func (p *Projection) Paths(names map[string]string) ([]Path, error) {
	return nil, nil
}
func Project(item map[string]types.AttributeValue, paths []Path) map[string]types.AttributeValue {
	return nil
}
