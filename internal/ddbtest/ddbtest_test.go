package ddbtest

import (
	"context"
	"errors"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/optimist-dynamo/optimist/dynamolocal"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func key(pk string) map[string]types.AttributeValue {
	return map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: pk}}
}

func item(pk, val string) map[string]types.AttributeValue {
	return map[string]types.AttributeValue{
		"pk":  &types.AttributeValueMemberS{Value: pk},
		"val": &types.AttributeValueMemberS{Value: val},
	}
}

func getItem(t *testing.T, c *dynamodb.Client, table, pk string) map[string]types.AttributeValue {
	t.Helper()
	out, err := c.GetItem(context.Background(), &dynamodb.GetItemInput{
		TableName: aws.String(table), Key: key(pk), ConsistentRead: aws.Bool(true)})
	require.NoError(t, err)
	return out.Item
}

var validName = regexp.MustCompile(`^[a-zA-Z0-9_.-]{3,255}$`)

func TestTableName(t *testing.T) {
	a, b := TableName(t), TableName(t)
	assert.NotEqual(t, a, b)
	assert.True(t, strings.HasPrefix(a, "TestTableName-"), a)
	assert.Regexp(t, validName, a)

	t.Run("odd chars/and spaces: é ü "+strings.Repeat("long", 100), func(t *testing.T) {
		n := TableName(t)
		assert.Regexp(t, validName, n)
		assert.True(t, strings.HasPrefix(n, "TestTableName_odd_chars_and_spaces"), n)
		assert.LessOrEqual(t, len(n), 255)
	})
}

func TestCreateTable(t *testing.T) {
	c := dynamolocal.New(t).Client()
	ctx := context.Background()
	var name string
	t.Run("hash and range", func(t *testing.T) {
		name = CreateTable(t, c, "pk", types.ScalarAttributeTypeS, "sk", types.ScalarAttributeTypeN)
		out, err := c.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(name)})
		require.NoError(t, err)
		assert.Equal(t, types.TableStatusActive, out.Table.TableStatus)
		require.Len(t, out.Table.KeySchema, 2)
		assert.Equal(t, "sk", *out.Table.KeySchema[1].AttributeName)
		assert.Equal(t, types.KeyTypeRange, out.Table.KeySchema[1].KeyType)
		assert.Equal(t, types.BillingModePayPerRequest, out.Table.BillingModeSummary.BillingMode)
	})
	// The subtest's cleanup deleted the table.
	_, err := c.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(name)})
	var notFound *types.ResourceNotFoundException
	require.ErrorAs(t, err, &notFound)

	t.Run("hash only, deleted by the test itself", func(t *testing.T) {
		name := CreateTable(t, c, "id", types.ScalarAttributeTypeB, "", "")
		out, err := c.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(name)})
		require.NoError(t, err)
		require.Len(t, out.Table.KeySchema, 1)
		_, err = c.DeleteTable(ctx, &dynamodb.DeleteTableInput{TableName: aws.String(name)})
		require.NoError(t, err) // the cleanup must not fail the test now
	})
}

// TestDropTransportRetryApplies shows that a dropped response is a write that
// happened: the SDK retries, and the retry meets the first attempt's effect.
func TestDropTransportRetryApplies(t *testing.T) {
	srv := dynamolocal.New(t)
	table := CreateTable(t, srv.Client(), "pk", types.ScalarAttributeTypeS, "", "")
	ctx := context.Background()

	t.Run("unconditional put succeeds", func(t *testing.T) {
		d := &DropTransport{DropOps: map[string]int{"PutItem": 1}}
		c := srv.NewClient(d.Option())
		_, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(table), Item: item("a", "1")})
		require.NoError(t, err, "the SDK retried the lost response")
		assert.Equal(t, 1, d.Dropped())
		assert.Equal(t, 2, d.Calls("PutItem"))
		assert.Equal(t, item("a", "1"), getItem(t, srv.Client(), table, "a"))
	})

	t.Run("conditional put fails its own condition", func(t *testing.T) {
		d := &DropTransport{DropOps: map[string]int{"PutItem": 1}}
		c := srv.NewClient(d.Option())
		_, err := c.PutItem(ctx, &dynamodb.PutItemInput{
			TableName:                           aws.String(table),
			Item:                                item("b", "1"),
			ConditionExpression:                 aws.String("attribute_not_exists(pk)"),
			ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld,
		})
		var ccf *types.ConditionalCheckFailedException
		require.ErrorAs(t, err, &ccf, "the retry found the item the first attempt wrote")
		assert.Equal(t, item("b", "1"), ccf.Item)
		assert.Equal(t, 1, d.Dropped())
		assert.Equal(t, item("b", "1"), getItem(t, srv.Client(), table, "b"))
	})

	t.Run("all attempts dropped", func(t *testing.T) {
		d := &DropTransport{DropOps: map[string]int{"PutItem": 100}}
		c := srv.NewClient(d.Option(), func(o *dynamodb.Options) { o.RetryMaxAttempts = 2 })
		_, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(table), Item: item("c", "1")})
		require.Error(t, err)
		assert.Contains(t, err.Error(), "connection reset by peer")
		assert.Equal(t, 2, d.Dropped())
		assert.Equal(t, item("c", "1"), getItem(t, srv.Client(), table, "c"), "written all the same")
	})

	t.Run("Drop hook and other operations untouched", func(t *testing.T) {
		var mu sync.Mutex
		var seen []string
		d := &DropTransport{Drop: func(op string, call int) bool {
			mu.Lock()
			defer mu.Unlock()
			seen = append(seen, op)
			return op == "DeleteItem" && call == 1
		}}
		c := srv.NewClient(d.Option())
		_, err := c.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(table), Key: key("a")})
		require.NoError(t, err)
		_, err = c.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String(table), Key: key("a")})
		require.NoError(t, err)
		assert.Equal(t, 1, d.Dropped())
		assert.Equal(t, []string{"GetItem", "DeleteItem", "DeleteItem"}, seen)
		assert.Nil(t, getItem(t, srv.Client(), table, "a"))
	})
}

// client is the kind of small interface the packages under test accept.
type client interface {
	GetItem(context.Context, *dynamodb.GetItemInput, ...func(*dynamodb.Options)) (*dynamodb.GetItemOutput, error)
	PutItem(context.Context, *dynamodb.PutItemInput, ...func(*dynamodb.Options)) (*dynamodb.PutItemOutput, error)
	UpdateItem(context.Context, *dynamodb.UpdateItemInput, ...func(*dynamodb.Options)) (*dynamodb.UpdateItemOutput, error)
	DeleteItem(context.Context, *dynamodb.DeleteItemInput, ...func(*dynamodb.Options)) (*dynamodb.DeleteItemOutput, error)
	Query(context.Context, *dynamodb.QueryInput, ...func(*dynamodb.Options)) (*dynamodb.QueryOutput, error)
	Scan(context.Context, *dynamodb.ScanInput, ...func(*dynamodb.Options)) (*dynamodb.ScanOutput, error)
	BatchGetItem(context.Context, *dynamodb.BatchGetItemInput, ...func(*dynamodb.Options)) (*dynamodb.BatchGetItemOutput, error)
	BatchWriteItem(context.Context, *dynamodb.BatchWriteItemInput, ...func(*dynamodb.Options)) (*dynamodb.BatchWriteItemOutput, error)
	TransactGetItems(context.Context, *dynamodb.TransactGetItemsInput, ...func(*dynamodb.Options)) (*dynamodb.TransactGetItemsOutput, error)
	TransactWriteItems(context.Context, *dynamodb.TransactWriteItemsInput, ...func(*dynamodb.Options)) (*dynamodb.TransactWriteItemsOutput, error)
	DescribeTable(context.Context, *dynamodb.DescribeTableInput, ...func(*dynamodb.Options)) (*dynamodb.DescribeTableOutput, error)
}

var (
	_ client = (*dynamodb.Client)(nil)
	_ client = (*CountingClient)(nil)
)

func TestCountingClient(t *testing.T) {
	srv := dynamolocal.New(t)
	table := CreateTable(t, srv.Client(), "pk", types.ScalarAttributeTypeS, "", "")
	ctx := context.Background()
	c := NewCounting(srv.Client())
	tn := aws.String(table)

	_, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: tn, Item: item("a", "1")})
	require.NoError(t, err)
	_, err = c.PutItem(ctx, &dynamodb.PutItemInput{TableName: tn, Item: item("b", "1")})
	require.NoError(t, err)
	got, err := c.GetItem(ctx, &dynamodb.GetItemInput{TableName: tn, Key: key("a")})
	require.NoError(t, err)
	assert.Equal(t, item("a", "1"), got.Item, "forwarded")
	_, err = c.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: tn, Key: key("a"),
		UpdateExpression:          aws.String("SET val = :v"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":v": &types.AttributeValueMemberS{Value: "2"}}})
	require.NoError(t, err)
	_, err = c.Query(ctx, &dynamodb.QueryInput{TableName: tn, KeyConditionExpression: aws.String("pk = :p"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":p": &types.AttributeValueMemberS{Value: "a"}}})
	require.NoError(t, err)
	scan, err := c.Scan(ctx, &dynamodb.ScanInput{TableName: tn})
	require.NoError(t, err)
	assert.Len(t, scan.Items, 2)
	_, err = c.BatchGetItem(ctx, &dynamodb.BatchGetItemInput{RequestItems: map[string]types.KeysAndAttributes{
		table: {Keys: []map[string]types.AttributeValue{key("a")}}}})
	require.NoError(t, err)
	_, err = c.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{
		table: {{PutRequest: &types.PutRequest{Item: item("c", "1")}}}}})
	require.NoError(t, err)
	_, err = c.TransactGetItems(ctx, &dynamodb.TransactGetItemsInput{TransactItems: []types.TransactGetItem{
		{Get: &types.Get{TableName: tn, Key: key("a")}}}})
	require.NoError(t, err)
	_, err = c.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
		{Put: &types.Put{TableName: tn, Item: item("d", "1")}}}})
	require.NoError(t, err)
	_, err = c.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: tn, Key: key("d")})
	require.NoError(t, err)
	_, err = c.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: tn})
	require.NoError(t, err)

	want := map[string]int64{"GetItem": 1, "PutItem": 2, "UpdateItem": 1, "DeleteItem": 1, "Query": 1, "Scan": 1,
		"BatchGetItem": 1, "BatchWriteItem": 1, "TransactGetItems": 1, "TransactWriteItems": 1, "DescribeTable": 1}
	for op, n := range want {
		assert.Equal(t, n, c.Count(op), op)
	}
	assert.Equal(t, int64(12), c.Total())
	assert.Equal(t, int64(0), c.Count("CreateTable"), "not an operation it forwards")

	c.Reset()
	assert.Equal(t, int64(0), c.Total())
}

func TestCountingClientNoClient(t *testing.T) {
	var c CountingClient // the zero value counts and sends nothing
	ctx := context.Background()
	_, err := c.PutItem(ctx, &dynamodb.PutItemInput{})
	require.ErrorIs(t, err, ErrNoClient)
	_, err = c.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{})
	require.True(t, errors.Is(err, ErrNoClient))

	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 100 {
				_, _ = c.GetItem(ctx, &dynamodb.GetItemInput{})
			}
		}()
	}
	wg.Wait()
	assert.Equal(t, int64(800), c.Count("GetItem"))
	assert.Equal(t, int64(1), c.Count("PutItem"))
	assert.Equal(t, int64(802), c.Total())
}
