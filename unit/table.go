package unit

import (
	"context"
	"fmt"
	"reflect"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/optimist-dynamo/optimist/internal/ddbapi"
	"github.com/optimist-dynamo/optimist/internal/unitproto"
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
// mapper.CreateTable: the attributes unitproto.RecID and unitproto.RecTTL.
// The record's other attributes are written by hand.
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

// isNilClient reports whether c is nil or holds a nil pointer (a nil
// *dynamodb.Client would panic inside the SDK on the first call).
func isNilClient(c Client) bool {
	if c == nil {
		return true
	}
	v := reflect.ValueOf(c)
	return v.Kind() == reflect.Pointer && v.IsNil()
}

// checkCoordinator refuses a table that is not a coordinator table: one
// whose key is not exactly the hash key unitproto.RecID of type S, as
// [CreateTable] makes it (one DescribeTable, with the caller's ctx). A
// client without DescribeTable is not checked here; List then refuses
// the first item that is neither a unit's record nor one of its pages.
func checkCoordinator(ctx context.Context, c Client, name string) error {
	d, ok := c.(ddbapi.Describer)
	if !ok {
		return nil
	}
	out, err := d.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(name)})
	if err != nil {
		return fmt.Errorf("unit: describing %s: %w", name, err)
	}
	if out.Table == nil {
		return fmt.Errorf("%w: %s: DescribeTable returned no table", ErrNotCoordinator, name)
	}
	ks := out.Table.KeySchema
	if len(ks) != 1 || aws.ToString(ks[0].AttributeName) != unitproto.RecID || ks[0].KeyType != types.KeyTypeHash {
		return fmt.Errorf("%w: %s: its key is %s, where a coordinator table's is the hash key %q (made by unit.CreateTable)", ErrNotCoordinator, name, keySchema(ks), unitproto.RecID)
	}
	for _, a := range out.Table.AttributeDefinitions {
		if aws.ToString(a.AttributeName) == unitproto.RecID && a.AttributeType != types.ScalarAttributeTypeS {
			return fmt.Errorf("%w: %s: its key %q is of type %s, not S", ErrNotCoordinator, name, unitproto.RecID, a.AttributeType)
		}
	}
	return nil
}

func keySchema(ks []types.KeySchemaElement) string {
	var b strings.Builder
	for i, k := range ks {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%s (%s)", aws.ToString(k.AttributeName), k.KeyType)
	}
	return b.String()
}
