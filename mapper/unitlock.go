package mapper

import (
	"context"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/optimist-dynamo/optimist/internal/unitlock"
)

// Items locked by a unit of work (package unit).
//
// A unit locks an item by storing a map in its attribute "optimist_unit"
// (see package unit for the format). The mapper honours such locks:
//
//   - Every conditional write (Put, Update, Delete, Save, Modify, and the
//     transaction ops PutOp, UpdateOp, DeleteOp and CheckOp) carries
//     attribute_not_exists(optimist_unit), ANDed with its other
//     conditions; a write that would create an item needs no extra term,
//     since a locked item always exists. Writes that had no condition get
//     this one. A refused write is a *LockedError matching [ErrLocked]
//     (for a transaction op: the cancellation matches ErrLocked). Batch
//     writes (PutAll, DeleteAll) cannot carry conditions and do not honour
//     locks; BatchWriteItem is for loading data no unit is working on.
//   - Every read (Get, GetAll, Query, Scan, and txn.Get with GetOp) shows
//     the last committed state of a locked item: the item as stored without
//     the lock, "not found" for an item a unit locked before creating it,
//     and for an item a unit has prepared (its new state written in place,
//     the old one kept in the lock) the old state, unless the unit's record
//     in the coordinator table says it committed, learnt with one more
//     GetItem of that record (TransactGetItems for txn.Get). That extra
//     read happens only between a unit's prepare and the end of its apply.
//   - A filter (Filter) is applied by DynamoDB to items as stored, so it
//     sees a prepared item's new state.

// ErrLocked is the class of errors for an item held by a unit of work
// (package unit): writes of such an item are refused with a
// *unitlock.LockedError (exported as unit.LockedError) that matches it.
// unit.ErrLocked is the same value.
var ErrLocked = unitlock.ErrLocked

// visible returns what a reader sees of item as stored: itself, or for an
// item locked by a unit its last committed state; nil for no item.
func (t *Table[T]) visible(ctx context.Context, item map[string]types.AttributeValue) (map[string]types.AttributeValue, error) {
	if _, ok := item[unitlock.Attr]; !ok {
		return item, nil
	}
	items := []map[string]types.AttributeValue{item}
	if err := unitlock.Resolve(ctx, items, unitlock.GetItemReader(t.client)); err != nil {
		return nil, err
	}
	return items[0], nil
}

// visibleAll is visible for a page of items; items with none are dropped.
func (t *Table[T]) visibleAll(ctx context.Context, items []map[string]types.AttributeValue) ([]map[string]types.AttributeValue, error) {
	locked := false
	for _, it := range items {
		if _, ok := it[unitlock.Attr]; ok {
			locked = true
			break
		}
	}
	if !locked {
		return items, nil
	}
	out := append([]map[string]types.AttributeValue(nil), items...)
	if err := unitlock.Resolve(ctx, out, unitlock.GetItemReader(t.client)); err != nil {
		return nil, err
	}
	kept := out[:0]
	for _, it := range out {
		if it != nil {
			kept = append(kept, it)
		}
	}
	return kept, nil
}
