package unit_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/optimist-dynamo/optimist/internal/ddbtest"
	"github.com/optimist-dynamo/optimist/mapper"
	"github.com/optimist-dynamo/optimist/unit"
	"github.com/optimist-dynamo/optimist/update"
)

// seedOrders creates n orders of customer "c" with amount 1.
func (e *env) seedOrders(t *testing.T, n int) {
	items := make([]*Order, n)
	for i := range items {
		items[i] = &Order{Customer: "c", N: i, Amount: 1}
	}
	require.NoError(t, e.orders.PutAll(context.Background(), items, mapper.Unversioned()))
}

// readAndWrite1000 reads 500 accounts and 500 orders in u with locking
// reads and adds a write of each.
func readAndWrite1000(t *testing.T, ctx context.Context, e *env, u *unit.Unit) {
	for i := range 500 {
		a, err := unit.Get(ctx, u, e.accounts, Account{ID: accountID(i)})
		require.NoError(t, err)
		a.Balance += 10
		require.NoError(t, u.Add(e.accounts.PutOp(a)))
		o, err := unit.Get(ctx, u, e.orders, Order{Customer: "c", N: i})
		require.NoError(t, err)
		o.Amount++
		require.NoError(t, u.Add(e.orders.PutOp(o)))
	}
}

func TestThousandItemsCommit(t *testing.T) {
	e := newEnv(t)
	ctx := ctxT(t, 5*time.Minute)
	e.seed(t, 500, 100)
	e.seedOrders(t, 500)
	u := begin(t, e, e.c)
	readAndWrite1000(t, ctx, e, u)
	require.NoError(t, u.Commit(ctx))
	sum, amounts := int64(0), int64(0)
	for a, err := range e.accounts.Scan(ctx, mapper.ConsistentRead(true)) {
		require.NoError(t, err)
		sum += a.Balance
		assert.Equal(t, int64(2), a.Version)
	}
	for o, err := range e.orders.Scan(ctx, mapper.ConsistentRead(true)) {
		require.NoError(t, err)
		amounts += o.Amount
		assert.Equal(t, int64(2), o.Version)
	}
	assert.Equal(t, int64(500*110), sum)
	assert.Equal(t, int64(500*2), amounts)
	assert.Zero(t, lockedItems(t, e.c, e.accounts.Name()))
	assert.Zero(t, lockedItems(t, e.c, e.orders.Name()))
}

func TestThousandItemsRollback(t *testing.T) {
	e := newEnv(t)
	ctx := ctxT(t, 5*time.Minute)
	e.seed(t, 500, 100)
	e.seedOrders(t, 500)
	before := raw(t, e.c, e.accounts.Name())
	u := begin(t, e, e.c)
	readAndWrite1000(t, ctx, e, u)
	assert.Equal(t, 500, lockedItems(t, e.c, e.accounts.Name()))
	require.NoError(t, u.Rollback(ctx))
	assert.ElementsMatch(t, before, raw(t, e.c, e.accounts.Name()), "untouched, byte for byte")
	for o, err := range e.orders.Scan(ctx, mapper.ConsistentRead(true)) {
		require.NoError(t, err)
		assert.Equal(t, int64(1), o.Amount)
		assert.Equal(t, int64(1), o.Version)
	}
	assert.Zero(t, lockedItems(t, e.c, e.orders.Name()))
}

// TestCost measures the calls of units that write n items (Add only: no
// locking read), that read n items and write them back, and that only
// read them, for n = 100 and 1,000.
func TestCost(t *testing.T) {
	e := newEnv(t)
	ctx := ctxT(t, 5*time.Minute)
	e.seed(t, 1000, 100)
	cc := ddbtest.NewCounting(e.c)
	writes := func() int64 { return cc.Count("PutItem") + cc.Count("UpdateItem") + cc.Count("DeleteItem") }
	for _, n := range []int{100, 1000} {
		for _, mode := range []string{"write", "read+write", "read"} {
			cc.Reset()
			start := time.Now()
			u := begin(t, e, cc, unit.LeaseDuration(time.Minute))
			for i := range n {
				k := Account{ID: accountID(i)}
				switch mode {
				case "write":
					require.NoError(t, u.Add(e.accounts.UpdateOp(k, update.Add("balance", 1))))
				case "read+write":
					a, err := unit.Get(ctx, u, e.accounts, k)
					require.NoError(t, err)
					a.Balance--
					require.NoError(t, u.Add(e.accounts.PutOp(a)))
				case "read":
					_, err := unit.Get(ctx, u, e.accounts, k)
					require.NoError(t, err)
				}
			}
			require.NoError(t, u.Commit(ctx))
			wall := time.Since(start)
			w, total := writes(), cc.Total()
			t.Logf("%-10s n=%4d: %5d calls (%.2f per item), %5d writes (%.2f per item), %d reads; %v",
				mode, n, total, float64(total)/float64(n), w, float64(w)/float64(n), cc.Count("GetItem"), wall.Round(time.Millisecond))
			switch mode {
			case "write": // lock, prepare, apply; begin, a page, commit point, finish, page delete
				assert.LessOrEqual(t, w, int64(3*n+4+(n+1999)/2000*2), fmt.Sprint(mode, n))
			case "read+write": // and a log write per locking read
				assert.LessOrEqual(t, w, int64(4*n+4), fmt.Sprint(mode, n))
			case "read": // log, lock, unlock
				assert.LessOrEqual(t, w, int64(3*n+4), fmt.Sprint(mode, n))
			}
			assert.Zero(t, cc.Count("GetItem"), "no reads on the happy path")
		}
	}
	assert.Zero(t, lockedItems(t, e.c, e.accounts.Name()))
}
