package unit

import (
	"context"
	"errors"
	"fmt"
	"sort"

	"github.com/optimist-dynamo/optimist/internal/attrs"
	"github.com/optimist-dynamo/optimist/internal/syncx"
	"github.com/optimist-dynamo/optimist/internal/unitproto"
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
	st, err := u.h.SetState(ctx, unitproto.StateCommitted)
	if err != nil {
		// The outcome is not known: read the record back.
		rec, rerr := u.h.Read(ctx)
		if rerr != nil {
			return fmt.Errorf("%w: unit %s: the commit point's outcome is unknown (recovery will finish or undo it): %v", version.ErrUnknownOutcome, u.id, err)
		}
		st = rec.State
		if st == unitproto.StateActive {
			if st, err = u.h.SetState(ctx, unitproto.StateCommitted); err != nil {
				return fmt.Errorf("%w: unit %s: the commit point's outcome is unknown (recovery will finish or undo it): %v", version.ErrUnknownOutcome, u.id, err)
			}
		}
	}
	if st != unitproto.StateCommitted {
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
	syncx.Parallel(pctx, len(todo), u.o.workers, func(pctx context.Context, i int) {
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
		var holder *unitproto.Lock
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
	syncx.Parallel(ctx, len(held), u.o.workers, func(ctx context.Context, i int) {
		it := held[i]
		errs[i] = u.h.FinishItem(ctx, it.table, it.key, commit, it.lockState(u))
	})
	if err := errors.Join(errs...); err != nil {
		return err
	}
	return u.h.Finish(ctx)
}
