package mapper

import (
	"context"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/optimist-dynamo/optimist/internal/cond"
	"github.com/optimist-dynamo/optimist/internal/unitproto"
)

// Items held by a unit of work (package unit).
//
// A unit holds an item by a lock in its attribute "optimist_unit", and
// keeps its write for the item in the lock until it is applied, after the
// unit's commit point: what the item stores outside the lock is its
// committed state, except in the moments between a unit's commit point and
// its apply of that item. The mapper honours such locks:
//
//   - Every write (Put, Update, Delete, Save, Modify, and the transaction
//     ops PutOp, UpdateOp, DeleteOp and CheckOp) carries
//     attribute_not_exists(optimist_unit), ANDed with its other conditions
//     (a create needs none: a held item always exists). A refused write
//     reads the unit's record (one GetItem): if the unit is over (committed
//     or rolled back) or dead (its heartbeat counter stayed the same for a
//     full lease, watched by this Table across calls: each Table keeps
//     its own memory, and a Table made anew starts from nothing), the
//     write rolls the item forward or back (one write, and for a dead unit
//     one on its record) and is sent again, once; otherwise it is a
//     [*LockedError] matching [ErrLocked]. So an item is never blocked
//     much longer than a lease after its unit's process died, whoever
//     touches it through one Table. Batch writes
//     (PutAll, DeleteAll) cannot carry conditions and do not honour locks:
//     BatchWriteItem is for loading data no unit is working on; one that
//     overwrites an item a unit holds removes the unit's lock, and the
//     unit's write of that item is then lost.
//   - Every read (Get, GetAll, Query, Scan, and txn.Get with GetOp) shows
//     the last committed state of a held item: the item as stored without
//     the lock, "not found" for an item a unit holds while it does not
//     exist, and for an item whose lock holds the unit's write, that write
//     if the unit's record says it committed (one GetItem of the record per
//     unit and page; an update is applied by the reader, one write, as the
//     unit would). A page (or batch) that shows a committed unit's lock
//     is read again (TransactGetItems) when it may show the unit half applied:
//     an item holds its lock without its write, or an item on its item
//     list (read from the coordinator table) holds no lock of it (see
//     unitproto.Resolve). A Filter, and the key condition of a Query of a
//     secondary index, are evaluated again on what is shown, so items are
//     filtered by their committed state.
//   - Queries of a secondary index find items by their index key as stored.
//     An item a unit moves to another index key is therefore found under
//     its old key, and shown there only if its committed state still
//     matches, until the unit applies it: in the moments between the
//     unit's commit point and its apply (or, if the unit's process died
//     there, until recovery or any call that touches the item applies it),
//     a query of the new key may miss it. An index that does not project
//     "optimist_unit" (KEYS_ONLY, or INCLUDE without it) shows items as
//     stored: never an uncommitted state, but in those same moments the
//     state from before the unit. CreateTable adds the attribute to every
//     INCLUDE projection.

// visible returns what a reader sees of item as stored: itself, or for an
// item held by a unit its last committed state; nil for no item.
func (t *Table[T]) visible(ctx context.Context, item map[string]types.AttributeValue) (map[string]types.AttributeValue, error) {
	if _, ok := item[unitproto.Attr]; !ok {
		return item, nil
	}
	items := []map[string]types.AttributeValue{item}
	if _, err := t.resolve(ctx, items); err != nil {
		return nil, err
	}
	return items[0], nil
}

// resolve is unitproto.Resolve for items of this table.
// The key of an item is taken from the item as read (Resolve asks before it
// replaces items[i]), or for a nil entry (a key read and not found) from
// key, if given.
func (t *Table[T]) resolve(ctx context.Context, items []map[string]types.AttributeValue, key ...func(i int) map[string]types.AttributeValue) ([]bool, error) {
	return unitproto.Resolve(ctx, items, unitproto.GetItemReader(t.client), t.client,
		func(i int) (string, map[string]types.AttributeValue) {
			if items[i] == nil && len(key) > 0 {
				return t.name, key[0](i)
			}
			return t.name, t.s.keyFrom(items[i])
		})
}

// recheck is a condition DynamoDB evaluated on items as stored, to evaluate
// again on what a reader is shown of an item a unit holds.
type recheck struct {
	expr   *cond.Expr
	names  map[string]string
	values map[string]types.AttributeValue
}

// visibleAll is visible for a page of items; items with none, and items
// whose committed state fails one of checks, are dropped.
func (t *Table[T]) visibleAll(ctx context.Context, items []map[string]types.AttributeValue, checks ...*recheck) ([]map[string]types.AttributeValue, error) {
	locked := false
	for _, it := range items {
		if _, ok := it[unitproto.Attr]; ok {
			locked = true
			break
		}
	}
	if !locked {
		return items, nil
	}
	out := append([]map[string]types.AttributeValue(nil), items...)
	prepared, err := t.resolve(ctx, out)
	if err != nil {
		return nil, err
	}
	kept := out[:0]
	for i, it := range out {
		if it == nil {
			continue
		}
		if prepared[i] {
			keep := true
			for _, c := range checks {
				if c == nil {
					continue
				}
				ok, err := c.expr.Eval(it, c.names, c.values)
				if err != nil {
					return nil, err
				}
				keep = keep && ok
			}
			if !keep {
				continue
			}
		}
		kept = append(kept, it)
	}
	return kept, nil
}
