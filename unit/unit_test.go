package unit_test

import (
	"context"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/optimist-dynamo/optimist/dynamolocal"
	"github.com/optimist-dynamo/optimist/mapper"
	"github.com/optimist-dynamo/optimist/txn"
	"github.com/optimist-dynamo/optimist/unit"
	"github.com/optimist-dynamo/optimist/update"
	"github.com/optimist-dynamo/optimist/version"
)

func TestBasicCommit(t *testing.T) {
	e := newEnv(t)
	ctx := ctxT(t, time.Minute)
	e.seed(t, 3, 100)
	u := begin(t, e, e.c)
	a, err := unit.Get(ctx, u, e.accounts, Account{ID: accountID(0)})
	require.NoError(t, err)
	b, err := unit.Get(ctx, u, e.accounts, Account{ID: accountID(1)})
	require.NoError(t, err)
	_, err = unit.Get(ctx, u, e.accounts, Account{ID: "new"})
	require.ErrorIs(t, err, mapper.ErrNotFound)

	// Locked: plain writes are refused, plain reads see the committed state.
	stale := *a
	err = e.accounts.Put(ctx, &stale)
	require.ErrorIs(t, err, unit.ErrLocked)
	var le *unit.LockedError
	require.ErrorAs(t, err, &le)
	assert.Equal(t, u.ID(), le.Unit)
	_, err = e.accounts.Get(ctx, Account{ID: "new"})
	require.ErrorIs(t, err, mapper.ErrNotFound, "a placeholder is not an item")
	_, err = e.accounts.Update(ctx, Account{ID: accountID(1)}, update.Add("balance", 1))
	require.ErrorIs(t, err, unit.ErrLocked)
	err = e.accounts.Delete(ctx, Account{ID: accountID(1)})
	require.ErrorIs(t, err, unit.ErrLocked)
	saved := stale
	require.ErrorIs(t, e.accounts.Save(ctx, &saved), unit.ErrLocked)
	_, err = e.accounts.Modify(ctx, Account{ID: accountID(0)}, func(a *Account) error { a.Balance++; return nil })
	require.ErrorIs(t, err, unit.ErrLocked)
	_, err = e.accounts.Modify(ctx, Account{ID: "new"}, func(a *Account) error { a.Balance++; return nil })
	require.ErrorIs(t, err, unit.ErrLocked, "creating an item a unit locked for creation")
	tx := txn.New(e.c)
	require.NoError(t, tx.Add(e.accounts.PutOp(&stale)))
	require.ErrorIs(t, tx.Commit(ctx), unit.ErrLocked)

	a.Balance -= 10
	b.Balance += 5
	require.NoError(t, u.Add(
		e.accounts.PutOp(a),
		e.accounts.UpdateOp(Account{ID: accountID(1)}, update.Add("balance", 5)),
		e.accounts.PutOp(&Account{ID: "new", Balance: 5}),
		e.accounts.DeleteOp(Account{ID: accountID(2)}),
		e.orders.PutOp(&Order{Customer: "c", N: 1, Amount: 3}),
	))
	require.NoError(t, u.Commit(ctx))
	assert.Equal(t, int64(2), a.Version, "Committed callbacks set the version")

	got, err := e.accounts.Get(ctx, Account{ID: accountID(0)})
	require.NoError(t, err)
	assert.Equal(t, int64(90), got.Balance)
	assert.Equal(t, int64(2), got.Version)
	got, err = e.accounts.Get(ctx, Account{ID: accountID(1)})
	require.NoError(t, err)
	assert.Equal(t, int64(105), got.Balance)
	got, err = e.accounts.Get(ctx, Account{ID: "new"})
	require.NoError(t, err)
	assert.Equal(t, int64(5), got.Balance)
	assert.Equal(t, int64(1), got.Version)
	_, err = e.accounts.Get(ctx, Account{ID: accountID(2)})
	require.ErrorIs(t, err, mapper.ErrNotFound)
	o, err := e.orders.Get(ctx, Order{Customer: "c", N: 1})
	require.NoError(t, err)
	assert.Equal(t, int64(3), o.Amount)
	assert.Zero(t, lockedItems(t, e.c, e.accounts.Name()))
	assert.Zero(t, lockedItems(t, e.c, e.orders.Name()))

	// A stale copy conflicts after the commit.
	err = e.accounts.Put(ctx, &stale)
	require.True(t, version.IsConflict(err), "%v", err)
	require.ErrorIs(t, u.Commit(ctx), unit.ErrDone)
}

func TestBasicRollback(t *testing.T) {
	e := newEnv(t)
	ctx := ctxT(t, time.Minute)
	e.seed(t, 2, 100)
	u := begin(t, e, e.c)
	a, err := unit.Get(ctx, u, e.accounts, Account{ID: accountID(0)})
	require.NoError(t, err)
	_, err = unit.Get(ctx, u, e.accounts, Account{ID: "new"})
	require.ErrorIs(t, err, mapper.ErrNotFound)
	a.Balance = 0
	require.NoError(t, u.Add(e.accounts.PutOp(a), e.accounts.DeleteOp(Account{ID: accountID(1)})))
	require.NoError(t, u.Rollback(ctx))
	assert.Zero(t, lockedItems(t, e.c, e.accounts.Name()))
	assert.Len(t, raw(t, e.c, e.accounts.Name()), 2, "the placeholder is gone")
	got, err := e.accounts.Get(ctx, Account{ID: accountID(0)})
	require.NoError(t, err)
	assert.Equal(t, int64(100), got.Balance)
	require.NoError(t, e.accounts.Put(ctx, got), "unlocked")
}

func TestConflictingOpRollsBack(t *testing.T) {
	e := newEnv(t)
	ctx := ctxT(t, time.Minute)
	e.seed(t, 2, 100)
	u := begin(t, e, e.c)
	stale := &Account{ID: accountID(0), Balance: 1, Version: 7}
	require.NoError(t, u.Add(e.accounts.PutOp(stale), e.accounts.UpdateOp(Account{ID: accountID(1)}, update.Add("balance", 1))))
	err := u.Commit(ctx)
	require.True(t, version.IsConflict(err), "%v", err)
	assert.Zero(t, lockedItems(t, e.c, e.accounts.Name()))
	got, err := e.accounts.Get(ctx, Account{ID: accountID(1)})
	require.NoError(t, err)
	assert.Equal(t, int64(100), got.Balance)
	assert.Equal(t, int64(1), got.Version, "PutAll(Unversioned) wrote version 1")
}

func TestSecondUnitGetsErrLocked(t *testing.T) { synctest.Test(t, testSecondUnitGetsErrLocked) }

func testSecondUnitGetsErrLocked(t *testing.T) {
	e := newEnvOn(t, dynamolocal.NewEngine(t, dynamolocal.WithoutListener()))
	ctx := ctxT(t, time.Minute)
	e.seed(t, 1, 100)
	// Each unit is begun a millisecond after the last: the bubble's clock
	// moves only when told, and age is the time a unit began.
	older := begin(t, e, e.c, unit.Owner("older"))
	time.Sleep(time.Millisecond)
	younger := begin(t, e, e.c, unit.Wait(0))
	_, err := unit.Get(ctx, older, e.accounts, Account{ID: accountID(0)})
	require.NoError(t, err)
	_, err = unit.Get(ctx, younger, e.accounts, Account{ID: accountID(0)})
	var le *unit.LockedError
	require.ErrorAs(t, err, &le)
	assert.Equal(t, "older", le.Owner)
	require.NoError(t, younger.Rollback(ctx))

	// An older unit waits for a younger one.
	u2 := begin(t, e, e.c)
	time.Sleep(time.Millisecond)
	u3 := begin(t, e, e.c)
	_, err = unit.Get(ctx, u3, e.accounts, Account{ID: "x"})
	require.ErrorIs(t, err, mapper.ErrNotFound)
	done := make(chan error, 1)
	go func() {
		_, err := unit.Get(ctx, u2, e.accounts, Account{ID: "x"})
		done <- err
	}()
	time.Sleep(200 * time.Millisecond)
	require.NoError(t, u3.Add(e.accounts.PutOp(&Account{ID: "x", Balance: 1})))
	require.NoError(t, u3.Commit(ctx))
	select {
	case err := <-done:
		require.NoError(t, err)
	case <-time.After(10 * time.Second):
		t.Fatal("the older unit did not get the lock")
	}
	require.NoError(t, u2.Rollback(ctx))
	require.NoError(t, older.Rollback(ctx))
	assert.Zero(t, lockedItems(t, e.c, e.accounts.Name()))

}

func TestOptionsAndAddAreChecked(t *testing.T) {
	ctx := context.Background()
	for _, opts := range [][]unit.Option{
		nil,
		{unit.Coordinator("")},
		{unit.Coordinator("c"), unit.LeaseDuration(0)},
		{unit.Coordinator("c"), unit.LeaseDuration(time.Second), unit.Heartbeat(time.Second)},
		{unit.Coordinator("c"), unit.Wait(-1)},
		{unit.Coordinator("c"), unit.Owner("")},
	} {
		_, err := unit.Begin(ctx, nil, opts...)
		require.ErrorIs(t, err, unit.ErrInvalidOption, "%d options", len(opts))
	}

	e := newEnv(t)
	u := begin(t, e, e.c)
	a := &Account{ID: "a", Balance: 1}
	require.ErrorIs(t, u.Add(e.accounts.PutOp(a), e.accounts.DeleteOp(*a)), txn.ErrDuplicateItem)
	require.NoError(t, u.Add(e.accounts.PutOp(a)))
	require.ErrorIs(t, u.Add(e.accounts.PutOp(a)), txn.ErrDuplicateItem)
	require.Error(t, u.Add(txn.Op{}))
	require.Error(t, u.Add(e.accounts.UpdateOp(Account{ID: "b"}, update.Set("optimist_unit", 1))))
	require.NoError(t, u.Rollback(ctx))
	require.ErrorIs(t, u.Rollback(ctx), unit.ErrDone)
	require.ErrorIs(t, u.Add(e.accounts.PutOp(a)), unit.ErrDone)
	_, err := unit.Get(ctx, u, e.accounts, *a)
	require.ErrorIs(t, err, unit.ErrDone)
	assert.Zero(t, lockedItems(t, e.c, e.accounts.Name()))
}
