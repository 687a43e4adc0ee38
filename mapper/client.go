package mapper

import (
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/optimist-dynamo/optimist/internal/ddbapi"
)

// Client is the part of the DynamoDB API a [Table] calls, with the SDK's
// exact signatures: GetItem, PutItem, UpdateItem, DeleteItem, Query, Scan,
// BatchGetItem, BatchWriteItem, TransactGetItems and TransactWriteItems. A
// *dynamodb.Client satisfies it as is, and so does any wrapper (for
// metrics, tracing or tests) that forwards these methods.
//
// Tables pass per-call options (optFns) to some calls; a wrapper should
// forward them. The mapper uses them only to learn whether an attempt that
// the SDK retried may have been applied (see [ErrUnknownOutcome]).
type Client interface {
	ddbapi.Items        // GetItem, PutItem, UpdateItem, DeleteItem
	ddbapi.Queries      // Query, Scan
	ddbapi.Batches      // BatchGetItem, BatchWriteItem
	ddbapi.Transactions // TransactGetItems, TransactWriteItems
}

var _ Client = (*dynamodb.Client)(nil)
