package pessimistic_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/optimist-dynamo/optimist/pessimistic"
)

// TestRealClockLeaseTakeover runs on the wall clock, outside any
// testing/synctest bubble, against the shared server (DynamoDB Local with
// OPTIMIST_ENGINE=dynamodb-local): every other test of leases runs in
// virtual time, and this one shows that the real clock drives them the
// same way. A holder that heartbeats keeps its lock for two leases while a
// waiter polls; once it stops (a crash), the waiter takes the lock over
// after a full lease, not before.
func TestRealClockLeaseTakeover(t *testing.T) {
	srv, table := lockTable(t)
	const lease, hb, poll = 300 * time.Millisecond, 60 * time.Millisecond, 20 * time.Millisecond
	holding := newLocker(t, srv.Client(), table, pessimistic.LeaseDuration(lease), pessimistic.Heartbeat(hb), pessimistic.Owner("holder"))
	waiting := newLocker(t, srv.Client(), table, pessimistic.PollInterval(poll), pessimistic.Owner("waiter"))
	ctx := context.Background()
	held, err := holding.Acquire(ctx, "job")
	require.NoError(t, err)

	_, err = waiting.Acquire(ctx, "job", pessimistic.Wait(2*lease))
	require.ErrorIs(t, err, pessimistic.ErrNotAcquired, "the heartbeats kept the lease")
	assert.NoError(t, held.Err())

	holding.Close() // no heartbeats, no release
	start := time.Now()
	got, err := waiting.Acquire(ctx, "job", pessimistic.Wait(10*lease))
	elapsed := time.Since(start)
	require.NoError(t, err)
	t.Logf("taken over after %v on the wall clock (lease %v)", elapsed.Round(time.Millisecond), lease)
	assert.GreaterOrEqual(t, elapsed, lease-hb, "not before the lease seen last ran out")
	assert.Greater(t, got.Token(), held.Token())
	require.NoError(t, got.Release(ctx))
}
