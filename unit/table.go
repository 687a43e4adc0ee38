package unit

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/optimist-dynamo/optimist/internal/unitlock"
)

// Client is the part of the DynamoDB API a unit calls, with the SDK's
// exact signatures; *dynamodb.Client and mapper.Client satisfy it.
type Client interface {
	GetItem(ctx context.Context, params *dynamodb.GetItemInput, optFns ...func(*dynamodb.Options)) (*dynamodb.GetItemOutput, error)
	PutItem(ctx context.Context, params *dynamodb.PutItemInput, optFns ...func(*dynamodb.Options)) (*dynamodb.PutItemOutput, error)
	UpdateItem(ctx context.Context, params *dynamodb.UpdateItemInput, optFns ...func(*dynamodb.Options)) (*dynamodb.UpdateItemOutput, error)
	DeleteItem(ctx context.Context, params *dynamodb.DeleteItemInput, optFns ...func(*dynamodb.Options)) (*dynamodb.DeleteItemOutput, error)
	Scan(ctx context.Context, params *dynamodb.ScanInput, optFns ...func(*dynamodb.Options)) (*dynamodb.ScanOutput, error)
}

// TableClient is what [CreateTable] calls.
type TableClient interface {
	CreateTable(ctx context.Context, params *dynamodb.CreateTableInput, optFns ...func(*dynamodb.Options)) (*dynamodb.CreateTableOutput, error)
	DescribeTable(ctx context.Context, params *dynamodb.DescribeTableInput, optFns ...func(*dynamodb.Options)) (*dynamodb.DescribeTableOutput, error)
	UpdateTimeToLive(ctx context.Context, params *dynamodb.UpdateTimeToLiveInput, optFns ...func(*dynamodb.Options)) (*dynamodb.UpdateTimeToLiveOutput, error)
}

var _ Client = (*dynamodb.Client)(nil)

// CreateTable creates the coordinator table name (on-demand, hash key "id"
// of type S), waits until it is active and turns on TTL on "ttl" (a
// finished unit's record is deleted by TTL an hour after it finished). An
// existing table is not an error. Calls: CreateTable, DescribeTable until
// active, UpdateTimeToLive.
func CreateTable(ctx context.Context, c TableClient, name string) error {
	_, err := c.CreateTable(ctx, &dynamodb.CreateTableInput{
		TableName:            aws.String(name),
		BillingMode:          types.BillingModePayPerRequest,
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String(unitlock.RecID), AttributeType: types.ScalarAttributeTypeS}},
		KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String(unitlock.RecID), KeyType: types.KeyTypeHash}},
	})
	var inUse *types.ResourceInUseException
	exists := errors.As(err, &inUse)
	if err != nil && !exists {
		return fmt.Errorf("unit: create table %s: %w", name, err)
	}
	err = dynamodb.NewTableExistsWaiter(c).Wait(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(name)}, 5*time.Minute,
		func(o *dynamodb.TableExistsWaiterOptions) {
			o.MinDelay, o.MaxDelay = 100*time.Millisecond, 2*time.Second
		})
	if err != nil {
		return fmt.Errorf("unit: create table %s: waiting until active: %w", name, err)
	}
	if exists {
		return nil
	}
	_, err = c.UpdateTimeToLive(ctx, &dynamodb.UpdateTimeToLiveInput{
		TableName:               aws.String(name),
		TimeToLiveSpecification: &types.TimeToLiveSpecification{AttributeName: aws.String(unitlock.RecTTL), Enabled: aws.Bool(true)},
	})
	if err != nil {
		return fmt.Errorf("unit: create table %s: enabling TTL: %w", name, err)
	}
	return nil
}
