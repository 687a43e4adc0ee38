package mapper_test

import (
	"testing"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/optimist-dynamo/optimist/mapper"
	"github.com/optimist-dynamo/optimist/txn"
	"github.com/optimist-dynamo/optimist/update"
	"github.com/optimist-dynamo/optimist/version"
)

// TestFenced: a write refused because a higher fencing token is stored
// matches ErrFenced (a ConditionError with Fenced set), never a version
// conflict even when the newer holder changed the version too, so Modify
// does not retry it; a refusal by the write's other conditions does not
// match ErrFenced. A transaction canceled by a fenced op matches
// txn.ErrFenced, with the op's Reason marked.
func TestFenced(t *testing.T) {
	f := newFixture(t)
	ctx, tb := f.Ctx, f.Table
	c := Counter{ID: "a", N: 1}
	require.NoError(t, tb.Put(ctx, &c, mapper.Fence("fence", 5)))

	// A stale holder (token 4): fenced, whatever else is wrong.
	stale := c
	err := tb.Put(ctx, &stale, mapper.Fence("fence", 4))
	require.ErrorIs(t, err, mapper.ErrFenced)
	assert.ErrorIs(t, err, mapper.ErrConditionFailed)
	var ce *mapper.ConditionError
	require.ErrorAs(t, err, &ce)
	assert.True(t, ce.Fenced)
	assert.Contains(t, err.Error(), "fenced")
	old := Counter{ID: "a", Version: 7} // a stale version too: still fenced, not a conflict
	err = tb.Put(ctx, &old, mapper.Fence("fence", 4))
	require.ErrorIs(t, err, mapper.ErrFenced)
	assert.False(t, version.IsConflict(err))
	_, err = tb.Update(ctx, Counter{ID: "a"}, update.Add("n", 1), mapper.Fence("fence", 4))
	require.ErrorIs(t, err, mapper.ErrFenced)
	require.ErrorIs(t, tb.Delete(ctx, Counter{ID: "a"}, mapper.Fence("fence", 4)), mapper.ErrFenced)

	// The same token, or a higher one, passes; another condition's refusal
	// is not a fence's.
	require.NoError(t, tb.Put(ctx, &c, mapper.Fence("fence", 5)))
	err = tb.Put(ctx, &c, mapper.Fence("fence", 6), mapper.If(expression.Name("n").Equal(expression.Value(99))))
	require.ErrorIs(t, err, mapper.ErrConditionFailed)
	assert.NotErrorIs(t, err, mapper.ErrFenced)
	stale2 := c
	stale2.Version = 1
	err = tb.Put(ctx, &stale2, mapper.Fence("fence", 6))
	assert.True(t, version.IsConflict(err), "a version conflict under a passing fence stays a conflict: %v", err)
	assert.NotErrorIs(t, err, mapper.ErrFenced)

	// In a transaction.
	tx := txn.New(f.Calls)
	require.NoError(t, tx.Add(tb.UpdateOp(Counter{ID: "a"}, update.Add("n", 1), mapper.Fence("fence", 3))))
	err = tx.Commit(ctx)
	require.ErrorIs(t, err, txn.ErrFenced)
	require.ErrorIs(t, err, mapper.ErrFenced)
	assert.False(t, version.IsConflict(err))
	var cancel *txn.CanceledError
	require.ErrorAs(t, err, &cancel)
	assert.True(t, cancel.Reasons[0].Fenced)
	assert.False(t, cancel.Reasons[0].Conflict)
	assert.Contains(t, err.Error(), "fenced")
	tx = txn.New(f.Calls)
	require.NoError(t, tx.Add(tb.CheckOp(Counter{ID: "a", Version: 1}, mapper.Fence("fence", 9))))
	err = tx.Commit(ctx)
	assert.True(t, version.IsConflict(err))
	assert.NotErrorIs(t, err, txn.ErrFenced)
	got, err := tb.Get(ctx, Counter{ID: "a"})
	require.NoError(t, err)
	assert.Equal(t, 1, got.N, "no fenced write landed")
}
