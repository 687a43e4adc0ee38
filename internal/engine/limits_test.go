package engine_test

import (
	"context"
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

// bigItems creates table name (pk S, sk N) and puts n items of partition
// "a", sk from first, each with an attribute d of size bytes.
func bigItems(t *testing.T, c *dynamodb.Client, name string, first, n, size int) {
	t.Helper()
	ctx := context.Background()
	_, err := c.CreateTable(ctx, &dynamodb.CreateTableInput{
		TableName:            aws.String(name),
		KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}, {AttributeName: aws.String("sk"), KeyType: types.KeyTypeRange}},
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS}, {AttributeName: aws.String("sk"), AttributeType: types.ScalarAttributeTypeN}},
		BillingMode:          types.BillingModePayPerRequest,
	})
	require.NoError(t, err)
	d := strings.Repeat("x", size)
	for i := first; i < first+n; i++ {
		_, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(name), Item: map[string]types.AttributeValue{
			"pk": &types.AttributeValueMemberS{Value: "a"}, "sk": &types.AttributeValueMemberN{Value: strconv.Itoa(i)},
			"d": &types.AttributeValueMemberS{Value: d},
		}})
		require.NoError(t, err)
	}
}

// TestPageLimit: a Query or Scan stops after the item that brings what it
// read to 1 MB, whatever it returns of it. The figures are DynamoDB
// Local's for the same five items of 300 KB.
func TestPageLimit(t *testing.T) {
	ctx := context.Background()
	c := client(engine.New())
	bigItems(t, c, "big", 1, 5, 300*1024-7)
	key := func(sk string) map[string]types.AttributeValue {
		return map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: "a"}, "sk": &types.AttributeValueMemberN{Value: sk}}
	}
	q := &dynamodb.QueryInput{TableName: aws.String("big"), KeyConditionExpression: aws.String("pk = :v"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":v": &types.AttributeValueMemberS{Value: "a"}},
		Select:                    types.SelectCount, ReturnConsumedCapacity: types.ReturnConsumedCapacityTotal}
	out, err := c.Query(ctx, q)
	require.NoError(t, err)
	assert.Equal(t, int32(4), out.Count)
	assert.Equal(t, int32(4), out.ScannedCount)
	assert.Equal(t, key("4"), out.LastEvaluatedKey)
	assert.Equal(t, 150.5, *out.ConsumedCapacity.CapacityUnits)

	q.ExclusiveStartKey = out.LastEvaluatedKey
	out, err = c.Query(ctx, q)
	require.NoError(t, err)
	assert.Equal(t, int32(1), out.Count)
	assert.Nil(t, out.LastEvaluatedKey)
	assert.Equal(t, 38.0, *out.ConsumedCapacity.CapacityUnits)

	s, err := c.Scan(ctx, &dynamodb.ScanInput{TableName: aws.String("big"), ProjectionExpression: aws.String("pk"),
		ConsistentRead: aws.Bool(true), ReturnConsumedCapacity: types.ReturnConsumedCapacityTotal})
	require.NoError(t, err)
	assert.Equal(t, int32(4), s.Count)
	assert.Equal(t, key("4"), s.LastEvaluatedKey)
	assert.Equal(t, 301.0, *s.ConsumedCapacity.CapacityUnits)
}

// TestBatchGetLimit: BatchGetItem returns at most 16 MB of items (their
// size as read, whatever the projection) and the rest as UnprocessedKeys,
// with the table's parameters. DynamoDB Local returns 42 of these 45 items
// of 390 KB and charges 2058 units.
func TestBatchGetLimit(t *testing.T) {
	ctx := context.Background()
	c := client(engine.New())
	bigItems(t, c, "big", 10, 45, 390*1024)
	var keys []map[string]types.AttributeValue
	for i := 10; i < 55; i++ {
		keys = append(keys, map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: "a"}, "sk": &types.AttributeValueMemberN{Value: strconv.Itoa(i)}})
	}
	out, err := c.BatchGetItem(ctx, &dynamodb.BatchGetItemInput{
		RequestItems:           map[string]types.KeysAndAttributes{"big": {Keys: keys, ProjectionExpression: aws.String("sk")}},
		ReturnConsumedCapacity: types.ReturnConsumedCapacityTotal,
	})
	require.NoError(t, err)
	assert.Len(t, out.Responses["big"], 42)
	require.Contains(t, out.UnprocessedKeys, "big")
	assert.Len(t, out.UnprocessedKeys["big"].Keys, 3)
	assert.Equal(t, "sk", aws.ToString(out.UnprocessedKeys["big"].ProjectionExpression))
	require.Len(t, out.ConsumedCapacity, 1)
	assert.Equal(t, 2058.0, *out.ConsumedCapacity[0].CapacityUnits)
	got := map[string]bool{}
	for _, it := range out.Responses["big"] {
		got[it["sk"].(*types.AttributeValueMemberN).Value] = true
	}
	for _, k := range out.UnprocessedKeys["big"].Keys {
		sk := k["sk"].(*types.AttributeValueMemberN).Value
		assert.False(t, got[sk], "key %s both returned and unprocessed", sk)
		got[sk] = true
	}
	assert.Len(t, got, 45)

	_, err = c.BatchGetItem(ctx, &dynamodb.BatchGetItemInput{RequestItems: map[string]types.KeysAndAttributes{
		"big": {Keys: append(keys, keys...)[:101]},
	}})
	assert.ErrorContains(t, err, "Too many items requested for the BatchGetItem call")
}
