package pessimistic_test

// How often FIFO waiters read the queue, in a testing/synctest bubble on
// an engine of its own: each waiter is a Locker of its own (a process of its own), so no
// waiter is woken by another's reads.

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/optimist-dynamo/optimist/internal/ddbtest"
	"github.com/optimist-dynamo/optimist/pessimistic"
)

// fifoRun is a queue of holders on one FIFO lock, in a testing/synctest
// bubble, each holding for hold once it has the lock. The bubble's time
// moves only when every participant sleeps: in its lease's heartbeat
// loop, and in its wait for the lock or its hold.
type fifoRun struct {
	t     *testing.T
	start time.Time // when the run began
	table string

	started, done atomic.Int32
	wg            sync.WaitGroup
}

// timedReads records the time of each GetItem, from start.
type timedReads struct {
	*ddbtest.CountingClient
	start time.Time
	mu    sync.Mutex
	times []time.Duration
}

func (c *timedReads) GetItem(ctx context.Context, in *dynamodb.GetItemInput, optFns ...func(*dynamodb.Options)) (*dynamodb.GetItemOutput, error) {
	c.mu.Lock()
	c.times = append(c.times, time.Since(c.start))
	c.mu.Unlock()
	return c.CountingClient.GetItem(ctx, in, optFns...)
}

// waiterReads is one participant's record: GetItems before it held the
// lock, and when it got it.
type waiterReads struct {
	reads  int64
	got    time.Time
	err    error
	client *timedReads
}

// join starts a participant with its own Locker and counting client, and
// returns once it has joined the queue (it sleeps).
func (r *fifoRun) join(cc *ddbtest.CountingClient, owner string, hold time.Duration, crash bool, out *waiterReads, opts ...pessimistic.Option) {
	r.t.Helper()
	c := &timedReads{CountingClient: cc, start: r.start}
	out.client = c
	l, err := pessimistic.New(c, r.table, append([]pessimistic.Option{pessimistic.Owner(owner), pessimistic.FIFO()}, opts...)...)
	require.NoError(r.t, err)
	require.NoError(r.t, l.Check(context.Background()))
	c.Reset()
	r.started.Add(1)
	r.wg.Add(1)
	go func() {
		defer r.wg.Done()
		defer r.done.Add(1)
		ctx := context.Background()
		lease, err := l.Acquire(ctx, "job")
		out.reads, out.got, out.err = c.Count("GetItem"), time.Now(), err
		if err != nil {
			return
		}
		if crash { // a dead process: its heartbeats stop, it never releases
			l.Close()
			return
		}
		time.Sleep(hold)
		out.err = lease.Release(ctx)
		l.Close()
	}()
	synctest.Wait()
}

// runFIFOReads queues n waiters behind a holder, each holding for hold,
// and returns each waiter's reads of the queue (index 0: one place back).
// warm: the lock has been held and released before (its record carries
// the last hold), as a lock in use has. It runs in a testing/synctest
// bubble.
func runFIFOReads(t *testing.T, n int, hold time.Duration, warm bool) []waiterReads {
	srv, table := bubbleLockTable(t)
	r := &fifoRun{t: t, start: time.Now(), table: table}
	if warm {
		var first waiterReads
		r.join(ddbtest.NewCounting(srv.Client()), "earlier", hold, false, &first)
		r.wg.Wait()
		require.NoError(t, first.err)
		r.started.Store(0)
		r.done.Store(0)
	}
	results := make([]waiterReads, n+1)
	r.join(ddbtest.NewCounting(srv.Client()), "holder", hold, false, &results[0])
	for i := 1; i <= n; i++ {
		r.join(ddbtest.NewCounting(srv.Client()), fmt.Sprintf("waiter-%d", i), hold, false, &results[i])
	}
	r.wg.Wait()
	for i, res := range results {
		require.NoError(t, res.err, "participant %d", i)
		if i > 0 {
			assert.True(t, res.got.After(results[i-1].got), "served in order")
		}
	}
	return results[1:]
}

// TestFIFOWaitersReadOncePerHandOver: a waiter k places back reads the
// queue about once per hand-over ahead of it, whatever the length of the
// holds, not once per PollInterval: k reads and a few more, to learn the
// pace on a lock with no release recorded yet (cold), and when a holder
// is later than expected.
func TestFIFOWaitersReadOncePerHandOver(t *testing.T) {
	type run struct {
		n    int
		hold time.Duration
		warm bool
	}
	runs := []run{{3, 1500 * time.Millisecond, false}, {3, 4 * time.Second, false}, {3, 1500 * time.Millisecond, true},
		{10, 1500 * time.Millisecond, false}, {10, 1500 * time.Millisecond, true}}
	if !testing.Short() {
		runs = append(runs, run{50, 1500 * time.Millisecond, true})
	}
	for _, tc := range runs {
		t.Run(fmt.Sprintf("%d waiters, %v holds, warm %v", tc.n, tc.hold, tc.warm), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) { fifoWaitersReadOncePerHandOver(t, tc.n, tc.hold, tc.warm) })
		})
	}
}

func fifoWaitersReadOncePerHandOver(t *testing.T, n int, hold time.Duration, warm bool) {
	start := time.Now()
	res := runFIFOReads(t, n, hold, warm)
	reads := make([]int64, len(res))
	var total, handOvers int64
	for i, w := range res {
		reads[i] = w.reads
		total += w.reads
		handOvers += int64(i + 1)
	}
	t.Logf("reads per waiter, by place: %v; %d reads for %d hand-overs ahead", reads, total, handOvers)
	for i, w := range res {
		t.Logf("waiter %d: got at %v, reads at %v", i+1, w.got.Sub(start), w.client.times)
	}
	extra := int64(8) // learning the pace, and a late holder
	if warm {
		extra = 6
	}
	for i, w := range res {
		place := int64(i + 1)
		assert.LessOrEqual(t, w.reads, place+extra, "waiter %d places back: about one read per hand-over ahead", place)
	}
	if warm {
		assert.LessOrEqual(t, total, handOvers+int64(n)*3, "about one read per hand-over, in all")
	}
}

// TestFIFODeadHeadTakenOverWithinALease (in a testing/synctest bubble): the
// head dies; the waiters behind it, reading seldom, still take over about a
// lease after its last heartbeat.
func TestFIFODeadHeadTakenOverWithinALease(t *testing.T) {
	synctest.Test(t, testFIFODeadHeadTakenOverWithinALease)
}

func testFIFODeadHeadTakenOverWithinALease(t *testing.T) {
	const lease = 2 * time.Second
	srv, table := bubbleLockTable(t)
	r := &fifoRun{t: t, start: time.Now(), table: table}
	results := make([]waiterReads, 3)
	r.join(ddbtest.NewCounting(srv.Client()), "dead", 0, true, &results[0], pessimistic.LeaseDuration(lease))
	require.Equal(t, int32(1), r.done.Load(), "the head took the lock and died")
	r.join(ddbtest.NewCounting(srv.Client()), "waiter-1", 500*time.Millisecond, false, &results[1])
	r.join(ddbtest.NewCounting(srv.Client()), "waiter-2", 500*time.Millisecond, false, &results[2])
	r.wg.Wait()
	require.NoError(t, results[1].err)
	require.NoError(t, results[2].err)
	died := results[0].got
	after := results[1].got.Sub(died)
	t.Logf("taken over %v after the head's last heartbeat (lease %v), in %d reads", after, lease, results[1].reads)
	assert.GreaterOrEqual(t, after, lease, "not before a full lease")
	assert.LessOrEqual(t, after, lease+lease/4, "about one lease")
	assert.True(t, results[2].got.After(results[1].got))
}
