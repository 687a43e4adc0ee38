package cond

import (
	"errors"
	"fmt"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestComparisons: each legacy ComparisonOperator evaluates as DynamoDB
// Local evaluates it in a ScanFilter, on an attribute of each type and a
// missing one.
func TestComparisons(t *testing.T) {
	s := func(v string) types.AttributeValue { return &types.AttributeValueMemberS{Value: v} }
	n := func(v string) types.AttributeValue { return &types.AttributeValueMemberN{Value: v} }
	items := map[string]types.AttributeValue{
		"s": s("abc"), "n": n("5"), "ss": &types.AttributeValueMemberSS{Value: []string{"abc", "x"}},
		"l":    &types.AttributeValueMemberL{Value: []types.AttributeValue{s("abc"), n("5")}},
		"bool": &types.AttributeValueMemberBOOL{Value: true}, "missing": nil,
	}
	for _, c := range []struct {
		op   string
		vals []types.AttributeValue
		want string // the items matched, in the order of the list below
	}{
		{"EQ", []types.AttributeValue{s("abc")}, "s"},
		{"NE", []types.AttributeValue{s("abc")}, "n ss l bool missing"},
		{"LT", []types.AttributeValue{n("6")}, "n"},
		{"GE", []types.AttributeValue{s("abc")}, "s"},
		{"NULL", nil, "missing"},
		{"NOT_NULL", nil, "s n ss l bool"},
		{"CONTAINS", []types.AttributeValue{s("abc")}, "s ss l"},
		{"NOT_CONTAINS", []types.AttributeValue{s("abc")}, "n bool"},
		{"BEGINS_WITH", []types.AttributeValue{s("ab")}, "s"},
		{"IN", []types.AttributeValue{n("4"), n("5")}, "n"},
		{"BETWEEN", []types.AttributeValue{s("a"), s("b")}, "s"},
	} {
		e, values, err := Comparisons([]Comparison{{Attr: "v", Op: c.op, Values: c.vals}}, false)
		require.NoError(t, err, c.op)
		got := ""
		for _, k := range []string{"s", "n", "ss", "l", "bool", "missing"} {
			item := map[string]types.AttributeValue{"pk": s(k)}
			if items[k] != nil {
				item["v"] = items[k]
			}
			ok, err := e.Eval(item, nil, values)
			require.NoError(t, err, c.op)
			if ok {
				got += " " + k
			}
		}
		assert.Equal(t, " "+c.want, got, "%s %s", c.op, e)
	}
}

// TestComparisonsNoLimits: a legacy filter has none of an expression's
// limits (100 operands after IN, 300 operators, 4 KB), and OR joins.
func TestComparisonsNoLimits(t *testing.T) {
	var in []types.AttributeValue
	for i := range 150 {
		in = append(in, &types.AttributeValueMemberN{Value: fmt.Sprint(i)})
	}
	cs := []Comparison{{Attr: "a", Op: "IN", Values: in}}
	for i := range 400 {
		cs = append(cs, Comparison{Attr: fmt.Sprintf("attribute-%d", i), Op: "NULL"})
	}
	e, values, err := Comparisons(cs, true)
	require.NoError(t, err)
	ok, err := e.Eval(map[string]types.AttributeValue{"a": &types.AttributeValueMemberN{Value: "149"}, "attribute-0": &types.AttributeValueMemberN{Value: "1"}}, nil, values)
	require.NoError(t, err)
	assert.True(t, ok)
	_, _, err = Comparisons([]Comparison{{Attr: "a", Op: "EQ"}}, false)
	assert.True(t, errors.Is(err, ErrInvalid))
	_, _, err = Comparisons([]Comparison{{Attr: "a", Op: "XX", Values: in[:1]}}, false)
	assert.True(t, errors.Is(err, ErrInvalid))
}

// TestAttributeUpdates: PUT, ADD and DELETE as DynamoDB Local applies
// them, and its message for a value that does not suit the attribute.
func TestAttributeUpdates(t *testing.T) {
	n := func(v string) types.AttributeValue { return &types.AttributeValueMemberN{Value: v} }
	item := map[string]types.AttributeValue{
		"pk": &types.AttributeValueMemberS{Value: "k"}, "n": n("1"),
		"ss": &types.AttributeValueMemberSS{Value: []string{"a", "b"}},
		"l":  &types.AttributeValueMemberL{Value: []types.AttributeValue{n("1")}},
		"s":  &types.AttributeValueMemberS{Value: "x"},
	}
	u, values, err := AttributeUpdates([]AttributeUpdate{
		{Attr: "n", Action: "ADD", Value: n("2.5")},
		{Attr: "ss", Action: "DELETE", Value: &types.AttributeValueMemberSS{Value: []string{"a", "b"}}},
		{Attr: "l", Action: "ADD", Value: &types.AttributeValueMemberL{Value: []types.AttributeValue{n("2")}}},
		{Attr: "nl", Action: "ADD", Value: &types.AttributeValueMemberL{Value: []types.AttributeValue{n("3")}}},
		{Attr: "s", Action: "DELETE"},
		{Attr: "p", Action: "PUT", Value: n("7")},
	})
	require.NoError(t, err)
	got, err := u.Apply(item, nil, values, []string{"pk"})
	require.NoError(t, err)
	assert.Equal(t, map[string]types.AttributeValue{
		"pk": item["pk"], "n": n("3.5"), "p": n("7"),
		"l":  &types.AttributeValueMemberL{Value: []types.AttributeValue{n("1"), n("2")}},
		"nl": &types.AttributeValueMemberL{Value: []types.AttributeValue{n("3")}},
	}, got)
	paths, err := u.Paths(nil)
	require.NoError(t, err)
	assert.Len(t, paths, 6)

	for _, bad := range []AttributeUpdate{
		{Attr: "ss", Action: "ADD", Value: n("1")},
		{Attr: "n", Action: "ADD", Value: &types.AttributeValueMemberL{Value: []types.AttributeValue{n("1")}}},
		{Attr: "s", Action: "DELETE", Value: &types.AttributeValueMemberSS{Value: []string{"x"}}},
	} {
		u, values, err := AttributeUpdates([]AttributeUpdate{bad})
		require.NoError(t, err)
		_, err = u.Apply(item, nil, values, []string{"pk"})
		assert.Equal(t, "Type mismatch for attribute to update", Message(err), "%+v", bad)
	}
}
