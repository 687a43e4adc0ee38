package pessimistic_test

// How often FIFO waiters read the queue, on a fake clock, against DynamoDB
// Local: each waiter is a Locker of its own (a process of its own), so no
// waiter is woken by another's reads.

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/optimist-dynamo/optimist/internal/ddbtest"
	"github.com/optimist-dynamo/optimist/internal/fakeclock"
	"github.com/optimist-dynamo/optimist/pessimistic"
)

// fifoRun is a queue of holders on one FIFO lock, every one on the same
// fake clock, each holding for hold once it has the lock. The clock moves
// only when every participant sleeps on it: each has two sleepers then,
// its lease's heartbeat loop, and its wait for the lock or its hold.
type fifoRun struct {
	t     *testing.T
	clk   *fakeclock.Clock
	table string

	started, done atomic.Int32
	wg            sync.WaitGroup
}

// quiet waits until every participant started and not done sleeps on the
// clock (two sleepers each).
func (r *fifoRun) quiet() bool {
	want := 2 * int(r.started.Load()-r.done.Load())
	return r.clk.WaitForSleepers(want, 200*time.Millisecond) && r.clk.Sleepers() == want
}

// step moves the clock to the next wake-up once all is quiet.
func (r *fifoRun) step() {
	for !r.quiet() {
	}
	if next, ok := r.clk.NextWake(); ok {
		r.clk.Advance(max(next.Sub(r.clk.Now()), time.Millisecond))
	}
}

// timedReads records the fake time of each GetItem.
type timedReads struct {
	*ddbtest.CountingClient
	clk   *fakeclock.Clock
	mu    sync.Mutex
	times []time.Duration
}

func (c *timedReads) GetItem(ctx context.Context, in *dynamodb.GetItemInput, optFns ...func(*dynamodb.Options)) (*dynamodb.GetItemOutput, error) {
	c.mu.Lock()
	c.times = append(c.times, c.clk.Now().Sub(time.Unix(1_000_000, 0)))
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
// returns once it has joined the queue (it sleeps on the clock).
func (r *fifoRun) join(cc *ddbtest.CountingClient, owner string, hold time.Duration, crash bool, out *waiterReads, opts ...pessimistic.Option) {
	r.t.Helper()
	c := &timedReads{CountingClient: cc, clk: r.clk}
	out.client = c
	l, err := pessimistic.New(c, r.table, append([]pessimistic.Option{pessimistic.Owner(owner), pessimistic.FIFO(), pessimistic.Clock(r.clk)}, opts...)...)
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
		out.reads, out.got, out.err = c.Count("GetItem"), r.clk.Now(), err
		if err != nil {
			return
		}
		if crash { // a dead process: its heartbeats stop, it never releases
			l.Close()
			return
		}
		if err := r.clk.Sleep(ctx, hold); err != nil {
			out.err = err
		}
		out.err = lease.Release(ctx)
		l.Close()
	}()
	for !r.quiet() {
	}
}

// runFIFOReads queues n waiters behind a holder, each holding for hold,
// and returns each waiter's reads of the queue (index 0: one place back).
// warm: the lock has been held and released before (its record carries
// the last hold), as a lock in use has.
func runFIFOReads(t *testing.T, n int, hold time.Duration, warm bool) []waiterReads {
	srv, table := lockTable(t)
	r := &fifoRun{t: t, clk: fakeclock.New(time.Unix(1_000_000, 0)), table: table}
	if warm {
		var first waiterReads
		r.join(ddbtest.NewCounting(srv.Client()), "earlier", hold, false, &first)
		for r.done.Load() < 1 {
			r.step()
		}
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
	for r.done.Load() < int32(n+1) {
		r.step()
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
			res := runFIFOReads(t, tc.n, tc.hold, tc.warm)
			reads := make([]int64, len(res))
			var total, handOvers int64
			for i, w := range res {
				reads[i] = w.reads
				total += w.reads
				handOvers += int64(i + 1)
			}
			t.Logf("reads per waiter, by place: %v; %d reads for %d hand-overs ahead", reads, total, handOvers)
			for i, w := range res {
				t.Logf("waiter %d: got at %v, reads at %v", i+1, w.got.Sub(time.Unix(1_000_000, 0)), w.client.times)
			}
			extra := int64(8) // learning the pace, and a late holder
			if tc.warm {
				extra = 6
			}
			for i, w := range res {
				place := int64(i + 1)
				assert.LessOrEqual(t, w.reads, place+extra, "waiter %d places back: about one read per hand-over ahead", place)
			}
			if tc.warm {
				assert.LessOrEqual(t, total, handOvers+int64(tc.n)*3, "about one read per hand-over, in all")
			}
		})
	}
}

// TestFIFODeadHeadTakenOverWithinALease: the head dies; the waiters behind
// it, reading seldom, still take over about a lease after its last
// heartbeat.
func TestFIFODeadHeadTakenOverWithinALease(t *testing.T) {
	const lease = 2 * time.Second
	srv, table := lockTable(t)
	r := &fifoRun{t: t, clk: fakeclock.New(time.Unix(1_000_000, 0)), table: table}
	results := make([]waiterReads, 3)
	r.join(ddbtest.NewCounting(srv.Client()), "dead", 0, true, &results[0], pessimistic.LeaseDuration(lease))
	for r.done.Load() < 1 {
		r.step()
	}
	r.join(ddbtest.NewCounting(srv.Client()), "waiter-1", 500*time.Millisecond, false, &results[1])
	r.join(ddbtest.NewCounting(srv.Client()), "waiter-2", 500*time.Millisecond, false, &results[2])
	for r.done.Load() < 3 {
		r.step()
	}
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
