package unit

import (
	"context"
	"time"

	"github.com/optimist-dynamo/optimist/internal/obs"
	"github.com/optimist-dynamo/optimist/internal/retry"
	"github.com/optimist-dynamo/optimist/internal/unitproto"
	"github.com/optimist-dynamo/optimist/observe"
)

// contention is what a unit saw while trying to lock one item.
type contention struct {
	op    string    // the unit's call: "Get" or "Commit"
	since time.Time // when it first met a live holder
	unit  string    // that holder
}

// contend deals with another unit's lock on it, as the unit's judgement
// says (unitproto.Holder.Meet): a finished holder's lock is applied or
// undone, a dead holder is aborted and its lock undone; a live one is
// waited for, unless u is younger (wait-die) or its wait is over. It
// returns nil to try the lock again.
func (u *Unit) contend(ctx context.Context, it *item, h *unitproto.Lock, c *contention) error {
	v, err := u.h.Meet(ctx, it.pt, it.key, h)
	switch {
	case err != nil:
		return err
	case v.Settled():
		if ob := u.o.observer; ob != nil {
			obs.Point(ctx, ob, observe.Event{Kind: observe.UnitSettled, Op: c.op, Table: it.table, Key: it.key, Name: h.Unit, Outcome: obs.UnitOutcome(v.Committed())})
		}
		return nil
	case v.Revived:
		return nil // it beat while being aborted: alive after all; try again
	}
	return u.waitDie(ctx, it, h, v.Rec.Started, c)
}

// waitDie waits for the live unit whose lock h holds it (started at
// started), or gives up with a LockedError: at once when u is the younger
// (wait-die rules out deadlocks), or when u's wait is over.
func (u *Unit) waitDie(ctx context.Context, it *item, h *unitproto.Lock, started int64, c *contention) error {
	now := time.Now()
	if c.unit != h.Unit {
		*c = contention{op: c.op, since: now, unit: h.Unit}
	}
	locked := &LockedError{Table: it.table, Key: it.key, Unit: h.Unit, Owner: h.Owner}
	younger := u.start > started || (u.start == started && u.id > h.Unit)
	if younger || (u.o.waitSet && now.Sub(c.since) >= u.o.wait) {
		return locked
	}
	if err := retry.Sleep(ctx, u.o.poll()); err != nil {
		locked.Err = err
		return locked
	}
	return nil
}
