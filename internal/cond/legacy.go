package cond

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// Comparison is one condition of DynamoDB's legacy (pre-expression)
// parameters Expected, QueryFilter and ScanFilter: a ComparisonOperator
// applied to a top-level attribute with its AttributeValueList.
type Comparison struct {
	// Attr is the attribute's name, as it is: no placeholder, no path.
	Attr string
	// Op is the ComparisonOperator: EQ, NE, LE, LT, GE, GT, NOT_NULL,
	// NULL, CONTAINS, NOT_CONTAINS, BEGINS_WITH, IN or BETWEEN.
	Op string
	// Values is the AttributeValueList, already checked by the caller
	// against DynamoDB's rules for Op (count and types).
	Values []types.AttributeValue
}

// Comparisons builds the condition that a list of legacy comparisons
// stands for, joined with AND, or with OR when or is set, so that it is
// evaluated as any expression is. Each operator is the expression form of
// the same test, as DynamoDB evaluates both:
//
//   - EQ, NE, LE, LT, GE, GT are =, <>, <=, <, >=, >: NE is true for a
//     missing attribute, the others false, and a value of another type
//     matches nothing (but NE);
//   - NULL and NOT_NULL are attribute_not_exists and attribute_exists;
//   - CONTAINS and BEGINS_WITH are contains and begins_with;
//   - NOT_CONTAINS is attribute_exists(a) AND NOT contains(a, v): it is
//     false for a missing attribute, true for one of another type;
//   - IN and BETWEEN are IN and BETWEEN.
//
// The tree is built directly rather than parsed, so the limits DynamoDB
// sets on an expression's text (its size, its operators, 100 operands after
// IN) do not apply: the legacy parameters have none of them. The values are
// bound to placeholders (:c0, :c1, ...) of the returned map, which the caller passes to
// [Expr.Eval] (with no names: attributes are named as they are). Comparisons
// returns an error for an operator it does not know or a value count the
// operator does not take.
func Comparisons(cs []Comparison, or bool) (*Expr, map[string]types.AttributeValue, error) {
	b := &legacyBuilder{prefix: ":c", values: map[string]types.AttributeValue{}}
	var kids []*node
	var text []string
	for _, c := range cs {
		n, s, err := b.comparison(c)
		if err != nil {
			return nil, nil, err
		}
		kids = append(kids, n)
		text = append(text, s)
	}
	if len(kids) == 0 {
		return nil, nil, fmt.Errorf("%w: no comparison", ErrInvalid)
	}
	root, join := kids[0], " AND "
	if or {
		join = " OR "
	}
	if len(kids) > 1 {
		root = &node{kind: kAnd, kids: kids}
		if or {
			root.kind = kOr
		}
	}
	e := &Expr{src: strings.Join(text, join), root: root}
	e.collect(root)
	return e, b.values, nil
}

// legacyBuilder binds the values of comparisons to placeholders :c0, :c1,
// ... and those of updates to :u0, :u1, ..., so that the values of a
// request's Expected and AttributeUpdates go in one map.
type legacyBuilder struct {
	prefix string
	values map[string]types.AttributeValue
}

func (b *legacyBuilder) value(v types.AttributeValue) (*node, string) {
	ph := b.prefix + strconv.Itoa(len(b.values))
	b.values[ph] = v
	return &node{kind: kValue, value: ph}, ph
}

// comparators maps the ComparisonOperators that are comparisons to theirs.
var comparators = map[string]tokKind{"EQ": tokEq, "NE": tokNe, "LE": tokLe, "LT": tokLt, "GE": tokGe, "GT": tokGt}

// comparison builds one comparison's node and a rendering of it, for
// String.
func (b *legacyBuilder) comparison(c Comparison) (*node, string, error) {
	path := func() *node { return &node{kind: kPath, path: []elem{{name: c.Attr}}} }
	want := 1
	switch c.Op {
	case "NULL", "NOT_NULL":
		want = 0
	case "BETWEEN":
		want = 2
	case "IN":
		want = max(1, len(c.Values))
	}
	if len(c.Values) != want {
		return nil, "", fmt.Errorf("%w: %d values for %s", ErrInvalid, len(c.Values), c.Op)
	}
	name := strconv.Quote(c.Attr)
	fn := func(f function, args ...*node) *node { return &node{kind: kFunc, fn: f, kids: args} }
	if op, ok := comparators[c.Op]; ok {
		v, ph := b.value(c.Values[0])
		return &node{kind: kCompare, op: op, kids: []*node{path(), v}}, name + " " + opText(op) + " " + ph, nil
	}
	switch c.Op {
	case "NULL":
		return fn(fnAttributeNotExists, path()), "attribute_not_exists(" + name + ")", nil
	case "NOT_NULL":
		return fn(fnAttributeExists, path()), "attribute_exists(" + name + ")", nil
	case "CONTAINS", "NOT_CONTAINS", "BEGINS_WITH":
		v, ph := b.value(c.Values[0])
		f, s := fnContains, "contains("+name+", "+ph+")"
		if c.Op == "BEGINS_WITH" {
			f, s = fnBeginsWith, "begins_with("+name+", "+ph+")"
		}
		n := fn(f, path(), v)
		if c.Op == "NOT_CONTAINS" {
			n = &node{kind: kAnd, kids: []*node{fn(fnAttributeExists, path()), {kind: kNot, kids: []*node{n}}}}
			s = "(attribute_exists(" + name + ") AND NOT " + s + ")"
		}
		return n, s, nil
	case "IN":
		n := &node{kind: kIn, kids: []*node{path()}}
		phs := make([]string, len(c.Values))
		for i, x := range c.Values {
			var v *node
			v, phs[i] = b.value(x)
			n.kids = append(n.kids, v)
		}
		return n, name + " IN (" + strings.Join(phs, ", ") + ")", nil
	case "BETWEEN":
		lo, p1 := b.value(c.Values[0])
		hi, p2 := b.value(c.Values[1])
		return &node{kind: kBetween, kids: []*node{path(), lo, hi}}, name + " BETWEEN " + p1 + " AND " + p2, nil
	}
	return nil, "", fmt.Errorf("%w: unknown ComparisonOperator %q", ErrInvalid, c.Op)
}

// AttributeUpdate is one entry of UpdateItem's legacy parameter
// AttributeUpdates: an Action (PUT, ADD or DELETE) on a top-level
// attribute, with its Value (nil for a DELETE that removes the attribute).
type AttributeUpdate struct {
	Attr   string
	Action string
	Value  types.AttributeValue
}

// msgTypeMismatch is DynamoDB's refusal of an ADD or DELETE of
// AttributeUpdates whose value does not suit the attribute's type.
const msgTypeMismatch = "Type mismatch for attribute to update"

// AttributeUpdates builds the update that a list of AttributeUpdates
// stands for, to be applied with [Update.Apply] and the returned values
// (placeholders :u0, :u1, ...; no names). The caller has checked each Action against its Value.
// The actions are those of an update expression:
//
//   - PUT is SET a = v;
//   - DELETE without a value is REMOVE a, with a set is DELETE a v;
//   - ADD of a number or a set is ADD a v; ADD of a list appends its
//     elements, SET a = list_append(if_not_exists(a, []), v), which the
//     expression form of ADD does not take.
//
// An action whose value does not suit the attribute's type in the item
// fails with DynamoDB's message for AttributeUpdates ("Type mismatch for
// attribute to update") rather than the expression's.
func AttributeUpdates(us []AttributeUpdate) (*Update, map[string]types.AttributeValue, error) {
	b := &legacyBuilder{prefix: ":u", values: map[string]types.AttributeValue{}}
	u := &Update{legacy: true}
	var text []string
	for _, x := range us {
		path := []elem{{name: x.Attr}}
		name := strconv.Quote(x.Attr)
		a := &action{path: path, nth: len(u.actions)}
		switch {
		case x.Action == "PUT" && x.Value != nil:
			_, ph := b.value(x.Value)
			a.kind, a.set = actSet, &setValue{left: &operand{kind: oValue, value: ph}}
			text = append(text, "SET "+name+" = "+ph)
		case x.Action == "DELETE" && x.Value == nil:
			a.kind = actRemove
			text = append(text, "REMOVE "+name)
		case x.Action == "DELETE":
			a.kind = actDelete
			_, a.value = b.value(x.Value)
			text = append(text, "DELETE "+name+" "+a.value)
		case x.Action == "ADD" && typeOf(x.Value) == typeL:
			_, empty := b.value(&types.AttributeValueMemberL{Value: []types.AttributeValue{}})
			_, ph := b.value(x.Value)
			ifNot := &operand{kind: oIfNotExists, args: []*operand{{kind: oPath, path: path}, {kind: oValue, value: empty}}}
			a.kind = actSet
			a.set = &setValue{left: &operand{kind: oListAppend, args: []*operand{ifNot, {kind: oValue, value: ph}}}}
			text = append(text, "SET "+name+" = list_append(if_not_exists("+name+", "+empty+"), "+ph+")")
		case x.Action == "ADD" && x.Value != nil:
			a.kind = actAdd
			_, a.value = b.value(x.Value)
			text = append(text, "ADD "+name+" "+a.value)
		default:
			return nil, nil, fmt.Errorf("%w: action %s on %s with value %v", ErrInvalid, x.Action, x.Attr, x.Value)
		}
		u.actions = append(u.actions, a)
	}
	u.written = u.actions
	u.src = strings.Join(text, " ")
	for i := 0; i < len(b.values); i++ {
		u.ph.addValue(b.prefix + strconv.Itoa(i))
	}
	return u, b.values, nil
}

// legacyError rewrites an error of Apply for an update made by
// AttributeUpdates: an operand of the wrong type is DynamoDB's type
// mismatch for AttributeUpdates.
func legacyError(err error) error {
	var e *Error
	if errors.As(err, &e) && e.Msg == msgBadOperand {
		return refused(msgTypeMismatch)
	}
	return err
}
