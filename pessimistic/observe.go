package pessimistic

import (
	"context"
	"errors"
	"strconv"

	"github.com/aws/aws-sdk-go-v2/aws"

	"github.com/optimist-dynamo/optimist/internal/obs"
	"github.com/optimist-dynamo/optimist/observe"
)

// Observer makes a Locker (given to New), or one Acquire, Do or LockItem,
// report to o (package observe; nil: nothing, at no cost). Events:
//
//   - LockAcquired when a lock is taken (Token the fencing token, Attempt
//     the tries), and a LockHeld span from then until the lease ends (its
//     End's Err says why, nil after a release);
//   - LockReleased when a release lands, and LockHandedOver when the
//     release of a FIFO lock leaves waiters: the next in line holds it;
//   - LockLost when a held lease is lost (Err ErrLeaseLost or
//     ErrUnreachable);
//   - HeartbeatFailed for each heartbeat that failed (Err the call's
//     error); the lease is kept while later ones can still renew it;
//   - LockForced when [Locker.ForceRelease] or [Locker.ForceReleaseIf]
//     removes a holder (Owner and Token the removed holder's);
//   - LockTakenOver, before LockAcquired, when Acquire took the lock from a
//     holder that did not release it: one seen unchanged for a lease (for
//     a FIFO lock: removed from the head of the queue as abandoned), or
//     one that ForceRelease removed (Owner and Token the previous
//     holder's).
//
// Every lock event carries Owner: the holder that acquired, holds,
// released or lost the lock.
//
// Events of a lease come from its own goroutine as well as the caller's:
// o must be safe for concurrent use.
func Observer(o observe.Observer) Option {
	return func(opts *Options) { opts.Observer = o }
}

// event is an event of the lease.
func (s *Lease) event(k observe.Kind, op string) observe.Event {
	e := observe.Event{Kind: k, Op: op, Table: aws.ToString(s.rec.table), Name: s.name, Owner: s.o.Owner}
	if s.token != 0 {
		e.Token = strconv.FormatInt(s.token, 10)
	}
	if s.rec.item {
		e.Key = s.rec.key
	}
	return e
}

// observeHeld reports that the lease holds its lock now, taken by op after
// attempts tries: LockTakenOver if prev (the previous holder, who did not
// release the lock) is set, LockAcquired, and the start of its LockHeld
// span.
func (s *Lease) observeHeld(ctx context.Context, op string, attempts int, prev *holder) {
	ob := s.o.Observer
	if ob == nil {
		return
	}
	if prev != nil {
		t := s.event(observe.LockTakenOver, op)
		t.Owner, t.Token = prev.owner, ""
		if prev.token != 0 {
			t.Token = strconv.FormatInt(prev.token, 10)
		}
		obs.Point(ctx, ob, t)
	}
	e := s.event(observe.LockAcquired, op)
	e.Attempt = attempts
	obs.Point(ctx, ob, e)
	sctx, span := obs.Start(ctx, ob, s.event(observe.LockHeld, op))
	s.state.Lock()
	s.held = op
	ended, lost := s.released || s.lost != nil, s.lost
	if !ended {
		s.span, s.values = span, sctx
	}
	s.state.Unlock()
	if ended { // lost already, before the span began
		s.observeEnd("Heartbeat", op, &span, lost)
	}
}

// observeEnd reports the end of a held lease for err (found by op):
// LockLost if it was lost, and the end of its span.
func (s *Lease) observeEnd(op, held string, span *obs.Span, err error) {
	if held == "" {
		return
	}
	if errors.Is(err, ErrLeaseLost) || errors.Is(err, ErrUnreachable) {
		e := s.event(observe.LockLost, op)
		e.Err = err
		span.Point(e)
	}
	span.End(err, 0, "", 0)
}

// observeReleased reports a release that landed, and the hand-over of a
// FIFO lock to the next in line. s.mu is held.
func (s *Lease) observeReleased(op string) {
	s.state.Lock()
	ctx := s.values
	s.state.Unlock()
	if ctx == nil {
		ctx = context.Background()
	}
	obs.Point(ctx, s.o.Observer, s.event(observe.LockReleased, op))
	if s.next != 0 {
		e := s.event(observe.LockHandedOver, op)
		e.Token = strconv.FormatInt(s.next, 10)
		obs.Point(ctx, s.o.Observer, e)
	}
}

// observeBeatFailed reports a heartbeat that failed with err.
func (s *Lease) observeBeatFailed(ctx context.Context, err error) {
	if s.o.Observer == nil {
		return
	}
	e := s.event(observe.HeartbeatFailed, "Heartbeat")
	e.Err = err
	obs.Point(ctx, s.o.Observer, e)
}

// spanValues is the context of the lease's LockHeld span, nil if none.
func (s *Lease) spanValues() context.Context {
	s.state.Lock()
	defer s.state.Unlock()
	return s.values
}

// forced reports that ForceRelease removed the holder of the lock called
// name, owner with token (empty and 0 if unknown).
func (l *Locker) forced(ctx context.Context, name, owner string, token int64) {
	if l.opts.Observer == nil {
		return
	}
	e := observe.Event{Kind: observe.LockForced, Op: "ForceRelease", Table: aws.ToString(l.tableP), Name: name, Owner: owner}
	if token != 0 {
		e.Token = strconv.FormatInt(token, 10)
	}
	obs.Point(ctx, l.opts.Observer, e)
}
