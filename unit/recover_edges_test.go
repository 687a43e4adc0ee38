package unit_test

// One test per finding on units that a demanding user made: recovery that
// a bad op blocked, a paused unit that took a lock after recovery had
// finished it, plain writes waiting for Recover, a page left by a crash,
// large items, nil values, and starving retries.

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/optimist-dynamo/optimist/dynamolocal"
	"github.com/optimist-dynamo/optimist/internal/ddbtest"
	"github.com/optimist-dynamo/optimist/internal/unitproto"
	"github.com/optimist-dynamo/optimist/mapper"
	"github.com/optimist-dynamo/optimist/pessimistic"
	"github.com/optimist-dynamo/optimist/txn"
	"github.com/optimist-dynamo/optimist/unit"
	"github.com/optimist-dynamo/optimist/update"
)

func keyS(name, v string) map[string]types.AttributeValue {
	return map[string]types.AttributeValue{name: &types.AttributeValueMemberS{Value: v}}
}

// One op on a missing table, or a raw op whose key does not match its
// table, fails the unit; its rollback still frees every good item, and
// Recover of the coordinator table is not blocked by such a unit, crashed
// or not.
func TestABadOpDoesNotBlockRecovery(t *testing.T) { synctest.Test(t, testABadOpDoesNotBlockRecovery) }

func testABadOpDoesNotBlockRecovery(t *testing.T) {
	e := newEnvOn(t, dynamolocal.NewEngine(t, dynamolocal.WithoutListener()))
	ctx := ctxT(t, time.Minute)
	e.seed(t, 4, 100)
	bad := map[string]txn.Op{
		"missing table":         txn.Put("no-such-table-"+e.accounts.Name(), keyS("id", "x"), keyS("id", "x")),
		"key of another schema": txn.Update(e.accounts.Name(), keyS("nope", "x"), update.Set("n", 1)),
	}
	for name, op := range bad {
		u := begin(t, e, e.c)
		_, err := unit.Get(ctx, u, e.accounts, Account{ID: accountID(0)})
		require.NoError(t, err)
		require.NoError(t, u.Add(e.accounts.UpdateOp(Account{ID: accountID(1)}, update.Add("balance", 1)), op))
		require.Error(t, u.Commit(ctx), name)
		assert.Zero(t, lockedItems(t, e.c, e.accounts.Name()), "%s: the rollback freed the good items", name)
	}

	// Crashed units: one with a bad op it had logged, one good; Recover
	// finishes both, and reports no error.
	const lease = 300 * time.Millisecond
	for i, op := range []txn.Op{bad["missing table"], bad["key of another schema"]} {
		cc := &crashClient{c: e.c, limit: -1}
		u := begin(t, e, cc, unit.LeaseDuration(lease), unit.Heartbeat(50*time.Millisecond))
		_, err := unit.Get(ctx, u, e.accounts, Account{ID: accountID(2 + i)})
		require.NoError(t, err)
		require.NoError(t, u.Add(op, e.accounts.UpdateOp(Account{ID: accountID(2 + i)}, update.Add("balance", 1))))
		_ = u.Commit(ctx) // fails on the bad op, then "crashes" during the rollback:
		cc.paused.Store(true)
	}
	good := &crashClient{c: e.c, limit: -1}
	u := begin(t, e, good, unit.LeaseDuration(lease), unit.Heartbeat(50*time.Millisecond))
	_, err := unit.Get(ctx, u, e.accounts, Account{ID: accountID(0)})
	require.NoError(t, err)
	good.paused.Store(true)
	_, err = unit.Recover(ctx, e.c, e.coord)
	require.NoError(t, err)
	assert.Zero(t, lockedItems(t, e.c, e.accounts.Name()), "no lock is left")
	for _, r := range raw(t, e.c, e.coord) {
		if _, isRecord := r[unitproto.RecState]; isRecord {
			assert.Contains(t, r, unitproto.RecFinished, "every unit is finished: %v", r[unitproto.RecID])
		}
	}
}

// A unit paused past its lease is rolled back by recovery; when it
// resumes, it learns so before it takes another lock, so that no lock is
// left that nobody would remove.
func TestAResumedUnitTakesNoLockAfterRecovery(t *testing.T) {
	synctest.Test(t, testAResumedUnitTakesNoLockAfterRecovery)
}

func testAResumedUnitTakesNoLockAfterRecovery(t *testing.T) {
	e := newEnvOn(t, dynamolocal.NewEngine(t, dynamolocal.WithoutListener()))
	ctx := ctxT(t, time.Minute)
	e.seed(t, 3, 100)
	const lease = 300 * time.Millisecond
	cc := &crashClient{c: e.c, limit: -1}
	u := begin(t, e, cc, unit.LeaseDuration(lease), unit.Heartbeat(50*time.Millisecond))
	_, err := unit.Get(ctx, u, e.accounts, Account{ID: accountID(0)})
	require.NoError(t, err)
	cc.paused.Store(true) // a pause: every call fails, heartbeats too
	n, err := unit.Recover(ctx, e.c, e.coord)
	require.NoError(t, err)
	require.Equal(t, 1, n)
	cc.paused.Store(false) // it resumes, before its heartbeat tells it
	_, err = unit.Get(ctx, u, e.accounts, Account{ID: accountID(1)})
	require.ErrorIs(t, err, unit.ErrAborted)
	_, err = unit.GetAll(ctx, u, e.accounts, []Account{{ID: accountID(2)}})
	require.ErrorIs(t, err, unit.ErrAborted)
	assert.Zero(t, lockedItems(t, e.c, e.accounts.Name()), "the resumed unit took no lock")
}

// A plain write that meets the lock of a unit whose process died settles
// it inline, about a lease after the death, without anyone running
// Recover; the lock of a committed unit is rolled forward at once.
func TestPlainWritesSettleADeadUnitsLock(t *testing.T) {
	synctest.Test(t, testPlainWritesSettleADeadUnitsLock)
}

func testPlainWritesSettleADeadUnitsLock(t *testing.T) {
	e := newEnvOn(t, dynamolocal.NewEngine(t, dynamolocal.WithoutListener()))
	ctx := ctxT(t, time.Minute)
	e.seed(t, 2, 100)
	const lease = 400 * time.Millisecond

	// A unit that dies holding a lock, before its commit point.
	cc := &crashClient{c: e.c, limit: -1}
	u := begin(t, e, cc, unit.LeaseDuration(lease), unit.Heartbeat(50*time.Millisecond))
	a, err := unit.Get(ctx, u, e.accounts, Account{ID: accountID(0)})
	require.NoError(t, err)
	cc.paused.Store(true)
	died := time.Now()
	var refused int
	for {
		_, err := e.accounts.Update(ctx, Account{ID: accountID(0)}, update.Add("balance", 1))
		if err == nil {
			break
		}
		require.ErrorIs(t, err, unit.ErrLocked)
		refused++
		require.Less(t, time.Since(died), 10*lease, "the item stays blocked")
		time.Sleep(lease / 8)
	}
	blocked := time.Since(died)
	t.Logf("plain writes refused %d times, for %v after the unit died (lease %v)", refused, blocked.Round(time.Millisecond), lease)
	assert.Positive(t, refused, "a live-looking unit's lock is respected at first")
	got, err := e.accounts.Get(ctx, Account{ID: accountID(0)})
	require.NoError(t, err)
	assert.Equal(t, a.Balance+1, got.Balance)

	// A unit that dies just after its commit point: its lock is rolled
	// forward by the first plain write, at once.
	cc = &crashClient{c: e.c, limit: -1}
	u = begin(t, e, cc, unit.LeaseDuration(time.Minute))
	b, err := unit.Get(ctx, u, e.accounts, Account{ID: accountID(1)})
	require.NoError(t, err)
	b.Balance += 50
	require.NoError(t, u.Add(e.accounts.PutOp(b)))
	crashAfterCommitPoint(cc)
	require.NoError(t, u.Commit(ctx), "past the commit point, Commit reports success")
	got, err = e.accounts.Update(ctx, Account{ID: accountID(1)}, update.Add("balance", 1))
	require.NoError(t, err, "no wait for a committed unit")
	assert.Equal(t, int64(151), got.Balance, "the unit's write, then the plain one")
}

// crashAfterCommitPoint makes cc fail every call after the commit point's
// write.
func crashAfterCommitPoint(cc *crashClient) { cc.crashAfterCommit.Store(true) }

// pageDeleter fails every call after the first delete of a unit's page.
type pageDeleter struct {
	*crashClient
	deletes atomic.Int32
}

func (p *pageDeleter) DeleteItem(ctx context.Context, in *dynamodb.DeleteItemInput, o ...func(*dynamodb.Options)) (*dynamodb.DeleteItemOutput, error) {
	if id, _ := in.Key[unitproto.RecID].(*types.AttributeValueMemberS); id != nil && strings.Contains(id.Value, "#") {
		if p.deletes.Add(1) > 1 {
			p.paused.Store(true)
		}
	}
	return p.crashClient.DeleteItem(ctx, in, o...)
}

// A crash after the first of two item-list pages is deleted leaves no page
// behind: pages go from the last, so recovery still reads the first, and
// every page expires by TTL anyway. (In a testing/synctest bubble.) The
// unit fills its first page by bytes, with 150 items whose keys are 2,000
// bytes long; with ddbtest.EnvLong set (make test-long), by count too, with
// 2,001 items of short keys.
func TestNoPageOutlivesAUnit(t *testing.T) {
	t.Run("by bytes", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) { noPageOutlivesAUnit(t, 150, strings.Repeat("k", 1996)) })
	})
	if ddbtest.Long() {
		t.Run("by count", func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) { noPageOutlivesAUnit(t, unitproto.PageItems+1, "") })
		})
	}
}

func noPageOutlivesAUnit(t *testing.T, n int, prefix string) {
	e := newEnvOn(t, dynamolocal.NewEngine(t, dynamolocal.WithoutListener()))
	ctx := ctxT(t, 5*time.Minute)
	items := make([]*Account, n)
	for i := range items {
		items[i] = &Account{ID: prefix + accountID(i), Balance: 1}
	}
	require.NoError(t, e.accounts.PutAll(ctx, items, mapper.Unversioned()))
	pd := &pageDeleter{crashClient: &crashClient{c: e.c, limit: -1}}
	u := begin(t, e, pd, unit.LeaseDuration(300*time.Millisecond), unit.Heartbeat(50*time.Millisecond))
	for _, a := range items {
		require.NoError(t, u.Add(e.accounts.UpdateOp(Account{ID: a.ID}, update.Add("balance", 1))))
	}
	require.NoError(t, u.Commit(ctx), "past the commit point")
	require.True(t, pd.paused.Load(), "the crash came after the first page delete")
	pages := func() (n int) {
		for _, r := range raw(t, e.c, e.coord) {
			if id, _ := r[unitproto.RecID].(*types.AttributeValueMemberS); id != nil && strings.Contains(id.Value, "#") {
				n++
				assert.Contains(t, r, unitproto.RecTTL, "every page expires")
			}
		}
		return n
	}
	assert.Equal(t, 1, pages(), "the crash left the first page")
	_, err := unit.Recover(ctx, e.c, e.coord)
	require.NoError(t, err)
	assert.Zero(t, pages(), "no page is left")
	assert.Zero(t, lockedItems(t, e.c, e.accounts.Name()))
}

// Items too large for a unit are refused with mapper.ErrItemTooLarge before the
// commit point, whatever the op; a delete or a small update of a large
// item works, since a unit keeps only its write beside the item.
func TestLargeItemsInAUnit(t *testing.T) {
	e := newEnv(t)
	ctx := ctxT(t, time.Minute)
	big := strings.Repeat("x", 250<<10)
	type Doc struct {
		ID      string `dynamo:"id,hash"`
		Body    string `dynamo:"body"`
		N       int    `dynamo:"n"`
		Version int64  `dynamo:"v,version"`
	}
	docs, err := mapper.NewTable[Doc](e.c, e.accounts.Name())
	require.NoError(t, err)
	for _, id := range []string{"a", "b", "c", "d"} {
		require.NoError(t, docs.Put(ctx, &Doc{ID: id, Body: big}))
	}
	commit := func(ops ...txn.Op) error {
		u := begin(t, e, e.c)
		require.NoError(t, u.Add(ops...))
		return u.Commit(ctx)
	}
	require.NoError(t, commit(docs.UpdateOp(Doc{ID: "a"}, update.Add("n", 1))), "a small update of a large item")
	require.NoError(t, commit(docs.DeleteOp(Doc{ID: "b"})), "a delete of a large item")

	// A large Put over a large item: refused before the commit point.
	assert.ErrorIs(t, commit(docs.PutOp(&Doc{ID: "c", Body: big, Version: 1})), mapper.ErrItemTooLarge, "written only")
	u := begin(t, e, e.c)
	d, err := unit.Get(ctx, u, docs, Doc{ID: "d"})
	require.NoError(t, err)
	d.Body = big + "y"
	require.NoError(t, u.Add(docs.PutOp(d)))
	assert.ErrorIs(t, u.Commit(ctx), mapper.ErrItemTooLarge, "read, then written: refused before sending")
	// An update that would grow a large item past the limit.
	assert.ErrorIs(t, commit(docs.UpdateOp(Doc{ID: "a"}, update.Set("more", big))), mapper.ErrItemTooLarge, "an update growing the item")
	// An op too large on its own: refused before anything is sent.
	assert.ErrorIs(t, commit(docs.PutOp(&Doc{ID: "e", Body: strings.Repeat("z", 399<<10)})), mapper.ErrItemTooLarge)
	assert.Zero(t, lockedItems(t, e.c, e.accounts.Name()))
	got, err := docs.Get(ctx, Doc{ID: "c"})
	require.NoError(t, err)
	assert.Equal(t, int64(1), got.Version, "nothing of a refused unit was applied")
}

// Nil and zero values are errors, not panics.
func TestNilUnitAndValues(t *testing.T) {
	e := newEnv(t)
	ctx := ctxT(t, time.Minute)
	var u *unit.Unit
	_, err := unit.Get(ctx, u, e.accounts, Account{ID: "a"})
	assert.ErrorIs(t, err, unit.ErrInvalidOption)
	_, err = unit.GetAll(ctx, u, e.accounts, []Account{{ID: "a"}})
	assert.ErrorIs(t, err, unit.ErrInvalidOption)
	assert.ErrorIs(t, u.Add(e.accounts.PutOp(&Account{ID: "a"})), unit.ErrInvalidOption)
	assert.ErrorIs(t, u.Commit(ctx), unit.ErrInvalidOption)
	assert.ErrorIs(t, u.Rollback(ctx), unit.ErrInvalidOption)
	live := begin(t, e, e.c)
	_, err = unit.Get(ctx, live, (*mapper.Table[Account])(nil), Account{ID: "a"})
	assert.ErrorIs(t, err, mapper.ErrInvalidOption)
	assert.Error(t, live.Add(txn.Op{}))
	_, err = unit.Get(ctx, live, e.accounts, Account{})
	assert.ErrorIs(t, err, mapper.ErrInvalidItem)
	require.NoError(t, live.Rollback(ctx))
	_, err = unit.Recover(ctx, nil, e.coord)
	assert.ErrorIs(t, err, unit.ErrInvalidOption)
}

// A unit that retries with KeepAge keeps its age for wait-die, so that
// younger units give way to it. It runs in a testing/synctest bubble: the
// older unit's Wait passes in virtual time, and the times measured are
// the bubble's.
func TestKeepAge(t *testing.T) { synctest.Test(t, testKeepAge) }

func testKeepAge(t *testing.T) {
	e := newEnvOn(t, dynamolocal.NewEngine(t, dynamolocal.WithoutListener()))
	ctx := ctxT(t, time.Minute)
	e.seed(t, 1, 100)
	first := begin(t, e, e.c)
	require.NoError(t, first.Rollback(ctx))
	time.Sleep(10 * time.Millisecond)
	holder := begin(t, e, e.c) // younger than first
	_, err := unit.Get(ctx, holder, e.accounts, Account{ID: accountID(0)})
	require.NoError(t, err)

	const wait = 300 * time.Millisecond
	retry := begin(t, e, e.c, unit.KeepAge(first), unit.Wait(wait))
	assert.Equal(t, first.Started(), retry.Started())
	start := time.Now()
	_, err = unit.Get(ctx, retry, e.accounts, Account{ID: accountID(0)})
	var le *unit.LockedError
	require.ErrorAs(t, err, &le)
	assert.GreaterOrEqual(t, time.Since(start), wait, "older: it waited its Wait, not refused at once")
	fresh := begin(t, e, e.c, unit.Wait(time.Minute))
	start = time.Now()
	_, err = unit.Get(ctx, fresh, e.accounts, Account{ID: accountID(0)})
	require.ErrorIs(t, err, unit.ErrLocked)
	assert.Zero(t, time.Since(start), "younger: refused at once (wait-die), not after its Wait")
	for _, u := range []*unit.Unit{holder, retry, fresh} {
		require.NoError(t, u.Rollback(ctx))
	}
}

// A unit that takes a lock after recovery finished it (it paused past its
// lease between its check that it is alive and its next lock) and then
// dies leaves no lock behind: its page, written after the finish, tells
// Recover which item to release. It runs in a testing/synctest bubble: the
// pause is a page write held at a gate while Recover watches the unit for
// its lease.
func TestAStrayLockIsRecovered(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := newEnvOn(t, dynamolocal.NewEngine(t, dynamolocal.WithoutListener()))
		ctx := ctxT(t, time.Minute)
		e.seed(t, 2, 100)
		const lease = 300 * time.Millisecond
		cc := &crashClient{c: e.c, limit: -1}
		gc := &gateClient{crashClient: cc}
		u := begin(t, e, gc, unit.LeaseDuration(lease))
		_, err := unit.Get(ctx, u, e.accounts, Account{ID: accountID(0)})
		require.NoError(t, err)

		// The next page write waits at the gate: the unit pauses after
		// it checked that it is alive, before it writes its page and lock.
		gc.gate = make(chan struct{})
		done := make(chan error, 1)
		go func() {
			_, err := unit.Get(ctx, u, e.accounts, Account{ID: accountID(1)})
			done <- err
		}()
		synctest.Wait()
		cc.paused.Store(true) // no heartbeats get through
		n, err := unit.Recover(ctx, e.c, e.coord)
		require.NoError(t, err)
		require.Equal(t, 1, n)
		cc.paused.Store(false)
		close(gc.gate) // it resumes, at once: no time passes for a heartbeat
		require.NoError(t, <-done, "the unit does not know yet")
		cc.paused.Store(true) // and dies
		require.Equal(t, 1, lockedItems(t, e.c, e.accounts.Name()))

		_, err = unit.Recover(ctx, e.c, e.coord)
		require.NoError(t, err)
		assert.Zero(t, lockedItems(t, e.c, e.accounts.Name()), "Recover released the stray lock")
		for _, r := range raw(t, e.c, e.coord) {
			id := r[unitproto.RecID].(*types.AttributeValueMemberS).Value
			assert.NotContains(t, id, "#", "no page is left")
		}
		// A dead unit's process is gone; here its heartbeats go on until
		// Rollback stops them, and a bubble ends only with its goroutines.
		cc.paused.Store(false)
		_ = u.Rollback(ctx)
	})
}

// gateClient holds the unit's page writes at gate while it is not nil.
type gateClient struct {
	*crashClient
	gate chan struct{}
}

func (g *gateClient) UpdateItem(ctx context.Context, in *dynamodb.UpdateItemInput, o ...func(*dynamodb.Options)) (*dynamodb.UpdateItemOutput, error) {
	if g.gate != nil && strings.HasPrefix(aws.ToString(in.UpdateExpression), "ADD #items") {
		select {
		case <-g.gate:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	return g.crashClient.UpdateItem(ctx, in, o...)
}

// Every write the library sends respects a unit's lock: an item lock
// (pessimistic.LockItem) on an item a unit holds is refused with ErrLocked.
func TestItemLockRespectsAUnit(t *testing.T) {
	e := newEnv(t)
	ctx := ctxT(t, time.Minute)
	e.seed(t, 1, 100)
	u := begin(t, e, e.c)
	_, err := unit.Get(ctx, u, e.accounts, Account{ID: accountID(0)})
	require.NoError(t, err)
	_, _, err = pessimistic.LockItem(ctx, e.accounts, Account{ID: accountID(0)}, pessimistic.Wait(0))
	require.ErrorIs(t, err, unit.ErrLocked)
	require.NoError(t, u.Rollback(ctx))
	_, l, err := pessimistic.LockItem(ctx, e.accounts, Account{ID: accountID(0)}, pessimistic.Wait(0))
	require.NoError(t, err, "free again")
	require.NoError(t, l.Release(ctx))
}

// A transaction that meets the lock of a unit that committed and then
// died settles the item and goes through, as a mapper write does.
func TestTransactionSettlesAnOverUnitsLock(t *testing.T) {
	e := newEnv(t)
	ctx := ctxT(t, time.Minute)
	e.seed(t, 1, 100)
	cc := &crashClient{c: e.c, limit: -1}
	u := begin(t, e, cc, unit.LeaseDuration(time.Minute))
	a, err := unit.Get(ctx, u, e.accounts, Account{ID: accountID(0)})
	require.NoError(t, err)
	a.Balance += 50
	require.NoError(t, u.Add(e.accounts.PutOp(a)))
	crashAfterCommitPoint(cc)
	require.NoError(t, u.Commit(ctx))
	require.Equal(t, 1, lockedItems(t, e.c, e.accounts.Name()), "the unit died before applying")

	tx := txn.New(e.c)
	require.NoError(t, tx.Add(e.accounts.UpdateOp(Account{ID: accountID(0)}, update.Add("balance", 1))))
	require.NoError(t, tx.Commit(ctx), "no wait for a committed unit")
	got, err := e.accounts.Get(ctx, Account{ID: accountID(0)})
	require.NoError(t, err)
	assert.Equal(t, int64(151), got.Balance, "the unit's write, then the transaction's")
}
