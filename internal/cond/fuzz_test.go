package cond

import (
	"errors"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// FuzzParse checks that Parse never panics, that it fails only with
// ErrInvalid, and that an expression it accepts can be evaluated, with
// every placeholder defined, on std and on no item without a panic and
// without any error but ErrInvalid.
func FuzzParse(f *testing.F) {
	for _, c := range cases {
		f.Add(c.expr)
	}
	f.Add("(#0 = :0) AND (attribute_exists (#1))")
	f.Add("size (#0.#1[2]) BETWEEN :0 AND :1 OR NOT contains (#2, :2)")
	f.Fuzz(func(t *testing.T, expr string) {
		e, err := Parse(expr)
		if err != nil {
			if !errors.Is(err, ErrInvalid) {
				t.Fatalf("Parse(%q): %v, which is not ErrInvalid", expr, err)
			}
			return
		}
		if e.String() != expr {
			t.Fatalf("String() = %q, want %q", e.String(), expr)
		}
		nm, vals := map[string]string{}, map[string]types.AttributeValue{}
		define(e.root, nm, vals)
		for _, item := range []map[string]types.AttributeValue{std, nil} {
			if _, err := e.Eval(item, nm, vals); err != nil && !errors.Is(err, ErrInvalid) {
				t.Fatalf("Eval(%q): %v, which is not ErrInvalid", expr, err)
			}
		}
	})
}

// define gives every placeholder under n a name of std, or a value, drawn
// in turn from short lists.
func define(n *node, nm map[string]string, vals map[string]types.AttributeValue) {
	stdNames := []string{"s", "n", "l", "m", "ss", "ns", "b", "z", "nope"}
	values := []types.AttributeValue{N("10"), S("ab"), S("S"), B("x"), L(N("1")), NS("1", "2"), BOOL(true), NULL()}
	for _, el := range n.path {
		if el.placeholder {
			nm[el.name] = stdNames[len(nm)%len(stdNames)]
		}
	}
	if n.kind == kValue {
		vals[n.value] = values[len(vals)%len(values)]
	}
	for _, k := range n.kids {
		define(k, nm, vals)
	}
}
