package txn_test

// Helpers of the transaction tests against DynamoDB Local.

import (
	"context"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/require"

	"github.com/optimist-dynamo/optimist/internal/ddbtest"
	"github.com/optimist-dynamo/optimist/mapper"
)

// Counter is the versioned item of the tests.
type Counter struct {
	ID      string `dynamo:"id,hash"`
	N       int    `dynamo:"n"`
	Status  string `dynamo:"status,omitempty"`
	Version int64  `dynamo:"version,version"`
}

// fixture is a table of Counters on the shared server, written through a
// call-counting client.
type fixture struct {
	ctx    context.Context
	raw    *dynamodb.Client
	calls  *ddbtest.CountingClient
	table  *mapper.Table[Counter]
	name   string
	client func(...func(*dynamodb.Options)) *dynamodb.Client
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	srv := ddbtest.Server(t)
	raw := srv.Client()
	name := ddbtest.CreateTable(t, raw, "id", types.ScalarAttributeTypeS, "", "")
	calls := ddbtest.NewCounting(raw)
	table, err := mapper.NewTable[Counter](calls, name)
	require.NoError(t, err)
	return &fixture{ctx: context.Background(), raw: raw, calls: calls, table: table, name: name, client: srv.NewClient}
}

// stored reads the raw item, bypassing the mapper.
func (f *fixture) stored(t *testing.T, id string) map[string]types.AttributeValue {
	t.Helper()
	out, err := f.raw.GetItem(f.ctx, &dynamodb.GetItemInput{
		TableName:      aws.String(f.name),
		Key:            map[string]types.AttributeValue{"id": &types.AttributeValueMemberS{Value: id}},
		ConsistentRead: aws.Bool(true),
	})
	require.NoError(t, err)
	return out.Item
}

func (f *fixture) storedCounter(t *testing.T, id string) *Counter {
	t.Helper()
	item := f.stored(t, id)
	require.NotEmpty(t, item, "item %q is missing", id)
	var c Counter
	require.NoError(t, attributevalue.UnmarshalMapWithOptions(item, &c, func(o *attributevalue.DecoderOptions) { o.TagKey = "dynamo" }))
	return &c
}
