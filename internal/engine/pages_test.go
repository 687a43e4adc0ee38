package engine_test

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/optimist-dynamo/optimist/internal/engine"
)

// pagesFixture creates table "pages" (pk S, sk N) with a GSI "byg" on g
// (hash only, KEYS_ONLY: many ties) and a GSI "bygr" on g, r (ALL), and an
// LSI "byr" on r, and puts 60 items over 13 partitions. Every third item
// lacks g and every fifth lacks r, so the indexes are sparse.
func pagesFixture(t *testing.T, c *dynamodb.Client) (all []string) {
	t.Helper()
	ctx := context.Background()
	s := func(n string) *string { return aws.String(n) }
	_, err := c.CreateTable(ctx, &dynamodb.CreateTableInput{
		TableName: s("pages"),
		KeySchema: []types.KeySchemaElement{{AttributeName: s("pk"), KeyType: types.KeyTypeHash}, {AttributeName: s("sk"), KeyType: types.KeyTypeRange}},
		AttributeDefinitions: []types.AttributeDefinition{
			{AttributeName: s("pk"), AttributeType: types.ScalarAttributeTypeS}, {AttributeName: s("sk"), AttributeType: types.ScalarAttributeTypeN},
			{AttributeName: s("g"), AttributeType: types.ScalarAttributeTypeS}, {AttributeName: s("r"), AttributeType: types.ScalarAttributeTypeN},
		},
		GlobalSecondaryIndexes: []types.GlobalSecondaryIndex{
			{IndexName: s("byg"), KeySchema: []types.KeySchemaElement{{AttributeName: s("g"), KeyType: types.KeyTypeHash}}, Projection: &types.Projection{ProjectionType: types.ProjectionTypeKeysOnly}},
			{IndexName: s("bygr"), KeySchema: []types.KeySchemaElement{{AttributeName: s("g"), KeyType: types.KeyTypeHash}, {AttributeName: s("r"), KeyType: types.KeyTypeRange}}, Projection: &types.Projection{ProjectionType: types.ProjectionTypeAll}},
		},
		LocalSecondaryIndexes: []types.LocalSecondaryIndex{
			{IndexName: s("byr"), KeySchema: []types.KeySchemaElement{{AttributeName: s("pk"), KeyType: types.KeyTypeHash}, {AttributeName: s("r"), KeyType: types.KeyTypeRange}}, Projection: &types.Projection{ProjectionType: types.ProjectionTypeKeysOnly}},
		},
		BillingMode: types.BillingModePayPerRequest,
	})
	require.NoError(t, err)
	for i := 0; i < 60; i++ {
		it := map[string]types.AttributeValue{
			"pk": &types.AttributeValueMemberS{Value: "p" + strconv.Itoa(i%13)},
			"sk": &types.AttributeValueMemberN{Value: strconv.Itoa(i)},
		}
		if i%3 != 0 {
			it["g"] = &types.AttributeValueMemberS{Value: "g" + strconv.Itoa(i%2)}
		}
		if i%5 != 0 {
			it["r"] = &types.AttributeValueMemberN{Value: strconv.Itoa(i % 4)}
		}
		_, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: s("pages"), Item: it})
		require.NoError(t, err)
		all = append(all, keyText(it))
	}
	sort.Strings(all)
	return all
}

func keyText(it map[string]types.AttributeValue) string {
	return it["pk"].(*types.AttributeValueMemberS).Value + "/" + it["sk"].(*types.AttributeValueMemberN).Value
}

// TestScanPages pages through Scans of the table and its indexes with
// every Limit and parallel segment count: the pages of all segments hold
// every item the index holds exactly once.
func TestScanPages(t *testing.T) {
	ctx := context.Background()
	c := client(engine.New())
	all := pagesFixture(t, c)
	want := map[string][]string{"": all}
	for _, ix := range []string{"byg", "bygr", "byr"} {
		var keys []string
		for _, k := range all {
			i, _ := strconv.Atoi(strings.Split(k, "/")[1])
			if (ix == "byr" && i%5 != 0) || (ix == "byg" && i%3 != 0) || (ix == "bygr" && i%3 != 0 && i%5 != 0) {
				keys = append(keys, k)
			}
		}
		want[ix] = keys
	}
	for ix, keys := range want {
		for _, total := range []int32{1, 2, 3, 7} {
			for _, limit := range []int32{1, 4, 100} {
				t.Run(fmt.Sprintf("%s/segments=%d/limit=%d", ix, total, limit), func(t *testing.T) {
					var got []string
					for seg := int32(0); seg < total; seg++ {
						in := &dynamodb.ScanInput{TableName: aws.String("pages"), Limit: aws.Int32(limit)}
						if ix != "" {
							in.IndexName = aws.String(ix)
						}
						if total > 1 {
							in.Segment, in.TotalSegments = aws.Int32(seg), aws.Int32(total)
						}
						for p := dynamodb.NewScanPaginator(c, in); p.HasMorePages(); {
							out, err := p.NextPage(ctx)
							require.NoError(t, err)
							require.LessOrEqual(t, int(out.Count), int(limit))
							for _, it := range out.Items {
								got = append(got, keyText(it))
							}
						}
					}
					sort.Strings(got)
					assert.Equal(t, keys, got)
				})
			}
		}
	}
}

// TestQueryPages pages through Queries forward and backward: the pages
// joined are the whole answer in order, on the table and on indexes with
// ties in their range key.
func TestQueryPages(t *testing.T) {
	ctx := context.Background()
	c := client(engine.New())
	pagesFixture(t, c)
	cases := []struct {
		index, kc string
		values    map[string]types.AttributeValue
	}{
		{"", "pk = :p", map[string]types.AttributeValue{":p": &types.AttributeValueMemberS{Value: "p3"}}},
		{"", "pk = :p AND sk BETWEEN :a AND :b", map[string]types.AttributeValue{":p": &types.AttributeValueMemberS{Value: "p3"}, ":a": &types.AttributeValueMemberN{Value: "10"}, ":b": &types.AttributeValueMemberN{Value: "50"}}},
		{"byg", "g = :g", map[string]types.AttributeValue{":g": &types.AttributeValueMemberS{Value: "g1"}}},
		{"bygr", "g = :g AND r >= :r", map[string]types.AttributeValue{":g": &types.AttributeValueMemberS{Value: "g0"}, ":r": &types.AttributeValueMemberN{Value: "1"}}},
		{"byr", "pk = :p", map[string]types.AttributeValue{":p": &types.AttributeValueMemberS{Value: "p1"}}},
	}
	for _, tc := range cases {
		for _, forward := range []bool{true, false} {
			in := &dynamodb.QueryInput{TableName: aws.String("pages"), KeyConditionExpression: aws.String(tc.kc),
				ExpressionAttributeValues: tc.values, ScanIndexForward: aws.Bool(forward)}
			if tc.index != "" {
				in.IndexName = aws.String(tc.index)
			}
			whole, err := c.Query(ctx, in)
			require.NoError(t, err)
			require.Nil(t, whole.LastEvaluatedKey)
			require.NotEmpty(t, whole.Items)
			var want []string
			for _, it := range whole.Items {
				want = append(want, keyText(it))
			}
			for _, limit := range []int32{1, 2, 5} {
				t.Run(fmt.Sprintf("%s/%s/forward=%v/limit=%d", tc.index, tc.kc, forward, limit), func(t *testing.T) {
					paged := *in
					paged.Limit = aws.Int32(limit)
					var got []string
					pages := 0
					for p := dynamodb.NewQueryPaginator(c, &paged); p.HasMorePages(); pages++ {
						out, err := p.NextPage(ctx)
						require.NoError(t, err)
						for _, it := range out.Items {
							got = append(got, keyText(it))
						}
					}
					assert.Equal(t, want, got)
					// A page that ends at Limit has a LastEvaluatedKey even
					// when nothing follows, as on DynamoDB Local.
					assert.Equal(t, len(want)/int(limit)+1, pages)
				})
			}
		}
	}
}
