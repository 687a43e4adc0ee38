package unit_test

import (
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/optimist-dynamo/optimist/dynamolocal"
	"github.com/optimist-dynamo/optimist/mapper"
	"github.com/optimist-dynamo/optimist/unit"
)

// A unit that meets the lock of an older unit whose owner died gets
// ErrLocked at first (wait-die), but once the dead unit's heartbeat counter
// has stayed unchanged for its lease on this process's clock, the next
// unit that meets the lock aborts the dead unit and takes the item.
func TestDeadUnitRecoveredInline(t *testing.T) { synctest.Test(t, testDeadUnitRecoveredInline) }

func testDeadUnitRecoveredInline(t *testing.T) {
	e := newEnvOn(t, dynamolocal.NewEngine(t, dynamolocal.WithoutListener()))
	ctx := ctxT(t, time.Minute)
	e.seed(t, 1, 100)
	const lease = 300 * time.Millisecond
	dying := &crashClient{c: e.c, limit: -1}
	dead := begin(t, e, dying, unit.LeaseDuration(lease), unit.Heartbeat(50*time.Millisecond))
	a, err := unit.Get(ctx, dead, e.accounts, Account{ID: accountID(0)})
	require.NoError(t, err)
	a.Balance = 0
	require.NoError(t, dead.Add(e.accounts.PutOp(a)))
	dying.paused.Store(true) // the owner dies holding the lock

	time.Sleep(time.Millisecond) // begun later on the bubble's clock: younger
	young := begin(t, e, e.c)
	_, err = unit.Get(ctx, young, e.accounts, Account{ID: accountID(0)})
	require.ErrorIs(t, err, unit.ErrLocked, "younger than a unit not yet known dead")
	require.NoError(t, young.Rollback(ctx))
	_, err = e.accounts.Get(ctx, Account{ID: accountID(0)})
	require.NoError(t, err)
	err = e.accounts.Put(ctx, &Account{ID: accountID(0), Balance: 1, Version: 1})
	require.ErrorIs(t, err, unit.ErrLocked, "plain writes wait for recovery")

	time.Sleep(lease + 100*time.Millisecond)
	next := begin(t, e, e.c)
	got, err := unit.Get(ctx, next, e.accounts, Account{ID: accountID(0)})
	require.NoError(t, err, "the dead unit was aborted and its lock undone")
	assert.Equal(t, int64(100), got.Balance)
	require.NoError(t, next.Rollback(ctx))
	require.NoError(t, e.accounts.Put(ctx, got))

	// The dead unit, were it to wake, cannot commit.
	dying.paused.Store(false)
	require.ErrorIs(t, dead.Commit(ctx), unit.ErrAborted)
	got, err = e.accounts.Get(ctx, Account{ID: accountID(0)})
	require.NoError(t, err)
	assert.Equal(t, int64(100), got.Balance)
	assert.Zero(t, lockedItems(t, e.c, e.accounts.Name()))
}

// An older unit waits for a dead younger one's lease, then takes over.
func TestOlderUnitWaitsOutADeadOne(t *testing.T) { synctest.Test(t, testOlderUnitWaitsOutADeadOne) }

func testOlderUnitWaitsOutADeadOne(t *testing.T) {
	e := newEnvOn(t, dynamolocal.NewEngine(t, dynamolocal.WithoutListener()))
	ctx := ctxT(t, time.Minute)
	const lease = 300 * time.Millisecond
	older := begin(t, e, e.c, unit.Wait(10*time.Second))
	time.Sleep(time.Millisecond) // begun later on the bubble's clock: younger
	dying := &crashClient{c: e.c, limit: -1}
	dead := begin(t, e, dying, unit.LeaseDuration(lease), unit.Heartbeat(50*time.Millisecond))
	_, err := unit.Get(ctx, dead, e.accounts, Account{ID: "new"})
	require.ErrorIs(t, err, mapper.ErrNotFound)
	require.NoError(t, dead.Add(e.accounts.PutOp(&Account{ID: "new", Balance: 5})))
	dying.paused.Store(true)

	start := time.Now()
	_, err = unit.Get(ctx, older, e.accounts, Account{ID: "new"})
	require.ErrorIs(t, err, mapper.ErrNotFound, "locked for the older unit; the placeholder was undone and made again")
	assert.GreaterOrEqual(t, time.Since(start), lease, "waited a full lease")
	require.NoError(t, older.Add(e.accounts.PutOp(&Account{ID: "new", Balance: 7})))
	require.NoError(t, older.Commit(ctx))
	got, err := e.accounts.Get(ctx, Account{ID: "new"})
	require.NoError(t, err)
	assert.Equal(t, int64(7), got.Balance)

	n, err := unit.Recover(ctx, e.c, e.coord)
	require.NoError(t, err)
	assert.Equal(t, 1, n, "the dead unit's record is finished by Recover")
}

// A unit paused past its lease is rolled back by Recover; when it resumes
// it cannot commit.
func TestRecoverAbortsAPausedUnit(t *testing.T) { synctest.Test(t, testRecoverAbortsAPausedUnit) }

func testRecoverAbortsAPausedUnit(t *testing.T) {
	e := newEnvOn(t, dynamolocal.NewEngine(t, dynamolocal.WithoutListener()))
	ctx := ctxT(t, time.Minute)
	e.seed(t, 3, 100)
	const lease = 300 * time.Millisecond
	cc := &crashClient{c: e.c, limit: -1}
	u := begin(t, e, cc, unit.LeaseDuration(lease), unit.Heartbeat(50*time.Millisecond))
	for i := range 3 {
		a, err := unit.Get(ctx, u, e.accounts, Account{ID: accountID(i)})
		require.NoError(t, err)
		a.Balance++
		require.NoError(t, u.Add(e.accounts.PutOp(a)))
	}
	cc.paused.Store(true)
	n, err := unit.Recover(ctx, e.c, e.coord)
	require.NoError(t, err)
	assert.Equal(t, 1, n)
	assert.Zero(t, lockedItems(t, e.c, e.accounts.Name()))
	cc.paused.Store(false)
	require.ErrorIs(t, u.Commit(ctx), unit.ErrAborted)
	for a, err := range e.accounts.Scan(ctx, mapper.ConsistentRead(true)) {
		require.NoError(t, err)
		assert.Equal(t, int64(100), a.Balance)
	}

	// A live unit is left alone.
	live := begin(t, e, e.c, unit.LeaseDuration(lease), unit.Heartbeat(50*time.Millisecond))
	_, err = unit.Get(ctx, live, e.accounts, Account{ID: accountID(0)})
	require.NoError(t, err)
	n, err = unit.Recover(ctx, e.c, e.coord)
	require.NoError(t, err)
	assert.Zero(t, n)
	require.NoError(t, live.Rollback(ctx))
}
