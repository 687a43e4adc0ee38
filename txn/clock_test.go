package txn_test

import (
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/optimist-dynamo/optimist/dynamolocal"
	"github.com/optimist-dynamo/optimist/internal/ddbtest"
	"github.com/optimist-dynamo/optimist/internal/fakeclock"
	"github.com/optimist-dynamo/optimist/txn"
)

// TestCommitBackoffRunsOnItsClock: two TransactionConflict cancellations,
// injected inside the engine, are retried after backoffs slept on the
// transaction's clock: exact virtual time, no real waiting.
func TestCommitBackoffRunsOnItsClock(t *testing.T) {
	f := newFixture(t)
	remove, err := ddbtest.Server(t).Inject(dynamolocal.Rule{Op: "TransactWriteItems", Table: f.Name,
		Fault: dynamolocal.FaultTransactionConflict, Times: 2})
	if errors.Is(err, dynamolocal.ErrNotEmbedded) {
		t.Skip("needs faults inside the server: DynamoDB Local never raises TransactionConflict, and only the embedded engine injects it")
	}
	require.NoError(t, err)
	defer remove()

	start := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	clock := fakeclock.New(start)
	tx := txn.New(f.Calls, txn.Clock(clock), txn.Backoff(time.Hour, 4*time.Hour))
	require.NoError(t, tx.Add(f.Table.PutOp(&Counter{ID: "a", N: 1})))
	done := make(chan error, 1)
	go func() { done <- tx.Commit(f.Ctx) }()

	var slept time.Duration
	for i := range 2 {
		require.True(t, clock.WaitForSleepers(1, 10*time.Second), "backoff %d is slept on the clock", i+1)
		wake, ok := clock.NextWake()
		require.True(t, ok)
		d := wake.Sub(clock.Now())
		assert.LessOrEqual(t, d, 4*time.Hour, "backoff %d within its bound", i+1)
		clock.Advance(d)
		slept += d
	}
	require.NoError(t, <-done)
	assert.Equal(t, int64(3), f.Calls.Count("TransactWriteItems"), "two conflicts, then the commit")
	assert.Equal(t, start.Add(slept), clock.Now(), "the clock moved by the backoffs alone")
	assert.Equal(t, 1, f.StoredCounter(t, "a").N)
}
