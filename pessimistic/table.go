package pessimistic

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/optimist-dynamo/optimist/mapper"
)

// The lock table's key: every lock is a partition (pk = the lock's name);
// its record has sk = "lock" (and holds the FIFO queue, see fifo.go).
const (
	attrPK     = "pk"
	attrSK     = "sk"
	lockSK     = "lock"
	attrOwner  = "owner"
	attrRvn    = "rvn"     // record version: new on every acquire and heartbeat
	attrLease  = "leaseMs" // the holder's lease duration, for waiters
	attrFence  = "fence"   // the fencing token counter; never goes back
	attrTTL    = "ttl"     // epoch seconds, for DynamoDB's TTL cleanup only
	attrData   = "data"    // B: the holder's Data
	tableCheck = 30 * time.Second
)

// lockRecord describes the lock table's key and TTL for mapper.CreateTable;
// the lock's own attributes are written by hand.
type lockRecord struct {
	PK  string `dynamo:"pk,hash"`
	SK  string `dynamo:"sk,range"`
	TTL int64  `dynamo:"ttl,ttl"`
}

// CreateTable creates a lock table: pk (S) hash key, sk (S) range key,
// on-demand billing, TTL enabled on "ttl"; it waits until the table is
// active. A table that exists already with this key schema is accepted, and
// its TTL is turned on if it is off. A table with another key schema, or
// with TTL on another attribute, is an error matching [ErrTableSchema] (and
// mapper.ErrSchemaMismatch, whose *mapper.MismatchError lists the
// differences). It is mapper.CreateTable for the lock record: it calls
// CreateTable, DescribeTable until ACTIVE, and UpdateTimeToLive (for an
// existing table, DescribeTimeToLive first).
func CreateTable(ctx context.Context, c TableClient, name string) error {
	err := mapper.CreateTable[lockRecord](ctx, c, name)
	if errors.Is(err, mapper.ErrSchemaMismatch) {
		return fmt.Errorf("%w: %w", ErrTableSchema, err)
	}
	if err != nil {
		return fmt.Errorf("pessimistic: %w", err)
	}
	return nil
}

// checkTable makes sure the table has the lock table's key schema.
func checkTable(ctx context.Context, c interface {
	DescribeTable(context.Context, *dynamodb.DescribeTableInput, ...func(*dynamodb.Options)) (*dynamodb.DescribeTableOutput, error)
}, name string) error {
	out, err := c.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(name)})
	if err != nil {
		return fmt.Errorf("pessimistic: describe lock table %s: %w", name, err)
	}
	attrTypes := map[string]types.ScalarAttributeType{}
	for _, d := range out.Table.AttributeDefinitions {
		attrTypes[aws.ToString(d.AttributeName)] = d.AttributeType
	}
	var got []string
	ok := len(out.Table.KeySchema) == 2
	for _, k := range out.Table.KeySchema {
		n := aws.ToString(k.AttributeName)
		got = append(got, fmt.Sprintf("%s %s (%s)", n, k.KeyType, attrTypes[n]))
		want := map[types.KeyType]string{types.KeyTypeHash: attrPK, types.KeyTypeRange: attrSK}[k.KeyType]
		ok = ok && n == want && attrTypes[n] == types.ScalarAttributeTypeS
	}
	if !ok {
		return fmt.Errorf("%w: table %s has key %v; a lock table needs pk (S) as hash key and sk (S) as range key (see CreateTable)", ErrTableSchema, name, got)
	}
	return nil
}
