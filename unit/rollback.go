package unit

import (
	"context"
	"errors"
	"fmt"

	"github.com/optimist-dynamo/optimist/internal/unitproto"
	"github.com/optimist-dynamo/optimist/observe"
)

// Rollback releases every lock the unit took and writes nothing of its
// ops: it marks the record aborted (so that no reader or recoverer takes
// the unit for committed), waits for the answer of every lock write the
// unit sent that a cancelled call stopped waiting for (see "Nothing left
// locked" in the package doc), then removes each lock (one write per item,
// and a read first of an item whose lock write had no answer; an item the
// unit's lock made is deleted) and marks the record finished.
// After Commit or Rollback it returns ErrDone.
func (u *Unit) Rollback(ctx context.Context) error {
	if err := u.usable(); err != nil {
		return err
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
	st, err := u.h.SetState(ctx, unitproto.StateAborted)
	if err != nil {
		return errors.Join(cause, fmt.Errorf("unit %s: rolling back: %w", u.id, err))
	}
	if st == unitproto.StateCommitted { // cannot be: only Commit commits
		return errors.Join(cause, fmt.Errorf("unit %s: rolling back a committed unit", u.id))
	}
	if err := u.finish(ctx, false); err != nil {
		return errors.Join(cause, err)
	}
	return cause
}
