package pessimistic_test

import (
	"context"
	"errors"
	"net/http"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/optimist-dynamo/optimist/dynamolocal"
	"github.com/optimist-dynamo/optimist/internal/ddbtest"
	"github.com/optimist-dynamo/optimist/pessimistic"
)

// TestHeartbeatOfUnknownOutcomeThatLanded (in a testing/synctest bubble): a
// heartbeat lands but every answer about it is lost (its response, the
// SDK's retries, the read back). The next heartbeat finds the version of
// that one, which is ours: the lease goes on.
func TestHeartbeatOfUnknownOutcomeThatLanded(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv, table := bubbleLockTable(t)
		drop := &ddbtest.DropTransport{Base: srv.Transport(), Drop: func(op string, call int) bool {
			return op == "UpdateItem" && call >= 2 && call <= 4 || op == "GetItem" && call <= 3
		}}
		// A long lease leaves the SDK's retries (of the heartbeat, then of
		// the read back) room within the heartbeat's deadline.
		l := newLocker(t, srv.NewClient(drop.Option()), table, pessimistic.LeaseDuration(60*time.Second))
		ctx := context.Background()
		held, err := l.Acquire(ctx, "job")
		require.NoError(t, err)
		// Heartbeats until two have landed after the lost one: call 2 (and
		// the SDK's retries 3 and 4) is the lost one, 5 meets its version,
		// 6 is a plain heartbeat.
		start := time.Now()
		for drop.Calls("UpdateItem") < 6 {
			require.Less(t, time.Since(start), 5*time.Minute, "heartbeats go on")
			time.Sleep(time.Second)
			require.NoError(t, held.Err())
		}
		assert.Equal(t, 3, drop.Calls("GetItem"), "the read back was lost too: the outcome stayed unknown")
		assert.NoError(t, held.Err(), "the lease was never lost")
		assert.NoError(t, held.Context().Err())
		require.NoError(t, held.Release(ctx))
	})
}

// slow delays UpdateItem calls while on is set, then sends them through
// base.
type slow struct {
	base  http.RoundTripper
	on    atomic.Bool
	delay time.Duration
}

func (s *slow) RoundTrip(req *http.Request) (*http.Response, error) {
	if s.on.Load() && dynamolocal.OpName(req) == "UpdateItem" {
		select {
		case <-time.After(s.delay):
		case <-req.Context().Done():
			return nil, req.Context().Err()
		}
	}
	return s.base.RoundTrip(req)
}

// TestReleaseInterruptsAHeartbeat (in a testing/synctest bubble): Release
// does not wait for a slow heartbeat to finish.
func TestReleaseInterruptsAHeartbeat(t *testing.T) { synctest.Test(t, testReleaseInterruptsAHeartbeat) }

func testReleaseInterruptsAHeartbeat(t *testing.T) {
	srv, table := bubbleLockTable(t)
	sl := &slow{base: srv.Transport(), delay: 3 * time.Second}
	client := srv.NewClient(func(o *dynamodb.Options) { o.HTTPClient = &http.Client{Transport: sl} })
	l := newLocker(t, client, table, pessimistic.LeaseDuration(4*time.Second), pessimistic.Heartbeat(100*time.Millisecond))
	ctx := context.Background()
	held, err := l.Acquire(ctx, "job")
	require.NoError(t, err)
	sl.on.Store(true)
	time.Sleep(300 * time.Millisecond) // a heartbeat is now stuck in the slow call
	start := time.Now()
	assert.NoError(t, held.Err(), "Err does not wait for the heartbeat")
	assert.Less(t, time.Since(start), 100*time.Millisecond)
	sl.on.Store(false)
	rctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	require.NoError(t, held.Release(rctx))
	assert.Less(t, time.Since(start), 2*time.Second, "Release interrupted the heartbeat")
	assert.NotContains(t, lockItem(t, srv.Client(), table, "job"), "owner")
}

// TestDoReleasesWhenFnPanics.
func TestDoReleasesWhenFnPanics(t *testing.T) {
	srv, table := lockTable(t)
	l := newLocker(t, srv.Client(), table)
	assert.PanicsWithValue(t, "boom", func() {
		_ = l.Do(context.Background(), "job", func(context.Context, *pessimistic.Lease) error { panic("boom") })
	})
	assert.NotContains(t, lockItem(t, srv.Client(), table, "job"), "owner", "released on the way out")
}

// TestFIFOQueueingOfUnknownOutcome (in a testing/synctest bubble): every
// answer to the join is lost, though it landed (the SDK resends it twice;
// the resends fail their condition, since the entry's id is taken, and
// their answers are lost too). Acquire finds its own entry by its id and
// goes on with it: one entry, one ticket, no orphan left to block the
// queue.
func TestFIFOQueueingOfUnknownOutcome(t *testing.T) {
	synctest.Test(t, testFIFOQueueingOfUnknownOutcome)
}

func testFIFOQueueingOfUnknownOutcome(t *testing.T) {
	srv, table := bubbleLockTable(t)
	var dropping atomic.Bool
	var dropped atomic.Int32
	drop := &ddbtest.DropTransport{Base: srv.Transport(), Drop: func(op string, call int) bool {
		return op == "UpdateItem" && dropping.Load() && dropped.Add(1) <= 3
	}}
	l := newLocker(t, srv.NewClient(drop.Option()), table, pessimistic.FIFO())
	ctx := context.Background()
	first, err := l.Acquire(ctx, "job") // creates the queue
	require.NoError(t, err)
	require.NoError(t, first.Release(ctx))

	dropping.Store(true)
	held, err := l.Acquire(ctx, "job")
	require.NoError(t, err)
	assert.Equal(t, 3, drop.Dropped(), "the join and the SDK's two resends")
	assert.Len(t, queueRows(t, srv.Client(), table, "job"), 1, "one entry: the resends did not queue us twice")
	assert.Equal(t, first.Token()+1, held.Token(), "one ticket taken")
	require.NoError(t, held.Release(ctx))
	assert.Empty(t, queueRows(t, srv.Client(), table, "job"))
	start := time.Now()
	again, err := l.Acquire(ctx, "job", pessimistic.Wait(0))
	require.NoError(t, err, "no orphan entry ahead")
	assert.Less(t, time.Since(start), time.Second)
	require.NoError(t, again.Release(ctx))
}

// TestRepeatedTryLockTakesOver (in testing/synctest bubbles): callers that never wait
// (Wait(0)) still take an abandoned lock over, once the Locker has seen its
// record unchanged for a lease across their calls; with and without FIFO.
func TestRepeatedTryLockTakesOver(t *testing.T) {
	for _, fifo := range []bool{false, true} {
		synctest.Test(t, func(t *testing.T) { repeatedTryLockTakesOver(t, fifo) })
	}
}

func repeatedTryLockTakesOver(t *testing.T, fifo bool) {
	{
		srv, table := bubbleLockTable(t)
		opts := []pessimistic.Option{pessimistic.LeaseDuration(10 * time.Second)}
		if fifo {
			opts = append(opts, pessimistic.FIFO())
		}
		crashing := newLocker(t, srv.Client(), table, opts...)
		trying := newLocker(t, srv.Client(), table, opts...)
		ctx := context.Background()
		_, err := crashing.Acquire(ctx, "job")
		require.NoError(t, err)
		crashing.Close()

		_, err = trying.Acquire(ctx, "job", pessimistic.Wait(0))
		require.ErrorIs(t, err, pessimistic.ErrNotAcquired, "fifo=%v", fifo)
		time.Sleep(9 * time.Second)
		_, err = trying.Acquire(ctx, "job", pessimistic.Wait(0))
		require.ErrorIs(t, err, pessimistic.ErrNotAcquired, "not before a full lease, fifo=%v", fifo)
		time.Sleep(time.Second)
		got, err := trying.Acquire(ctx, "job", pessimistic.Wait(0))
		require.NoError(t, err, "fifo=%v", fifo)
		require.NoError(t, got.Release(ctx))
		_, err = trying.Acquire(ctx, "job", pessimistic.Wait(0))
		require.False(t, errors.Is(err, pessimistic.ErrNotAcquired), "free again, fifo=%v", fifo)
	}
}
