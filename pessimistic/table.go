package pessimistic

import (
	"context"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/optimist-dynamo/optimist/internal/ddbapi"
	"github.com/optimist-dynamo/optimist/internal/replica"
	"github.com/optimist-dynamo/optimist/internal/tabledef"
	"github.com/optimist-dynamo/optimist/mapper"
)

// The lock table's key: every lock is a partition (pk = the lock's name);
// its record has sk = "lock" (and holds the FIFO queue, see fifo.go).
const (
	attrPK    = "pk"
	attrSK    = "sk"
	lockSK    = "lock"
	attrOwner = "owner"
	attrRvn   = "rvn"     // record version: new on every acquire and heartbeat
	attrLease = "leaseMs" // the holder's lease duration, for waiters
	attrFence = "fence"   // the fencing token counter; never goes back
	attrTTL   = "ttl"     // epoch seconds, for DynamoDB's TTL cleanup only
	attrData  = "data"    // B: the holder's Data

	// The last holder (or FIFO entry) removed without releasing, by
	// ForceRelease or as abandoned, and its token: the next holder reports
	// its acquisition as a takeover from it.
	attrGoneOwner = "goneOwner"
	attrGoneToken = "goneToken"
	// The holder an acquisition replaced (NULL: none), and its token.
	attrPrevOwner = "prevOwner"
	attrPrevToken = "prevToken"
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
// with TTL on another attribute, is an error matching [ErrSchemaMismatch]
// (mapper.ErrSchemaMismatch, the same value; its *mapper.MismatchError
// lists the differences). It is mapper.CreateTable for the lock record: it calls
// CreateTable, DescribeTable until ACTIVE, and UpdateTimeToLive (for an
// existing table, DescribeTimeToLive first).
func CreateTable(ctx context.Context, c TableClient, name string) error {
	err := mapper.CreateTable[lockRecord](ctx, c, name)
	if err != nil {
		return fmt.Errorf("pessimistic: %w", err)
	}
	return nil
}

// lockTableDef is the key schema of lockRecord, as mapper.CreateTable
// creates it, for checkTable.
func lockTableDef(name string) *tabledef.Def {
	return &tabledef.Def{
		Name:  name,
		Hash:  tabledef.Key{Name: attrPK, Type: types.ScalarAttributeTypeS},
		Range: tabledef.Key{Name: attrSK, Type: types.ScalarAttributeTypeS},
	}
}

// checkTable makes sure the table has the lock table's key schema, with
// the comparison mapper.CreateTable and Table.Check make (package
// tabledef).
func checkTable(ctx context.Context, c ddbapi.Describer, name string, g *replica.Guard) error {
	desc, diffs, err := tabledef.Check(ctx, c, lockTableDef(name))
	if err != nil {
		return fmt.Errorf("pessimistic: describe lock table %s: %w", name, err)
	}
	if len(diffs) == 0 {
		// The same answer says whether the table is global.
		g.Learn(desc)
		if err := g.Check(ctx, c); err != nil {
			return fmt.Errorf("pessimistic: lock table %s: %w", name, err)
		}
		return nil
	}
	return fmt.Errorf("pessimistic: %w: table %s: %s; a lock table needs pk (S) as hash key and sk (S) as range key (see CreateTable)",
		ErrSchemaMismatch, name, tabledef.Text(diffs))
}
