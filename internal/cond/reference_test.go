//go:build conformance

package cond

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// referenceTable returns a client of AWS DynamoDB Local, the reference,
// and a new table on it with a string hash key "pk", deleted at cleanup.
// The reference is the one at DYNAMODB_LOCAL_ENDPOINT, which make
// conformance starts and sets (package cond cannot use dynamolocal: the
// embedded engine imports cond). Without it the test fails.
func referenceTable(t *testing.T) (*dynamodb.Client, string) {
	t.Helper()
	ep := os.Getenv("DYNAMODB_LOCAL_ENDPOINT")
	if ep == "" {
		t.Fatal("DYNAMODB_LOCAL_ENDPOINT is not set: run these tests with make conformance, which starts AWS DynamoDB Local")
	}
	c := dynamodb.New(dynamodb.Options{
		Region:       "us-east-1",
		BaseEndpoint: aws.String(ep),
		Credentials: aws.CredentialsProviderFunc(func(context.Context) (aws.Credentials, error) {
			return aws.Credentials{AccessKeyID: "optimist", SecretAccessKey: "local"}, nil
		}),
	})
	table := fmt.Sprintf("cond-%d-%08x", time.Now().UnixNano(), rand.Uint32())
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	_, err := c.CreateTable(ctx, &dynamodb.CreateTableInput{
		TableName:            aws.String(table),
		BillingMode:          types.BillingModePayPerRequest,
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS}},
		KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}},
	})
	if err != nil {
		t.Fatalf("create table %s on %s: %v", table, ep, err)
	}
	t.Cleanup(func() {
		c.DeleteTable(context.Background(), &dynamodb.DeleteTableInput{TableName: aws.String(table)})
	})
	return c, table
}
