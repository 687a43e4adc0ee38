package unit

import (
	"context"
	"errors"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/optimist-dynamo/optimist/internal/attrs"
	"github.com/optimist-dynamo/optimist/internal/plan"
	"github.com/optimist-dynamo/optimist/internal/syncx"
	"github.com/optimist-dynamo/optimist/internal/unitproto"
	"github.com/optimist-dynamo/optimist/mapper"
)

// Get is a locking read: it locks the item with the key of key in table
// for u and returns its committed state. A missing item is an error
// matching mapper.ErrNotFound and stays locked, so u may create it. An
// item held by another live unit is waited for as [Wait] says, then an
// error matching [ErrLocked]. Reading an item u already holds makes no
// call and returns its state as of the lock (ops given to Add apply only
// at Commit).
//
// Cost: one UpdateItem to log the item in the unit's page (so that
// recovery finds the lock) and one UpdateItem that takes the lock and
// returns the item (ALL_NEW); an item that does not exist takes a PutItem
// more (the placeholder). On any error other than ErrLocked the lock may
// have been taken: Rollback, or leave it to recovery.
func Get[T any](ctx context.Context, u *Unit, table *mapper.Table[T], key T) (*T, error) {
	if err := u.check(); err != nil {
		return nil, err
	}
	k, err := table.Key(key)
	if err != nil {
		return nil, err
	}
	it := u.itemFor(planOf(u, table, key), k)
	if !it.locked {
		if err := u.alive(ctx); err != nil {
			return nil, err
		}
		if err := u.log(ctx, []*item{it}); err != nil {
			return nil, err
		}
		if err := u.lockForRead(ctx, it); err != nil {
			return nil, err
		}
	}
	if it.placeholder {
		return nil, fmt.Errorf("%w: %s %s (locked by unit %s)", mapper.ErrNotFound, it.table, attrs.FormatKey(k), u.id)
	}
	return table.Decode(it.stored)
}

// GetAll is [Get] for many items of one table: it locks the items with the
// keys of keys for u and returns their committed states, result[i] for
// keys[i]. Items that do not exist are nil in the result, stay locked (u
// may create them), and are listed in a *mapper.MissingError (matching
// mapper.ErrNotFound), returned with the items found. Items held by other
// units are waited for as [Wait] says; the first error ends GetAll (the
// locks taken so far stay with u).
//
// Cost: the keys are logged together, one UpdateItem per page of about
// 2,000 (where Get logs each key with a write of its own), then one
// UpdateItem per item to lock it and return it (a PutItem more for an item
// that does not exist), a few at a time.
func GetAll[T any](ctx context.Context, u *Unit, table *mapper.Table[T], keys []T) ([]*T, error) {
	if err := u.check(); err != nil {
		return nil, err
	}
	items := make([]*item, len(keys))
	var pt *plan.Table
	for i := range keys {
		k, err := table.Key(keys[i])
		if err != nil {
			return nil, fmt.Errorf("%w (GetAll keys[%d])", err, i)
		}
		if pt == nil {
			pt = planOf(u, table, keys[i])
		}
		items[i] = u.itemFor(pt, k)
	}
	if err := u.alive(ctx); err != nil {
		return nil, err
	}
	if err := u.log(ctx, items); err != nil {
		return nil, err
	}
	pctx, cancel := context.WithCancel(ctx)
	defer cancel()
	errs := make([]error, len(items))
	syncx.Parallel(pctx, len(items), u.o.workers, func(pctx context.Context, i int) {
		if it := items[i]; !it.locked && pctx.Err() == nil {
			if errs[i] = u.lockForRead(pctx, it); errs[i] != nil {
				cancel()
			}
		}
	})
	if err := errors.Join(errs...); err != nil {
		for _, e := range errs {
			if e != nil && !errors.Is(e, context.Canceled) {
				return nil, e
			}
		}
		return nil, err
	}
	out := make([]*T, len(keys))
	var missing []int
	for i, it := range items {
		if it.placeholder {
			missing = append(missing, i)
			continue
		}
		v, err := table.Decode(it.stored)
		if err != nil {
			return nil, err
		}
		out[i] = v
	}
	if len(missing) > 0 {
		return out, &mapper.MissingError{Table: table.Name(), Keys: missing}
	}
	return out, nil
}

// planOf returns the write constants of table, which carry its memory of
// units and its global-table guard, as an op of the table carries them
// (table and key are usable: Key accepted them); once per unit and table.
func planOf[T any](u *Unit, table *mapper.Table[T], key T) *plan.Table {
	if pt := u.plans[table]; pt != nil {
		return pt
	}
	pt := plan.NewTable(table.Name(), "", "")
	w, err := plan.OpWrite(table.CheckOp(key, mapper.Unversioned(), mapper.If(expression.AttributeExists(expression.Name(table.HashKey())))))
	if err == nil && w.T != nil {
		pt = w.T
	}
	if u.plans == nil {
		u.plans = map[any]*plan.Table{}
	}
	u.plans[table] = pt
	return pt
}

// lockForRead takes the lock of one item for a locking read, waiting for
// (or recovering) other units that hold it: a conditional UpdateItem on an
// existing item (ALL_NEW), or a PutItem of a placeholder for a missing one.
func (u *Unit) lockForRead(ctx context.Context, it *item) error {
	c := contention{op: "Get"}
	for range 1000 {
		holder, err := u.tryLockForRead(ctx, it)
		if err != nil || holder == nil {
			return err
		}
		if err := u.contend(ctx, it, holder, &c); err != nil {
			return err
		}
	}
	return fmt.Errorf("unit: locking %s %s: the item keeps changing", it.table, attrs.FormatKey(it.key))
}

// tryLockForRead makes one attempt; it returns the other unit's lock that
// holds the item, if any.
func (u *Unit) tryLockForRead(ctx context.Context, it *item) (*unitproto.Lock, error) {
	r, err := render(u.h.ReadLock(it.table, it.key))
	if err != nil {
		return nil, err
	}
	for range 10 {
		res, err := lockWrite(ctx, u, it, r, types.ReturnValueAllNew, u.ours)
		if err != nil {
			return nil, err
		}
		if res.Outcome == plan.Applied {
			l, _ := unitproto.Parse(res.Item)
			u.heldFor(it, res.Item, l)
			return nil, nil
		}
		if len(res.Item) > 0 {
			if l, _ := unitproto.Parse(res.Item); l != nil && l.Unit != u.id {
				return l, nil
			}
			continue // changed under us; try again
		}
		// No item: lock it with a placeholder that readers take for none.
		holder, done, err := u.putPlaceholder(ctx, it, nil)
		if err != nil || done || holder != nil {
			return holder, err
		}
	}
	return nil, fmt.Errorf("unit: locking %s %s: the item keeps changing", it.table, attrs.FormatKey(it.key))
}

// ours tells a lock of u: a lost answer of a write that takes u's lock
// landed if the item holds it (u's id is random).
func (u *Unit) ours(l *unitproto.Lock) bool { return l.Unit == u.id }

// heldFor records that it holds our lock l, as item shows it.
func (u *Unit) heldFor(it *item, stored map[string]types.AttributeValue, l *unitproto.Lock) {
	it.locked, it.uncertain = true, false
	it.placeholder = l != nil && l.Placeholder
	it.prepared = l != nil && l.Prepared
	it.checked = l != nil && l.Checked
	it.stored = nil
	if !it.placeholder {
		it.stored = unitproto.Strip(stored)
	}
}

// putPlaceholder locks a missing item by writing it: its key and our lock
// (with intent, the op's write: lock and prepare in one write). done is
// true when the item is ours now; holder is another unit's lock found on
// an item created meanwhile; neither, when an item without a lock
// appeared: try again.
func (u *Unit) putPlaceholder(ctx context.Context, it *item, intent map[string]types.AttributeValue) (holder *unitproto.Lock, done bool, err error) {
	w := u.h.PutPlaceholder(it.table, it.key, intent)
	ph := w.Item
	r, err := render(w)
	if err != nil {
		return nil, false, err
	}
	res, err := lockWrite(ctx, u, it, r, types.ReturnValueNone, u.ours)
	switch {
	case err != nil:
		return nil, false, err
	case res.Outcome == plan.Applied && !res.Lost():
		l, _ := unitproto.Parse(ph)
		u.heldFor(it, ph, l)
		return nil, true, nil
	case res.Outcome == plan.Applied: // our own placeholder, as stored after a lost answer
		l, _ := unitproto.Parse(res.Item)
		u.heldFor(it, res.Item, l)
		return nil, true, nil
	}
	if l, ok := unitproto.Parse(res.Item); ok {
		if l.Unit == u.id { // our own placeholder
			u.heldFor(it, res.Item, l)
			return nil, true, nil
		}
		return l, false, nil
	}
	return nil, false, nil
}
