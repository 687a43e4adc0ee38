package pessimistic

import (
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/optimist-dynamo/optimist/internal/ddbapi"
	"github.com/optimist-dynamo/optimist/mapper"
)

// Client is the part of the DynamoDB API the lock calls, with the SDK's
// exact signatures: GetItem, UpdateItem, DeleteItem, Query, Scan,
// TransactWriteItems and DescribeTable; a *dynamodb.Client satisfies it. CreateTable also needs
// the control-plane calls of [TableClient].
type Client interface {
	ddbapi.Getter         // GetItem
	ddbapi.Updater        // UpdateItem
	ddbapi.Deleter        // DeleteItem
	ddbapi.Queries        // Query, Scan
	ddbapi.TransactWriter // TransactWriteItems
	ddbapi.Describer      // DescribeTable
}

// TableClient is what [CreateTable] calls: the control-plane calls of
// mapper.CreateTable ([mapper.TableClient]), including DescribeTimeToLive,
// with which an existing table's TTL is checked.
type TableClient = mapper.TableClient

var (
	_ Client      = (*dynamodb.Client)(nil)
	_ TableClient = (*dynamodb.Client)(nil)
)
