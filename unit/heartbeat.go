package unit

import (
	"context"
	"errors"
	"time"

	"github.com/optimist-dynamo/optimist/internal/retry"
	"github.com/optimist-dynamo/optimist/internal/unitproto"
	"github.com/optimist-dynamo/optimist/observe"
)

// heartbeats bumps the record's counter every o.heartbeat while the
// record is active. Others decide the unit died only after seeing the
// counter unchanged for a full lease.
func (u *Unit) heartbeats(ctx context.Context) {
	defer u.beating.Done()
	for {
		if retry.Sleep(ctx, u.o.heartbeat) != nil {
			return
		}
		if _, err := u.beat(ctx); err != nil && ctx.Err() == nil {
			u.point(ctx, observe.HeartbeatFailed, "Heartbeat", err)
			if errors.Is(err, ErrAborted) {
				return
			}
		}
	}
}

// beat bumps the counter once and notes that the record is active; a
// record that is not active any more (recovery aborted it) marks the unit
// aborted.
func (u *Unit) beat(ctx context.Context) (bool, error) {
	sent := time.Now()
	alive, state, err := u.h.Beat(ctx)
	switch {
	case err != nil:
		return false, err
	case alive:
		u.confirmed.Store(sent.UnixNano())
		return true, nil
	case state != unitproto.StateCommitted:
		u.aborted.Store(true)
		return false, ErrAborted
	}
	return false, nil
}

// alive makes sure, before the unit takes a lock, that its record is still
// active: if it was not seen active for half a lease (a long pause, a
// partition), one heartbeat first. A unit that paused past its lease and
// was rolled back by recovery so learns it before it takes a lock that
// nobody would release.
func (u *Unit) alive(ctx context.Context) error {
	if u.aborted.Load() {
		return ErrAborted
	}
	if time.Since(time.Unix(0, u.confirmed.Load())) < u.o.lease/2 {
		return nil
	}
	if _, err := u.beat(ctx); err != nil {
		return err
	}
	return nil
}

func (u *Unit) stopHeartbeats() {
	u.stop()
	u.beating.Wait()
}
