package unit

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"

	"github.com/optimist-dynamo/optimist/internal/attrs"
	"github.com/optimist-dynamo/optimist/internal/cond"
	"github.com/optimist-dynamo/optimist/internal/plan"
	"github.com/optimist-dynamo/optimist/internal/unitlock"
	"github.com/optimist-dynamo/optimist/mapper"
	"github.com/optimist-dynamo/optimist/observe"
	"github.com/optimist-dynamo/optimist/version"
)

// Commit makes the unit's writes, all or nothing:
//
//  1. log every item of an op not yet logged (one write per page);
//  2. lock and prepare each op in one conditional write: the op's write is
//     stored in the item's lock as an intent (the new item, the update's
//     actions, or "delete"), on the op's own conditions (its version check)
//     and on no other unit holding the item; the item's own attributes do
//     not change, so readers keep seeing its committed state. An item the
//     unit read (locked) already takes one write that adds the intent;
//  3. the commit point: one conditional UpdateItem of the unit's record,
//     active → committed;
//  4. apply: each item gets its intent and loses the lock (one write per
//     item; a deleted item is deleted), and the record is marked finished.
//
// Before the commit point any failure rolls the unit back and is returned:
// a version conflict or failed condition of an op (matching
// version.ErrConflict or mapper.ErrConditionFailed, with the versions
// met), [ErrLocked], mapper.ErrItemTooLarge, or [ErrAborted] if recovery rolled the
// unit back first. If the commit point's outcome cannot be learnt
// (DynamoDB unreachable), the error matches version.ErrUnknownOutcome and
// the locks stay for recovery, which will finish or undo the unit. After
// the commit point Commit returns nil even if applying some items failed:
// readers already see them committed, and any call that meets them (or
// Recover) finishes them. The structs of the mapper's ops get their new
// versions on success.
func (u *Unit) Commit(ctx context.Context) error {
	err := u.commit(ctx)
	switch {
	case err == nil:
		u.point(ctx, observe.UnitCommit, "Commit", nil)
	case errors.Is(err, version.ErrUnknownOutcome):
		u.point(ctx, observe.UnknownOutcome, "Commit", err)
	}
	u.end("Commit", err)
	return err
}

func (u *Unit) commit(ctx context.Context) error {
	if err := u.check(); err != nil {
		if errors.Is(err, ErrAborted) {
			// Rolled back under its feet (a long pause): release what it
			// may have locked since, as Rollback would.
			return u.abort(ctx, "Commit", err)
		}
		return err
	}
	var todo []*item
	for _, it := range u.order {
		if it.w != nil {
			todo = append(todo, it)
		}
	}
	sort.Slice(todo, func(i, j int) bool { return todo[i].id < todo[j].id })
	if err := u.prepareAll(ctx, todo); err != nil {
		if errors.Is(err, version.ErrUnknownOutcome) {
			u.done = true
			u.stopHeartbeats()
			return err
		}
		return u.abort(ctx, "Commit", err)
	}
	u.stopHeartbeats()
	u.done = true
	st, err := unitlock.SetState(ctx, u.c, u.o.coord, u.id, unitlock.StateCommitted, "")
	if err != nil {
		// The outcome is not known: read the record back.
		rec, rerr := unitlock.ReadRecord(ctx, u.c, u.o.coord, u.id)
		if rerr != nil {
			return fmt.Errorf("%w: unit %s: the commit point's outcome is unknown (recovery will finish or undo it): %v", version.ErrUnknownOutcome, u.id, err)
		}
		st = rec.State
		if st == unitlock.StateActive {
			if st, err = unitlock.SetState(ctx, u.c, u.o.coord, u.id, unitlock.StateCommitted, ""); err != nil {
				return fmt.Errorf("%w: unit %s: the commit point's outcome is unknown (recovery will finish or undo it): %v", version.ErrUnknownOutcome, u.id, err)
			}
		}
	}
	if st != unitlock.StateCommitted {
		u.done = false
		return u.abort(ctx, "Commit", fmt.Errorf("%w: unit %s found its record %q at its commit point", ErrAborted, u.id, st))
	}
	// Committed.
	_ = u.finish(ctx, true)
	for _, it := range todo {
		if it.w.OnCommit != nil {
			it.w.OnCommit()
		}
	}
	return nil
}

// Rollback releases every lock the unit took and writes nothing of its
// ops: it marks the record aborted (so that no reader or recoverer takes
// the unit for committed), waits for the answer of every lock write the
// unit sent that a cancelled call stopped waiting for (see "Nothing left
// locked" in the package doc), then removes each lock (one write per item,
// and a read first of an item whose lock write had no answer; an item the
// unit's lock made is deleted) and marks the record finished.
// After Commit or Rollback it returns ErrDone.
func (u *Unit) Rollback(ctx context.Context) error {
	if u == nil {
		return fmt.Errorf("%w: a nil *Unit", ErrInvalidOption)
	}
	if u.done {
		return ErrDone
	}
	err := u.abort(ctx, "Rollback", nil)
	if errors.Is(err, ErrAborted) { // recovery got there first: rolled back all the same
		err = nil
	}
	u.end("Rollback", err)
	return err
}

// abort rolls the unit back (for the call op) and returns cause (or the
// rollback's own failure when cause is nil).
func (u *Unit) abort(ctx context.Context, op string, cause error) error {
	err := u.rollback(ctx, cause)
	u.point(ctx, observe.UnitRollback, op, err)
	return err
}

func (u *Unit) rollback(ctx context.Context, cause error) error {
	u.stopHeartbeats()
	u.done = true
	ctx = context.WithoutCancel(ctx)
	st, err := unitlock.SetState(ctx, u.c, u.o.coord, u.id, unitlock.StateAborted, "")
	if err != nil {
		return errors.Join(cause, fmt.Errorf("unit %s: rolling back: %w", u.id, err))
	}
	if st == unitlock.StateCommitted { // cannot be: only Commit commits
		return errors.Join(cause, fmt.Errorf("unit %s: rolling back a committed unit", u.id))
	}
	if err := u.finish(ctx, false); err != nil {
		return errors.Join(cause, err)
	}
	return cause
}

// finish applies or undoes every lock the unit may hold, then marks the
// record finished. It goes on past an item that fails, so that one bad
// item leaves no lock on the others; the record then stays unfinished, for
// recovery.
func (u *Unit) finish(ctx context.Context, commit bool) error {
	// Every lock write the unit sent has its answer before any item is
	// read: one whose caller gave up (its ctx ended) may still land, and an
	// item read before it lands would keep that lock after the record is
	// finished, where no one looks for it.
	u.sends.Wait()
	var held []*item
	for _, it := range u.order {
		if it.locked || it.uncertain || it.logged {
			held = append(held, it)
		}
	}
	errs := make([]error, len(held))
	parallel(ctx, len(held), u.o.workers, func(ctx context.Context, i int) {
		it := held[i]
		_, errs[i] = unitlock.Finish(ctx, u.c, it.table, it.key, u.id, commit, it.lockState(u))
	})
	if err := errors.Join(errs...); err != nil {
		return err
	}
	pages := u.page
	if u.pageLen > 0 {
		pages++
	}
	return finishRecord(ctx, u.c, u.o.coord, u.id, pages)
}

// prepareAll logs the items of todo not logged yet, then locks (if need be)
// and prepares each.
func (u *Unit) prepareAll(ctx context.Context, todo []*item) error {
	if err := u.alive(ctx); err != nil {
		return err
	}
	if err := u.log(ctx, todo); err != nil {
		return err
	}
	// A few at a time, in key order: wait-die rules out deadlocks whatever
	// the order; the order keeps two units from each taking half of the
	// other's items.
	// The first failure stops the others (their waits end with pctx).
	pctx, cancel := context.WithCancel(ctx)
	defer cancel()
	errs := make([]error, len(todo))
	parallel(pctx, len(todo), u.o.workers, func(pctx context.Context, i int) {
		if pctx.Err() != nil {
			return // not tried: the unit rolls back
		}
		if errs[i] = u.prepare(pctx, todo[i]); errs[i] != nil {
			cancel()
		}
	})
	var first error
	for _, err := range errs {
		if err != nil && (first == nil || errors.Is(first, context.Canceled) && !errors.Is(err, context.Canceled)) {
			first = err
		}
	}
	return first
}

// prepare stores the op's write as the intent of the item's lock: one
// write that also takes the lock when the unit does not hold it yet,
// waiting for (or recovering) other units that hold the item.
func (u *Unit) prepare(ctx context.Context, it *item) error {
	c := contention{op: "Commit"}
	for range 1000 {
		if u.aborted.Load() {
			return ErrAborted
		}
		if it.locked && (it.prepared || it.checked) {
			return nil
		}
		var holder *unitlock.Lock
		var err error
		if it.locked {
			err = u.prepareHeld(ctx, it)
		} else {
			holder, err = u.lockAndPrepare(ctx, it)
		}
		if err != nil {
			return err
		}
		if holder != nil {
			if err := u.contend(ctx, it, holder, &c); err != nil {
				return err
			}
		}
	}
	return fmt.Errorf("unit: preparing %s %s: the item keeps changing", it.table, attrs.FormatKey(it.key))
}

// opWrite is the op's write as the unit sends it: without the unit-lock
// guard (the unit holds or takes the lock itself) and without the
// version check when evalVersion says it is settled already.
func opWrite(op *plan.Write) *plan.Write {
	w := *op
	w.Guard, w.Token, w.OnCommit = false, "", nil
	w.Conds = append([]expression.ConditionBuilder(nil), op.Conds...)
	return &w
}

// intent returns the lock fields that store the op's write (none for a
// check), and for a check the "checked" mark.
func intent(op *plan.Write) (map[string]types.AttributeValue, error) {
	if op.Kind == plan.WriteCheck {
		return map[string]types.AttributeValue{unitlock.FChecked: avTrue}, nil
	}
	return unitlock.Intent(op)
}

// lockAndPrepare takes the lock of an item the unit does not hold, with
// the op's write in it, in one write: an UpdateItem of an existing item
// conditional on the op's condition and on no lock, or, for an item that
// does not exist, a PutItem of the key and the lock. It returns the lock
// of another unit that holds the item.
func (u *Unit) lockAndPrepare(ctx context.Context, it *item) (*unitlock.Lock, error) {
	op := it.w
	in, err := intent(op)
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
	lock := unitlock.NewLock(u.id, u.o.coord, u.o.owner, false)
	for k, v := range in {
		lock[k] = v
	}
	w := opWrite(op)
	w.Kind, w.Item, w.Enc = plan.WriteUpdate, nil, nil
	w.Actions = []plan.Action{{Kind: plan.Set, Path: plan.Top(unitlock.Attr), Value: &types.AttributeValueMemberM{Value: lock}}}
	w.Conds = append(w.Conds,
		expression.AttributeExists(expression.NameNoDotSplit(anyKey(it.key))),
		expression.AttributeNotExists(expression.NameNoDotSplit(unitlock.Attr)))
	req, err := w.UpdateInput(types.ReturnValueAllNew)
	if err != nil {
		return nil, err
	}
	out, err := send(ctx, u, func(ctx context.Context) (*dynamodb.UpdateItemOutput, error) { return u.c.UpdateItem(ctx, req) })
	if err == nil {
		l, _ := unitlock.Parse(out.Attributes)
		u.heldFor(it, out.Attributes, l)
		return nil, u.fitsApplied(it)
	}
	e, ok := ccf(err)
	if !ok {
		it.uncertain = true
		return nil, u.lockErr(it, err)
	}
	stored := e.Item
	if len(stored) == 0 {
		// No item: the op writes it, if its condition holds on no item.
		if err := u.holdsOnNoItem(it); err != nil {
			return nil, err
		}
		return u.createPrepared(ctx, it, in)
	}
	if l, ok := unitlock.Parse(stored); ok {
		if l.Unit != u.id {
			return l, nil
		}
		u.heldFor(it, stored, l) // our own earlier attempt; prepare() goes on from it
		return nil, nil
	}
	return nil, refusal(it, stored, err)
}

// createPrepared locks a missing item with the op's write in one PutItem
// of its key and our lock, conditional on the item not existing and on
// the op's own condition, which DynamoDB evaluates on no item. It returns
// the lock of another unit that made the item meanwhile.
func (u *Unit) createPrepared(ctx context.Context, it *item, in map[string]types.AttributeValue) (*unitlock.Lock, error) {
	if err := u.fitsAlone(it); err != nil {
		return nil, err
	}
	op := it.w
	ph := u.placeholder(it, in)
	w := opWrite(op)
	w.Kind, w.Item, w.Actions, w.Key = plan.WritePut, ph, nil, it.key
	if w.Check == plan.MustBeNewOrZero || w.Check == plan.MustNotExist {
		w.Check = plan.NoCheck // "no item" is what the PutItem's own condition says
	}
	w.Conds = append(w.Conds, expression.AttributeNotExists(expression.NameNoDotSplit(anyKey(it.key))))
	req, err := w.PutInput()
	if err != nil {
		return nil, err
	}
	if _, err = send(ctx, u, func(ctx context.Context) (*dynamodb.PutItemOutput, error) { return u.c.PutItem(ctx, req) }); err == nil {
		l, _ := unitlock.Parse(ph)
		u.heldFor(it, ph, l)
		return nil, nil
	}
	e, ok := ccf(err)
	if !ok {
		it.uncertain = true
		return nil, u.lockErr(it, err)
	}
	stored := e.Item
	if len(stored) == 0 {
		// The op's own condition is false on no item.
		return nil, refusal(it, nil, err)
	}
	if l, ok := unitlock.Parse(stored); ok {
		if l.Unit != u.id {
			return l, nil
		}
		u.heldFor(it, stored, l) // our own earlier attempt
		return nil, nil
	}
	if op.Check == plan.MustNotExist || op.Check == plan.MustBeNewOrZero {
		if conflict, _, _ := op.Conflict(stored); conflict {
			return nil, refusal(it, stored, err)
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
	in, err := intent(op)
	if err != nil {
		return err
	}
	w.Kind, w.Item, w.Enc = plan.WriteUpdate, nil, nil
	w.Actions = nil
	for k, v := range in {
		w.Actions = append(w.Actions, plan.Action{Kind: plan.Set, Path: plan.Path{{Name: unitlock.Attr}, {Name: k}}, Value: v})
	}
	w.Conds = append(w.Conds, unitlock.Mine(u.id))
	if op.Kind != plan.WriteCheck {
		w.Conds = append(w.Conds, unitlock.NotPrepared())
	}
	req, err := w.UpdateInput(types.ReturnValueNone)
	if err != nil {
		return err
	}
	_, err = send(ctx, u, func(ctx context.Context) (*dynamodb.UpdateItemOutput, error) { return u.c.UpdateItem(ctx, req) })
	if err == nil {
		it.prepared, it.checked = op.Kind != plan.WriteCheck, op.Kind == plan.WriteCheck
		return nil
	}
	e, ok := ccf(err)
	if !ok {
		it.uncertain = true
		return u.lockErr(it, err)
	}
	l, locked := unitlock.Parse(e.Item)
	switch {
	case !locked || l.Unit != u.id:
		it.locked = false // undone by recovery
		return fmt.Errorf("%w: unit %s lost its lock on %s %s", ErrAborted, u.id, it.table, attrs.FormatKey(it.key))
	case l.Prepared && op.Kind != plan.WriteCheck:
		it.prepared = true // our own earlier attempt
		return nil
	}
	// The op's own condition failed, on the item as the unit read it.
	return refusal(it, it.stored, err)
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

// Size checks. An item held by a unit stores its state and, in the lock,
// the unit's write: both must fit DynamoDB's 400 KB, and so must the item
// once the write is applied, which happens after the commit point, when it
// can no longer be refused. So they are checked before the commit point:
// before anything is sent when the unit knows the item (it read it), or
// with the item returned by the lock write.

// lockOverhead bounds the size of a lock's own fields.
const lockOverhead = 1 << 10

// fitsAlone refuses an op whose write alone cannot fit beside the item's
// key and the lock.
func (u *Unit) fitsAlone(it *item) error {
	if n := writeSize(it.w) + attrs.ItemSize(it.key) + lockOverhead; n > attrs.MaxItemSize {
		return fmt.Errorf("%w: %s %s: its write is about %d bytes, and a unit's item holds it beside the item's state", errItemTooLarge, it.table, attrs.FormatKey(it.key), n)
	}
	return nil
}

// fitsHeld refuses, before sending, an op on an item the unit read whose
// item would not fit: with the write in its lock, or once applied.
func (u *Unit) fitsHeld(it *item) error {
	if err := u.fitsAlone(it); err != nil {
		return err
	}
	stored := attrs.ItemSize(it.stored)
	if n := stored + writeSize(it.w) + lockOverhead; n > attrs.MaxItemSize {
		return fmt.Errorf("%w: %s %s: the item (%d bytes) and its write in the unit's lock would be about %d bytes", errItemTooLarge, it.table, attrs.FormatKey(it.key), stored, n)
	}
	return u.fitsApplied(it)
}

// fitsApplied refuses an update whose item, once applied, could be over
// the limit: the stored item plus every value the update writes, less the
// top-level attributes it replaces.
func (u *Unit) fitsApplied(it *item) error {
	if it.w.Kind != plan.WriteUpdate {
		return nil
	}
	n := attrs.ItemSize(it.stored)
	for _, a := range it.w.Actions {
		if len(a.Path) == 1 && (a.Kind == plan.Set || a.Kind == plan.Remove) {
			n -= attrs.ItemSize(map[string]types.AttributeValue{a.Path[0].Name: it.stored[a.Path[0].Name]})
		}
		if a.Value != nil {
			n += attrs.ItemSize(map[string]types.AttributeValue{a.Path.String(): a.Value})
		}
	}
	if n > attrs.MaxItemSize {
		return fmt.Errorf("%w: %s %s would be about %d bytes once updated", errItemTooLarge, it.table, attrs.FormatKey(it.key), n)
	}
	return nil
}

// writeSize is the size of what an op writes: its item, or the values of
// its actions.
func writeSize(w *plan.Write) int {
	if w.Kind == plan.WritePut {
		return attrs.ItemSize(w.Item)
	}
	n := 0
	for _, a := range w.Actions {
		if a.Value != nil {
			n += attrs.ItemSize(map[string]types.AttributeValue{a.Path.String(): a.Value})
		}
	}
	return n
}

// tooLarge reports DynamoDB's refusal of an item over its size limit.
func tooLarge(err error) bool {
	var api smithy.APIError
	if errors.As(err, &api) && api.ErrorCode() == "ValidationException" {
		msg := api.ErrorMessage()
		return strings.Contains(msg, "Item size has exceeded") || strings.Contains(msg, "Item size to update has exceeded")
	}
	return false
}
