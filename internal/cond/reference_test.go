//go:build conformance

package cond

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"
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

// isValidation reports whether err is DynamoDB's ValidationException.
func isValidation(err error) bool {
	var ae smithy.APIError
	return errors.As(err, &ae) && ae.ErrorCode() == "ValidationException"
}

// conditionCheck asks DynamoDB whether expr holds on the item at key pk of
// table, with a TransactWriteItems of one ConditionCheck: success is true,
// a cancellation for ConditionalCheckFailed is false, a ValidationException
// is invalid. A ConditionCheck reads the item and writes nothing, so the
// table is left as it was for the next case.
func conditionCheck(ctx context.Context, c *dynamodb.Client, table, pk, expr string, nm map[string]string, vals map[string]types.AttributeValue) (outcome, error) {
	outs, err := conditionChecks(ctx, c, table, []check{{pk, expr, nm, vals}})
	if err != nil {
		if isValidation(err) {
			return outInvalid, nil
		}
		return 0, err
	}
	return outs[0], nil
}

// check is one condition to evaluate on the item at key pk.
type check struct {
	pk    string
	expr  string
	names map[string]string
	vals  map[string]types.AttributeValue
}

// conditionChecks evaluates up to 100 checks, on distinct keys, in one
// TransactWriteItems. DynamoDB Local cancels the transaction with a reason
// for every action, ConditionalCheckFailed for each condition that does not
// hold and None for each that does, so one call answers them all. A
// ValidationException for any of them is returned as an error.
func conditionChecks(ctx context.Context, c *dynamodb.Client, table string, checks []check) ([]outcome, error) {
	acts := make([]types.TransactWriteItem, len(checks))
	for i, ch := range checks {
		cc := &types.ConditionCheck{
			TableName:           aws.String(table),
			Key:                 attrs("pk", S(ch.pk)),
			ConditionExpression: aws.String(ch.expr),
		}
		if len(ch.names) > 0 {
			cc.ExpressionAttributeNames = ch.names
		}
		if len(ch.vals) > 0 {
			cc.ExpressionAttributeValues = ch.vals
		}
		acts[i] = types.TransactWriteItem{ConditionCheck: cc}
	}
	outs := make([]outcome, len(checks))
	_, err := c.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: acts})
	if err == nil {
		for i := range outs {
			outs[i] = outTrue
		}
		return outs, nil
	}
	var tce *types.TransactionCanceledException
	if !errors.As(err, &tce) {
		return nil, err
	}
	if len(tce.CancellationReasons) != len(checks) {
		return nil, fmt.Errorf("%d cancellation reasons for %d checks: %w", len(tce.CancellationReasons), len(checks), err)
	}
	for i, r := range tce.CancellationReasons {
		switch code := aws.ToString(r.Code); code {
		case "None":
			outs[i] = outTrue
		case "ConditionalCheckFailed":
			outs[i] = outFalse
		default:
			return nil, fmt.Errorf("check %d: cancellation reason %s: %s", i, code, aws.ToString(r.Message))
		}
	}
	return outs, nil
}
