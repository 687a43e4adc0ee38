package unitproto

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/optimist-dynamo/optimist/dynamolocal"
	"github.com/optimist-dynamo/optimist/internal/ddbtest"
)

func sKey(id string) map[string]types.AttributeValue {
	return map[string]types.AttributeValue{"id": &types.AttributeValueMemberS{Value: id}}
}

// writePage adds refs to page n of unit id, as a unit logs its items.
func writePage(t *testing.T, c *dynamodb.Client, coord, id string, n int, refs []string) {
	t.Helper()
	_, err := c.UpdateItem(context.Background(), &dynamodb.UpdateItemInput{
		TableName: aws.String(coord), Key: PageKey(id, n),
		UpdateExpression:          aws.String("ADD #items :refs"),
		ExpressionAttributeNames:  map[string]string{"#items": RecItems},
		ExpressionAttributeValues: map[string]types.AttributeValue{":refs": &types.AttributeValueMemberSS{Value: refs}},
	})
	require.NoError(t, err)
}

func refsOf(t *testing.T, table string, ids ...string) []string {
	t.Helper()
	refs := make([]string, len(ids))
	for i, id := range ids {
		var err error
		refs[i], err = EncodeKey(table, sKey(id))
		require.NoError(t, err)
	}
	return refs
}

// readKeys reads a unit's pages up to its last one, which it tells by its
// fill; a list it cannot read whole is "every item".
func TestReadKeys(t *testing.T) {
	c := dynamolocal.New(t).Client()
	coord := ddbtest.CreateTable(t, c, RecID, types.ScalarAttributeTypeS, "", "")
	cc := ddbtest.NewCounting(c)
	ctx := context.Background()
	many := func(prefix string, n int) []string {
		ids := make([]string, n)
		for i := range ids {
			ids[i] = fmt.Sprintf("%s-%05d", prefix, i)
		}
		return ids
	}
	long := strings.Repeat("x", 1000) // refs of about 1 KB: a page fills by bytes
	cases := []struct {
		name  string
		pages [][]string // ids per page; nil: no page
		all   bool
		reads int64
	}{
		{"one page", [][]string{{"a", "b"}}, false, 1},
		{"no page: finished", nil, true, 1},
		{"full by count, two pages", [][]string{many("a", PageItems), {"z"}}, false, 2},
		{"full by count, next missing", [][]string{many("a", PageItems)}, true, 2},
		{"full by bytes, two pages", [][]string{many(long, 290), {"z"}}, false, 2},
		{"almost full by count", [][]string{many("a", PageItems-1)}, false, 1},
	}
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			id := fmt.Sprintf("unit-%d", i)
			var want []string
			for n, ids := range tc.pages {
				writePage(t, c, coord, id, n, refsOf(t, "items", ids...))
				want = append(want, ids...)
			}
			cc.Reset()
			ks, err := readKeys(ctx, cc, coord, id)
			require.NoError(t, err)
			assert.Equal(t, tc.all, ks.all)
			assert.Equal(t, tc.reads, cc.Count("GetItem"), "pages read")
			if !tc.all {
				assert.Len(t, ks.ids, len(want))
				for _, w := range want {
					assert.True(t, ks.has(ItemID("items", sKey(w))), w)
				}
				assert.False(t, ks.has(ItemID("items", sKey("other"))))
				assert.False(t, ks.has(ItemID("other", sKey(want[0]))), "another table's item")
			}
		})
	}
}

// maxRefLen bounds any reference EncodeKey makes of a key DynamoDB takes.
func TestMaxRefLen(t *testing.T) {
	ctl := func(n int) string { return strings.Repeat("\x01", n) } // escaped as \u0001
	key := map[string]types.AttributeValue{
		ctl(255):          &types.AttributeValueMemberS{Value: ctl(2048)},
		ctl(254) + "\x02": &types.AttributeValueMemberB{Value: []byte(ctl(1024))},
	}
	ref, err := EncodeKey(strings.Repeat("a", 255), key)
	require.NoError(t, err)
	assert.LessOrEqual(t, len(ref), maxRefLen)
}

// What Resolve reads to rule out a committed unit shown half applied: the
// unit's item list only when an item of the call carries no lock of it,
// and the call again only when such an item is on the list.
func TestResolveReadsTheListOnlyWhenNeeded(t *testing.T) {
	c := dynamolocal.New(t).Client()
	ctx := context.Background()
	coord := ddbtest.CreateTable(t, c, RecID, types.ScalarAttributeTypeS, "", "")
	table := ddbtest.CreateTable(t, c, "id", types.ScalarAttributeTypeS, "", "")
	const unit = "u1"
	_, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(coord), Item: map[string]types.AttributeValue{
		RecID: &types.AttributeValueMemberS{Value: unit}, RecState: &types.AttributeValueMemberS{Value: StateCommitted}}})
	require.NoError(t, err)
	writePage(t, c, coord, unit, 0, refsOf(t, table, "a", "b"))
	item := func(id, val string) map[string]types.AttributeValue {
		return map[string]types.AttributeValue{"id": &types.AttributeValueMemberS{Value: id}, "val": &types.AttributeValueMemberS{Value: val}}
	}
	// a: prepared by the committed unit (a put of "new"); b, on its list,
	// and c, not on it, carry nothing of it.
	a := item("a", "old")
	lock := NewLock(unit, coord, "owner", false)
	lock[FPrepared], lock[FKind], lock[FAfter] = avTrue(), avS(KindPut), &types.AttributeValueMemberM{Value: item("a", "new")}
	a[Attr] = &types.AttributeValueMemberM{Value: lock}
	for _, it := range []map[string]types.AttributeValue{a, item("b", "old"), item("c", "old")} {
		_, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(table), Item: it})
		require.NoError(t, err)
	}
	stored := map[string]map[string]types.AttributeValue{"a": a, "b": item("b", "old"), "c": item("c", "old")}
	cc := ddbtest.NewCounting(c)
	for _, tc := range []struct {
		ids   []string
		pages int64 // GetItems of the list's pages
		again int64 // TransactGetItems of the call's items
	}{
		{[]string{"a"}, 0, 0},           // one item: nothing else to show half
		{[]string{"a", "c"}, 1, 0},      // c is not the unit's
		{[]string{"a", "b"}, 1, 1},      // b may have been read before the unit locked it
		{[]string{"a", "c", "b"}, 1, 1}, // the whole call is read again, in one snapshot
	} {
		t.Run(strings.Join(tc.ids, ""), func(t *testing.T) {
			items := make([]map[string]types.AttributeValue, len(tc.ids))
			for i, id := range tc.ids {
				items[i] = stored[id]
			}
			cc.Reset()
			_, err := Resolve(ctx, items, GetItemReader(c), cc, func(i int) (string, map[string]types.AttributeValue) {
				return table, sKey(tc.ids[i])
			})
			require.NoError(t, err)
			assert.Equal(t, tc.pages, cc.Count("GetItem"), "pages read")
			assert.Equal(t, tc.again, cc.Count("TransactGetItems"), "reads again")
			assert.Equal(t, "new", items[0]["val"].(*types.AttributeValueMemberS).Value)
		})
	}
}
