package pessimistic

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/optimist-dynamo/optimist/internal/attrs"
	"github.com/optimist-dynamo/optimist/internal/ddbapi"
	"github.com/optimist-dynamo/optimist/internal/obs"
	"github.com/optimist-dynamo/optimist/internal/plan"
	"github.com/optimist-dynamo/optimist/internal/retry"
	"github.com/optimist-dynamo/optimist/internal/simhook"
	"github.com/optimist-dynamo/optimist/internal/syncx"
)

// record is where a lease lives: a lock's record, a FIFO queue entry, or a
// locked item. Every write to it is conditional on the owner and the record
// version being ours.
type record struct {
	client recordClient
	table  *string
	key    map[string]types.AttributeValue
	// owner and rvn are where the owner and the record version are
	// stored: "o", or "qw.<id>.o" in a FIFO queue's entry.
	owner, rvn plan.Path
	// ttl is set when every write refreshes the cleanup attribute.
	ttl bool
	// release is what a release removes; nil: it deletes the record.
	release []plan.Path
	parse   func(map[string]types.AttributeValue) holder
	// item is set for an item lock: events name the item's key.
	item bool
	// holds is set for a FIFO queue entry: its release folds its turn
	// into the queue's pace (remove ends with a SET clause).
	holds bool
	// released, if set, is given the item as the release left it (a FIFO
	// queue hands it to this Locker's waiters: the next in line may be one
	// of them).
	released func(item map[string]types.AttributeValue, sent time.Time)
}

// recordClient is what a lease's record needs.
type recordClient interface {
	ddbapi.Getter
	ddbapi.Updater
	ddbapi.Deleter
}

// write returns a write to the record conditional on owner holding it
// with record version cur, as the plan renders it.
func (r *record) write(kind plan.Kind, owner, cur string) *plan.Write {
	return &plan.Write{Kind: kind, T: plan.NewTable(aws.ToString(r.table), "", ""), Key: r.key,
		Conds: []expression.ConditionBuilder{r.owner.Name().Equal(expression.Value(owner)).And(r.rvn.Name().Equal(expression.Value(cur)))}}
}

// set returns the action that sets path p to the string v.
func set(p plan.Path, v types.AttributeValue) plan.Action {
	return plan.Action{Kind: plan.Set, Path: p, Value: v}
}

// read reads the record with a consistent read.
func (r *record) read(ctx context.Context) (map[string]types.AttributeValue, error) {
	return ddbapi.ReadItem(ctx, r.client, r.table, r.key)
}

// Lease is a held lock. Heartbeats keep it alive until Release; if they
// fail, or find the lock taken, its context is canceled and Err says why.
// Its methods are safe for concurrent use.
type Lease struct {
	rec     *record
	name    string
	token   int64
	o       Options
	untrack func()

	ctx    context.Context
	cancel context.CancelCauseFunc

	mu        syncx.Mutex // serializes the record's writes, and guards the fields below
	rvn       string      // our record version, as stored
	maybe     string      // a record version written with an unknown outcome...
	maybeSent time.Time   // ...and when it was sent
	lastOK    time.Time   // when the last write known to have landed was sent
	next      int64       // a FIFO release's hand-over: the next holder's ticket
	prev      *holder     // set once, before the lease is returned: the holder it took over from (nil: none)
	headAt    time.Time   // FIFO: when it found itself at the head (set once, before the lease is returned)
	// FIFO: the queue's pace as the record stated it then, and the
	// waiter's round trip (set with headAt).
	pace, paceDev, rtt time.Duration
	paceN              int64 // how many releases the pace counts

	state    sync.Mutex // guards the fields below, never held across a call
	released bool
	lost     error
	// Observed leases (o.Observer set) only: the call that acquired the
	// lease once it holds the lock ("" before: a FIFO waiter), its
	// LockHeld span until it ends, and the span's context.
	held   string
	span   obs.Span
	values context.Context

	beatCtx   context.Context    // the heartbeat loop's; ends when it is stopped
	stopBeats context.CancelFunc // interrupts a heartbeat in flight too
	done      chan struct{}      // closed when the loop has returned
	stopAfter func() bool        // ReleaseOnDone: unregisters the release at the parent's end
}

// newLease starts the heartbeats of a lease whose record holds rvn, written
// by a call sent at sent.
func newLease(rec *record, name string, token int64, rvn string, sent time.Time, o Options, parent context.Context) *Lease {
	ctx, cancel := context.WithCancelCause(parent)
	beatCtx, stopBeats := context.WithCancel(context.Background())
	s := &Lease{
		rec: rec, name: name, token: token, o: o, untrack: func() {},
		ctx: ctx, cancel: cancel,
		rvn: rvn, lastOK: sent,
		beatCtx: beatCtx, stopBeats: stopBeats, done: make(chan struct{}),
	}
	if o.ReleaseOnDone && parent.Done() != nil {
		// Set before the loop starts, which unregisters it when it ends;
		// the release stops the loop, so it waits for the loop to start.
		s.stopAfter = context.AfterFunc(parent, func() { s.endWith(parent) })
	}
	simhook.Go(s.heartbeats)
	return s
}

// endWith ends the lease because parent ended (ReleaseOnDone): its Err is
// parent's, and the lock is released.
func (s *Lease) endWith(parent context.Context) {
	if s.lose("", context.Cause(parent)) {
		_ = s.releaseDetached(parent)
	}
}

// Name returns the lock's name.
func (s *Lease) Name() string {
	if s == nil {
		return ""
	}
	return s.name
}

// Owner returns the owner recorded in the lock.
func (s *Lease) Owner() string {
	if s == nil {
		return ""
	}
	return s.o.Owner
}

// Data returns a copy of the data stored with the lock by [Data] (nil if
// none).
func (s *Lease) Data() []byte {
	if s == nil || s.o.Data == nil {
		return nil
	}
	return append([]byte(nil), s.o.Data...)
}

// Token returns the lease's fencing token: it increases strictly with every
// acquisition of the lock, for as long as the lock exists (Release keeps
// the counter). Pass it to writes guarded by mapper.Fence, so that a holder
// that paused past its lease can no longer write once another holds the
// lock.
func (s *Lease) Token() int64 {
	if s == nil {
		return 0
	}
	return s.token
}

// Context returns a context that is canceled when the lease is released or
// lost. A nil or zero Lease holds nothing: its context is canceled
// already.
func (s *Lease) Context() context.Context {
	if s == nil || s.ctx == nil {
		return canceledContext
	}
	return s.ctx
}

var canceledContext = func() context.Context {
	ctx, cancel := context.WithCancelCause(context.Background())
	cancel(errNilLease)
	return ctx
}()

// errNilLease is what the methods of a nil *Lease report, and errZeroLease
// what Release and SaveAndRelease report for a Lease that no Locker made.
// Both are the same two classes: such a lease holds nothing (ErrNotHeld),
// and passing it is the caller's mistake (ErrInvalidOption), so a check
// for either class treats a nil and a zero Lease alike.
var (
	errNilLease  = fmt.Errorf("%w: nil *Lease (%w)", ErrNotHeld, ErrInvalidOption)
	errZeroLease = fmt.Errorf("%w: a zero Lease; get one from Acquire, Do or LockItem (%w)", ErrNotHeld, ErrInvalidOption)
)

// Err returns why the lease ended early: [ErrLeaseLost] if another owner
// took the lock (or an operator's [Locker.ForceRelease] removed it),
// [ErrUnreachable] if heartbeats could not reach DynamoDB in time,
// [ErrClosed] after Locker.Close, the context's error if the lease was
// ended by its context ([ReleaseOnDone]); nil while held and after
// Release. A nil or zero Lease answers an error matching [ErrNotHeld] and
// [ErrInvalidOption].
func (s *Lease) Err() error {
	if s == nil {
		return errNilLease
	}
	if s.rec == nil {
		return errZeroLease
	}
	s.state.Lock()
	defer s.state.Unlock()
	return s.lost
}

// lose ends the lease for err, found by op, unless it ended already; it
// reports whether it did.
func (s *Lease) lose(op string, err error) bool {
	s.state.Lock()
	if s.lost != nil || s.released {
		s.state.Unlock()
		return false
	}
	s.lost = err
	s.cancel(err)
	held, span := s.held, s.span
	s.span = obs.Span{}
	s.state.Unlock()
	s.observeEnd(op, held, &span, err)
	return true
}

// ended reports whether the lease was released or lost.
func (s *Lease) ended() bool {
	s.state.Lock()
	defer s.state.Unlock()
	return s.released || s.lost != nil
}

// markReleased marks the lease released; wrote tells that op's release
// write landed (rather than finding the lock taken).
func (s *Lease) markReleased(op string, wrote bool) {
	s.state.Lock()
	if !s.released {
		s.released = true
		s.cancel(context.Canceled)
	}
	held, span := s.held, s.span
	s.span = obs.Span{}
	s.state.Unlock()
	if held != "" && wrote {
		s.observeReleased(op)
	}
	span.End(nil, 0, "", 0)
}

// heartbeats renews the lease every Heartbeat interval (sooner after a
// failure) and gives it up before it would expire if it cannot.
func (s *Lease) heartbeats() {
	defer close(s.done)
	if s.stopAfter != nil {
		defer s.stopAfter()
	}
	ctx := s.beatCtx
	next := time.Now().Add(s.o.Heartbeat)
	for {
		s.mu.Lock()
		deadline := s.lastOK.Add(s.o.LeaseDuration - s.o.margin())
		s.mu.Unlock()
		now := time.Now()
		if err := retry.Sleep(ctx, min(next.Sub(now), deadline.Sub(now))); err != nil {
			return
		}
		if !time.Now().Before(deadline) {
			s.lose("Heartbeat", ErrUnreachable)
			return
		}
		switch s.beat(ctx, deadline) {
		case beatOK:
			next = time.Now().Add(s.o.Heartbeat)
		case beatFailed:
			next = time.Now().Add(s.o.Heartbeat / 4)
		case beatLost:
			return
		}
	}
}

type beatResult int

const (
	beatOK beatResult = iota
	beatFailed
	beatLost
)

// beat writes a new record version, on the condition that the record is
// still ours. ctx is the heartbeat loop's: stopping the loop (Release,
// Close) interrupts a call in flight, whose outcome is then unknown.
func (s *Lease) beat(ctx context.Context, deadline time.Time) beatResult {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ended() {
		return beatLost
	}
	if s.o.Observer != nil {
		if v := s.spanValues(); v != nil {
			ctx = obs.Values(ctx, v)
		}
	}
	// The call may take until the lease would be given up, not longer.
	ctx, cancel := context.WithTimeout(ctx, max(time.Until(deadline), time.Millisecond))
	defer cancel()
	rvn, sent := newRvn(), time.Now()
	result, err := s.renew(ctx, rvn)
	switch result {
	case settledOurs:
		s.rvn, s.maybe, s.lastOK = rvn, "", sent
		return beatOK
	case settledMaybe:
		// An earlier heartbeat of unknown outcome had landed: its version
		// is ours, from when it was sent. Renew again soon, from it.
		s.rvn, s.maybe, s.lastOK = s.maybe, "", s.maybeSent
		return beatFailed
	case settledNotOurs:
		s.lose("Heartbeat", ErrLeaseLost)
		return beatLost
	default:
		if s.beatCtx.Err() == nil { // not stopped by a release
			s.observeBeatFailed(ctx, err)
		}
		if s.maybe == "" {
			s.maybeSent = sent
		}
		s.maybe = rvn
		return beatFailed
	}
}

type settled int

const (
	settledUnknown settled = iota // not landed, or cannot tell: try again
	settledOurs                   // the write landed
	settledMaybe                  // it did not, but our earlier write of unknown outcome had
	settledNotOurs                // the record is not ours any more
)

// renew writes record version rvn where ours is stored, and settles the
// outcome: a write whose response was lost is recognised by our own new
// record version, in the item the SDK's failed retry returned or in a
// consistent read. With settledUnknown it returns the call's error.
func (s *Lease) renew(ctx context.Context, rvn string) (settled, error) {
	r := s.rec
	w := r.write(plan.WriteUpdate, s.o.Owner, s.rvn)
	w.Actions = []plan.Action{set(r.rvn, attrs.S(rvn))}
	if r.ttl {
		w.Actions = append(w.Actions, set(plan.Top(attrTTL), s.o.ttlValue()))
	}
	req, err := w.Render()
	if err != nil {
		return settledUnknown, err
	}
	res := plan.Exec(ctx, r.client, req, plan.Call{Settle: plan.Settle{
		Ours: func(item map[string]types.AttributeValue) bool {
			h := r.parse(item)
			return h.owner == s.o.Owner && h.rvn == rvn
		},
		Read: r.read,
	}})
	if res.Outcome == plan.Applied {
		return settledOurs, nil // answered, or our lost attempt was seen to land
	}
	if !res.ConditionFailed() && !res.Read {
		return settledUnknown, res.Err
	}
	h := r.parse(res.Item)
	if res.Read && h.owner == s.o.Owner && h.rvn == s.rvn {
		return settledUnknown, res.Err // the write did not land
	}
	switch {
	case h.owner != s.o.Owner:
		return settledNotOurs, nil
	case h.rvn == rvn:
		return settledOurs, nil // our attempt landed; the SDK's retry (or our read) saw it
	case h.rvn == s.maybe && s.maybe != "":
		return settledMaybe, nil
	}
	return settledNotOurs, nil
}

// cleanupTimeout bounds a call that tidies up after the caller's context
// may have ended: handing a lock back, or reading whether a write of
// unknown outcome landed.
const cleanupTimeout = 10 * time.Second

// cleanupContext returns a context for such a call: it keeps ctx's values
// but not its cancellation, and ends after cleanupTimeout.
func cleanupContext(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.WithoutCancel(ctx), cleanupTimeout)
}

// releaseDetached releases the lease with a cleanup context of ctx: for
// when the caller has given up, or its context has ended.
func (s *Lease) releaseDetached(ctx context.Context) error {
	rctx, cancel := cleanupContext(ctx)
	defer cancel()
	return s.Release(rctx)
}

// stopHeartbeats ends the heartbeat loop and waits for it; with a cause,
// the lease is lost for it.
func (s *Lease) stopHeartbeats(cause error) {
	s.stopBeats()
	<-s.done // prompt: stopping interrupts a heartbeat in flight
	if cause != nil {
		s.lose("", cause)
	}
}

// Release gives the lock up with one conditional write, on the condition
// that owner and record version are still this lease's: for a lock, an
// UpdateItem that removes owner, record version and lease from its record
// and keeps the record (so the fencing token never goes back); for a FIFO
// lock, an UpdateItem that removes the lease's entry from the queue. If the lock is not ours any
// more, it changes nothing and returns an error matching [ErrNotHeld]:
// Release never removes another owner's lock. It stops the heartbeats and
// cancels the lease's context.
//
// Release is idempotent: once a lease has ended through Release,
// SaveAndRelease or Do (whatever their result), a later Release makes no
// call and returns nil, so a deferred Release after an explicit one is
// harmless. Release of a nil *Lease, or of a Lease not made by a Locker (a
// zero Lease), returns an error matching both [ErrNotHeld] and
// [ErrInvalidOption], and nothing is sent.
func (s *Lease) Release(ctx context.Context) error {
	if s == nil {
		return errNilLease
	}
	return s.finish(ctx, "Release", s.removeRecord)
}

// finish ends the lease with write (the call op), made with our record
// version (and, if that fails on a heartbeat of unknown outcome that did
// land, with that one): heartbeats stop, and the lease is released or
// lost. write reports whether an attempt's answer was lost.
func (s *Lease) finish(ctx context.Context, op string, write func(ctx context.Context, cur string) (lost bool, err error)) error {
	if s.rec == nil { // a zero Lease: no record, no heartbeats, nothing to end
		return errZeroLease
	}
	s.stopHeartbeats(nil)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.state.Lock()
	released := s.released
	s.state.Unlock()
	if released {
		return nil
	}
	defer s.untrack()
	var h holder
	for _, cur := range []string{s.rvn, s.maybe} {
		if cur == "" {
			continue
		}
		lost, err := write(ctx, cur)
		if err == nil {
			s.markReleased(op, true)
			return nil
		}
		if !isConditionFailed(err) {
			// Heartbeats have stopped: the lease runs out on its own.
			s.lose(op, ErrUnreachable)
			return fmt.Errorf("pessimistic: release %q: %w", s.name, err)
		}
		h = s.rec.parse(conditionItem(err))
		switch {
		case h.owner == "" && lost:
			s.markReleased(op, true) // our release landed; the SDK's retry saw it
			return nil
		case h.owner == s.o.Owner && h.rvn == cur:
			// The lock is intact: the write failed for a reason of its own
			// (a SaveAndRelease whose version check failed, say). Release
			// the lock all the same, and report the write's failure.
			if rlost, rerr := s.removeRecord(ctx, cur); rerr != nil && !(isConditionFailed(rerr) && rlost) {
				s.lose(op, ErrUnreachable)
				return errors.Join(err, fmt.Errorf("pessimistic: release %q: %w", s.name, rerr))
			}
			s.markReleased("Release", true)
			return err
		case h.owner == s.o.Owner && h.rvn == s.maybe && cur != s.maybe:
			continue // a heartbeat whose answer was lost did land: release that version
		}
		break
	}
	s.lose(op, ErrLeaseLost)
	s.markReleased(op, false)
	if h.owner == "" {
		return fmt.Errorf("%w: %q is not held by anyone", ErrNotHeld, s.name)
	}
	return fmt.Errorf("%w: %q is held by %s (token %d)", ErrNotHeld, s.name, h.owner, h.token)
}

// removeRecord removes the lease from its record: the release proper,
// sent by the executor with nothing to recognise it by (finish settles a
// lost answer from the item a failed resend returns). It reports whether an
// attempt's answer was lost.
func (s *Lease) removeRecord(ctx context.Context, cur string) (lost bool, err error) {
	r := s.rec
	w := r.write(plan.WriteDelete, s.o.Owner, cur)
	if r.release != nil {
		w = s.releaseWrite(cur)
	}
	req, err := w.Render()
	if err != nil {
		return false, err
	}
	var rv types.ReturnValue
	if r.released != nil {
		rv = types.ReturnValueAllNew // free: no extra read
	}
	sent := time.Now()
	res := plan.Exec(ctx, r.client, req, plan.Call{ReturnValues: rv})
	if res.Err == nil && r.released != nil {
		r.released(res.Item, sent)
		if s.o.Observer != nil { // s.next is for the LockReleased event only
			if q := parseQueue(res.Item); len(q) > 0 {
				s.next = q[0].token
			}
		}
	}
	return res.Lost(), res.Err
}

// releaseWrite is the release of a record that outlives its lease: it
// removes the lease's attributes.
func (s *Lease) releaseWrite(cur string) *plan.Write {
	r := s.rec
	w := r.write(plan.WriteUpdate, s.o.Owner, cur)
	for _, p := range r.release {
		w.Actions = append(w.Actions, plan.Action{Kind: plan.Remove, Path: p})
	}
	if r.ttl {
		w.Actions = append(w.Actions, set(plan.Top(attrTTL), s.o.ttlValue()))
	}
	if r.holds && !s.headAt.IsZero() {
		// A FIFO holder folds its turn (how long it held and a round
		// trip: durations on its own clock, not times, so no clocks are
		// compared) into the queue's pace. It holds the lock, so no other
		// release changed the pace since it read it.
		pace, dev := nextPace(s.pace, s.paceDev, max(time.Since(s.headAt), 0)+s.rtt, s.paceN+1)
		w.Actions = append(w.Actions,
			set(plan.Top(attrPace), attrs.N(max(pace.Microseconds(), 1))),
			set(plan.Top(attrPaceDev), attrs.N(dev.Microseconds())),
			set(plan.Top(attrPaceN), attrs.N(min(s.paceN+1, 16))))
	}
	return w
}
