package unit

import (
	"context"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/optimist-dynamo/optimist/internal/attrs"
	"github.com/optimist-dynamo/optimist/internal/cond"
	"github.com/optimist-dynamo/optimist/internal/plan"
	"github.com/optimist-dynamo/optimist/internal/unitproto"
	"github.com/optimist-dynamo/optimist/mapper"
	"github.com/optimist-dynamo/optimist/version"
)

// opWrite is the op's write as the unit sends it: without the unit-lock
// guard (the unit holds or takes the lock itself) and without the
// version check when evalVersion says it is settled already.
func opWrite(op *plan.Write) *plan.Write {
	w := *op
	w.Guard, w.Token, w.OnCommit = false, "", nil
	w.Conds = append([]expression.ConditionBuilder(nil), op.Conds...)
	return &w
}

// lockAndPrepare takes the lock of an item the unit does not hold, with
// the op's write in it, in one write: an UpdateItem of an existing item
// conditional on the op's condition and on no lock, or, for an item that
// does not exist, a PutItem of the key and the lock. It returns the lock
// of another unit that holds the item.
func (u *Unit) lockAndPrepare(ctx context.Context, it *item) (*unitproto.Lock, error) {
	op := it.w
	in, err := u.h.Intent(op)
	if err != nil {
		return nil, err
	}
	if op.Check == plan.MustNotExist {
		// A create: the item must not exist, and the PutItem says so.
		return u.createPrepared(ctx, it, in)
	}
	if err := u.fitsAlone(it); err != nil {
		return nil, err
	}
	w := opWrite(op)
	u.h.LockAndPrepare(w, it.key, in)
	res, held, err := u.sendLock(ctx, it, w, types.ReturnValueAllNew, nil)
	switch {
	case err != nil:
		return nil, err
	case held:
		return nil, u.fitsApplied(it)
	}
	stored := res.Item
	if len(stored) == 0 {
		// No item: the op writes it, if its condition holds on no item.
		if err := u.holdsOnNoItem(it); err != nil {
			return nil, err
		}
		return u.createPrepared(ctx, it, in)
	}
	if other, locked := u.lockOn(it, stored); locked {
		return other, nil // or our own earlier attempt; prepare() goes on from it
	}
	return nil, refusal(it, stored, res.Err)
}

// sendLock renders w, a write that takes the item's lock, and sends it.
// When it was applied, and answered, it records the lock the unit holds
// now, as the item written says (written, or the answer's item when
// written is nil), and returns held. Otherwise res.Item is the item as
// stored.
func (u *Unit) sendLock(ctx context.Context, it *item, w *plan.Write, rv types.ReturnValue, written map[string]types.AttributeValue) (res plan.Result, held bool, err error) {
	req, err := render(w)
	if err != nil {
		return res, false, err
	}
	res, err = lockWrite(ctx, u, it, req, rv, u.ours)
	if err != nil || res.Outcome != plan.Applied || res.Lost() {
		return res, false, err
	}
	if written == nil {
		written = res.Item
	}
	l, _ := unitproto.Parse(written)
	u.heldFor(it, written, l)
	return res, true, nil
}

// lockOn reports whether stored carries a unit's lock, and returns it if
// it is another unit's; our own (from an earlier attempt whose answer was
// lost) is recorded as held.
func (u *Unit) lockOn(it *item, stored map[string]types.AttributeValue) (other *unitproto.Lock, locked bool) {
	l, ok := unitproto.Parse(stored)
	if !ok {
		return nil, false
	}
	if l.Unit != u.id {
		return l, true
	}
	u.heldFor(it, stored, l)
	return nil, true
}

// createPrepared locks a missing item with the op's write in one PutItem
// of its key and our lock, conditional on the item not existing and on
// the op's own condition, which DynamoDB evaluates on no item. It returns
// the lock of another unit that made the item meanwhile.
func (u *Unit) createPrepared(ctx context.Context, it *item, in map[string]types.AttributeValue) (*unitproto.Lock, error) {
	if err := u.fitsAlone(it); err != nil {
		return nil, err
	}
	op := it.w
	ph := u.h.Placeholder(it.key, in)
	w := opWrite(op)
	w.Kind, w.Item, w.Actions, w.Key = plan.WritePut, ph, nil, it.key
	if w.Check == plan.MustBeNewOrZero || w.Check == plan.MustNotExist {
		w.Check = plan.NoCheck // "no item" is what the PutItem's own condition says
	}
	w.Conds = append(w.Conds, expression.AttributeNotExists(expression.NameNoDotSplit(anyKey(it.key))))
	res, held, err := u.sendLock(ctx, it, w, types.ReturnValueNone, ph)
	if err != nil || held {
		return nil, err
	}
	stored := res.Item
	if len(stored) == 0 {
		// The op's own condition is false on no item.
		return nil, refusal(it, nil, res.Err)
	}
	if other, locked := u.lockOn(it, stored); locked {
		return other, nil // or our own earlier attempt
	}
	if op.Check == plan.MustNotExist || op.Check == plan.MustBeNewOrZero {
		if conflict, _, _ := op.Conflict(stored); conflict {
			return nil, refusal(it, stored, res.Err)
		}
	}
	// An item without a lock appeared: lock it as an existing one.
	return nil, nil
}

// prepareHeld adds the op's write to the lock the unit holds (from a
// locking read): one UpdateItem conditional on the lock being ours and not
// prepared, and on the op's condition, which DynamoDB evaluates on the item
// as the unit read it (it cannot have changed since). On an item the
// unit's lock made (a placeholder), the op's condition is evaluated on no
// item here, since the stored item is only its key and our lock.
func (u *Unit) prepareHeld(ctx context.Context, it *item) error {
	op := it.w
	w := opWrite(op)
	if it.placeholder {
		if err := u.holdsOnNoItem(it); err != nil {
			return err
		}
		w.Check, w.Fence, w.Conds = plan.NoCheck, nil, nil
	}
	if err := u.fitsHeld(it); err != nil {
		return err
	}
	in, err := u.h.Intent(op)
	if err != nil {
		return err
	}
	check := op.Kind == plan.WriteCheck
	u.h.PrepareHeld(w, in, check)
	req, err := render(w)
	if err != nil {
		return err
	}
	// A lost answer landed if our lock holds the write (or, for a check,
	// the mark): the condition allows no other write of it.
	res, err := lockWrite(ctx, u, it, req, types.ReturnValueNone, func(l *unitproto.Lock) bool {
		return l.Unit == u.id && (check && l.Checked || !check && l.Prepared)
	})
	switch {
	case err != nil:
		return err
	case res.Outcome == plan.Applied:
		it.prepared, it.checked = !check, check
		return nil
	}
	l, locked := unitproto.Parse(res.Item)
	switch {
	case !locked || l.Unit != u.id:
		it.locked = false // undone by recovery
		return fmt.Errorf("%w: unit %s lost its lock on %s %s", ErrAborted, u.id, it.table, attrs.FormatKey(it.key))
	case l.Prepared && op.Kind != plan.WriteCheck:
		it.prepared = true // our own earlier attempt
		return nil
	}
	// The op's own condition failed, on the item as the unit read it.
	return refusal(it, it.stored, res.Err)
}

// holdsOnNoItem evaluates the op's condition on no item, for an item that
// does not exist: its version check, its fence, and the caller's own
// conditions (evaluated as DynamoDB would, on an item without attributes).
func (u *Unit) holdsOnNoItem(it *item) error {
	op := it.w
	if op.Check == plan.MustBeVersion {
		return refusal(it, nil, nil)
	}
	for _, c := range op.Conds {
		e, err := expression.NewBuilder().WithCondition(c).Build()
		if err != nil {
			return fmt.Errorf("%w: %v", mapper.ErrInvalidOption, err)
		}
		ok, err := cond.EvalString(*e.Condition(), e.Names(), e.Values(), nil)
		if err != nil {
			return fmt.Errorf("%w: the condition of the op on %s %s: %v", mapper.ErrInvalidOption, it.table, attrs.FormatKey(it.key), err)
		}
		if !ok {
			return &mapper.ConditionError{Table: it.table, Key: it.key}
		}
	}
	return nil
}

// refusal is the error of an op whose condition failed on stored (the
// item as the unit found it, nil for none).
func refusal(it *item, stored map[string]types.AttributeValue, err error) error {
	op := it.w
	if conflict, actual, has := op.Conflict(stored); conflict {
		return &version.ConflictError{Table: it.table, Key: it.key, Expected: op.Expected, Actual: actual,
			ActualMissing: stored != nil && !has, Item: stored, Err: err}
	}
	return &mapper.ConditionError{Table: it.table, Key: it.key, Item: stored, Err: err}
}
