package dynamolocal_test

import (
	"context"
	"errors"
	"net/http"
	"strconv"
	"testing"
	"testing/synctest"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/optimist-dynamo/optimist/dynamolocal"
)

func createTable(t *testing.T, c *dynamodb.Client, name string) {
	t.Helper()
	_, err := c.CreateTable(context.Background(), &dynamodb.CreateTableInput{
		TableName:            aws.String(name),
		BillingMode:          types.BillingModePayPerRequest,
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS}},
		KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}},
	})
	require.NoError(t, err)
}

func key(pk string) map[string]types.AttributeValue {
	return map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: pk}}
}

// TestTTLInVirtualTime: an engine made in a testing/synctest bubble runs
// on the bubble's clock, so an item expires exactly when the bubble's time
// passes its TTL, with no real waiting.
func TestTTLInVirtualTime(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := t.Context()
		c := dynamolocal.NewEngine(t, dynamolocal.WithoutListener()).Client()
		createTable(t, c, "ttl-table")
		_, err := c.UpdateTimeToLive(ctx, &dynamodb.UpdateTimeToLiveInput{TableName: aws.String("ttl-table"),
			TimeToLiveSpecification: &types.TimeToLiveSpecification{AttributeName: aws.String("ttl"), Enabled: aws.Bool(true)}})
		require.NoError(t, err)
		item := key("a")
		item["ttl"] = &types.AttributeValueMemberN{Value: strconv.FormatInt(time.Now().Unix()+60, 10)}
		_, err = c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("ttl-table"), Item: item})
		require.NoError(t, err)

		get := func() bool {
			out, err := c.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("ttl-table"), Key: key("a")})
			require.NoError(t, err)
			return out.Item != nil
		}
		time.Sleep(59 * time.Second)
		assert.True(t, get(), "one second before its TTL")
		time.Sleep(time.Second)
		assert.False(t, get(), "deleted once the bubble's clock reaches its TTL")
	})
}

// TestWithoutListenerServesInMemory: an engine without a listener answers
// its clients, names an endpoint no socket answers, and closes.
func TestWithoutListenerServesInMemory(t *testing.T) {
	srv, err := dynamolocal.StartEngine(dynamolocal.Options{NoListener: true})
	require.NoError(t, err)
	createTable(t, srv.Client(), "mem")
	out, err := srv.NewClient().ListTables(context.Background(), &dynamodb.ListTablesInput{})
	require.NoError(t, err)
	assert.Equal(t, []string{"mem"}, out.TableNames)
	assert.True(t, srv.Embedded())
	_, err = http.Get(srv.Endpoint())
	assert.Error(t, err, "no socket answers %s", srv.Endpoint())
	require.NoError(t, srv.Close())
}

// TestInjectLostResponse: the engine applies a write and loses its answer;
// the SDK resends it, and a conditional put meets its own first attempt.
func TestInjectLostResponse(t *testing.T) {
	ctx := context.Background()
	srv := dynamolocal.NewEngine(t)
	c := srv.Client()
	createTable(t, c, "faults")
	remove, err := srv.Inject(dynamolocal.Rule{Op: "PutItem", Table: "faults", Key: key("a"), Fault: dynamolocal.FaultLostResponse, Times: 1})
	require.NoError(t, err)
	defer remove()

	_, err = c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("faults"), Item: key("b"),
		ConditionExpression: aws.String("attribute_not_exists(pk)")})
	require.NoError(t, err, "another key is untouched")
	_, err = c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("faults"), Item: key("a"),
		ConditionExpression: aws.String("attribute_not_exists(pk)")})
	var ccf *types.ConditionalCheckFailedException
	require.ErrorAs(t, err, &ccf, "the resend fails on the item its lost first attempt wrote")
	assert.Equal(t, 1, srv.Injected(dynamolocal.FaultLostResponse))
	out, err := c.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("faults"), Key: key("a")})
	require.NoError(t, err)
	assert.NotNil(t, out.Item)
}

// TestInjectTransactionConflict: a single write answers
// TransactionConflictException and changes nothing.
func TestInjectTransactionConflict(t *testing.T) {
	ctx := context.Background()
	srv := dynamolocal.NewEngine(t)
	c := srv.NewClient(func(o *dynamodb.Options) { o.RetryMaxAttempts = 1 })
	createTable(t, c, "conflicts")
	remove, err := srv.Inject(dynamolocal.Rule{Table: "conflicts", Fault: dynamolocal.FaultTransactionConflict})
	require.NoError(t, err)
	_, err = c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("conflicts"), Item: key("a")})
	var tce *types.TransactionConflictException
	require.ErrorAs(t, err, &tce)
	remove()
	out, err := c.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("conflicts"), Key: key("a")})
	require.NoError(t, err)
	assert.Nil(t, out.Item, "nothing applied")
}

func TestInjectNeedsEmbedded(t *testing.T) {
	t.Setenv(dynamolocal.EnvEngine, "")
	other := dynamolocal.NewEngine(t)
	t.Setenv(dynamolocal.EnvEndpoint, other.Endpoint())
	srv, err := dynamolocal.Start(context.Background())
	require.NoError(t, err)
	_, err = srv.Inject(dynamolocal.Rule{Fault: dynamolocal.FaultThrottled})
	assert.True(t, errors.Is(err, dynamolocal.ErrNotEmbedded))
}
