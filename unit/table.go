package unit

import (
	"context"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/optimist-dynamo/optimist/internal/ddbapi"
	"github.com/optimist-dynamo/optimist/mapper"
)

// Client is the part of the DynamoDB API a unit calls, with the SDK's
// exact signatures: GetItem, PutItem, UpdateItem, DeleteItem and Scan; *dynamodb.Client and mapper.Client satisfy it.
type Client interface {
	ddbapi.Items   // GetItem, PutItem, UpdateItem, DeleteItem
	ddbapi.Scanner // Scan
}

// TableClient is what [CreateTable] calls: the control-plane calls of
// mapper.CreateTable ([mapper.TableClient]), including DescribeTimeToLive,
// with which an existing table's TTL is checked.
type TableClient = mapper.TableClient

var (
	_ Client      = (*dynamodb.Client)(nil)
	_ TableClient = (*dynamodb.Client)(nil)
)

// coordinatorRecord describes the coordinator table's key and TTL for
// mapper.CreateTable: the attributes of unitproto's records named so (a
// test holds them equal). The records themselves are unitproto's.
type coordinatorRecord struct {
	ID  string `dynamo:"id,hash"`
	TTL int64  `dynamo:"ttl,ttl"`
}

// CreateTable creates the coordinator table name (on-demand, hash key "id"
// of type S), waits until it is active and turns on TTL on "ttl" (a
// finished unit's record is deleted by TTL an hour after it finished). An
// existing table with this key is not an error, and its TTL is turned on
// if it is off; a table with another key, or with TTL on another
// attribute, is an error matching mapper.ErrSchemaMismatch (its
// *mapper.MismatchError lists the differences). It is mapper.CreateTable
// for the coordinator's record: it calls CreateTable, DescribeTable until
// active, and UpdateTimeToLive (for an existing table, DescribeTimeToLive
// first).
func CreateTable(ctx context.Context, c TableClient, name string) error {
	if err := mapper.CreateTable[coordinatorRecord](ctx, c, name); err != nil {
		return fmt.Errorf("unit: %w", err)
	}
	return nil
}
