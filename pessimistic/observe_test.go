package pessimistic_test

// The events of locks and leases (package observe), against DynamoDB Local.

import (
	"context"
	"errors"
	"strconv"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/optimist-dynamo/optimist/internal/ddbtest"
	"github.com/optimist-dynamo/optimist/observe"
	"github.com/optimist-dynamo/optimist/pessimistic"
)

// TestObserveLockLifecycle (in a testing/synctest bubble): Acquire, hold,
// Release: LockAcquired with the fencing token, a LockHeld span,
// LockReleased inside it.
func TestObserveLockLifecycle(t *testing.T) { synctest.Test(t, testObserveLockLifecycle) }

func testObserveLockLifecycle(t *testing.T) {
	srv, table := bubbleLockTable(t)
	rec := &ddbtest.Recorder{}
	l := newLocker(t, srv.Client(), table, pessimistic.Observer(rec), pessimistic.Heartbeat(20*time.Millisecond), pessimistic.LeaseDuration(time.Second))
	ctx := context.Background()
	lease, err := l.Acquire(ctx, "job-1")
	require.NoError(t, err)
	time.Sleep(60 * time.Millisecond) // a few heartbeats: no events
	require.NoError(t, lease.Release(ctx))

	assert.Equal(t, []string{"lock_acquired", "lock_held start", "lock_released", "lock_held end"}, rec.Names())
	ev := rec.Events()
	token := strconv.FormatInt(lease.Token(), 10)
	for i, e := range ev {
		assert.Equal(t, "job-1", e.Name, "event %d", i)
		assert.Equal(t, table, e.Table, "event %d", i)
		assert.Equal(t, token, e.Token, "event %d: the fencing token", i)
		assert.Nil(t, e.Key, "event %d", i)
	}
	assert.Equal(t, "Acquire", ev[0].Op)
	assert.Equal(t, 1, ev[0].Attempt)
	assert.Equal(t, 0, ev[0].Span)
	assert.Equal(t, "Release", ev[2].Op)
	assert.Equal(t, []int{1, 1, 1}, []int{ev[1].Span, ev[2].Span, ev[3].Span}, "the release and the end in the hold's context")
	assert.NoError(t, ev[3].Err)
	assert.GreaterOrEqual(t, ev[3].Duration, 60*time.Millisecond)

	// Do, after a wait for another holder: the attempts are counted.
	other := newLocker(t, srv.Client(), table)
	held, err := other.Acquire(ctx, "job-1")
	require.NoError(t, err)
	time.AfterFunc(100*time.Millisecond, func() { _ = held.Release(ctx) })
	rec.Reset()
	require.NoError(t, l.Do(ctx, "job-1", func(context.Context, *pessimistic.Lease) error { return nil }))
	acquired := rec.Of(observe.LockAcquired)
	require.Len(t, acquired, 1)
	assert.Greater(t, acquired[0].Attempt, 1, "it tried while the other held the lock")
	assert.Len(t, rec.Of(observe.LockReleased), 1)
}

// TestObserveLockLostToForceRelease (in a testing/synctest bubble): an
// operator forces a lock free; the operator's Locker reports LockForced
// with the removed holder's token, and the holder's reports LockLost at its
// next heartbeat, ending its LockHeld span with ErrLeaseLost. Its later
// Release reports nothing.
func TestObserveLockLostToForceRelease(t *testing.T) {
	synctest.Test(t, testObserveLockLostToForceRelease)
}

func testObserveLockLostToForceRelease(t *testing.T) {
	srv, table := bubbleLockTable(t)
	ctx := context.Background()
	holderEvents, operatorEvents := &ddbtest.Recorder{}, &ddbtest.Recorder{}
	holder := newLocker(t, srv.Client(), table, pessimistic.Observer(holderEvents),
		pessimistic.LeaseDuration(10*time.Second), pessimistic.Heartbeat(50*time.Millisecond))
	lease, err := holder.Acquire(ctx, "doc-1")
	require.NoError(t, err)
	operator := newLocker(t, srv.Client(), table, pessimistic.Observer(operatorEvents))
	require.NoError(t, operator.ForceRelease(ctx, "doc-1"))

	forced := operatorEvents.Of(observe.LockForced)
	require.Len(t, forced, 1)
	assert.Equal(t, "ForceRelease", forced[0].Op)
	assert.Equal(t, "doc-1", forced[0].Name)
	assert.Equal(t, strconv.FormatInt(lease.Token(), 10), forced[0].Token)

	lost := holderEvents.Await(t, "lock_lost", 5*time.Second)
	assert.ErrorIs(t, lost.Err, pessimistic.ErrLeaseLost)
	assert.Equal(t, "Heartbeat", lost.Op)
	assert.Equal(t, strconv.FormatInt(lease.Token(), 10), lost.Token)
	end := holderEvents.Await(t, "lock_held end", time.Second)
	assert.ErrorIs(t, end.Err, pessimistic.ErrLeaseLost)
	assert.Equal(t, lost.Span, end.Span)
	require.ErrorIs(t, lease.Release(ctx), pessimistic.ErrNotHeld)
	assert.Empty(t, holderEvents.Of(observe.LockReleased))
	assert.Equal(t, []string{"lock_acquired", "lock_held start", "lock_lost", "lock_held end"}, holderEvents.Names())
}

// failingUpdates fails every UpdateItem while set, before sending it.
type failingUpdates struct {
	*dynamodb.Client
	fail atomic.Bool
}

var errDown = errors.New("test: DynamoDB unreachable")

func (f *failingUpdates) UpdateItem(ctx context.Context, in *dynamodb.UpdateItemInput, o ...func(*dynamodb.Options)) (*dynamodb.UpdateItemOutput, error) {
	if f.fail.Load() {
		return nil, errDown
	}
	return f.Client.UpdateItem(ctx, in, o...)
}

// TestObserveHeartbeatFailures (in a testing/synctest bubble): heartbeats
// that cannot reach DynamoDB are each a HeartbeatFailed with the call's
// error, until the holder gives the lease up: LockLost with ErrUnreachable.
func TestObserveHeartbeatFailures(t *testing.T) { synctest.Test(t, testObserveHeartbeatFailures) }

func testObserveHeartbeatFailures(t *testing.T) {
	srv, table := bubbleLockTable(t)
	c := &failingUpdates{Client: srv.Client()}
	rec := &ddbtest.Recorder{}
	l := newLocker(t, c, table, pessimistic.Observer(rec), pessimistic.LeaseDuration(500*time.Millisecond), pessimistic.Heartbeat(50*time.Millisecond))
	lease, err := l.Acquire(context.Background(), "job")
	require.NoError(t, err)
	c.fail.Store(true)
	lost := rec.Await(t, "lock_lost", 5*time.Second)
	assert.ErrorIs(t, lost.Err, pessimistic.ErrUnreachable)
	assert.ErrorIs(t, lease.Err(), pessimistic.ErrUnreachable)
	failed := rec.Of(observe.HeartbeatFailed)
	require.NotEmpty(t, failed)
	for _, f := range failed {
		assert.ErrorIs(t, f.Err, errDown)
		assert.Equal(t, "Heartbeat", f.Op)
		assert.Equal(t, "job", f.Name)
		assert.Equal(t, 1, f.Span, "the heartbeats' calls are made in the hold's context")
	}
}

// TestObserveFIFOHandOver (in a testing/synctest bubble): the release of a
// FIFO lock with a waiter behind it hands the lock over, and says to whom
// (the waiter's ticket).
func TestObserveFIFOHandOver(t *testing.T) { synctest.Test(t, testObserveFIFOHandOver) }

func testObserveFIFOHandOver(t *testing.T) {
	srv, table := bubbleLockTable(t)
	ctx := context.Background()
	rec, waiterEvents := &ddbtest.Recorder{}, &ddbtest.Recorder{}
	a := newLocker(t, srv.Client(), table, pessimistic.Observer(rec), pessimistic.FIFO())
	b := newLocker(t, srv.Client(), table, pessimistic.Observer(waiterEvents), pessimistic.FIFO())
	first, err := a.Acquire(ctx, "q")
	require.NoError(t, err)
	got := make(chan *pessimistic.Lease, 1)
	go func() {
		lease, err := b.Acquire(ctx, "q")
		assert.NoError(t, err)
		got <- lease
	}()
	require.Eventually(t, func() bool {
		info, err := a.Inspect(ctx, "q")
		return err == nil && len(info.Queue) == 2
	}, 5*time.Second, 5*time.Millisecond, "the second waiter joins the queue")
	assert.Empty(t, waiterEvents.Events(), "a waiter holds nothing yet")
	require.NoError(t, first.Release(ctx))
	second := <-got
	defer second.Release(ctx)

	assert.Equal(t, []string{"lock_acquired", "lock_held start", "lock_released", "lock_handed_over", "lock_held end"}, rec.Names())
	over := rec.Of(observe.LockHandedOver)[0]
	assert.Equal(t, strconv.FormatInt(second.Token(), 10), over.Token, "the next holder's ticket")
	assert.Equal(t, "q", over.Name)
	acquired := waiterEvents.Of(observe.LockAcquired)
	require.Len(t, acquired, 1)
	assert.Equal(t, strconv.FormatInt(second.Token(), 10), acquired[0].Token)
}

// TestObserveItemLock: an item lock's events name the item's table and
// key.
func TestObserveItemLock(t *testing.T) {
	o := newOrders(t)
	require.NoError(t, o.table.Put(o.ctx, &Order{ID: "o1"}))
	rec := &ddbtest.Recorder{}
	order, lock, err := pessimistic.LockItem(o.ctx, o.table, Order{ID: "o1"}, pessimistic.Observer(rec))
	require.NoError(t, err)
	order.Status = "paid"
	require.NoError(t, lock.SaveAndRelease(o.ctx, order))
	assert.Equal(t, []string{"lock_acquired", "lock_held start", "lock_released", "lock_held end"}, rec.Names())
	key := map[string]types.AttributeValue{"id": &types.AttributeValueMemberS{Value: "o1"}}
	for _, e := range rec.Events() {
		assert.Equal(t, o.name, e.Table)
		assert.Equal(t, key, e.Key)
		assert.Empty(t, e.Token, "item locks have no fencing token")
	}
	assert.Equal(t, "LockItem", rec.Events()[0].Op)
	assert.Equal(t, "SaveAndRelease", rec.Events()[2].Op)
}
