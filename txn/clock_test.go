package txn_test

import (
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/optimist-dynamo/optimist/dynamolocal"
	"github.com/optimist-dynamo/optimist/internal/ddbtest"
	"github.com/optimist-dynamo/optimist/internal/ddbtest/counters"
	"github.com/optimist-dynamo/optimist/mapper"
	"github.com/optimist-dynamo/optimist/observe"
	"github.com/optimist-dynamo/optimist/txn"
)

// TestCommitBackoffInVirtualTime: two TransactionConflict cancellations,
// injected inside the engine, are retried after backoffs of hours, slept
// in a testing/synctest bubble with the engine made inside it: the
// bubble's clock moves by the backoffs alone, with no real waiting.
func TestCommitBackoffInVirtualTime(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := dynamolocal.NewEngine(t, dynamolocal.WithoutListener())
		f := counters.New(t, srv, func(c *ddbtest.CountingClient, name string) (*mapper.Table[Counter], error) {
			return mapper.NewTable[Counter](c, name)
		})
		remove, err := srv.Inject(dynamolocal.Rule{Op: "TransactWriteItems", Table: f.Name,
			Fault: dynamolocal.FaultTransactionConflict, Times: 2})
		require.NoError(t, err)
		defer remove()

		rec := &ddbtest.Recorder{}
		tx := txn.New(f.Calls, txn.Backoff(time.Hour, 4*time.Hour), txn.Observer(rec))
		require.NoError(t, tx.Add(f.Table.PutOp(&Counter{ID: "a", N: 1})))
		start := time.Now()
		require.NoError(t, tx.Commit(f.Ctx))
		var slept time.Duration
		retries := rec.Of(observe.Retry)
		require.Len(t, retries, 2, "one backoff per conflict")
		for i, e := range retries {
			assert.LessOrEqual(t, e.Wait, 4*time.Hour, "backoff %d within its bound", i+1)
			slept += e.Wait
		}
		assert.Equal(t, int64(3), f.Calls.Count("TransactWriteItems"), "two conflicts, then the commit")
		assert.Equal(t, slept, time.Since(start), "the clock moved by the backoffs alone")
		assert.Equal(t, 1, f.StoredCounter(t, "a").N)
	})
}
