package pessimistic

import (
	"context"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/optimist-dynamo/optimist/internal/ddbtest"
)

// TestFIFOBehindManyAbandonedEntries: 105 abandoned entries ahead (more
// than one removal batch); the waiter removes them once they stayed
// unchanged for a lease, in a few calls, and proceeds. The entries are
// queued with the real join, one at a time, and their heartbeats stopped at
// once, as if 105 waiters had crashed.
func TestFIFOBehindManyAbandonedEntries(t *testing.T) {
	srv := ddbtest.Server(t)
	table := ddbtest.TableName(t)
	ctx := context.Background()
	require.NoError(t, CreateTable(ctx, srv.Client(), table))
	t.Cleanup(func() {
		_, err := srv.Client().DeleteTable(ctx, &dynamodb.DeleteTableInput{TableName: aws.String(table)})
		assert.NoError(t, err)
	})
	const entries, lease = 105, 300 * time.Millisecond
	crashing, err := New(srv.Client(), table, LeaseDuration(lease))
	require.NoError(t, err)
	o, err := crashing.opts.resolve(nil)
	require.NoError(t, err)
	q := newFIFOQueue(o.clock)
	var first int64
	for i := range entries {
		l, ticket, err := crashing.join(ctx, "job", ctx, o, q)
		require.NoError(t, err)
		l.stopHeartbeats(ErrClosed)
		if i == 0 {
			first = ticket
		}
	}
	fresh := newFIFOQueue(o.clock) // observes every entry from now
	require.NoError(t, crashing.readQueue(ctx, "job", fresh))
	p := fresh.look(0)
	require.NotNil(t, p.first)
	assert.Equal(t, first, p.first.token, "the head is the lowest ticket")
	assert.Equal(t, entries, p.ahead)

	calls := ddbtest.NewCounting(srv.Client())
	waiting, err := New(calls, table, FIFO(), PollInterval(20*time.Millisecond))
	require.NoError(t, err)
	defer waiting.Close()
	start := time.Now()
	got, err := waiting.Acquire(ctx, "job")
	require.NoError(t, err)
	assert.GreaterOrEqual(t, time.Since(start), lease, "entries are abandoned only after a full lease")
	assert.Greater(t, got.Token(), first+entries-1)
	require.NoError(t, got.Release(ctx))
	out, err := srv.Client().GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(table), Key: crashing.key("job", lockSK), ConsistentRead: aws.Bool(true)})
	require.NoError(t, err)
	assert.Empty(t, parseQueue(out.Item), "all the abandoned entries are gone")
	t.Logf("acquired behind %d abandoned entries in %v, %d calls (%d UpdateItem)", entries, time.Since(start).Round(time.Millisecond), calls.Total(), calls.Count("UpdateItem"))
	assert.LessOrEqual(t, calls.Count("UpdateItem"), int64(2+3+1), "join, a removal per batch of 50 (plus a retry), release")
}
