package unit_test

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"testing/synctest"
	"time"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/optimist-dynamo/optimist/dynamolocal"
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

// largeHalf is how many accounts, and as many orders, the
// TestThousandItems tests read and write in one unit: 500 (a thousand
// items) with ddbtest.EnvLong set (make test-long), 100 otherwise, which
// takes the same paths.
func largeHalf() int {
	if ddbtest.Long() {
		return 500
	}
	return 100
}

// readAndWrite1000 reads n accounts and n orders in u with locking reads
// and adds a write of each.
func readAndWrite1000(t *testing.T, ctx context.Context, e *env, u *unit.Unit, n int) {
	for i := range n {
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

func TestThousandItemsCommit(t *testing.T) { synctest.Test(t, testThousandItemsCommit) }

func testThousandItemsCommit(t *testing.T) {
	e := newEnvOn(t, dynamolocal.NewEngine(t, dynamolocal.WithoutListener()))
	ctx := ctxT(t, 5*time.Minute)
	n := largeHalf()
	e.seed(t, n, 100)
	e.seedOrders(t, n)
	u := begin(t, e, e.c)
	readAndWrite1000(t, ctx, e, u, n)
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
	assert.Equal(t, int64(n*110), sum)
	assert.Equal(t, int64(n*2), amounts)
	assert.Zero(t, lockedItems(t, e.c, e.accounts.Name()))
	assert.Zero(t, lockedItems(t, e.c, e.orders.Name()))
}

func TestThousandItemsRollback(t *testing.T) { synctest.Test(t, testThousandItemsRollback) }

func testThousandItemsRollback(t *testing.T) {
	e := newEnvOn(t, dynamolocal.NewEngine(t, dynamolocal.WithoutListener()))
	ctx := ctxT(t, 5*time.Minute)
	n := largeHalf()
	e.seed(t, n, 100)
	e.seedOrders(t, n)
	before := raw(t, e.c, e.accounts.Name())
	u := begin(t, e, e.c)
	readAndWrite1000(t, ctx, e, u, n)
	assert.Equal(t, n, lockedItems(t, e.c, e.accounts.Name()))
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
// read them, for n = 100, and 1,000 too with ddbtest.EnvLong set (make
// test-long): the bounds are per item, so the small unit already shows a
// cost that grows faster than the items. It runs in a testing/synctest bubble
// on an engine of its own: no heartbeat falls due while a unit works, so a
// loaded machine adds no call to the counts.
func TestCost(t *testing.T) { synctest.Test(t, testCost) }

func testCost(t *testing.T) {
	e := newEnvOn(t, dynamolocal.NewEngine(t, dynamolocal.WithoutListener()))
	ctx := ctxT(t, 5*time.Minute)
	sizes := []int{100}
	if ddbtest.Long() {
		sizes = append(sizes, 1000)
	}
	// As many accounts as the largest unit reads ('missing+create' reads
	// keys of its own, which no account has).
	e.seed(t, slices.Max(sizes), 100)
	cc := ddbtest.NewCounting(e.c)
	writes := func() int64 { return cc.Count("PutItem") + cc.Count("UpdateItem") + cc.Count("DeleteItem") }
	for _, n := range sizes {
		pages := int64((n + 1999) / 2000)
		for _, mode := range []string{"write", "create", "read+write", "getall+write", "read", "getall", "check", "missing+create"} {
			cc.Reset()
			start := time.Now()
			u := begin(t, e, cc, unit.LeaseDuration(time.Minute))
			keys := make([]Account, n)
			for i := range keys {
				keys[i] = Account{ID: accountID(i)}
			}
			if mode == "getall" || mode == "getall+write" {
				got, err := unit.GetAll(ctx, u, e.accounts, keys)
				require.NoError(t, err)
				if mode == "getall+write" {
					for _, a := range got {
						a.Balance--
						require.NoError(t, u.Add(e.accounts.PutOp(a)))
					}
				}
			}
			for i := range n {
				k := keys[i]
				switch mode {
				case "write":
					require.NoError(t, u.Add(e.accounts.UpdateOp(k, update.Add("balance", 1))))
				case "create":
					require.NoError(t, u.Add(e.accounts.PutOp(&Account{ID: fmt.Sprintf("new-%d-%d", n, i), Balance: 1})))
				case "read+write":
					a, err := unit.Get(ctx, u, e.accounts, k)
					require.NoError(t, err)
					a.Balance--
					require.NoError(t, u.Add(e.accounts.PutOp(a)))
				case "read":
					_, err := unit.Get(ctx, u, e.accounts, k)
					require.NoError(t, err)
				case "check":
					require.NoError(t, u.Add(e.accounts.CheckOp(Account{ID: k.ID}, mapper.Unversioned(),
						mapper.If(expression.AttributeExists(expression.Name("balance"))))))
				case "missing+create":
					_, err := unit.Get(ctx, u, e.accounts, Account{ID: fmt.Sprintf("gone-%d-%d", n, i)})
					require.ErrorIs(t, err, mapper.ErrNotFound)
					require.NoError(t, u.Add(e.accounts.PutOp(&Account{ID: fmt.Sprintf("gone-%d-%d", n, i), Balance: 1})))
				}
			}
			require.NoError(t, u.Commit(ctx))
			wall := time.Since(start)
			w, total := writes(), cc.Total()
			t.Logf("%-14s n=%4d: %5d calls (%.2f per item), %5d writes (%.2f per item), %d reads; %v",
				mode, n, total, float64(total)/float64(n), w, float64(w)/float64(n), cc.Count("GetItem"), wall.Round(time.Millisecond))
			// Per unit: begin, the commit point, the record's finish, and per
			// page of the item list one log write and one delete.
			perUnit := 3 + 2*pages
			N := int64(n)
			switch mode {
			case "write", "create", "check": // lock and prepare (or check) in one write, apply
				assert.LessOrEqual(t, w, 2*N+perUnit, fmt.Sprint(mode, n))
			case "read+write": // a log write per Get, the locking read, prepare, apply
				assert.LessOrEqual(t, w, 4*N+perUnit, fmt.Sprint(mode, n))
			case "getall+write": // the locking read, prepare, apply
				assert.LessOrEqual(t, w, 3*N+perUnit, fmt.Sprint(mode, n))
			case "read": // a log write per Get, lock, unlock
				assert.LessOrEqual(t, w, 3*N+perUnit, fmt.Sprint(mode, n))
			case "getall": // lock, unlock
				assert.LessOrEqual(t, w, 2*N+perUnit, fmt.Sprint(mode, n))
			case "missing+create": // log, a lock refused (no item), the placeholder, prepare, apply
				assert.LessOrEqual(t, w, 5*N+perUnit, fmt.Sprint(mode, n))
			}
			assert.Zero(t, cc.Count("GetItem"), "no reads on the happy path")
		}
	}
	assert.Zero(t, lockedItems(t, e.c, e.accounts.Name()))
}
