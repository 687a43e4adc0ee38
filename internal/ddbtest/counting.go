package ddbtest

import (
	"context"
	"errors"
	"sync/atomic"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
)

// ErrNoClient is returned by every method of a [CountingClient] whose Client
// is nil, after the call has been counted. Tests that must prove that nothing
// would be sent use such a client and check the counts.
var ErrNoClient = errors.New("ddbtest: no client")

// The operations a CountingClient forwards, as indexes into its counters.
const (
	opGetItem = iota
	opPutItem
	opUpdateItem
	opDeleteItem
	opQuery
	opScan
	opBatchGetItem
	opBatchWriteItem
	opTransactGetItems
	opTransactWriteItems
	opDescribeTable
	numOps
)

var opIndex = map[string]int{
	"GetItem":            opGetItem,
	"PutItem":            opPutItem,
	"UpdateItem":         opUpdateItem,
	"DeleteItem":         opDeleteItem,
	"Query":              opQuery,
	"Scan":               opScan,
	"BatchGetItem":       opBatchGetItem,
	"BatchWriteItem":     opBatchWriteItem,
	"TransactGetItems":   opTransactGetItems,
	"TransactWriteItems": opTransactWriteItems,
	"DescribeTable":      opDescribeTable,
}

// CountingClient forwards calls to Client and counts them per operation. Its
// methods have the exact signatures of [*dynamodb.Client]'s, so it satisfies
// any small client interface made of them. The zero value (a nil Client) is
// usable: every call is counted and returns [ErrNoClient]. It is safe for
// concurrent use.
type CountingClient struct {
	// Client receives the calls. Set it before the first call.
	Client *dynamodb.Client

	counts [numOps]atomic.Int64
}

// NewCounting returns a CountingClient that forwards to c.
func NewCounting(c *dynamodb.Client) *CountingClient {
	return &CountingClient{Client: c}
}

// Count returns how many calls of operation op ("GetItem", "PutItem", ...)
// were made since creation or the last Reset; 0 for an operation it does not
// forward.
func (c *CountingClient) Count(op string) int64 {
	i, ok := opIndex[op]
	if !ok {
		return 0
	}
	return c.counts[i].Load()
}

// Total returns the number of calls of all operations.
func (c *CountingClient) Total() int64 {
	var n int64
	for i := range c.counts {
		n += c.counts[i].Load()
	}
	return n
}

// Reset sets every count to zero.
func (c *CountingClient) Reset() {
	for i := range c.counts {
		c.counts[i].Store(0)
	}
}

// forward counts a call of op and makes it with method f on c.Client.
func forward[I, O any](c *CountingClient, op int, ctx context.Context, in *I, optFns []func(*dynamodb.Options),
	f func(*dynamodb.Client, context.Context, *I, ...func(*dynamodb.Options)) (*O, error)) (*O, error) {
	c.counts[op].Add(1)
	if c.Client == nil {
		return nil, ErrNoClient
	}
	return f(c.Client, ctx, in, optFns...)
}

// GetItem counts and forwards a GetItem call.
func (c *CountingClient) GetItem(ctx context.Context, params *dynamodb.GetItemInput, optFns ...func(*dynamodb.Options)) (*dynamodb.GetItemOutput, error) {
	return forward(c, opGetItem, ctx, params, optFns, (*dynamodb.Client).GetItem)
}

// PutItem counts and forwards a PutItem call.
func (c *CountingClient) PutItem(ctx context.Context, params *dynamodb.PutItemInput, optFns ...func(*dynamodb.Options)) (*dynamodb.PutItemOutput, error) {
	return forward(c, opPutItem, ctx, params, optFns, (*dynamodb.Client).PutItem)
}

// UpdateItem counts and forwards an UpdateItem call.
func (c *CountingClient) UpdateItem(ctx context.Context, params *dynamodb.UpdateItemInput, optFns ...func(*dynamodb.Options)) (*dynamodb.UpdateItemOutput, error) {
	return forward(c, opUpdateItem, ctx, params, optFns, (*dynamodb.Client).UpdateItem)
}

// DeleteItem counts and forwards a DeleteItem call.
func (c *CountingClient) DeleteItem(ctx context.Context, params *dynamodb.DeleteItemInput, optFns ...func(*dynamodb.Options)) (*dynamodb.DeleteItemOutput, error) {
	return forward(c, opDeleteItem, ctx, params, optFns, (*dynamodb.Client).DeleteItem)
}

// Query counts and forwards a Query call.
func (c *CountingClient) Query(ctx context.Context, params *dynamodb.QueryInput, optFns ...func(*dynamodb.Options)) (*dynamodb.QueryOutput, error) {
	return forward(c, opQuery, ctx, params, optFns, (*dynamodb.Client).Query)
}

// Scan counts and forwards a Scan call.
func (c *CountingClient) Scan(ctx context.Context, params *dynamodb.ScanInput, optFns ...func(*dynamodb.Options)) (*dynamodb.ScanOutput, error) {
	return forward(c, opScan, ctx, params, optFns, (*dynamodb.Client).Scan)
}

// BatchGetItem counts and forwards a BatchGetItem call.
func (c *CountingClient) BatchGetItem(ctx context.Context, params *dynamodb.BatchGetItemInput, optFns ...func(*dynamodb.Options)) (*dynamodb.BatchGetItemOutput, error) {
	return forward(c, opBatchGetItem, ctx, params, optFns, (*dynamodb.Client).BatchGetItem)
}

// BatchWriteItem counts and forwards a BatchWriteItem call.
func (c *CountingClient) BatchWriteItem(ctx context.Context, params *dynamodb.BatchWriteItemInput, optFns ...func(*dynamodb.Options)) (*dynamodb.BatchWriteItemOutput, error) {
	return forward(c, opBatchWriteItem, ctx, params, optFns, (*dynamodb.Client).BatchWriteItem)
}

// TransactGetItems counts and forwards a TransactGetItems call.
func (c *CountingClient) TransactGetItems(ctx context.Context, params *dynamodb.TransactGetItemsInput, optFns ...func(*dynamodb.Options)) (*dynamodb.TransactGetItemsOutput, error) {
	return forward(c, opTransactGetItems, ctx, params, optFns, (*dynamodb.Client).TransactGetItems)
}

// TransactWriteItems counts and forwards a TransactWriteItems call.
func (c *CountingClient) TransactWriteItems(ctx context.Context, params *dynamodb.TransactWriteItemsInput, optFns ...func(*dynamodb.Options)) (*dynamodb.TransactWriteItemsOutput, error) {
	return forward(c, opTransactWriteItems, ctx, params, optFns, (*dynamodb.Client).TransactWriteItems)
}

// DescribeTable counts and forwards a DescribeTable call.
func (c *CountingClient) DescribeTable(ctx context.Context, params *dynamodb.DescribeTableInput, optFns ...func(*dynamodb.Options)) (*dynamodb.DescribeTableOutput, error) {
	return forward(c, opDescribeTable, ctx, params, optFns, (*dynamodb.Client).DescribeTable)
}
