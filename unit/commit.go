package unit

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"sort"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/optimist-dynamo/optimist/internal/attrs"
	"github.com/optimist-dynamo/optimist/internal/plan"
	"github.com/optimist-dynamo/optimist/internal/unitlock"
	"github.com/optimist-dynamo/optimist/mapper"
	"github.com/optimist-dynamo/optimist/version"
)

// maxItemBytes is DynamoDB's item size limit.
const maxItemBytes = 400 << 10

// Commit makes the unit's writes, all or nothing:
//
//  1. log and lock every item of an op not yet locked (in table and key
//     order; see [Wait] for items other units hold);
//  2. prepare each op: write the item's new state in place, with the old
//     one kept in the lock (one PutItem or UpdateItem per item, conditional
//     on the lock being ours and on the op's own conditions);
//  3. the commit point: one conditional UpdateItem of the unit's record,
//     active → committed;
//  4. apply: remove each lock (one write per item; a deleted item is
//     deleted), and mark the record finished.
//
// Before the commit point any failure rolls the unit back and is returned:
// a version conflict or failed condition of an op (matching
// version.ErrConflict or mapper.ErrConditionFailed), [ErrLocked], or
// [ErrAborted] if recovery rolled the unit back first. If the commit
// point's outcome cannot be learnt (DynamoDB unreachable), the error
// matches version.ErrUnknownOutcome and the locks stay for recovery,
// which will finish or undo the unit. After the commit point Commit
// returns nil even if applying some items failed: readers already see
// them committed, and recovery (or any unit or Recover meeting them)
// finishes them. Ops' Committed callbacks (which set the structs'
// versions) run on success.
func (u *Unit) Commit(ctx context.Context) error {
	if err := u.check(); err != nil {
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
		return u.abort(ctx, err)
	}
	u.stopHeartbeats()
	u.done = true
	st, err := setState(ctx, u.c, u.o.coord, u.id, unitlock.StateCommitted, "")
	if err != nil {
		// The outcome is not known: read the record back.
		rec, rerr := readRecord(ctx, u.c, u.o.coord, u.id)
		if rerr != nil {
			return fmt.Errorf("%w: unit %s: the commit point's outcome is unknown (recovery will finish or undo it): %v", version.ErrUnknownOutcome, u.id, err)
		}
		st = rec.state
		if st == unitlock.StateActive {
			if st, err = setState(ctx, u.c, u.o.coord, u.id, unitlock.StateCommitted, ""); err != nil {
				return fmt.Errorf("%w: unit %s: the commit point's outcome is unknown (recovery will finish or undo it): %v", version.ErrUnknownOutcome, u.id, err)
			}
		}
	}
	if st != unitlock.StateCommitted {
		u.done = false
		return u.abort(ctx, fmt.Errorf("%w: unit %s found its record %q at its commit point", ErrAborted, u.id, st))
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
// the unit for committed), then undoes each lock (one write per item) and
// marks the record finished. After Commit or Rollback it returns ErrDone.
func (u *Unit) Rollback(ctx context.Context) error {
	if u.done {
		return ErrDone
	}
	err := u.abort(ctx, nil)
	if errors.Is(err, ErrAborted) { // recovery got there first: rolled back all the same
		return nil
	}
	return err
}

// abort rolls the unit back and returns cause (or the rollback's own
// failure when cause is nil).
func (u *Unit) abort(ctx context.Context, cause error) error {
	u.stopHeartbeats()
	u.done = true
	ctx = context.WithoutCancel(ctx)
	st, err := setState(ctx, u.c, u.o.coord, u.id, unitlock.StateAborted, "")
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

// finish applies or undoes every lock of the unit, then marks the record
// finished.
func (u *Unit) finish(ctx context.Context, commit bool) error {
	var locked []*item
	for _, it := range u.order {
		if it.locked || it.uncertain || it.logged {
			locked = append(locked, it)
		}
	}
	err := parallel(ctx, len(locked), u.o.workers, func(ctx context.Context, i int) error {
		it := locked[i]
		l := it.lockState(u.id)
		if !it.locked {
			l = nil // a lock whose outcome we do not know: read it
		}
		return finishItem(ctx, u.c, it.table, it.key, u.id, commit, l)
	})
	if err != nil {
		return err
	}
	pages := u.page
	if u.pageLen > 0 {
		pages++
	}
	return finishRecord(ctx, u.c, u.o.coord, u.id, pages)
}

// prepareAll logs and locks the items of todo, then prepares each.
func (u *Unit) prepareAll(ctx context.Context, todo []*item) error {
	var unlocked []*item
	for _, it := range todo {
		if !it.locked {
			unlocked = append(unlocked, it)
		}
	}
	if err := u.log(ctx, unlocked); err != nil {
		return err
	}
	// Lock in key order, a few at a time: wait-die rules out deadlocks
	// whatever the order; the order keeps two units from each taking half
	// of the other's items.
	err := parallel(ctx, len(unlocked), u.o.workers, func(ctx context.Context, i int) error {
		if u.aborted.Load() {
			return ErrAborted
		}
		return u.lockItem(ctx, unlocked[i])
	})
	if err != nil {
		return err
	}
	return parallel(ctx, len(todo), u.o.workers, func(ctx context.Context, i int) error {
		if u.aborted.Load() {
			return ErrAborted
		}
		return u.prepare(ctx, todo[i])
	})
}

// lockPath is the path of a field of the lock map.
func lockPath(field string) plan.Path { return plan.Path{{Name: unitlock.Attr}, {Name: field}} }

// lockField is the same path as an expression name.
func lockField(field string) expression.NameBuilder { return lockPath(field).Name() }

// prepare writes the new state of one item in place, keeping the old one
// in the lock. The request is the op's own write, composed with the unit's
// parts: its condition without the unit-lock guard (the unit holds the
// lock itself) and with "the lock is ours and not yet prepared"; and the
// unit's own actions on the lock. A retry whose first attempt landed fails
// and finds the lock prepared by us: success.
func (u *Unit) prepare(ctx context.Context, it *item) error {
	op := it.w
	w := *op
	w.Guard, w.Token, w.OnCommit = false, "", nil
	if it.placeholder {
		// The item does not exist for the op: a create's check holds, a
		// version's fails.
		switch op.Check {
		case plan.MustNotExist, plan.MustBeNewOrZero:
			w.Check = plan.NoCheck
		case plan.MustBeVersion:
			return &version.ConflictError{Table: it.table, Key: it.key, Expected: op.Expected}
		}
	}
	mine := lockField(unitlock.FUnit).Equal(expression.Value(u.id))
	w.Conds = append(append([]expression.ConditionBuilder{}, op.Conds...), mine)
	if op.Kind != plan.WriteCheck {
		w.Conds = append(w.Conds, expression.AttributeNotExists(lockField(unitlock.FPrepared)))
	}
	var before types.AttributeValue
	if !it.placeholder {
		before = &types.AttributeValueMemberM{Value: it.before}
	}
	// ours are the unit's own actions on the lock of an UpdateItem.
	ours := []plan.Action{{Kind: plan.Set, Path: lockPath(unitlock.FPrepared), Value: avTrue}}
	if before != nil {
		ours = append(ours, plan.Action{Kind: plan.Set, Path: lockPath(unitlock.FBefore), Value: before})
	}
	var err error
	switch op.Kind {
	case plan.WritePut:
		item := maps.Clone(op.Item)
		lock := u.lockMap(it.placeholder)
		lock.Value[unitlock.FPrepared] = avTrue
		if before != nil {
			lock.Value[unitlock.FBefore] = before
		}
		item[unitlock.Attr] = lock
		if attrs.ItemSize(item) > maxItemBytes {
			return fmt.Errorf("%w: %s %s", ErrTooLarge, it.table, attrs.FormatKey(it.key))
		}
		w.Item = item
		var in *dynamodb.PutItemInput
		if in, err = w.PutInput(); err == nil {
			_, err = u.c.PutItem(ctx, in)
		}
	case plan.WriteUpdate:
		w.Actions = append(append([]plan.Action{}, op.Actions...), ours...)
		err = u.update(ctx, &w)
	case plan.WriteDelete:
		w.Kind = plan.WriteUpdate
		w.Actions = append(ours, plan.Action{Kind: plan.Set, Path: lockPath(unitlock.FDeleted), Value: avTrue})
		err = u.update(ctx, &w)
	default:
		w.Kind = plan.WriteUpdate
		w.Actions = []plan.Action{{Kind: plan.Set, Path: lockPath(unitlock.FChecked), Value: avTrue}}
		if err = u.update(ctx, &w); err == nil {
			return nil // a check changes nothing: the item is not "prepared"
		}
	}
	if err == nil {
		it.prepared = true
		return nil
	}
	e, ok := ccf(err)
	if !ok {
		// Lost in transit: the item may or may not be prepared. Undo
		// reads it first.
		it.uncertain = true
		return fmt.Errorf("unit: preparing %s %s: %w", it.table, attrs.FormatKey(it.key), err)
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
	// The op's own condition failed, on the item as the unit found it.
	var stored map[string]types.AttributeValue
	if !it.placeholder {
		stored = it.before
	}
	if conflict, actual, has := op.Conflict(stored); conflict {
		return &version.ConflictError{Table: it.table, Key: it.key, Expected: op.Expected, Actual: actual,
			ActualMissing: stored != nil && !has, Item: stored, Err: err}
	}
	return &mapper.ConditionError{Table: it.table, Key: it.key, Item: stored, Err: err}
}

// update sends the UpdateItem of w.
func (u *Unit) update(ctx context.Context, w *plan.Write) error {
	in, err := w.UpdateInput(types.ReturnValueNone)
	if err != nil {
		return err
	}
	_, err = u.c.UpdateItem(ctx, in)
	return err
}
