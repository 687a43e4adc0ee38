package engine_test

import (
	"context"
	"errors"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/optimist-dynamo/optimist/internal/engine"
)

// client returns an SDK client served by e in memory, configured as
// dynamolocal configures its clients (engine.ClientOptions: unsigned).
func client(e *engine.Engine) *dynamodb.Client {
	return dynamodb.New(dynamodb.Options{
		Region:       "us-east-1",
		BaseEndpoint: aws.String("http://engine.invalid"),
		Credentials: aws.CredentialsProviderFunc(func(context.Context) (aws.Credentials, error) {
			return aws.Credentials{AccessKeyID: "test", SecretAccessKey: "test"}, nil
		}),
		HTTPClient: e,
	}, engine.ClientOptions("http://engine.invalid"))
}

// hashTable creates a table with a string hash key "pk".
func hashTable(t *testing.T, c *dynamodb.Client, name string) {
	t.Helper()
	_, err := c.CreateTable(context.Background(), &dynamodb.CreateTableInput{
		TableName:            aws.String(name),
		KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}},
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS}},
		BillingMode:          types.BillingModePayPerRequest,
	})
	require.NoError(t, err)
}

func TestItemRoundTrip(t *testing.T) {
	ctx := context.Background()
	c := client(engine.New())
	hashTable(t, c, "items")
	_, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("items"), Item: map[string]types.AttributeValue{
		"pk": &types.AttributeValueMemberS{Value: "a"},
		"n":  &types.AttributeValueMemberN{Value: "01.50"},
		"m":  &types.AttributeValueMemberM{Value: map[string]types.AttributeValue{"b": &types.AttributeValueMemberB{Value: []byte{1, 2}}}},
	}})
	require.NoError(t, err)
	got, err := c.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("items"),
		Key: map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: "a"}}, ReturnConsumedCapacity: types.ReturnConsumedCapacityTotal})
	require.NoError(t, err)
	assert.Equal(t, &types.AttributeValueMemberN{Value: "1.5"}, got.Item["n"])
	assert.Equal(t, []byte{1, 2}, got.Item["m"].(*types.AttributeValueMemberM).Value["b"].(*types.AttributeValueMemberB).Value)
	assert.Equal(t, 0.5, *got.ConsumedCapacity.CapacityUnits)

	_, err = c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("items"),
		Item:                                map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: "a"}},
		ConditionExpression:                 aws.String("attribute_not_exists(pk)"),
		ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld,
	})
	var ccf *types.ConditionalCheckFailedException
	require.ErrorAs(t, err, &ccf)
	assert.Equal(t, &types.AttributeValueMemberN{Value: "1.5"}, ccf.Item["n"])

	out, err := c.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String("items"),
		Key: map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: "a"}}, ReturnValues: types.ReturnValueAllOld})
	require.NoError(t, err)
	assert.Len(t, out.Attributes, 3)
	got, err = c.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("items"),
		Key: map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: "a"}}})
	require.NoError(t, err)
	assert.Nil(t, got.Item)
}

func TestErrors(t *testing.T) {
	ctx := context.Background()
	c := client(engine.New())
	_, err := c.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("missing"),
		Key: map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: "a"}}})
	var nf *types.ResourceNotFoundException
	require.ErrorAs(t, err, &nf)
	hashTable(t, c, "items")
	_, err = c.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("items"),
		Key: map[string]types.AttributeValue{"pk": &types.AttributeValueMemberN{Value: "1"}}})
	var api smithy.APIError
	require.True(t, errors.As(err, &api))
	assert.Equal(t, "ValidationException", api.ErrorCode())
	assert.Equal(t, "One or more parameter values were invalid: Type mismatch for key", api.ErrorMessage())
}

func TestTablesAndScopes(t *testing.T) {
	ctx := context.Background()
	e := engine.New()
	c := client(e)
	hashTable(t, c, "one")
	hashTable(t, c, "two")
	out, err := c.ListTables(ctx, &dynamodb.ListTablesInput{Limit: aws.Int32(1)})
	require.NoError(t, err)
	assert.Equal(t, []string{"one"}, out.TableNames)
	assert.Equal(t, "one", *out.LastEvaluatedTableName)
	d, err := c.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String("two")})
	require.NoError(t, err)
	assert.Equal(t, types.TableStatusActive, d.Table.TableStatus)
	assert.Equal(t, types.BillingModePayPerRequest, d.Table.BillingModeSummary.BillingMode)

	other := dynamodb.New(c.Options(), func(o *dynamodb.Options) {
		o.Credentials = aws.CredentialsProviderFunc(func(context.Context) (aws.Credentials, error) {
			return aws.Credentials{AccessKeyID: "other", SecretAccessKey: "x"}, nil
		})
	})
	out, err = other.ListTables(ctx, &dynamodb.ListTablesInput{})
	require.NoError(t, err)
	assert.Empty(t, out.TableNames, "tables are scoped by access key, as DynamoDB Local scopes them")
}
