package txn_test

// The events of Commit (package observe), against DynamoDB Local.

import (
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/optimist-dynamo/optimist/internal/ddbtest"
	"github.com/optimist-dynamo/optimist/mapper"
	"github.com/optimist-dynamo/optimist/observe"
	"github.com/optimist-dynamo/optimist/txn"
	"github.com/optimist-dynamo/optimist/update"
	"github.com/optimist-dynamo/optimist/version"
)

// TestObserveCommitRetries: a commit canceled twice by TransactionConflict
// is one Write span with two Retry events in it; the span names both
// tables, the client request token, the attempts and the capacity.
func TestObserveCommitRetries(t *testing.T) {
	f := newFixture(t)
	other := ddbtest.CreateTable(t, f.Raw, "id", types.ScalarAttributeTypeS, "", "")
	inj := &conflictInjector{k: 2}
	rec := &ddbtest.Recorder{Capacity: true}
	tx := txn.New(f.Client(inj.option), txn.Backoff(time.Millisecond, 5*time.Millisecond), txn.Observer(rec))
	key := map[string]types.AttributeValue{"id": &types.AttributeValueMemberS{Value: "b"}}
	require.NoError(t, tx.Add(f.Table.PutOp(&Counter{ID: "a"}), txn.Update(other, key, update.Add("n", 1))))
	require.NoError(t, tx.Commit(f.Ctx))

	assert.Equal(t, []string{"write start", "retry", "retry", "write end"}, rec.Names())
	ev := rec.Events()
	for i, e := range ev {
		assert.Equal(t, "TransactWriteItems", e.Op, "event %d", i)
		assert.Equal(t, f.Name+","+other, e.Table, "event %d: the tables, in the order of the ops", i)
		assert.Equal(t, tx.Token(), e.Token, "event %d", i)
		assert.Nil(t, e.Key, "event %d: several items", i)
		assert.Equal(t, 1, e.Span, "event %d", i)
	}
	for i, r := range ev[1:3] {
		assert.Equal(t, i+2, r.Attempt)
		assert.Less(t, r.Wait, 5*time.Millisecond)
		var tce *types.TransactionCanceledException
		require.ErrorAs(t, r.Err, &tce, "the cancellation retried")
		assert.Equal(t, txn.CodeTransactionConflict, *tce.CancellationReasons[0].Code)
	}
	end := ev[3]
	assert.NoError(t, end.Err)
	assert.Equal(t, 3, end.Attempt, "the attempts Commit made")
	assert.Positive(t, end.Capacity)
}

// TestObserveCommitConflictAndUnknownOutcome: a cancellation by a version
// check is a Conflict; a commit whose answers are all lost is an
// UnknownOutcome; both inside the Write span, which ends with the error.
// The Options field works as the option does.
func TestObserveCommitConflictAndUnknownOutcome(t *testing.T) {
	f := newFixture(t)
	require.NoError(t, f.Table.Put(f.Ctx, &Counter{ID: "a"}))
	rec := &ddbtest.Recorder{}
	tx := txn.New(f.Calls, func(o *txn.Options) { o.Observer = rec })
	require.NoError(t, tx.Add(f.Table.PutOp(&Counter{ID: "a"})))
	require.ErrorIs(t, tx.Commit(f.Ctx), version.ErrConflict)
	assert.Equal(t, []string{"write start", "conflict", "write end"}, rec.Names())
	c := rec.Of(observe.Conflict)[0]
	assert.True(t, version.IsConflict(c.Err))
	assert.Equal(t, map[string]types.AttributeValue{"id": &types.AttributeValueMemberS{Value: "a"}}, c.Key, "one op: its key")
	assert.Zero(t, rec.Events()[2].Capacity, "not asked for")

	rec.Reset()
	drop := &ddbtest.DropTransport{DropOps: map[string]int{"TransactWriteItems": 1000}}
	lossy, err := mapper.NewTable[Counter](f.Client(drop.Option()), f.Name)
	require.NoError(t, err)
	tx = txn.New(lossy.Client(), txn.Observer(rec))
	require.NoError(t, tx.Add(lossy.UpdateOp(Counter{ID: "b"}, update.Add("n", 1))))
	require.ErrorIs(t, tx.Commit(f.Ctx), version.ErrUnknownOutcome)
	assert.Equal(t, []string{"write start", "unknown_outcome", "write end"}, rec.Names())
	u := rec.Of(observe.UnknownOutcome)[0]
	assert.ErrorIs(t, u.Err, version.ErrUnknownOutcome)
	assert.Equal(t, tx.Token(), u.Token)
	assert.Empty(t, rec.Of(observe.Conflict))

	// Nothing sent, nothing reported.
	rec.Reset()
	assert.ErrorIs(t, txn.New(f.Calls, txn.Observer(rec)).Commit(f.Ctx), txn.ErrEmpty)
	assert.Empty(t, rec.Events())
}
