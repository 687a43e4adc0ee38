package mapper

import (
	"encoding/base64"
	"encoding/json"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestReadOptionsPerCall checks, for every option and call, that the call
// accepts exactly the options of ReadOption's table.
func TestReadOptionsPerCall(t *testing.T) {
	cursor := Cursor("x")
	opts := map[string]ReadOption{
		"ConsistentRead": ConsistentRead(true),
		"Project":        Project("a"),
		"Index":          Index("idx"),
		"Filter":         Filter(expression.Name("a").Equal(expression.Value(1))),
		"Descending":     Descending(),
		"Limit":          Limit(3),
		"PageSize":       PageSize(3),
		"StartAfter":     StartAfter(cursor),
		"Segments":       Segments(2),
		"ReadCapacity":   ReadCapacity(&Capacity{}),
	}
	accepts := map[string][]string{
		"Get":       {"ConsistentRead", "Project", "ReadCapacity"},
		"GetAll":    {"ConsistentRead", "Project"},
		"Query":     {"ConsistentRead", "Project", "Index", "Filter", "Descending", "Limit", "PageSize", "StartAfter", "ReadCapacity"},
		"Scan":      {"ConsistentRead", "Project", "Index", "Filter", "Limit", "PageSize", "StartAfter", "Segments", "ReadCapacity"},
		"One":       {"ConsistentRead", "Project", "Index", "Filter", "PageSize", "StartAfter", "ReadCapacity"},
		"Count":     {"ConsistentRead", "Index", "Filter", "PageSize", "StartAfter", "ReadCapacity"},
		"ScanCount": {"ConsistentRead", "Index", "Filter", "PageSize", "StartAfter", "Segments", "ReadCapacity"},
	}
	calls := map[string]readCall{"Get": callGet, "GetAll": callGetAll, "Query": callQuery, "Scan": callScan,
		"One": callOne, "Count": callCount, "ScanCount": callScanCount}
	for callName, call := range calls {
		for optName, o := range opts {
			_, err := newReadConfig(call, []ReadOption{o})
			if contains(accepts[callName], optName) {
				assert.NoError(t, err, "%s(%s)", callName, optName)
			} else {
				assert.ErrorIs(t, err, ErrInvalidOption, "%s(%s)", callName, optName)
				assert.ErrorContains(t, err, optName+" does not apply to "+callName)
			}
		}
	}
	_, err := newReadConfig(callScan, []ReadOption{Segments(2), StartAfter("")})
	assert.ErrorIs(t, err, ErrInvalidOption, "StartAfter with Segments, even an empty cursor")
	for _, all := range [][]ReadOption{{Limit(1), PageSize(1), Segments(maxSegments), ConsistentRead(false)}} {
		_, err := newReadConfig(callCursor, all)
		assert.NoError(t, err, "CursorAfter ignores the options it does not use")
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func TestReadOptionValues(t *testing.T) {
	bad := map[string]ReadOption{
		"Limit(0)":             Limit(0),
		"Limit(-1)":            Limit(-1),
		"PageSize(0)":          PageSize(0),
		"Segments(0)":          Segments(0),
		"Segments(too many)":   Segments(maxSegments + 1),
		"Index empty":          Index(""),
		"Index three keys":     Index("i", "a", "b", "c"),
		"Index empty key":      Index("i", "a", ""),
		"Filter unset":         Filter(expression.ConditionBuilder{}),
		"Project nothing":      Project(),
		"Project empty name":   Project("a", ""),
		"nil option":           nil,
		"second error ignored": func(o *ReadOptions) { o.fail("first"); o.fail("second") },
		"Limit set by hand":    func(o *ReadOptions) { o.Limit = -1 },
		"keys without index":   func(o *ReadOptions) { o.IndexKeys = []string{"a"} },
	}
	for name, o := range bad {
		_, err := newReadConfig(callScan, []ReadOption{o})
		assert.ErrorIs(t, err, ErrInvalidOption, name)
	}
	_, err := newReadConfig(callScan, []ReadOption{Limit(0), PageSize(0)})
	assert.ErrorContains(t, err, "Limit(0)", "the first error is reported")

	c, err := newReadConfig(callQuery, []ReadOption{Limit(5), Limit(7), Project("a"), Project("b", "c"), Index("x"), Index("y", "h")})
	require.NoError(t, err)
	assert.Equal(t, 7, c.limit, "the last one wins")
	assert.Equal(t, []string{"a", "b", "c"}, c.project, "projections add up")
	assert.Equal(t, "y", c.index)
	assert.Equal(t, []string{"h"}, c.indexKeys)

	c, err = newReadConfig(callGet, nil)
	require.NoError(t, err)
	assert.True(t, c.consistent, "Get reads consistently by default")
	c, _ = newReadConfig(callGetAll, nil)
	assert.True(t, c.consistent, "GetAll too")
	c, _ = newReadConfig(callQuery, nil)
	assert.False(t, c.consistent, "Query does not")
	c, _ = newReadConfig(callScan, []ReadOption{ConsistentRead(true)})
	assert.True(t, c.consistent)
}

func TestPageLimit(t *testing.T) {
	i32 := func(n int32) *int32 { return &n }
	filter := Filter(expression.Name("a").Equal(expression.Value(1)))
	for _, tc := range []struct {
		name string
		opts []ReadOption
		n    int
		want *int32
	}{
		{"nothing", nil, 0, nil},
		{"page size", []ReadOption{PageSize(7)}, 0, i32(7)},
		{"limit caps", []ReadOption{Limit(10)}, 4, i32(6)},
		{"smaller of the two", []ReadOption{Limit(10), PageSize(7)}, 0, i32(7)},
		{"smaller of the two, later", []ReadOption{Limit(10), PageSize(7)}, 7, i32(3)},
		{"filter: limit does not cap", []ReadOption{Limit(10), filter}, 4, nil},
		{"filter: page size stays", []ReadOption{Limit(10), PageSize(50), filter}, 9, i32(50)},
		{"huge page size", []ReadOption{PageSize(1 << 40)}, 0, i32(1<<31 - 1)},
	} {
		c, err := newReadConfig(callQuery, tc.opts)
		require.NoError(t, err)
		assert.Equal(t, tc.want, pageLimit(&c, tc.n), tc.name)
	}
}

type cursorItem struct {
	PK     string `dynamo:"pk,hash"`
	SK     int    `dynamo:"sk,range"`
	Status string `dynamo:"status,omitempty"`
	At     []byte `dynamo:"at"`
	Text   string `dynamo:"text"`
}

func newTestTable[T any](t *testing.T, name string) *Table[T] {
	t.Helper()
	tb, err := NewTable[T](nopClient{}, name)
	require.NoError(t, err)
	return tb
}

func TestCursorRoundTrip(t *testing.T) {
	tb := newTestTable[cursorItem](t, "events")
	item := &cursorItem{PK: "a/b?c", SK: -12, Status: "open", At: []byte{0, 1, 255}, Text: "not in the cursor"}

	c, err := tb.CursorAfter(item)
	require.NoError(t, err)
	assert.Regexp(t, `^[A-Za-z0-9_-]+$`, string(c), "URL-safe, unpadded")
	raw, err := base64.RawURLEncoding.DecodeString(string(c))
	require.NoError(t, err)
	assert.JSONEq(t, `{"t":"events","k":{"pk":{"S":"a/b?c"},"sk":{"N":"-12"}}}`, string(raw))

	cfg, err := newReadConfig(callQuery, []ReadOption{StartAfter(c)})
	require.NoError(t, err)
	key, err := tb.startKey(&cfg)
	require.NoError(t, err)
	assert.Equal(t, map[string]types.AttributeValue{
		"pk": &types.AttributeValueMemberS{Value: "a/b?c"},
		"sk": &types.AttributeValueMemberN{Value: "-12"},
	}, key)

	// On an index: its keys join the table's, B included.
	byStatus := Index("by-status", "status", "at")
	c, err = tb.CursorAfter(item, byStatus, Limit(3))
	require.NoError(t, err)
	raw, _ = base64.RawURLEncoding.DecodeString(string(c))
	assert.JSONEq(t, `{"t":"events","i":"by-status","k":{"pk":{"S":"a/b?c"},"sk":{"N":"-12"},"status":{"S":"open"},"at":{"B":"AAH/"}}}`, string(raw))
	cfg, err = newReadConfig(callQuery, []ReadOption{byStatus, StartAfter(c)})
	require.NoError(t, err)
	key, err = tb.startKey(&cfg)
	require.NoError(t, err)
	assert.Equal(t, &types.AttributeValueMemberB{Value: []byte{0, 1, 255}}, key["at"])
	assert.Len(t, key, 4)

	// An empty cursor starts at the beginning.
	cfg, _ = newReadConfig(callQuery, []ReadOption{StartAfter("")})
	key, err = tb.startKey(&cfg)
	require.NoError(t, err)
	assert.Nil(t, key)
}

func TestCursorErrors(t *testing.T) {
	tb := newTestTable[cursorItem](t, "events")
	other := newTestTable[cursorItem](t, "other")
	item := &cursorItem{PK: "a", SK: 1, Status: "open", At: []byte{1}}

	_, err := tb.CursorAfter(item, Index("by-status"))
	assert.ErrorIs(t, err, ErrInvalidOption, "an index cursor needs the index keys")
	_, err = tb.CursorAfter(item, Index("by-x", "nope"))
	assert.ErrorIs(t, err, ErrInvalidOption, "not a field")
	_, err = tb.CursorAfter(&cursorItem{PK: "a", SK: 1}, Index("by-status", "status"))
	assert.ErrorIs(t, err, ErrInvalidItem, "an empty index key")
	_, err = tb.CursorAfter(&cursorItem{SK: 1})
	assert.ErrorIs(t, err, ErrInvalidItem, "an empty table key")
	_, err = tb.CursorAfter(nil)
	assert.Error(t, err)
	_, err = tb.CursorAfter(item, Limit(0))
	assert.ErrorIs(t, err, ErrInvalidOption, "bad values are still reported")

	onTable, err := tb.CursorAfter(item)
	require.NoError(t, err)
	onIndex, err := tb.CursorAfter(item, Index("by-status", "status"))
	require.NoError(t, err)
	enc := func(v any) Cursor {
		b, err := json.Marshal(v)
		require.NoError(t, err)
		return Cursor(base64.RawURLEncoding.EncodeToString(b))
	}
	for name, tc := range map[string]struct {
		table *Table[cursorItem]
		opts  []ReadOption
		msg   string
	}{
		"other table":          {other, []ReadOption{StartAfter(onTable)}, `taken on table "events", not "other"`},
		"table cursor, index":  {tb, []ReadOption{StartAfter(onTable), Index("by-status")}, `not on its index "by-status"`},
		"index cursor, table":  {tb, []ReadOption{StartAfter(onIndex)}, `taken on index "by-status"; give Index("by-status")`},
		"index cursor, other":  {tb, []ReadOption{StartAfter(onIndex), Index("by-x")}, `taken on index "by-status", not "by-x"`},
		"index keys not there": {tb, []ReadOption{StartAfter(onIndex), Index("by-status", "status", "at")}, `lacks key attribute "at"`},
		"not base64":           {tb, []ReadOption{StartAfter("!!")}, "malformed cursor"},
		"not JSON":             {tb, []ReadOption{StartAfter(Cursor(base64.RawURLEncoding.EncodeToString([]byte("{"))))}, "malformed cursor"},
		"no key":               {tb, []ReadOption{StartAfter(enc(map[string]any{"t": "events"}))}, "no table or key"},
		"two types":            {tb, []ReadOption{StartAfter(enc(map[string]any{"t": "events", "k": map[string]any{"pk": map[string]string{"S": "a", "N": "1"}}}))}, "one of S, N, B"},
		"no type":              {tb, []ReadOption{StartAfter(enc(map[string]any{"t": "events", "k": map[string]any{"pk": map[string]string{}}}))}, "one of S, N, B"},
		"table key missing":    {tb, []ReadOption{StartAfter(enc(map[string]any{"t": "events", "k": map[string]any{"pk": map[string]string{"S": "a"}}}))}, `lacks key attribute "sk"`},
	} {
		cfg, err := newReadConfig(callQuery, tc.opts)
		require.NoError(t, err, name)
		_, err = tc.table.startKey(&cfg)
		assert.ErrorIs(t, err, ErrInvalidOption, name)
		assert.ErrorContains(t, err, tc.msg, name)
	}
}

func TestProjectionAddsKeys(t *testing.T) {
	tb := newTestTable[cursorItem](t, "events")
	c, err := newReadConfig(callQuery, []ReadOption{Project("text", "pk"), Index("by-status", "status", "sk")})
	require.NoError(t, err)
	names, user := tb.projection(&c, nil)
	assert.Equal(t, []string{"text", "pk", "sk", "status", "optimist_unit"}, names)
	assert.Equal(t, 2, user)
	c, _ = newReadConfig(callQuery, []ReadOption{Project("text", "text")})
	names, user = tb.projection(&c, nil)
	assert.Equal(t, []string{"text", "pk", "sk", "optimist_unit"}, names)
	assert.Equal(t, 1, user, "counted after removing repeats")

	c, _ = newReadConfig(callQuery, []ReadOption{Project("text", "pk"), Index("by-status", "status", "sk")})

	e, ok, err := tb.readExpression(&c, nil)
	require.NoError(t, err)
	require.True(t, ok)
	assert.Len(t, e.Names(), 5)

	c, _ = newReadConfig(callQuery, []ReadOption{Project("info.tags[1]")})
	e, _, err = tb.readExpression(&c, nil)
	require.NoError(t, err)
	assert.Equal(t, "#0.#1[1], #2, #3, #4", aws.ToString(e.Projection()), "user names may be paths")

	c, _ = newReadConfig(callQuery, nil)
	_, ok, err = tb.readExpression(&c, nil)
	require.NoError(t, err)
	assert.False(t, ok, "no expression at all")
}

func TestBuildQuery(t *testing.T) {
	tb := newTestTable[cursorItem](t, "events")
	opts := []ReadOption{
		Index("by-status", "status"), Descending(),
		Filter(expression.Name("text").AttributeExists()), Filter(expression.Name("at").AttributeExists()),
	}
	key := expression.Key("status").Equal(expression.Value("open"))
	p, err := tb.readPager(callQuery, opts, &key, false)
	require.NoError(t, err)
	in := p.query
	assert.Equal(t, &dynamodb.QueryInput{
		TableName:              aws.String("events"),
		IndexName:              aws.String("by-status"),
		KeyConditionExpression: aws.String("#4 = :0"),
		// Items a unit prepared come back whatever the filter says; the
		// reader evaluates it again on what it shows of them.
		FilterExpression:          aws.String("((attribute_exists (#0)) AND (attribute_exists (#1))) OR (attribute_exists (#2.#3))"),
		ExpressionAttributeNames:  map[string]string{"#0": "text", "#1": "at", "#2": "optimist_unit", "#3": "p", "#4": "status"},
		ExpressionAttributeValues: map[string]types.AttributeValue{":0": &types.AttributeValueMemberS{Value: "open"}},
		ScanIndexForward:          aws.Bool(false),
	}, in)

	_, err = tb.readPager(callQuery, opts, &expression.KeyConditionBuilder{}, false)
	assert.ErrorIs(t, err, ErrInvalidOption, "no key condition")
}
