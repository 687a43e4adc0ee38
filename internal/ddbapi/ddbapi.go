// Package ddbapi declares, once, the DynamoDB calls the library makes, with
// the SDK's exact signatures, grouped by need: the public client interfaces
// (mapper.Client, mapper.TableClient, txn.Client, unit.Client,
// pessimistic.Client) and the internal ones are built from these, so that
// each method set is written in one place and a *dynamodb.Client, or a
// wrapper that forwards the calls, satisfies every one of them.
//
// A one-call interface exists for each call that some code needs alone
// (a check that only describes a table, a record that is only read); the
// groups below are what a package needs together. A public interface
// embeds the groups and calls it makes, no more, so a fake or a wrapper
// need not grow methods the package never calls.
package ddbapi

import (
	"context"
	"reflect"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// Getter reads one item: GetItem.
type Getter interface {
	GetItem(ctx context.Context, params *dynamodb.GetItemInput, optFns ...func(*dynamodb.Options)) (*dynamodb.GetItemOutput, error)
}

// Putter writes one item whole: PutItem.
type Putter interface {
	PutItem(ctx context.Context, params *dynamodb.PutItemInput, optFns ...func(*dynamodb.Options)) (*dynamodb.PutItemOutput, error)
}

// Updater changes one item: UpdateItem.
type Updater interface {
	UpdateItem(ctx context.Context, params *dynamodb.UpdateItemInput, optFns ...func(*dynamodb.Options)) (*dynamodb.UpdateItemOutput, error)
}

// Deleter deletes one item: DeleteItem.
type Deleter interface {
	DeleteItem(ctx context.Context, params *dynamodb.DeleteItemInput, optFns ...func(*dynamodb.Options)) (*dynamodb.DeleteItemOutput, error)
}

// Querier reads the items of one partition: Query.
type Querier interface {
	Query(ctx context.Context, params *dynamodb.QueryInput, optFns ...func(*dynamodb.Options)) (*dynamodb.QueryOutput, error)
}

// Scanner reads a whole table: Scan.
type Scanner interface {
	Scan(ctx context.Context, params *dynamodb.ScanInput, optFns ...func(*dynamodb.Options)) (*dynamodb.ScanOutput, error)
}

// TransactGetter reads items in one transaction: TransactGetItems.
type TransactGetter interface {
	TransactGetItems(ctx context.Context, params *dynamodb.TransactGetItemsInput, optFns ...func(*dynamodb.Options)) (*dynamodb.TransactGetItemsOutput, error)
}

// TransactWriter writes items in one transaction: TransactWriteItems.
type TransactWriter interface {
	TransactWriteItems(ctx context.Context, params *dynamodb.TransactWriteItemsInput, optFns ...func(*dynamodb.Options)) (*dynamodb.TransactWriteItemsOutput, error)
}

// Describer describes a table: DescribeTable.
type Describer interface {
	DescribeTable(ctx context.Context, params *dynamodb.DescribeTableInput, optFns ...func(*dynamodb.Options)) (*dynamodb.DescribeTableOutput, error)
}

// Items are the single-item calls: GetItem, PutItem, UpdateItem and
// DeleteItem.
type Items interface {
	Getter
	Putter
	Updater
	Deleter
}

// Queries are the multi-item reads: Query and Scan.
type Queries interface {
	Querier
	Scanner
}

// Batches are the batch calls: BatchGetItem and BatchWriteItem.
type Batches interface {
	BatchGetItem(ctx context.Context, params *dynamodb.BatchGetItemInput, optFns ...func(*dynamodb.Options)) (*dynamodb.BatchGetItemOutput, error)
	BatchWriteItem(ctx context.Context, params *dynamodb.BatchWriteItemInput, optFns ...func(*dynamodb.Options)) (*dynamodb.BatchWriteItemOutput, error)
}

// Transactions are the transaction calls: TransactGetItems and
// TransactWriteItems.
type Transactions interface {
	TransactGetter
	TransactWriter
}

// TableAdmin are the control-plane calls that create a table and its TTL,
// and check an existing one: CreateTable, DescribeTable, UpdateTimeToLive
// and DescribeTimeToLive.
type TableAdmin interface {
	CreateTable(ctx context.Context, params *dynamodb.CreateTableInput, optFns ...func(*dynamodb.Options)) (*dynamodb.CreateTableOutput, error)
	Describer
	UpdateTimeToLive(ctx context.Context, params *dynamodb.UpdateTimeToLiveInput, optFns ...func(*dynamodb.Options)) (*dynamodb.UpdateTimeToLiveOutput, error)
	DescribeTimeToLive(ctx context.Context, params *dynamodb.DescribeTimeToLiveInput, optFns ...func(*dynamodb.Options)) (*dynamodb.DescribeTimeToLiveOutput, error)
}

// A *dynamodb.Client makes every call.
var (
	_ Items        = (*dynamodb.Client)(nil)
	_ Queries      = (*dynamodb.Client)(nil)
	_ Batches      = (*dynamodb.Client)(nil)
	_ Transactions = (*dynamodb.Client)(nil)
	_ TableAdmin   = (*dynamodb.Client)(nil)
)

// IsNil reports whether x is nil, or an interface holding a nil pointer,
// map, slice, function or channel: a client (or an observer) whose first
// method call would panic, such as a (*dynamodb.Client)(nil). The public
// constructors refuse such a value up front rather than panic later
// inside the SDK.
func IsNil(x any) bool {
	if x == nil {
		return true
	}
	switch v := reflect.ValueOf(x); v.Kind() {
	case reflect.Pointer, reflect.Interface, reflect.Map, reflect.Slice, reflect.Func, reflect.Chan:
		return v.IsNil()
	}
	return false
}

// ReadItem reads the item of key, whole, with one strongly consistent
// GetItem, and returns it: nil when there is none. It is the read by
// which the library learns the state of an item it is about to judge (a
// lock, a record, a write whose answer was lost), where an eventually
// consistent read could show a state already gone.
func ReadItem(ctx context.Context, c Getter, table *string, key map[string]types.AttributeValue) (map[string]types.AttributeValue, error) {
	out, err := c.GetItem(ctx, &dynamodb.GetItemInput{TableName: table, Key: key, ConsistentRead: aws.Bool(true)})
	if err != nil {
		return nil, err
	}
	if len(out.Item) == 0 {
		return nil, nil
	}
	return out.Item, nil
}
