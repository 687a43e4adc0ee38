package pessimistic_test

import (
	"context"
	"sort"
	"strconv"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/optimist-dynamo/optimist/internal/ddbtest"
	"github.com/optimist-dynamo/optimist/pessimistic"
)

// queueRows returns the entry ids of the lock's FIFO queue, in ticket
// order (the queue lives in the lock's record: qt maps an entry id to its
// ticket).
func queueRows(t *testing.T, c *dynamodb.Client, table, name string) []string {
	t.Helper()
	item := lockItem(t, c, table, name)
	qt, _ := item["qt"].(*types.AttributeValueMemberM)
	if qt == nil {
		return nil
	}
	type row struct {
		id     string
		ticket int64
	}
	var rows []row
	for id, v := range qt.Value {
		n, err := strconv.ParseInt(v.(*types.AttributeValueMemberN).Value, 10, 64)
		require.NoError(t, err)
		rows = append(rows, row{id, n})
	}
	sort.Slice(rows, func(i, j int) bool { return rows[i].ticket < rows[j].ticket })
	ids := make([]string, len(rows))
	for i, r := range rows {
		ids[i] = r.id
	}
	return ids
}

// TestFIFOOrder (in a testing/synctest bubble): while a holder holds the
// lock, 8 waiters arrive 400 ms apart; they are granted the lock in arrival
// order.
func TestFIFOOrder(t *testing.T) { synctest.Test(t, testFIFOOrder) }

func testFIFOOrder(t *testing.T) {
	srv, table := bubbleLockTable(t)
	l := newLocker(t, srv.Client(), table, pessimistic.FIFO(), pessimistic.PollInterval(30*time.Millisecond))
	ctx := context.Background()
	holder, err := l.Acquire(ctx, "printer")
	require.NoError(t, err)

	const waiters = 8
	var mu sync.Mutex
	var granted []int
	var tokens []int64
	var wg sync.WaitGroup
	for i := range waiters {
		wg.Add(1)
		go func() {
			defer wg.Done()
			err := l.Do(ctx, "printer", func(ctx context.Context, lease *pessimistic.Lease) error {
				mu.Lock()
				granted = append(granted, i)
				tokens = append(tokens, lease.Token())
				mu.Unlock()
				time.Sleep(10 * time.Millisecond)
				return nil
			})
			assert.NoError(t, err)
		}()
		time.Sleep(400 * time.Millisecond)
	}
	assert.Len(t, queueRows(t, srv.Client(), table, "printer"), waiters+1, "everyone queued behind the holder")
	require.NoError(t, holder.Release(ctx))
	wg.Wait()
	assert.Equal(t, []int{0, 1, 2, 3, 4, 5, 6, 7}, granted, "granted in arrival order")
	for i := 1; i < len(tokens); i++ {
		assert.Greater(t, tokens[i], tokens[i-1], "the ticket is the fencing token")
	}
	assert.Greater(t, tokens[0], holder.Token())
	assert.Empty(t, queueRows(t, srv.Client(), table, "printer"), "every row is gone after release")
}

// TestFIFOWaitZeroLeavesNoRow (in a testing/synctest bubble): a refused
// Wait(0) writes nothing, so the next Wait(0) after the release succeeds at
// once.
func TestFIFOWaitZeroLeavesNoRow(t *testing.T) { synctest.Test(t, testFIFOWaitZeroLeavesNoRow) }

func testFIFOWaitZeroLeavesNoRow(t *testing.T) {
	srv, table := bubbleLockTable(t)
	calls := ddbtest.NewCounting(srv.Client())
	a := newLocker(t, srv.Client(), table, pessimistic.FIFO(), pessimistic.Owner("a"))
	b := newLocker(t, calls, table, pessimistic.FIFO(), pessimistic.Owner("b"))
	ctx := context.Background()
	held, err := a.Acquire(ctx, "job")
	require.NoError(t, err)

	calls.Reset()
	_, err = b.Acquire(ctx, "job", pessimistic.Wait(0))
	var le *pessimistic.NotAcquiredError
	require.ErrorAs(t, err, &le)
	assert.Equal(t, "a", le.Owner)
	assert.Equal(t, held.Token(), le.Token)
	assert.Equal(t, int64(0), calls.Count("TransactWriteItems")+calls.Count("UpdateItem")+calls.Count("DeleteItem"), "refused without writing")
	assert.Len(t, queueRows(t, srv.Client(), table, "job"), 1, "only the holder's row")

	require.NoError(t, held.Release(ctx))
	got, err := b.Acquire(ctx, "job", pessimistic.Wait(0))
	require.NoError(t, err, "free at once")
	assert.Greater(t, got.Token(), held.Token())
	require.NoError(t, got.Release(ctx))

	// A bounded wait that runs out removes its row too.
	held, err = a.Acquire(ctx, "job")
	require.NoError(t, err)
	_, err = b.Acquire(ctx, "job", pessimistic.Wait(200*time.Millisecond), pessimistic.PollInterval(20*time.Millisecond))
	require.ErrorIs(t, err, pessimistic.ErrNotAcquired)
	assert.Len(t, queueRows(t, srv.Client(), table, "job"), 1)
	require.NoError(t, held.Release(ctx))
	assert.Empty(t, queueRows(t, srv.Client(), table, "job"))
}

// TestFIFOCrashedHeadIsSkipped (in a testing/synctest bubble): the head of
// the queue stops renewing; the next waiter proceeds once the head's row
// stayed unchanged for its lease.
func TestFIFOCrashedHeadIsSkipped(t *testing.T) { synctest.Test(t, testFIFOCrashedHeadIsSkipped) }

func testFIFOCrashedHeadIsSkipped(t *testing.T) {
	srv, table := bubbleLockTable(t)
	const lease = 800 * time.Millisecond
	crashing := newLocker(t, srv.Client(), table, pessimistic.FIFO(), pessimistic.LeaseDuration(lease))
	waiting := newLocker(t, srv.Client(), table, pessimistic.FIFO(), pessimistic.PollInterval(20*time.Millisecond))
	ctx := context.Background()
	dead, err := crashing.Acquire(ctx, "job")
	require.NoError(t, err)
	crashing.Close()

	start := time.Now()
	got, err := waiting.Acquire(ctx, "job")
	elapsed := time.Since(start)
	require.NoError(t, err)
	assert.GreaterOrEqual(t, elapsed, lease)
	assert.Less(t, elapsed, lease+time.Second)
	assert.Greater(t, got.Token(), dead.Token())
	require.NoError(t, got.Release(ctx))
	assert.Empty(t, queueRows(t, srv.Client(), table, "job"), "the abandoned row was removed")
}

// TestFIFOMutualExclusion (in a testing/synctest bubble): FIFO keeps mutual
// exclusion and hands the lock from one goroutine to the next.
func TestFIFOMutualExclusion(t *testing.T) { synctest.Test(t, testFIFOMutualExclusion) }

func testFIFOMutualExclusion(t *testing.T) {
	const lockers, goroutines, rounds = 2, 3, 4
	m := runMutualExclusion(t, lockers, goroutines, rounds, pessimistic.FIFO(), pessimistic.PollInterval(20*time.Millisecond))
	t.Logf("FIFO mutual exclusion, %d×%d×%d: wall %v, %.2f calls per acquisition, holder changed %d of %d times",
		lockers, goroutines, rounds, m.wall.Round(time.Millisecond), m.callsPerAcq, m.changes, lockers*goroutines*rounds-1)
}

// TestFIFOManyLiveWaiters (in a testing/synctest bubble): more than a Query
// page of live waiters (110) queue behind a holder and are served one by
// one, in ticket order.
func TestFIFOManyLiveWaiters(t *testing.T) { synctest.Test(t, testFIFOManyLiveWaiters) }

func testFIFOManyLiveWaiters(t *testing.T) {
	srv, table := bubbleLockTable(t)
	l := newLocker(t, srv.Client(), table, pessimistic.FIFO())
	ctx := context.Background()
	holder, err := l.Acquire(ctx, "job")
	require.NoError(t, err)
	const waiters = 110
	var mu sync.Mutex
	var tokens []int64
	var wg sync.WaitGroup
	start := time.Now()
	for range waiters {
		wg.Add(1)
		go func() {
			defer wg.Done()
			assert.NoError(t, l.Do(ctx, "job", func(ctx context.Context, lease *pessimistic.Lease) error {
				mu.Lock()
				tokens = append(tokens, lease.Token())
				mu.Unlock()
				return nil
			}))
		}()
	}
	require.Eventually(t, func() bool { return len(queueRows(t, srv.Client(), table, "job")) == waiters+1 }, time.Minute, 50*time.Millisecond)
	t.Logf("queued %d in %v", waiters, time.Since(start))
	require.NoError(t, holder.Release(ctx))
	wg.Wait()
	t.Logf("served %d in %v", waiters, time.Since(start))
	require.Len(t, tokens, waiters)
	for i := 1; i < len(tokens); i++ {
		assert.Greater(t, tokens[i], tokens[i-1])
	}
}

// TestFIFOQueueFull (in a testing/synctest bubble): a join that would pass
// the queue's bound is refused with ErrQueueFull, and changes nothing. (The
// bound is MaxQueue; the test sets a small one.)
func TestFIFOQueueFull(t *testing.T) { synctest.Test(t, testFIFOQueueFull) }

func testFIFOQueueFull(t *testing.T) {
	srv, table := bubbleLockTable(t)
	l := newLocker(t, srv.Client(), table, pessimistic.FIFO(), pessimistic.MaxQueueForTest(3))
	ctx := context.Background()
	held, err := l.Acquire(ctx, "job")
	require.NoError(t, err)
	wctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := l.Acquire(wctx, "job")
			assert.ErrorIs(t, err, context.Canceled)
		}()
	}
	require.Eventually(t, func() bool { return len(queueRows(t, srv.Client(), table, "job")) == 3 }, 30*time.Second, 10*time.Millisecond)
	before := lockItem(t, srv.Client(), table, "job")

	_, err = l.Acquire(ctx, "job")
	require.ErrorIs(t, err, pessimistic.ErrQueueFull)
	assert.Contains(t, err.Error(), "at most 3")
	after := lockItem(t, srv.Client(), table, "job")
	assert.Equal(t, before["fence"], after["fence"], "no ticket taken")
	assert.Len(t, queueRows(t, srv.Client(), table, "job"), 3, "nothing queued")

	cancel()
	wg.Wait()
	require.NoError(t, held.Release(ctx))
	got, err := l.Acquire(ctx, "job", pessimistic.Wait(0))
	require.NoError(t, err, "room again")
	require.NoError(t, got.Release(ctx))
}

// TestFIFOAbandonedWaiterIsSkipped (in a testing/synctest bubble): a waiter
// queued behind the holder crashes (its Locker is closed: no heartbeats, no
// leaving). When the holder releases, the waiter behind the crashed one
// gets the lock once the crashed entry stayed unchanged for its lease, and
// removes it.
func TestFIFOAbandonedWaiterIsSkipped(t *testing.T) {
	synctest.Test(t, testFIFOAbandonedWaiterIsSkipped)
}

func testFIFOAbandonedWaiterIsSkipped(t *testing.T) {
	srv, table := bubbleLockTable(t)
	const lease = 800 * time.Millisecond
	holding := newLocker(t, srv.Client(), table, pessimistic.FIFO(), pessimistic.Owner("holder"))
	crashing := newLocker(t, srv.Client(), table, pessimistic.FIFO(), pessimistic.LeaseDuration(lease), pessimistic.Owner("crasher"))
	waiting := newLocker(t, srv.Client(), table, pessimistic.FIFO(), pessimistic.PollInterval(20*time.Millisecond), pessimistic.Owner("waiter"))
	ctx := context.Background()
	held, err := holding.Acquire(ctx, "job")
	require.NoError(t, err)

	crashed := make(chan error, 1)
	go func() {
		_, err := crashing.Acquire(ctx, "job")
		crashed <- err
	}()
	require.Eventually(t, func() bool { return len(queueRows(t, srv.Client(), table, "job")) == 2 }, 30*time.Second, 5*time.Millisecond)
	crashing.Close()
	require.ErrorIs(t, <-crashed, pessimistic.ErrClosed)
	require.Len(t, queueRows(t, srv.Client(), table, "job"), 2, "the crashed waiter's entry stays")

	type result struct {
		lease *pessimistic.Lease
		err   error
		at    time.Time
	}
	got := make(chan result, 1)
	start := time.Now()
	go func() {
		l, err := waiting.Acquire(ctx, "job")
		got <- result{l, err, time.Now()}
	}()
	require.Eventually(t, func() bool { return len(queueRows(t, srv.Client(), table, "job")) == 3 }, 30*time.Second, 5*time.Millisecond)
	require.NoError(t, held.Release(ctx))
	r := <-got
	require.NoError(t, r.err)
	elapsed := r.at.Sub(start)
	t.Logf("acquired behind an abandoned waiter after %v (its lease %v)", elapsed.Round(time.Millisecond), lease)
	assert.GreaterOrEqual(t, elapsed, lease, "not before the abandoned entry was seen unchanged for its lease")
	assert.Greater(t, r.lease.Token(), held.Token()+1, "the crashed waiter's ticket was skipped")
	assert.Len(t, queueRows(t, srv.Client(), table, "job"), 1, "the abandoned entry was removed")
	require.NoError(t, r.lease.Release(ctx))
	assert.Empty(t, queueRows(t, srv.Client(), table, "job"))
}

// TestFIFOHundredJoinsCostOneCallEach (in a testing/synctest bubble): 100
// waiters arrive at once at a held FIFO lock; each joins with one
// UpdateItem, whatever the number of waiters ahead (the old design took a
// ticket by a conditioned transaction and retried on every collision: calls
// grew as N²).
func TestFIFOHundredJoinsCostOneCallEach(t *testing.T) {
	synctest.Test(t, testFIFOHundredJoinsCostOneCallEach)
}

func testFIFOHundredJoinsCostOneCallEach(t *testing.T) {
	srv, table := bubbleLockTable(t)
	calls := ddbtest.NewCounting(srv.Client())
	// A long lease: no heartbeat falls in the measurement.
	l := newLocker(t, calls, table, pessimistic.FIFO(), pessimistic.LeaseDuration(2*time.Minute))
	ctx := context.Background()
	held, err := l.Acquire(ctx, "job")
	require.NoError(t, err)

	const n = 100
	wctx, cancel := context.WithCancel(ctx)
	start := make(chan struct{})
	var wg sync.WaitGroup
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			_, err := l.Acquire(wctx, "job")
			assert.ErrorIs(t, err, context.Canceled)
		}()
	}
	calls.Reset()
	close(start)
	require.Eventually(t, func() bool { return len(queueRows(t, srv.Client(), table, "job")) == n+1 }, time.Minute, 2*time.Millisecond)
	updates, total := calls.Count("UpdateItem"), calls.Total()
	t.Logf("%d joins: %d UpdateItem, %d calls in all (%.2f per waiter)", n, updates, total, float64(total)/n)
	assert.Equal(t, int64(n), updates, "one UpdateItem per join")
	assert.Equal(t, int64(0), calls.Count("TransactWriteItems")+calls.Count("Query"))
	assert.LessOrEqual(t, total, int64(4*n), "at most 4 calls per waiter, reads of the queue included")

	cancel()
	wg.Wait()
	assert.Len(t, queueRows(t, srv.Client(), table, "job"), 1, "the waiters left the queue")
	require.NoError(t, held.Release(ctx))
}
