package pessimistic

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/optimist-dynamo/optimist/internal/attrs"
	"github.com/optimist-dynamo/optimist/internal/ddbapi"
	"github.com/optimist-dynamo/optimist/internal/plan"
	"github.com/optimist-dynamo/optimist/internal/replica"
	"github.com/optimist-dynamo/optimist/internal/retry"
	"github.com/optimist-dynamo/optimist/internal/rnd"
	"github.com/optimist-dynamo/optimist/internal/syncx"
	"github.com/optimist-dynamo/optimist/version"
)

// Locker takes leases on named locks in one lock table. It is safe for
// concurrent use; one per process and table is enough. Make it with
// [New]: the calls of a nil or zero Locker return an error matching both
// [ErrInvalidOption] and [ErrClosed], and send nothing.
type Locker struct {
	client Client
	tableP *string
	opts   Options

	mu     sync.Mutex
	leases map[*Lease]struct{}
	closed bool

	memory memory

	checkMu  syncx.Mutex    // one table check at a time (held across calls: see syncx)
	checked  atomic.Bool    // the table was found to be a lock table
	replicas *replica.Guard // and one a lease can protect (not an eventually consistent global table)
}

// New returns a Locker for the lock table (see [CreateTable]). It makes
// no call: the table's key schema is checked by the Locker's first call
// that reaches DynamoDB (one DescribeTable, with that call's context), or
// at once with [Locker.Check]; a table that is not a lock table is an
// error matching [ErrSchemaMismatch] there. Options set the defaults of every
// call; impossible combinations, a nil Option, and a nil client (also a
// nil pointer in the interface) are errors matching [ErrInvalidOption].
func New(c Client, table string, opts ...Option) (*Locker, error) {
	// Keep the unresolved heartbeat and poll, so that a per-call
	// LeaseDuration derives them afresh; resolve only to check.
	base := defaultOptions()
	for _, fn := range opts {
		if fn == nil {
			return nil, fmt.Errorf("%w: New: nil Option", ErrInvalidOption)
		}
		fn(&base)
	}
	if _, err := base.resolve(nil); err != nil {
		return nil, err
	}
	if ddbapi.IsNil(c) || table == "" {
		return nil, fmt.Errorf("%w: New needs a client and a table name", ErrInvalidOption)
	}
	return &Locker{client: c, tableP: aws.String(table), opts: base, leases: map[*Lease]struct{}{},
		replicas: replica.NewGuard(table, base.WriteRegion)}, nil
}

// Check makes sure the Locker's table is a lock table (pk S hash key, sk S
// range key): one DescribeTable with ctx. A missing table is the SDK's
// *types.ResourceNotFoundException, another schema an error matching
// [ErrSchemaMismatch], and a global table in multi-Region eventual
// consistency an error matching [ErrGlobalTable] (see [WriteRegion]). Once a check has passed, the Locker's calls do not
// check again; until then, the first call of each that reaches DynamoDB
// checks first. Check always asks.
func (l *Locker) Check(ctx context.Context) error {
	if err := l.usable(); err != nil {
		return err
	}
	l.checkMu.Lock()
	defer l.checkMu.Unlock()
	if err := checkTable(ctx, l.client, aws.ToString(l.tableP), l.replicas); err != nil {
		return err
	}
	l.checked.Store(true)
	return nil
}

// ready checks that the Locker can make calls (usable) and, the first time,
// that its table is a lock table, with ctx: New makes no call. Only a
// check that passed is remembered; a failed one (a timeout, say) is made
// again by the next call.
func (l *Locker) ready(ctx context.Context) error {
	if err := l.usable(); err != nil {
		return err
	}
	if l.checked.Load() {
		return nil
	}
	l.checkMu.Lock()
	defer l.checkMu.Unlock()
	if l.checked.Load() { // another call checked meanwhile
		return nil
	}
	if err := checkTable(ctx, l.client, aws.ToString(l.tableP), l.replicas); err != nil {
		return err
	}
	l.checked.Store(true)
	return nil
}

// errNilLocker is what the methods of a nil *Locker return, and
// errZeroLocker what those of a Locker not made by New (a zero Locker, with
// no client) return. Both are the same two classes: such a Locker can do
// nothing, as a closed one (ErrClosed), and using it is the caller's
// mistake (ErrInvalidOption).
var (
	errNilLocker  = fmt.Errorf("%w: nil *Locker; make one with New (%w)", ErrClosed, ErrInvalidOption)
	errZeroLocker = fmt.Errorf("%w: a zero Locker; make one with New (%w)", ErrClosed, ErrInvalidOption)
)

// Acquire takes the lock called name and returns its lease, which is kept
// alive by heartbeats until [Lease.Release].
//
// The attempt is one conditional UpdateItem, with no read first: it
// succeeds if the lock is free, records this Locker as owner with a fresh
// record version, and increments the lock's fencing token ([Lease.Token]).
// If the lock is held, the same call returns the holder (ALL_OLD), and
// Acquire waits ([Wait]; by default until ctx ends), trying again every
// [PollInterval] with jitter. A lock whose holder stopped renewing it is
// taken over once its record version stayed the same for a full lease on
// this process's monotonic clock: no clocks of different machines are
// compared. An uncontended Acquire and Release cost two calls in all.
//
// When it gives up, Acquire returns a [*NotAcquiredError] naming the holder
// (matching [ErrNotAcquired]), or ctx's error.
//
// ctx bounds the acquiring only: the lease is not ended by ctx, and lives
// until [Lease.Release], its loss, or [Locker.Close]. Release it (defer
// lease.Release), use [Locker.Do], or pass [ReleaseOnDone] to end it with
// ctx.
func (l *Locker) Acquire(ctx context.Context, name string, opts ...Option) (*Lease, error) {
	if l == nil {
		return nil, errNilLocker
	}
	return l.acquire(ctx, name, true, opts)
}

// Do acquires the lock, runs fn with the lease's context (which also ends
// with ctx, or when the lease is lost), and releases the lock when fn
// returns, or panics (the panic then goes on). It returns fn's error,
// joined with the release's if that failed: ErrNotHeld there means the
// lease was lost while fn ran. With [ReleaseOnDone] the lock is released as
// soon as ctx ends, while fn may still run.
func (l *Locker) Do(ctx context.Context, name string, fn func(ctx context.Context, lease *Lease) error, opts ...Option) error {
	if l == nil {
		return errNilLocker
	}
	if fn == nil {
		return fmt.Errorf("%w: Do needs a function (fn is nil)", ErrInvalidOption)
	}
	lease, err := l.acquire(ctx, name, false, opts)
	if err != nil {
		return err
	}
	done := false
	defer func() {
		if !done { // fn panicked: release, and let the panic go on
			_ = lease.releaseDetached(ctx)
		}
	}()
	ferr := fn(lease.Context(), lease)
	done = true
	return errors.Join(ferr, lease.releaseDetached(ctx))
}

// Close stops the heartbeats of every lease of this Locker without
// releasing the locks, and cancels the leases' contexts (their Err is
// ErrClosed). The locks expire on their own after their lease: this is
// what a crash looks like to other processes, and tests use it so. Later
// calls return ErrClosed.
func (l *Locker) Close() {
	if l == nil {
		return
	}
	l.mu.Lock()
	l.closed = true
	leases := l.leases
	l.leases = map[*Lease]struct{}{}
	l.mu.Unlock()
	for lease := range leases {
		lease.stopHeartbeats(ErrClosed)
	}
}

func (l *Locker) track(lease *Lease) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return ErrClosed
	}
	l.leases[lease] = struct{}{}
	return nil
}

func (l *Locker) untrack(lease *Lease) {
	l.mu.Lock()
	delete(l.leases, lease)
	l.mu.Unlock()
}

func (l *Locker) key(name, sk string) map[string]types.AttributeValue {
	return map[string]types.AttributeValue{attrPK: attrs.S(name), attrSK: attrs.S(sk)}
}

// holder is what a failed attempt learned of the lock's record.
type holder struct {
	owner, rvn string
	token      int64
	lease      time.Duration
	data       []byte
}

func holderOf(item map[string]types.AttributeValue) holder {
	h := holder{}
	if v, ok := item[attrOwner].(*types.AttributeValueMemberS); ok {
		h.owner = v.Value
	}
	if v, ok := item[attrRvn].(*types.AttributeValueMemberS); ok {
		h.rvn = v.Value
	}
	h.token, _ = attrs.Int64(item[attrFence])
	ms, _ := attrs.Int64(item[attrLease])
	h.lease = time.Duration(ms) * time.Millisecond
	if v, ok := item[attrData].(*types.AttributeValueMemberB); ok {
		h.data = v.Value
	}
	return h
}

// acquire is Acquire (detach: the lease outlives ctx unless ReleaseOnDone)
// and Do's acquiring (the lease's context ends with ctx).
func (l *Locker) acquire(ctx context.Context, name string, detach bool, opts []Option) (*Lease, error) {
	if err := l.usable(); err != nil { // a zero Locker says so before its zero options do
		return nil, err
	}
	o, err := l.opts.resolve(opts)
	if err != nil {
		return nil, err
	}
	parent := leaseParent(ctx, o, detach)
	if name == "" {
		return nil, errNoName
	}
	if err := l.ready(ctx); err != nil {
		return nil, err
	}
	if o.FIFO {
		return l.acquireFIFO(ctx, name, parent, o)
	}
	w := newWaiter(o)
	if obs, ok := l.memory.recall(name); ok {
		w.obs = obs
	}
	for tries := 1; ; tries++ {
		lease, h, err := l.tryAcquire(ctx, name, parent, o, w.takeover())
		if lease != nil {
			l.memory.forget(name)
		}
		if err == nil && lease != nil {
			lease.observeHeld(ctx, "Acquire", tries, lease.prev)
		}
		if err != nil || lease != nil {
			return lease, err
		}
		w.saw(h.rvn, h.lease)
		l.memory.remember(name, w.obs)
		pause, ok := w.next()
		if !ok {
			return nil, &NotAcquiredError{Name: name, Owner: h.owner, Token: h.token}
		}
		if err := retry.Sleep(ctx, pause); err != nil {
			return nil, fmt.Errorf("pessimistic: acquire %q (held by %s): %w", name, h.owner, err)
		}
	}
}

// waiter times a wait for a lock: the poll interval, the Wait bound, and the
// observation of the holder's record version for takeover.
type waiter struct {
	o        Options
	deadline time.Time
	bounded  bool     // false: no deadline, wait until ctx ends
	obs      observed // the holder's record version as last seen, and since when
	tried    string   // the record version a takeover was last tried of
}

func newWaiter(o Options) *waiter {
	w := &waiter{o: o}
	if wait, ok := o.Bounded(); ok {
		w.deadline, w.bounded = time.Now().Add(wait), true
	}
	return w
}

// saw records the holder's record version after a failed attempt. The
// observation starts when the answer arrives: the version was written no
// later than that, so a full lease from then is a full lease after the
// holder's last renewal.
func (w *waiter) saw(rvn string, lease time.Duration) {
	if rvn != w.obs.rvn || w.obs.since.IsZero() {
		w.obs = observed{rvn: rvn, since: time.Now(), lease: lease}
	}
}

// takeover returns the record version that may be taken over now, or "".
func (w *waiter) takeover() string {
	if w.obs.rvn != "" && !w.obs.since.IsZero() && time.Since(w.obs.since) >= w.obs.lease {
		w.tried = w.obs.rvn
		return w.obs.rvn
	}
	return ""
}

// next returns how long to pause before the next attempt, and false if the
// wait is over.
func (w *waiter) next() (time.Duration, bool) {
	now := time.Now()
	if w.bounded && !now.Before(w.deadline) {
		return 0, false
	}
	d := w.o.PollInterval/2 + rnd.N(w.o.PollInterval+1) // [poll/2, 3poll/2]
	if w.obs.rvn != "" {
		due := w.obs.since.Add(w.obs.lease).Sub(now)
		switch {
		case due <= 0 && w.tried != w.obs.rvn:
			// The last attempt was sent just before the lease ran out,
			// and so was no takeover: try at once, not a poll later.
			d = 0
		case due > 0 && due < d: // due passed and the takeover tried: poll, never spin
			d = due
		}
	}
	if w.bounded {
		d = min(d, w.deadline.Sub(now))
	}
	return d, true
}

func newRvn() string { return strconv.FormatUint(rnd.Uint64(), 36) }

// tryAcquire makes one attempt. It returns the lease, or the holder.
func (l *Locker) tryAcquire(ctx context.Context, name string, parent context.Context, o Options, takeover string) (*Lease, holder, error) {
	rec := l.lockRecord(name)
	rvn := newRvn()
	now := time.Now()
	res, err := claim(ctx, l.client, acquireRequest(rec, o, rvn, takeover), rec.read, func(item map[string]types.AttributeValue) bool {
		h := holderOf(item)
		return h.owner == o.Owner && h.rvn == rvn
	})
	if err != nil {
		return nil, holder{}, fmt.Errorf("pessimistic: acquire %q: %w", name, err)
	}
	if !res.won {
		return nil, holderOf(res.item), nil
	}
	token := holderOf(res.item).token
	lease, err := l.startLease(rec, name, token, rvn, now, o, parent)
	if err == nil && res.late && ctx.Err() != nil { // ours, but the caller has given up: give it back
		return nil, holder{}, errors.Join(fmt.Errorf("pessimistic: acquire %q: %w", name, ctx.Err()), lease.releaseDetached(ctx))
	}
	if err == nil {
		lease.prev = previousHolder(res.item, token)
	}
	return lease, holder{}, err
}

// previousHolder is, in the record of a lock just acquired with token, the
// holder that did not release it: one whose record was taken over (the
// write replaced its owner), or one that ForceRelease removed just before
// (the counter then went from its token to ours in two steps, the
// ForceRelease's and ours). nil: the lock was free.
func previousHolder(item map[string]types.AttributeValue, token int64) *holder {
	if v, ok := item[attrPrevOwner].(*types.AttributeValueMemberS); ok {
		t, _ := attrs.Int64(item[attrPrevToken])
		return &holder{owner: v.Value, token: t}
	}
	forced, _ := attrs.Int64(item[attrGoneToken])
	if v, ok := item[attrGoneOwner].(*types.AttributeValueMemberS); ok && forced != 0 && forced+2 == token {
		return &holder{owner: v.Value, token: forced}
	}
	return nil
}

// lockRecord is the record of the lock called name.
func (l *Locker) lockRecord(name string) *record {
	return &record{
		client: l.client, table: l.tableP, key: l.key(name, lockSK),
		owner: plan.Top(attrOwner), rvn: plan.Top(attrRvn), ttl: true,
		release: []plan.Path{plan.Top(attrOwner), plan.Top(attrRvn), plan.Top(attrLease), plan.Top(attrData)},
		parse:   holderOf,
	}
}

// startLease starts a lease of this Locker (Close stops it).
func (l *Locker) startLease(rec *record, name string, token int64, rvn string, sent time.Time, o Options, parent context.Context) (*Lease, error) {
	lease := newLease(rec, name, token, rvn, sent, o, parent)
	lease.untrack = func() { l.untrack(lease) }
	if err := l.track(lease); err != nil {
		lease.stopHeartbeats(err)
		return nil, err
	}
	return lease, nil
}

// leaseParent is the context a new lease's context derives from: ctx, or,
// for a lease that outlives the call that took it (detach, without
// ReleaseOnDone), ctx without its cancellation.
func leaseParent(ctx context.Context, o Options, detach bool) context.Context {
	if detach && !o.ReleaseOnDone {
		return context.WithoutCancel(ctx)
	}
	return ctx
}

func isConditionFailed(err error) bool { return conditionFailure(err) != nil }

func conditionItem(err error) map[string]types.AttributeValue {
	if ccf := conditionFailure(err); ccf != nil {
		return ccf.Item
	}
	return nil
}

// conditionFailure is the failed condition in err: its own, or that of the
// last attempt of a mapper write whose outcome is unknown (which keeps what
// it met in Last rather than wrapping it, so as not to match a conflict).
func conditionFailure(err error) *types.ConditionalCheckFailedException {
	var ccf *types.ConditionalCheckFailedException
	if errors.As(err, &ccf) {
		return ccf
	}
	var uo *version.UnknownOutcomeError
	if errors.As(err, &uo) && errors.As(uo.Last, &ccf) {
		return ccf
	}
	return nil
}
