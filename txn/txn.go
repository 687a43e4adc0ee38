package txn

import (
	"github.com/optimist-dynamo/optimist/internal/ddbapi"
)

// Client is the part of the DynamoDB API transactions call, with the SDK's
// exact signatures: TransactGetItems and TransactWriteItems;
// *dynamodb.Client and mapper.Client satisfy it.
type Client interface {
	ddbapi.Transactions // TransactGetItems, TransactWriteItems
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
