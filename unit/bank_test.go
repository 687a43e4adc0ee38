package unit_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/optimist-dynamo/optimist/dynamolocal"
	"github.com/optimist-dynamo/optimist/internal/ddbtest"
	"github.com/optimist-dynamo/optimist/internal/retry"
	"github.com/optimist-dynamo/optimist/mapper"
	"github.com/optimist-dynamo/optimist/unit"
	"github.com/optimist-dynamo/optimist/version"
)

// transfer is one logical transfer: the change it makes to each account.
type transfer struct {
	id     string
	deltas map[string]int64
	// outcome: "committed", "unknown" (Commit's outcome could not be
	// known), or "failed" (gave up with a clear error; nothing applied).
	outcome  string
	attempts int
}

// TestBankWorkload runs 8 workers moving money among 200 accounts in
// units of 10 to 150 items, through a client that loses responses after
// the server applied the request. The total is conserved, every
// account's balance is its opening balance plus exactly the transfers it
// lists, no transfer is listed twice or only partly, every transfer
// commits or ends with a clear error, and the run ends in bounded time.
// It runs in a testing/synctest bubble, on an engine of its own: the
// units' leases and backoffs, and the final Recover's watch of a lease,
// pass in virtual time.
func TestBankWorkload(t *testing.T) { synctest.Test(t, testBankWorkload) }

func testBankWorkload(t *testing.T) {
	srv := dynamolocal.NewEngine(t, dynamolocal.WithoutListener())
	e := newEnvOn(t, srv)
	const (
		accounts = 200
		opening  = 1000
		workers  = 8
	)
	// One transfer per worker by default (the machine is small);
	// BANK_ROUNDS=n for more.
	perWorker := 1
	if r, err := strconv.Atoi(os.Getenv("BANK_ROUNDS")); err == nil && r > 0 {
		perWorker = r
	}
	e.seed(t, accounts, opening)
	drop := &ddbtest.DropTransport{Base: srv.Transport(), Drop: func(op string, call int) bool { return rand.N(100) < 3 }}
	lossy := srv.NewClient(drop.Option())
	accts, err := mapper.NewTable[Account](lossy, e.accounts.Name())
	require.NoError(t, err)

	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	var (
		mu        sync.Mutex
		transfers []*transfer
		wg        sync.WaitGroup
		errs      = map[string]int{}
	)
	start := time.Now()
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for n := range perWorker {
				tr := &transfer{id: fmt.Sprintf("w%d-t%d", w, n), deltas: map[string]int64{}}
				size := 10 + rand.N(141)
				// Locking reads in key order, as the package doc advises: two
				// units then meet at their first common item.
				ids := rand.Perm(accounts)[:size]
				slices.Sort(ids)
				var sum int64
				for i, a := range ids {
					d := int64(rand.N(21) - 10)
					if i == len(ids)-1 {
						d = -sum
					}
					sum += d
					tr.deltas[accountID(a)] = d
				}
				for {
					tr.attempts++
					err := runTransfer(ctx, e, lossy, accts, tr, ids)
					mu.Lock()
					switch {
					case err == nil:
						tr.outcome = "committed"
					case errors.Is(err, version.ErrUnknownOutcome):
						tr.outcome = "unknown"
						errs["unknown outcome"]++
					case errors.Is(err, unit.ErrLocked):
						errs["locked"]++
					case errors.Is(err, unit.ErrAborted):
						errs["aborted"]++
					default:
						errs[err.Error()]++
					}
					mu.Unlock()
					if tr.outcome != "" {
						break
					}
					if ctx.Err() != nil {
						tr.outcome = "failed"
						break
					}
					_ = retry.Sleep(ctx, retry.Backoff(tr.attempts, 200*time.Millisecond, 3*time.Second))
				}
				mu.Lock()
				transfers = append(transfers, tr)
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	require.NoError(t, ctx.Err(), "bounded time: no deadlock")
	n, err := unit.Recover(context.Background(), e.c, e.coord)
	require.NoError(t, err)
	t.Logf("%d transfers in %v; errors on the way: %v; %d responses dropped; %d units recovered after", len(transfers), elapsed.Round(time.Millisecond), errs, drop.Dropped(), n)
	assert.Positive(t, drop.Dropped())

	final := map[string]*Account{}
	total := int64(0)
	for a, err := range e.accounts.Scan(context.Background(), mapper.ConsistentRead(true)) {
		require.NoError(t, err)
		final[a.ID] = a
		total += a.Balance
	}
	require.Len(t, final, accounts)
	assert.Equal(t, int64(accounts*opening), total, "total conserved")
	assert.Zero(t, lockedItems(t, e.c, e.accounts.Name()))

	byID := map[string]*transfer{}
	committed := 0
	for _, tr := range transfers {
		byID[tr.id] = tr
		if tr.outcome == "committed" {
			committed++
		}
	}
	assert.Equal(t, workers*perWorker, committed, "every transfer committed in the end")
	for id, a := range final {
		want := int64(opening)
		seen := map[string]bool{}
		for _, tid := range a.Applied {
			assert.False(t, seen[tid], "%s lists %s twice", id, tid)
			seen[tid] = true
			want += byID[tid].deltas[id]
		}
		assert.Equal(t, want, a.Balance, "%s: opening balance plus the transfers it lists", id)
	}
	for _, tr := range transfers {
		listed := 0
		for id := range tr.deltas {
			if slices.Contains(final[id].Applied, tr.id) {
				listed++
			}
		}
		switch tr.outcome {
		case "committed":
			assert.Equal(t, len(tr.deltas), listed, "%s is applied to all its accounts", tr.id)
		default:
			assert.Contains(t, []int{0, len(tr.deltas)}, listed, "%s (%s) is applied to all or none", tr.id, tr.outcome)
		}
	}
}

// runTransfer makes one attempt at a transfer in a unit.
func runTransfer(ctx context.Context, e *env, c unit.Client, accts *mapper.Table[Account], tr *transfer, ids []int) error {
	u, err := unit.Begin(ctx, c, unit.Coordinator(e.coord), unit.LeaseDuration(3*time.Second), unit.Wait(5*time.Second))
	if err != nil {
		return err
	}
	for _, i := range ids {
		a, err := unit.Get(ctx, u, accts, Account{ID: accountID(i)})
		if err != nil {
			return errors.Join(err, u.Rollback(ctx))
		}
		if slices.Contains(a.Applied, tr.id) {
			_ = u.Rollback(ctx)
			return fmt.Errorf("transfer %s found already applied to %s", tr.id, a.ID)
		}
		a.Balance += tr.deltas[a.ID]
		a.Applied = append(a.Applied, tr.id)
		if err := u.Add(accts.PutOp(a)); err != nil {
			return errors.Join(err, u.Rollback(ctx))
		}
	}
	return u.Commit(ctx)
}
