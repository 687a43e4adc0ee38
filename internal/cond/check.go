package cond

import (
	"fmt"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// The static check of a condition against the request: operand types
// that can never match, functions given the wrong kind of operand, and
// the same path twice where DynamoDB refuses it.

// checker does DynamoDB's checks of an expression against its names and
// values, which come before any evaluation.
type checker struct {
	names  map[string]string
	values map[string]types.AttributeValue
}

func (c *checker) check(n *node) error {
	for _, k := range n.kids {
		if err := c.check(k); err != nil {
			return err
		}
	}
	switch n.kind {
	case kPath:
		return c.checkPath(n)
	case kValue:
		v, ok := c.values[n.value]
		if !ok {
			return invalid(msgValueNotDefined, n.value)
		}
		if err := validateExpressionValue(n.value, v); err != nil {
			return err
		}
	case kCompare:
		if n.op != tokEq && n.op != tokNe {
			if err := c.requireTypes(n, opText(n.op), orderable); err != nil {
				return err
			}
		}
		return c.distinct(n, opText(n.op))
	case kBetween:
		return c.checkBetween(n)
	case kIn:
		return c.distinct(n, "IN")
	case kSize:
		return c.requireTypes(n, "size", func(t string) bool {
			return t != typeN && t != typeBOOL && t != typeNULL
		})
	case kFunc:
		return c.checkFunc(n)
	}
	return nil
}

// checkPath checks that each name placeholder of the path n is defined, and
// stands for a name neither empty nor too long.
func (c *checker) checkPath(n *node) error {
	for _, el := range n.path {
		if !el.placeholder {
			continue
		}
		name, ok := c.names[el.name]
		switch {
		case !ok:
			return invalid(msgNameNotDefined, el.name)
		case name == "":
			return refused(msgExpressionAttributeNamesContainsEmptyAttributeName, el.name)
		case len(name) > maxNameBytes:
			return fmt.Errorf("%w: %s stands for a name of %d bytes; DynamoDB allows %d", ErrInvalid, el.name, len(name), maxNameBytes)
		}
	}
	return nil
}

// checkBetween checks the BETWEEN n: orderable operands, and bounds given
// as values of one type, the lower not above the upper.
func (c *checker) checkBetween(n *node) error {
	if err := c.requireTypes(n, "BETWEEN", orderable); err != nil {
		return err
	}
	lo, hi := n.kids[1], n.kids[2]
	if lo.kind == kValue && hi.kind == kValue {
		lv, hv := c.values[lo.value], c.values[hi.value]
		if typeOf(lv) != typeOf(hv) {
			return invalid(msgBETWEENOperatorRequiresSameData, javaValue(lv), javaValue(hv))
		}
		ev := evaluator{}
		if cmp, _ := ev.order(lv, hv); cmp > 0 {
			return invalid(msgBETWEENOperatorRequiresUpperBound, javaValue(lv), javaValue(hv))
		}
	}
	return c.distinct(n, "BETWEEN")
}

// checkFunc checks the function call n: attribute_type's type name,
// begins_with's operand types, then distinct operands for every function.
func (c *checker) checkFunc(n *node) error {
	switch n.fn {
	case fnAttributeType:
		ph := n.kids[1].value
		s, ok := c.values[ph].(*types.AttributeValueMemberS)
		if !ok {
			return invalid(msgIncorrectOperandTypeAttributeType, typeOf(c.values[ph]))
		}
		switch s.Value {
		case typeS, typeN, typeB, typeSS, typeNS, typeBS, typeBOOL, typeNULL, typeL, typeM:
		default:
			return invalid(msgInvalidAttributeTypeName, s.Value)
		}
	case fnBeginsWith:
		if err := c.requireTypes(n, "begins_with", func(t string) bool { return t == typeS || t == typeB }); err != nil {
			return err
		}
	}
	return c.distinct(n, n.fn.String())
}

// requireTypes checks the operands of n whose type is known before
// evaluation (values, and size(), a number) against ok, as DynamoDB does;
// a path may hold anything, and is checked only when evaluated.
func (c *checker) requireTypes(n *node, op string, ok func(string) bool) error {
	for _, k := range n.kids {
		var t string
		switch k.kind {
		case kValue:
			t = typeOf(c.values[k.value])
		case kSize:
			t = typeN
		default:
			continue
		}
		if !ok(t) {
			return invalid(msgIncorrectOperandType, op, t)
		}
	}
	return nil
}

// distinct refuses an operator whose first operand is a path that appears
// again among its other operands (a = a, contains(a, #x) with #x = a):
// DynamoDB requires the first operand to be distinct from the others.
func (c *checker) distinct(n *node, op string) error {
	first := n.kids[0]
	if first.kind != kPath {
		return nil
	}
	for _, k := range n.kids[1:] {
		if k.kind == kPath && c.samePath(first.path, k.path) {
			p, _ := resolvePath(first.path, c.names)
			return invalid(msgFirstOperandDistinctFromRemaining, op, p.listing())
		}
	}
	return nil
}

func (c *checker) samePath(a, b []elem) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		switch {
		case a[i].isIndex != b[i].isIndex:
			return false
		case a[i].isIndex:
			if a[i].index != b[i].index {
				return false
			}
		case elemName(a[i], c.names) != elemName(b[i], c.names):
			return false
		}
	}
	return true
}

// elemName is the attribute name of a path element.
func elemName(el elem, names map[string]string) string {
	if el.placeholder {
		return names[el.name]
	}
	return el.name
}

func opText(op tokKind) string {
	switch op {
	case tokEq:
		return "="
	case tokNe:
		return "<>"
	case tokLt:
		return "<"
	case tokLe:
		return "<="
	case tokGt:
		return ">"
	}
	return ">="
}
