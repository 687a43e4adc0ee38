package txn

import (
	"context"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
)

// Client is the part of the DynamoDB API transactions call, with the SDK's
// exact signatures; *dynamodb.Client and mapper.Client satisfy it.
type Client interface {
	TransactWriteItems(ctx context.Context, params *dynamodb.TransactWriteItemsInput, optFns ...func(*dynamodb.Options)) (*dynamodb.TransactWriteItemsOutput, error)
	TransactGetItems(ctx context.Context, params *dynamodb.TransactGetItemsInput, optFns ...func(*dynamodb.Options)) (*dynamodb.TransactGetItemsOutput, error)
}

// Limits of DynamoDB's TransactWriteItems.
const (
	// DefaultMaxItems is DynamoDB's limit of actions per transaction since
	// 2022 (it was 25 before; some compatible services are lower still).
	DefaultMaxItems = 100
	// MaxBytes is DynamoDB's limit on the aggregate size of the items in
	// one transaction.
	MaxBytes = 4 << 20
)
