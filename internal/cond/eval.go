package cond

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// maxNameBytes bounds the attribute name a #placeholder stands for.
const maxNameBytes = 65535

// EvalString parses cond and evaluates it on item; see [Parse] and
// [Expr.Eval].
func EvalString(cond string, names map[string]string, values, item map[string]types.AttributeValue) (bool, error) {
	e, err := Parse(cond)
	if err != nil {
		return false, err
	}
	return e.Eval(item, names, values)
}

// Eval reports whether the condition holds on item, whose #name
// placeholders are given by names and :value placeholders by values (a
// request's ExpressionAttributeNames and ExpressionAttributeValues). A nil
// item is no item: every path in it is absent, so attribute_not_exists
// holds and comparisons other than <> do not.
//
// Before evaluating anything, Eval checks what DynamoDB checks when it
// receives the request, and returns an error matching [ErrInvalid] where
// DynamoDB would refuse it: a placeholder missing from names or values, a
// malformed value, a value of a type the operator does not take, and so on
// (see the package documentation). An item holding a malformed number gives
// an error matching [ErrItem].
func (e *Expr) Eval(item map[string]types.AttributeValue, names map[string]string, values map[string]types.AttributeValue) (bool, error) {
	c := checker{names: names, values: values}
	if err := c.check(e.root); err != nil {
		param := e.param
		if param == "" {
			param = "ConditionExpression"
		}
		return false, prefixed(err, param)
	}
	ev := evaluator{item: item, names: names, values: values}
	ok := ev.cond(e.root)
	if ev.err != nil {
		return false, ev.err
	}
	return ok, nil
}

// The type codes of attribute values, as attribute_type names them.
const (
	typeS    = "S"
	typeN    = "N"
	typeB    = "B"
	typeSS   = "SS"
	typeNS   = "NS"
	typeBS   = "BS"
	typeBOOL = "BOOL"
	typeNULL = "NULL"
	typeL    = "L"
	typeM    = "M"
)

// typeOf returns the type code of v, or "" for nil or an unknown member.
func typeOf(v types.AttributeValue) string {
	switch v.(type) {
	case *types.AttributeValueMemberS:
		return typeS
	case *types.AttributeValueMemberN:
		return typeN
	case *types.AttributeValueMemberB:
		return typeB
	case *types.AttributeValueMemberSS:
		return typeSS
	case *types.AttributeValueMemberNS:
		return typeNS
	case *types.AttributeValueMemberBS:
		return typeBS
	case *types.AttributeValueMemberBOOL:
		return typeBOOL
	case *types.AttributeValueMemberNULL:
		return typeNULL
	case *types.AttributeValueMemberL:
		return typeL
	case *types.AttributeValueMemberM:
		return typeM
	}
	return ""
}

// orderable reports whether <, <=, >, >= and BETWEEN take type t.
func orderable(t string) bool { return t == typeN || t == typeS || t == typeB }

// key is a text that two decimals share exactly when they are equal.
func (d decimal) key() string {
	if d.neg {
		return "-" + d.digits + "e" + strconv.Itoa(d.exp)
	}
	return d.digits + "e" + strconv.Itoa(d.exp)
}

// evaluator evaluates a checked expression on one item. A malformed number
// in the item is recorded in err (the first one), and the answer is then
// discarded.
type evaluator struct {
	item   map[string]types.AttributeValue
	names  map[string]string
	values map[string]types.AttributeValue
	err    error
}

func (ev *evaluator) cond(n *node) bool {
	switch n.kind {
	case kAnd:
		for _, k := range n.kids {
			if !ev.cond(k) {
				return false
			}
		}
		return true
	case kOr:
		for _, k := range n.kids {
			if ev.cond(k) {
				return true
			}
		}
		return false
	case kNot:
		return !ev.cond(n.kids[0])
	case kCompare:
		a, b := ev.operand(n.kids[0]), ev.operand(n.kids[1])
		switch n.op {
		case tokEq:
			return ev.equal(a, b)
		case tokNe:
			return !ev.equal(a, b)
		}
		c, ok := ev.order(a, b)
		if !ok {
			return false
		}
		switch n.op {
		case tokLt:
			return c < 0
		case tokLe:
			return c <= 0
		case tokGt:
			return c > 0
		}
		return c >= 0
	case kBetween:
		x, lo, hi := ev.operand(n.kids[0]), ev.operand(n.kids[1]), ev.operand(n.kids[2])
		c1, ok1 := ev.order(lo, x)
		c2, ok2 := ev.order(x, hi)
		return ok1 && ok2 && c1 <= 0 && c2 <= 0
	case kIn:
		x := ev.operand(n.kids[0])
		for _, k := range n.kids[1:] {
			if ev.equal(x, ev.operand(k)) {
				return true
			}
		}
		return false
	case kFunc:
		return ev.function(n)
	}
	panic(fmt.Sprintf("cond: node kind %d is not a condition", n.kind))
}

func (ev *evaluator) function(n *node) bool {
	switch n.fn {
	case fnAttributeExists:
		return ev.operand(n.kids[0]) != nil
	case fnAttributeNotExists:
		return ev.operand(n.kids[0]) == nil
	case fnAttributeType:
		v := ev.operand(n.kids[0])
		want := ev.values[n.kids[1].value].(*types.AttributeValueMemberS).Value
		return v != nil && typeOf(v) == want
	case fnBeginsWith:
		switch a := ev.operand(n.kids[0]).(type) {
		case *types.AttributeValueMemberS:
			b, ok := ev.operand(n.kids[1]).(*types.AttributeValueMemberS)
			return ok && strings.HasPrefix(a.Value, b.Value)
		case *types.AttributeValueMemberB:
			b, ok := ev.operand(n.kids[1]).(*types.AttributeValueMemberB)
			return ok && bytes.HasPrefix(a.Value, b.Value)
		}
		return false
	case fnContains:
		return ev.contains(ev.operand(n.kids[0]), ev.operand(n.kids[1]))
	}
	panic(fmt.Sprintf("cond: unknown function %d", n.fn))
}

// contains is contains(a, b): a substring of a string or binary, a member
// of a set, or an element of a list.
func (ev *evaluator) contains(a, b types.AttributeValue) bool {
	switch a := a.(type) {
	case *types.AttributeValueMemberS:
		b, ok := b.(*types.AttributeValueMemberS)
		return ok && strings.Contains(a.Value, b.Value)
	case *types.AttributeValueMemberB:
		b, ok := b.(*types.AttributeValueMemberB)
		return ok && bytes.Contains(a.Value, b.Value)
	case *types.AttributeValueMemberSS:
		b, ok := b.(*types.AttributeValueMemberS)
		if !ok {
			return false
		}
		for _, e := range a.Value {
			if e == b.Value {
				return true
			}
		}
	case *types.AttributeValueMemberBS:
		b, ok := b.(*types.AttributeValueMemberB)
		if !ok {
			return false
		}
		for _, e := range a.Value {
			if bytes.Equal(e, b.Value) {
				return true
			}
		}
	case *types.AttributeValueMemberNS:
		b, ok := b.(*types.AttributeValueMemberN)
		if !ok {
			return false
		}
		want := ev.number(b.Value)
		for _, e := range a.Value {
			if ev.number(e).cmp(want) == 0 {
				return true
			}
		}
	case *types.AttributeValueMemberL:
		for _, e := range a.Value {
			if ev.equal(e, b) {
				return true
			}
		}
	}
	return false
}

// operand evaluates an operand: its value, or nil when absent.
func (ev *evaluator) operand(n *node) types.AttributeValue {
	switch n.kind {
	case kPath:
		return ev.resolve(n.path)
	case kValue:
		return ev.values[n.value]
	case kSize:
		size, ok := sizeOf(ev.operand(n.kids[0]))
		if !ok {
			return nil
		}
		return &types.AttributeValueMemberN{Value: strconv.Itoa(size)}
	}
	panic(fmt.Sprintf("cond: node kind %d is not an operand", n.kind))
}

// resolve returns the value at path in the item, or nil when the path
// leads nowhere: a missing name, a name into something other than a map,
// an index into something other than a list or past its end.
func (ev *evaluator) resolve(path []elem) types.AttributeValue {
	cur := ev.item[elemName(path[0], ev.names)]
	for _, el := range path[1:] {
		if el.isIndex {
			l, ok := cur.(*types.AttributeValueMemberL)
			if !ok || el.index >= len(l.Value) {
				return nil
			}
			cur = l.Value[el.index]
			continue
		}
		m, ok := cur.(*types.AttributeValueMemberM)
		if !ok {
			return nil
		}
		cur = m.Value[elemName(el, ev.names)]
	}
	return cur
}

// sizeOf is size(v): a string's length in UTF-16 code units (as Java counts
// it: DynamoDB gives 3 for "é𝄞"), a binary's in bytes, the number of
// elements of a set, list or map. ok is false for other types and for nil.
func sizeOf(v types.AttributeValue) (size int, ok bool) {
	switch v := v.(type) {
	case *types.AttributeValueMemberS:
		for _, r := range v.Value {
			size++
			if r > 0xFFFF {
				size++ // a surrogate pair
			}
		}
		return size, true
	case *types.AttributeValueMemberB:
		return len(v.Value), true
	case *types.AttributeValueMemberSS:
		return len(v.Value), true
	case *types.AttributeValueMemberNS:
		return len(v.Value), true
	case *types.AttributeValueMemberBS:
		return len(v.Value), true
	case *types.AttributeValueMemberL:
		return len(v.Value), true
	case *types.AttributeValueMemberM:
		return len(v.Value), true
	}
	return 0, false
}

// order compares a and b for <, <=, >, >= and BETWEEN: two numbers by
// value, two strings by their UTF-8 bytes, two binaries by bytes. ok is
// false for anything else, absent operands and mixed types included.
func (ev *evaluator) order(a, b types.AttributeValue) (c int, ok bool) {
	switch a := a.(type) {
	case *types.AttributeValueMemberN:
		if b, ok := b.(*types.AttributeValueMemberN); ok {
			return ev.number(a.Value).cmp(ev.number(b.Value)), true
		}
	case *types.AttributeValueMemberS:
		if b, ok := b.(*types.AttributeValueMemberS); ok {
			return strings.Compare(a.Value, b.Value), true
		}
	case *types.AttributeValueMemberB:
		if b, ok := b.(*types.AttributeValueMemberB); ok {
			return bytes.Compare(a.Value, b.Value), true
		}
	}
	return 0, false
}

// equal is a = b: both present, of one type, and equal in value (numbers
// by value, sets whatever their order, lists in order, maps key by key).
func (ev *evaluator) equal(a, b types.AttributeValue) bool {
	switch a := a.(type) {
	case *types.AttributeValueMemberS:
		b, ok := b.(*types.AttributeValueMemberS)
		return ok && a.Value == b.Value
	case *types.AttributeValueMemberN:
		b, ok := b.(*types.AttributeValueMemberN)
		return ok && ev.number(a.Value).cmp(ev.number(b.Value)) == 0
	case *types.AttributeValueMemberB:
		b, ok := b.(*types.AttributeValueMemberB)
		return ok && bytes.Equal(a.Value, b.Value)
	case *types.AttributeValueMemberBOOL:
		b, ok := b.(*types.AttributeValueMemberBOOL)
		return ok && a.Value == b.Value
	case *types.AttributeValueMemberNULL:
		_, ok := b.(*types.AttributeValueMemberNULL)
		return ok
	case *types.AttributeValueMemberSS:
		b, ok := b.(*types.AttributeValueMemberSS)
		return ok && sameSet(a.Value, b.Value, func(s string) string { return s })
	case *types.AttributeValueMemberBS:
		b, ok := b.(*types.AttributeValueMemberBS)
		return ok && sameSet(a.Value, b.Value, func(b []byte) string { return string(b) })
	case *types.AttributeValueMemberNS:
		b, ok := b.(*types.AttributeValueMemberNS)
		return ok && sameSet(a.Value, b.Value, func(s string) string { return ev.number(s).key() })
	case *types.AttributeValueMemberL:
		b, ok := b.(*types.AttributeValueMemberL)
		if !ok || len(a.Value) != len(b.Value) {
			return false
		}
		for i := range a.Value {
			if !ev.equal(a.Value[i], b.Value[i]) {
				return false
			}
		}
		return true
	case *types.AttributeValueMemberM:
		b, ok := b.(*types.AttributeValueMemberM)
		if !ok || len(a.Value) != len(b.Value) {
			return false
		}
		for k, av := range a.Value {
			bv, ok := b.Value[k]
			if !ok || !ev.equal(av, bv) {
				return false
			}
		}
		return true
	}
	return false
}

// sameSet reports whether two sets hold the same elements, compared by
// key. Sets hold no duplicates, so equal sizes and inclusion suffice.
func sameSet[E any](a, b []E, key func(E) string) bool {
	if len(a) != len(b) {
		return false
	}
	in := make(map[string]bool, len(b))
	for _, e := range b {
		in[key(e)] = true
	}
	for _, e := range a {
		if !in[key(e)] {
			return false
		}
	}
	return true
}

// number parses a number of the item or of the values (which the checker
// has already found well formed); a malformed one can only come from the
// item, and is recorded as such.
func (ev *evaluator) number(s string) decimal {
	d, err := parseDecimal(s)
	if err != nil && ev.err == nil {
		ev.err = fmt.Errorf("%w: number %q: %v", ErrItem, s, err)
	}
	return d
}

// javaValue renders a value as DynamoDB Local's messages do
// (AttributeValue's toString in the Java SDK): {S:abc}, {N:1}.
func javaValue(v types.AttributeValue) string {
	switch v := v.(type) {
	case *types.AttributeValueMemberS:
		return "{S:" + v.Value + "}"
	case *types.AttributeValueMemberN:
		return "{N:" + v.Value + "}"
	case *types.AttributeValueMemberB:
		return fmt.Sprintf("{B:java.nio.HeapByteBuffer[pos=0 lim=%d cap=%d]}", len(v.Value), len(v.Value))
	}
	return "{" + typeOf(v) + ":...}"
}
