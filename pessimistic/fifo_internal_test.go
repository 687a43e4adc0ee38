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

// TestFIFOBehindManyAbandonedRows: more than a Query page (100) of
// abandoned rows ahead; the waiter reads past the first page, removes them
// and proceeds. The rows are queued with the real enqueue, one at a time,
// and their heartbeats stopped at once, as if 105 waiters had crashed.
func TestFIFOBehindManyAbandonedRows(t *testing.T) {
	srv := ddbtest.Server(t)
	table := ddbtest.TableName(t)
	ctx := context.Background()
	require.NoError(t, CreateTable(ctx, srv.Client(), table))
	t.Cleanup(func() {
		_, err := srv.Client().DeleteTable(ctx, &dynamodb.DeleteTableInput{TableName: aws.String(table)})
		assert.NoError(t, err)
	})
	const rows, lease = 105, 300 * time.Millisecond
	crashing, err := New(srv.Client(), table, LeaseDuration(lease))
	require.NoError(t, err)
	o, err := crashing.opts.resolve(nil)
	require.NoError(t, err)
	var first int64
	for i := range rows {
		l, err := crashing.enqueue(ctx, "job", ctx, o)
		require.NoError(t, err)
		l.stopHeartbeats(ErrClosed)
		if i == 0 {
			first = l.Token()
		}
	}
	ahead, n, err := crashing.firstAhead(ctx, "job", "", map[string]*observed{}, o)
	require.NoError(t, err)
	require.NotNil(t, ahead)
	assert.Equal(t, first, ahead.token, "the head is the lowest ticket")
	assert.Equal(t, 1, n)

	waiting, err := New(srv.Client(), table, FIFO(), PollInterval(20*time.Millisecond))
	require.NoError(t, err)
	defer waiting.Close()
	start := time.Now()
	got, err := waiting.Acquire(ctx, "job")
	require.NoError(t, err)
	assert.GreaterOrEqual(t, time.Since(start), lease, "rows are abandoned only after a full lease")
	assert.Greater(t, got.Token(), first+rows-1)
	require.NoError(t, got.Release(ctx))
	ahead, _, err = crashing.firstAhead(ctx, "job", "", map[string]*observed{}, o)
	require.NoError(t, err)
	assert.Nil(t, ahead, "all the abandoned rows are gone")
	t.Logf("acquired behind %d abandoned rows in %v", rows, time.Since(start).Round(time.Millisecond))
}

func TestQueueSortKeysOrderAsTickets(t *testing.T) {
	for _, pair := range [][2]int64{{9, 10}, {99, 100}, {1_700_000_000_000, 1_700_000_000_001}, {0, 1}} {
		assert.Less(t, queueSK(pair[0]), queueSK(pair[1]))
		assert.Equal(t, queueSK(pair[0]), beforeSK(queueSK(pair[1])))
	}
	assert.Equal(t, "q#00000000000000000042", queueSK(42))
}
