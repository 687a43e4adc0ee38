package unit_test

// The events of units (package observe), against DynamoDB Local.

import (
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/optimist-dynamo/optimist/internal/ddbtest"
	"github.com/optimist-dynamo/optimist/mapper"
	"github.com/optimist-dynamo/optimist/observe"
	"github.com/optimist-dynamo/optimist/unit"
	"github.com/optimist-dynamo/optimist/update"
	"github.com/optimist-dynamo/optimist/version"
)

// TestObserveUnitSpans: a unit is a span from Begin to Commit or Rollback;
// a commit is reported, and so is a rollback, with its cause when Commit
// rolled back.
func TestObserveUnitSpans(t *testing.T) {
	e := newEnv(t)
	ctx := ctxT(t, time.Minute)
	e.seed(t, 2, 100)
	rec := &ddbtest.Recorder{}

	u := begin(t, e, e.c, unit.Observer(rec))
	a, err := unit.Get(ctx, u, e.accounts, Account{ID: accountID(0)})
	require.NoError(t, err)
	a.Balance--
	require.NoError(t, u.Add(e.accounts.PutOp(a)))
	require.NoError(t, u.Commit(ctx))
	assert.Equal(t, []string{"unit start", "unit_commit", "unit end"}, rec.Names())
	for _, ev := range rec.Events() {
		assert.Equal(t, u.ID(), ev.Name)
		assert.Equal(t, e.coord, ev.Table)
		assert.Equal(t, 1, ev.Span)
	}
	assert.Equal(t, "Begin", rec.Events()[0].Op)
	end := rec.Events()[2]
	assert.Equal(t, "Commit", end.Op)
	assert.NoError(t, end.Err)
	assert.Positive(t, end.Duration)

	rec.Reset()
	u = begin(t, e, e.c, unit.Observer(rec))
	_, err = unit.Get(ctx, u, e.accounts, Account{ID: accountID(1)})
	require.NoError(t, err)
	require.NoError(t, u.Rollback(ctx))
	assert.Equal(t, []string{"unit start", "unit_rollback", "unit end"}, rec.Names())
	assert.Equal(t, "Rollback", rec.Events()[1].Op)
	assert.NoError(t, rec.Events()[1].Err)
	assert.Equal(t, "Rollback", rec.Events()[2].Op)

	// A stale op: Commit rolls back, and says why.
	rec.Reset()
	u = begin(t, e, e.c, unit.Observer(rec))
	require.NoError(t, u.Add(e.accounts.PutOp(&Account{ID: accountID(1), Version: 7})))
	require.ErrorIs(t, u.Commit(ctx), version.ErrConflict)
	assert.Equal(t, []string{"unit start", "unit_rollback", "unit end"}, rec.Names())
	assert.ErrorIs(t, rec.Events()[1].Err, version.ErrConflict)
	assert.Equal(t, "Commit", rec.Events()[1].Op)
	assert.ErrorIs(t, rec.Events()[2].Err, version.ErrConflict)
}

// TestObserveUnitRecoveredAndSettled: units that crash are reported by
// those who finish them: Recover (UnitRecovered, forward for a committed
// unit, back for one that was not), and a plain write that meets a
// committed unit's lock (UnitSettled, then its own write again). The
// crashed unit itself reports its failing heartbeats.
func TestObserveUnitRecoveredAndSettled(t *testing.T) {
	e := newEnv(t)
	ctx := ctxT(t, time.Minute)
	e.seed(t, 3, 100)
	const lease = 300 * time.Millisecond

	// Crashes before its commit point, holding a lock.
	crashed := &ddbtest.Recorder{}
	cc := &crashClient{c: e.c, limit: -1}
	dead := begin(t, e, cc, unit.LeaseDuration(lease), unit.Heartbeat(50*time.Millisecond), unit.Observer(crashed))
	_, err := unit.Get(ctx, dead, e.accounts, Account{ID: accountID(0)})
	require.NoError(t, err)
	cc.paused.Store(true)
	failed := crashed.Await(t, "heartbeat_failed", 5*time.Second)
	assert.True(t, errors.Is(failed.Err, errCrashed), "%v", failed.Err)
	assert.Equal(t, dead.ID(), failed.Name)
	assert.Equal(t, 1, failed.Span, "in the unit's span")

	// Crashes just after its commit point.
	cc2 := &crashClient{c: e.c, limit: -1}
	done := begin(t, e, cc2, unit.LeaseDuration(time.Minute))
	b, err := unit.Get(ctx, done, e.accounts, Account{ID: accountID(1)})
	require.NoError(t, err)
	b.Balance += 50
	require.NoError(t, done.Add(e.accounts.PutOp(b)))
	crashAfterCommitPoint(cc2)
	require.NoError(t, done.Commit(ctx))

	// A plain write meets the committed unit's lock: it rolls the item
	// forward, then writes.
	writes := &ddbtest.Recorder{}
	accounts, err := mapper.NewTable[Account](e.c, e.accounts.Name(), func(o *mapper.TableOptions) { o.Observer = writes })
	require.NoError(t, err)
	got, err := accounts.Update(ctx, Account{ID: accountID(1)}, update.Add("balance", 1))
	require.NoError(t, err)
	assert.Equal(t, int64(151), got.Balance)
	assert.Equal(t, []string{"write start", "write end", "unit_settled", "write start", "write end"}, writes.Names())
	s := writes.Of(observe.UnitSettled)[0]
	assert.Equal(t, "forward", s.Outcome)
	assert.Equal(t, done.ID(), s.Name, "the unit whose lock it settled")
	assert.Equal(t, "UpdateItem", s.Op)
	assert.Equal(t, e.accounts.Name(), s.Table)
	assert.Equal(t, keyS("id", accountID(1)), s.Key)
	assert.ErrorIs(t, writes.Events()[1].Err, unit.ErrLocked)
	assert.Equal(t, 2, writes.Events()[3].Attempt, "the write, sent again")

	// Recover finishes the dead unit (back) and the committed one's record
	// (forward).
	rec := &ddbtest.Recorder{}
	n, err := unit.Recover(ctx, e.c, e.coord, unit.Observer(rec))
	require.NoError(t, err)
	assert.Equal(t, 2, n)
	outcomes := map[string]string{}
	for _, r := range rec.Of(observe.UnitRecovered) {
		assert.Equal(t, "Recover", r.Op)
		assert.Equal(t, e.coord, r.Table)
		outcomes[r.Name] = r.Outcome
	}
	assert.Equal(t, map[string]string{dead.ID(): "back", done.ID(): "forward"}, outcomes)
}
