package update_test

import (
	"errors"
	"math"
	"math/big"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/optimist-dynamo/optimist/update"
)

func TestBuildExpressions(t *testing.T) {
	cases := []struct {
		name   string
		b      *update.Builder
		expr   string
		names  map[string]string
		values map[string]types.AttributeValue
	}{
		{"set reserved word", update.Set("status", "open"), "SET #0 = :0",
			map[string]string{"#0": "status"}, map[string]types.AttributeValue{":0": &types.AttributeValueMemberS{Value: "open"}}},
		{"add number", update.Add("count", 2), "ADD #0 :0",
			map[string]string{"#0": "count"}, map[string]types.AttributeValue{":0": &types.AttributeValueMemberN{Value: "2"}}},
		{"append creates", update.Append("votedBy", "B"), "SET #0 = list_append(if_not_exists(#0, :0), :1)",
			map[string]string{"#0": "votedBy"}, map[string]types.AttributeValue{
				":0": &types.AttributeValueMemberL{Value: []types.AttributeValue{}},
				":1": &types.AttributeValueMemberL{Value: []types.AttributeValue{&types.AttributeValueMemberS{Value: "B"}}},
			}},
		{"prepend slice", update.Prepend("recent", []int{1, 2}), "SET #0 = list_append(:0, if_not_exists(#0, :1))",
			map[string]string{"#0": "recent"}, map[string]types.AttributeValue{
				":0": &types.AttributeValueMemberL{Value: []types.AttributeValue{&types.AttributeValueMemberN{Value: "1"}, &types.AttributeValueMemberN{Value: "2"}}},
				":1": &types.AttributeValueMemberL{Value: []types.AttributeValue{}},
			}},
		{"set if not exists", update.SetIfNotExists("ttl", 5), "SET #0 = if_not_exists(#0, :0)",
			map[string]string{"#0": "ttl"}, map[string]types.AttributeValue{":0": &types.AttributeValueMemberN{Value: "5"}}},
		{"remove nested", update.Remove("data.items[3].name"), "REMOVE #0.#1[3].#2",
			map[string]string{"#0": "data", "#1": "items", "#2": "name"}, nil},
		{"delete from set", update.Delete("tags", []string{"a", "b"}), "DELETE #0 :0",
			map[string]string{"#0": "tags"}, map[string]types.AttributeValue{":0": &types.AttributeValueMemberSS{Value: []string{"a", "b"}}}},
		{"odd names stay whole", update.Set("my-attr:x#y", true), "SET #0 = :0",
			map[string]string{"#0": "my-attr:x#y"}, map[string]types.AttributeValue{":0": &types.AttributeValueMemberBOOL{Value: true}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			expr, err := tc.b.Build()
			require.NoError(t, err)
			assert.Equal(t, tc.expr, strings.TrimSpace(*expr.Update()))
			assert.Equal(t, tc.names, expr.Names())
			assert.Equal(t, tc.values, expr.Values())
		})
	}
}

func TestChainedActions(t *testing.T) {
	expr, err := update.Set("a", 1).Add("b", 2).Remove("c").Delete("d", []int{3}).Append("e.f", "x").Build()
	require.NoError(t, err)
	assert.Equal(t, "ADD #0 :0\nDELETE #1 :1\nREMOVE #2\nSET #3 = :2, #4.#5 = list_append(if_not_exists(#4.#5, :3), :4)\n", *expr.Update())
}

func TestBuilderErrors(t *testing.T) {
	cases := []struct {
		name string
		b    *update.Builder
		want error
	}{
		{"empty path", update.Set("", 1), update.ErrInvalidPath},
		{"double dot", update.Set("a..b", 1), update.ErrInvalidPath},
		{"leading dot", update.Set(".a", 1), update.ErrInvalidPath},
		{"trailing dot", update.Set("a.", 1), update.ErrInvalidPath},
		{"bad index", update.Set("a[x]", 1), update.ErrInvalidPath},
		{"negative index", update.Set("a[-1]", 1), update.ErrInvalidPath},
		{"empty index", update.Set("a[]", 1), update.ErrInvalidPath},
		{"unclosed", update.Set("a[1", 1), update.ErrInvalidPath},
		{"stray bracket", update.Set("a]", 1), update.ErrInvalidPath},
		{"index first", update.Set("[0]", 1), update.ErrInvalidPath},
		{"same path twice", update.Set("a", 1).Add("a", 1), update.ErrInvalidPath},
		{"parent and child", update.Set("a.b", 1).Remove("a"), update.ErrInvalidPath},
		{"element and list", update.Append("l", 1).Set("l[0]", 2), update.ErrInvalidPath},
		{"add string", update.Add("n", "1"), update.ErrInvalidValue},
		{"add bool", update.Add("n", true), update.ErrInvalidValue},
		{"add list", update.Add("n", []any{"a"}), update.ErrInvalidValue},
		{"add bytes", update.Add("n", []byte("x")), update.ErrInvalidValue},
		{"add nil", update.Add("n", nil), update.ErrInvalidValue},
		{"add empty set", update.Add("s", []string{}), update.ErrInvalidValue},
		{"delete empty set", update.Delete("s", []int{}), update.ErrInvalidValue},
		{"delete number", update.Delete("s", 1), update.ErrInvalidValue},
		{"delete string", update.Delete("s", "a"), update.ErrInvalidValue},
		{"duplicate set element", update.Add("s", []string{"a", "a"}), update.ErrInvalidValue},
		{"unmarshalable", update.Set("f", func() {}), update.ErrInvalidValue},
		{"no actions", &update.Builder{}, update.ErrNoActions},
		{"nil builder", nil, update.ErrNoActions},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := tc.b.Build()
			require.ErrorIs(t, err, tc.want)
			if tc.want != update.ErrNoActions {
				assert.Equal(t, tc.b.Err(), err, "Build reports the Builder's first error")
			}
		})
	}
}

func TestFirstErrorIsKept(t *testing.T) {
	b := update.Set("", 1).Add("x", "not a number").Set("ok", 1)
	assert.ErrorIs(t, b.Err(), update.ErrInvalidPath)
	assert.NotErrorIs(t, b.Err(), update.ErrInvalidValue)
	assert.Len(t, b.Paths(), 0, "no action after the error is kept")
	assert.EqualError(t, b.Err(), `Set(""): update: invalid path: empty`)
}

func TestNonOverlappingSiblings(t *testing.T) {
	_, err := update.Set("a.b", 1).Set("a.c", 2).Set("l[0]", 1).Set("l[1]", 2).Set("ab", 3).Build()
	require.NoError(t, err)
}

func TestSets(t *testing.T) {
	for _, tc := range []struct {
		v    any
		want types.AttributeValue
	}{
		{[]string{"x"}, &types.AttributeValueMemberSS{Value: []string{"x"}}},
		{[]int64{1, 2}, &types.AttributeValueMemberNS{Value: []string{"1", "2"}}},
		{[]float64{1.5}, &types.AttributeValueMemberNS{Value: []string{"1.5"}}},
		{[][]byte{{1}, {2}}, &types.AttributeValueMemberBS{Value: [][]byte{{1}, {2}}}},
		{&types.AttributeValueMemberSS{Value: []string{"y"}}, &types.AttributeValueMemberSS{Value: []string{"y"}}},
		{uint8(3), &types.AttributeValueMemberN{Value: "3"}},
	} {
		expr, err := update.Add("s", tc.v).Build()
		require.NoError(t, err, "%#v", tc.v)
		assert.Equal(t, tc.want, expr.Values()[":0"])
	}
}

func TestParsePath(t *testing.T) {
	p, err := update.ParsePath("a.b[2][0].c")
	require.NoError(t, err)
	assert.Equal(t, update.Path{{Name: "a"}, {Name: "b"}, {Index: 2}, {Index: 0}, {Name: "c"}}, p)
	assert.Equal(t, "a.b[2][0].c", p.String())
	assert.Equal(t, "a", p.Attribute())
}

// FuzzParsePath: the parser never panics, what it accepts renders back to
// an equal path, and the expression package accepts it as a name.
func FuzzParsePath(f *testing.F) {
	for _, s := range []string{"a", "a.b", "a[0]", "a.b[12].c", "", ".", "a..b", "a[", "a[x]", "[1]", "a]", "ü.ß[3]", "a[01]"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		p, err := update.ParsePath(s)
		if err != nil {
			if !errors.Is(err, update.ErrInvalidPath) {
				t.Fatalf("%q: unexpected error class: %v", s, err)
			}
			return
		}
		if len(p) == 0 || p[0].Name == "" {
			t.Fatalf("%q: parsed to %v, which does not start with a name", s, p)
		}
		again, err := update.ParsePath(p.String())
		if err != nil {
			t.Fatalf("%q rendered as %q, which does not parse: %v", s, p.String(), err)
		}
		if again.String() != p.String() || len(again) != len(p) {
			t.Fatalf("%q: %v, then %v", s, p, again)
		}
		if !p.Overlaps(again) {
			t.Fatalf("%q does not overlap itself", s)
		}
		if _, err := update.Remove(s).Build(); err != nil {
			t.Fatalf("%q: parsed but not buildable: %v", s, err)
		}
	})
}

func TestValuesDynamoDBRefuses(t *testing.T) {
	nan := math.NaN()
	for name, b := range map[string]*update.Builder{
		"NaN":                      update.Set("a", nan),
		"Inf in Add":               update.Add("n", math.Inf(1)),
		"NaN in a list":            update.Append("l", []float64{1, nan}),
		"chan in a map":            update.Set("m", map[string]any{"c": make(chan int)}),
		"complex":                  update.Set("z", complex(1, 2)),
		"out of range":             update.Set("a", 1e300),
		"big.Int by value":         update.Set("b", *big.NewInt(5)),
		"first error kept":         update.Set("a", nan).Set("", 1),
		"empty string set as such": update.Set("s", &types.AttributeValueMemberSS{}),
	} {
		_, err := b.Build()
		assert.ErrorIs(t, err, update.ErrInvalidValue, name)
	}
	for name, b := range map[string]*update.Builder{
		"big.Int by pointer": update.Set("b", big.NewInt(5)),
		"netip.Addr":         update.Set("ip", netip.MustParseAddr("192.0.2.1")),
		"time":               update.Set("t", time.Unix(0, 0)),
		"NaN as a string":    update.Set("s", "NaN"),
	} {
		_, err := b.Build()
		assert.NoError(t, err, name)
	}
	e, err := update.Set("ip", netip.MustParseAddr("192.0.2.1")).Build()
	require.NoError(t, err)
	assert.Contains(t, e.Values(), ":0")
	assert.Equal(t, &types.AttributeValueMemberS{Value: "192.0.2.1"}, e.Values()[":0"], "a TextMarshaler is stored as S")
}
