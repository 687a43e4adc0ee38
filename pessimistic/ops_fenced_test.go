package pessimistic_test

// New without I/O, the fenced ForceReleaseIf, and the events of takeovers,
// against DynamoDB Local.

import (
	"context"
	"strconv"
	"testing"
	"testing/synctest"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/optimist-dynamo/optimist/internal/ddbtest"
	"github.com/optimist-dynamo/optimist/observe"
	"github.com/optimist-dynamo/optimist/pessimistic"
)

// TestNewMakesNoCall: New sends nothing (a client that refuses every call
// is accepted), refuses a nil Option and a typed-nil client with an error
// instead of a panic, and the table is checked by the first call, with
// that call's context.
func TestNewMakesNoCall(t *testing.T) {
	nothing := &ddbtest.CountingClient{} // counts, then refuses every call
	_, err := pessimistic.New(nothing, "locks")
	require.NoError(t, err)
	assert.Equal(t, int64(0), nothing.Total(), "New made no call")

	assert.NotPanics(t, func() {
		_, err = pessimistic.New(nothing, "locks", nil)
	})
	assert.ErrorIs(t, err, pessimistic.ErrInvalidOption, "a nil Option")
	assert.NotPanics(t, func() {
		_, err = pessimistic.New((*dynamodb.Client)(nil), "locks")
	})
	assert.ErrorIs(t, err, pessimistic.ErrInvalidOption, "a typed-nil client")
	assert.NotPanics(t, func() {
		_, err = pessimistic.New((*ddbtest.CountingClient)(nil), "locks")
	})
	assert.ErrorIs(t, err, pessimistic.ErrInvalidOption, "a typed-nil client")

	// The first call checks the table, with its own context.
	srv, table := lockTable(t)
	calls := ddbtest.NewCounting(srv.Client())
	l, err := pessimistic.New(calls, table)
	require.NoError(t, err)
	t.Cleanup(l.Close)
	canceled, cancel := context.WithCancel(context.Background())
	cancel()
	_, err = l.Inspect(canceled, "x")
	assert.ErrorIs(t, err, context.Canceled, "the check ran with the caller's context")
	assert.Equal(t, int64(1), calls.Count("DescribeTable"))
	assert.Equal(t, int64(0), calls.Count("GetItem"), "nothing after a failed check")
	ctx := context.Background()
	_, err = l.Inspect(ctx, "x")
	require.NoError(t, err)
	_, err = l.Inspect(ctx, "y")
	require.NoError(t, err)
	assert.Equal(t, int64(2), calls.Count("DescribeTable"), "a failed check is made again; a passed one is not")
	require.NoError(t, l.Check(ctx))
	assert.Equal(t, int64(3), calls.Count("DescribeTable"), "Check always asks")
}

// TestForceReleaseIfSparesANewHolder (in a testing/synctest bubble): the
// operator saw a dead holder; its lease ran out and a waiter took the lock
// over before the operator's release. The fenced release removes nothing
// and names the new holder; fenced on the new holder, it removes it.
func TestForceReleaseIfSparesANewHolder(t *testing.T) {
	synctest.Test(t, testForceReleaseIfSparesANewHolder)
}

func testForceReleaseIfSparesANewHolder(t *testing.T) {
	srv, table := bubbleLockTable(t)
	ctx := context.Background()
	dead := newLocker(t, srv.Client(), table, pessimistic.Owner("dead"), pessimistic.LeaseDuration(500*time.Millisecond))
	_, err := dead.Acquire(ctx, "job")
	require.NoError(t, err)
	dead.Close() // a crash: the record stays
	operator := newLocker(t, srv.Client(), table, pessimistic.Owner("operator"))
	seen, err := operator.Inspect(ctx, "job")
	require.NoError(t, err)
	require.Equal(t, "dead", seen.Owner)

	waiter := newLocker(t, srv.Client(), table, pessimistic.Owner("waiter"))
	lease, err := waiter.Acquire(ctx, "job", pessimistic.Wait(10*time.Second))
	require.NoError(t, err, "the waiter takes the dead holder's lock over")
	defer func() { _ = lease.Release(ctx) }()

	err = operator.ForceReleaseIf(ctx, "job", seen.Owner, seen.Token)
	require.ErrorIs(t, err, pessimistic.ErrHolderChanged)
	var hc *pessimistic.HolderChangedError
	require.ErrorAs(t, err, &hc)
	assert.Equal(t, "waiter", hc.NowOwner)
	assert.Equal(t, lease.Token(), hc.NowToken)
	assert.Equal(t, "dead", hc.Owner)
	assert.Equal(t, seen.Token, hc.Token)
	assert.Contains(t, err.Error(), "held by waiter")
	now, err := operator.Inspect(ctx, "job")
	require.NoError(t, err)
	assert.Equal(t, "waiter", now.Owner, "the live holder was not removed")
	assert.Equal(t, lease.Token(), now.Fence, "nor the fence bumped")
	assert.NoError(t, lease.Context().Err())

	require.NoError(t, operator.ForceReleaseIf(ctx, "job", now.Owner, now.Token))
	after, err := operator.Inspect(ctx, "job")
	require.NoError(t, err)
	assert.False(t, after.Held)
	assert.Equal(t, now.Token+1, after.Fence)
	assert.ErrorIs(t, operator.ForceReleaseIf(ctx, "job", now.Owner, now.Token), pessimistic.ErrNotHeld, "nobody holds it")
	assert.ErrorIs(t, operator.ForceReleaseIf(ctx, "job", "", 0), pessimistic.ErrInvalidOption)
}

// TestForceReleaseIfFIFO (in a testing/synctest bubble): on a FIFO lock,
// the fenced release removes the head only if it is the one seen.
func TestForceReleaseIfFIFO(t *testing.T) { synctest.Test(t, testForceReleaseIfFIFO) }

func testForceReleaseIfFIFO(t *testing.T) {
	srv, table := bubbleLockTable(t)
	ctx := context.Background()
	first := newLocker(t, srv.Client(), table, pessimistic.Owner("first"), pessimistic.FIFO())
	head, err := first.Acquire(ctx, "q")
	require.NoError(t, err)
	second := newLocker(t, srv.Client(), table, pessimistic.Owner("second"), pessimistic.FIFO())
	got := make(chan *pessimistic.Lease, 1)
	go func() {
		lease, err := second.Acquire(ctx, "q", pessimistic.Wait(20*time.Second))
		assert.NoError(t, err)
		got <- lease
	}()
	operator := newLocker(t, srv.Client(), table)
	require.Eventually(t, func() bool {
		info, err := operator.Inspect(ctx, "q")
		return err == nil && len(info.Queue) == 2
	}, 10*time.Second, 20*time.Millisecond)

	err = operator.ForceReleaseIf(ctx, "q", "first", head.Token()+1)
	var hc *pessimistic.HolderChangedError
	require.ErrorAs(t, err, &hc, "another token than the head's")
	assert.Equal(t, "first", hc.NowOwner)
	assert.Equal(t, head.Token(), hc.NowToken)
	require.NoError(t, operator.ForceReleaseIf(ctx, "q", "first", head.Token()))
	select {
	case lease := <-got:
		require.NotNil(t, lease)
		assert.Greater(t, lease.Token(), head.Token())
		require.NoError(t, lease.Release(ctx))
	case <-time.After(15 * time.Second):
		t.Fatal("the next in line did not get the lock")
	}
}

// TestObserveTakeovers (in a testing/synctest bubble): a lock taken from a
// holder that stopped renewing, or that ForceRelease removed, is reported
// as LockTakenOver naming the previous holder, before the LockAcquired
// naming the new one; a plain acquisition after a release is not. Every
// lock event names its owner.
func TestObserveTakeovers(t *testing.T) { synctest.Test(t, testObserveTakeovers) }

func testObserveTakeovers(t *testing.T) {
	srv, table := bubbleLockTable(t)
	ctx := context.Background()
	rec := &ddbtest.Recorder{}
	next := newLocker(t, srv.Client(), table, pessimistic.Owner("next"), pessimistic.Observer(rec), pessimistic.PollInterval(20*time.Millisecond))

	// From a dead holder.
	dead := newLocker(t, srv.Client(), table, pessimistic.Owner("dead"), pessimistic.LeaseDuration(400*time.Millisecond))
	old, err := dead.Acquire(ctx, "a")
	require.NoError(t, err)
	dead.Close()
	lease, err := next.Acquire(ctx, "a", pessimistic.Wait(10*time.Second))
	require.NoError(t, err)
	require.Equal(t, []string{"lock_taken_over", "lock_acquired", "lock_held start"}, rec.Names())
	taken := rec.Of(observe.LockTakenOver)[0]
	assert.Equal(t, "dead", taken.Owner)
	assert.Equal(t, strconv.FormatInt(old.Token(), 10), taken.Token)
	assert.Equal(t, "a", taken.Name)
	acq := rec.Of(observe.LockAcquired)[0]
	assert.Equal(t, "next", acq.Owner)
	assert.Equal(t, strconv.FormatInt(lease.Token(), 10), acq.Token)
	require.NoError(t, lease.Release(ctx))
	for _, e := range rec.Events() {
		if e.Kind != observe.LockTakenOver {
			assert.Equal(t, "next", e.Owner, "%s names its owner", ddbtest.Name(e.Event))
		}
	}

	// After a release: no takeover.
	rec.Reset()
	lease, err = next.Acquire(ctx, "a")
	require.NoError(t, err)
	require.NoError(t, lease.Release(ctx))
	assert.Empty(t, rec.Of(observe.LockTakenOver))

	// From a force-released holder.
	live := newLocker(t, srv.Client(), table, pessimistic.Owner("live"))
	forcedLease, err := live.Acquire(ctx, "b")
	require.NoError(t, err)
	opEvents := &ddbtest.Recorder{}
	operator := newLocker(t, srv.Client(), table, pessimistic.Observer(opEvents))
	require.NoError(t, operator.ForceRelease(ctx, "b"))
	forced := opEvents.Of(observe.LockForced)
	require.Len(t, forced, 1)
	assert.Equal(t, "live", forced[0].Owner)
	rec.Reset()
	lease, err = next.Acquire(ctx, "b")
	require.NoError(t, err)
	taken2 := rec.Of(observe.LockTakenOver)
	require.Len(t, taken2, 1)
	assert.Equal(t, "live", taken2[0].Owner)
	assert.Equal(t, strconv.FormatInt(forcedLease.Token(), 10), taken2[0].Token)
	require.NoError(t, lease.Release(ctx))
	rec.Reset()
	lease, err = next.Acquire(ctx, "b")
	require.NoError(t, err)
	require.NoError(t, lease.Release(ctx))
	assert.Empty(t, rec.Of(observe.LockTakenOver), "the force is history once another holder came and went")
}

// TestObserveFIFOTakeover (in a testing/synctest bubble): a FIFO waiter
// whose head died removes the head as abandoned and reports LockTakenOver
// naming it.
func TestObserveFIFOTakeover(t *testing.T) { synctest.Test(t, testObserveFIFOTakeover) }

func testObserveFIFOTakeover(t *testing.T) {
	srv, table := bubbleLockTable(t)
	ctx := context.Background()
	dead := newLocker(t, srv.Client(), table, pessimistic.Owner("dead"), pessimistic.FIFO(), pessimistic.LeaseDuration(400*time.Millisecond))
	old, err := dead.Acquire(ctx, "q")
	require.NoError(t, err)
	dead.Close()
	rec := &ddbtest.Recorder{}
	next := newLocker(t, srv.Client(), table, pessimistic.Owner("next"), pessimistic.FIFO(), pessimistic.Observer(rec))
	lease, err := next.Acquire(ctx, "q", pessimistic.Wait(10*time.Second))
	require.NoError(t, err)
	taken := rec.Of(observe.LockTakenOver)
	require.Len(t, taken, 1)
	assert.Equal(t, "dead", taken[0].Owner)
	assert.Equal(t, strconv.FormatInt(old.Token(), 10), taken[0].Token)
	require.NoError(t, lease.Release(ctx))

	rec.Reset()
	lease, err = next.Acquire(ctx, "q")
	require.NoError(t, err)
	require.NoError(t, lease.Release(ctx))
	assert.Empty(t, rec.Of(observe.LockTakenOver), "a free queue: no takeover")
}
