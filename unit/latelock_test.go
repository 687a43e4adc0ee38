package unit_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"math/rand/v2"
	"net/http"
	"strings"
	"sync"
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
	"github.com/optimist-dynamo/optimist/unit"
	"github.com/optimist-dynamo/optimist/update"
)

// lateTransport holds the first write whose body contains match (a lock
// write of one item) for delay, then sends it. If the client gives up on it
// meanwhile (its context is cancelled), the client gets the context's error
// at once, but the request is sent all the same, later, when release is
// closed: what a request that left the client before the cancellation
// does. A cancelled context never means that the request was not sent.
// In a testing/synctest bubble, with the engine's in-memory transport as
// base, the delay passes in virtual time.
type lateTransport struct {
	base    http.RoundTripper
	match   string
	delay   time.Duration
	release chan struct{}
	taken   atomic.Bool
	late    sync.WaitGroup // held requests not yet sent
	held    atomic.Int32   // requests the client gave up on, sent late
	landed  atomic.Int32   // late requests the server answered with 200
}

func (h *lateTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	switch dynamolocal.OpName(req) {
	case "PutItem", "UpdateItem":
	default:
		return h.base.RoundTrip(req)
	}
	body, err := io.ReadAll(req.Body)
	if err != nil {
		return nil, err
	}
	req.Body = io.NopCloser(bytes.NewReader(body))
	if !bytes.Contains(body, []byte(h.match)) || !bytes.Contains(body, []byte(unitproto.Attr)) || !h.taken.CompareAndSwap(false, true) {
		return h.base.RoundTrip(req)
	}
	select {
	case <-time.After(h.delay):
		return h.base.RoundTrip(req)
	case <-req.Context().Done():
	}
	h.held.Add(1)
	h.late.Add(1)
	later := req.Clone(context.Background())
	go func() {
		defer h.late.Done()
		<-h.release
		later.Body = io.NopCloser(bytes.NewReader(body))
		resp, err := h.base.RoundTrip(later)
		if err == nil {
			if resp.StatusCode == http.StatusOK {
				h.landed.Add(1)
			}
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		}
	}()
	return nil, req.Context().Err()
}

// A lock write that GetAll (or Commit's prepare) cancels when another of
// its lock writes meets an older unit's lock may still land. Rollback must
// not finish the unit before it knows: no lock of a rolled-back unit may
// be left on any item, even when the cancelled request reaches DynamoDB
// after Rollback returned. Deterministic: the lock write of one item is
// held until the unit gave up on it, and sent after Rollback returned.
// Each case runs in a testing/synctest bubble on an engine of its own: the
// transport's hold passes in virtual time.
func TestCancelledLockWriteLandsLate(t *testing.T) {
	for _, via := range []string{"GetAll", "Commit"} {
		t.Run(via, func(t *testing.T) { synctest.Test(t, func(t *testing.T) { cancelledLockWriteLandsLate(t, via) }) })
	}
}

func cancelledLockWriteLandsLate(t *testing.T, via string) {
	srv := dynamolocal.NewEngine(t, dynamolocal.WithoutListener())
	e := newEnvOn(t, srv)
	ctx := ctxT(t, time.Minute)
	e.seed(t, 2, 100)
	h := &lateTransport{base: srv.Transport(), match: `"` + accountID(1) + `"`, delay: 500 * time.Millisecond, release: make(chan struct{})}
	late := srv.NewClient(func(o *dynamodb.Options) { o.HTTPClient = &http.Client{Transport: h} })

	// An older unit holds acct-0000.
	old := begin(t, e, e.c)
	_, err := unit.Get(ctx, old, e.accounts, Account{ID: accountID(0)})
	require.NoError(t, err)
	time.Sleep(time.Millisecond) // begun later on the bubble's clock: younger

	// A younger one locks both: it meets the older lock, gives up
	// at once (wait-die) and cancels its lock write of acct-0001,
	// which the transport holds.
	young := begin(t, e, late)
	keys := []Account{{ID: accountID(0)}, {ID: accountID(1)}}
	if via == "GetAll" {
		_, err = unit.GetAll(ctx, young, e.accounts, keys)
		require.ErrorIs(t, err, unit.ErrLocked)
		require.NoError(t, young.Rollback(ctx))
	} else {
		for _, k := range keys {
			require.NoError(t, young.Add(e.accounts.UpdateOp(k, update.Add("balance", 1))))
		}
		require.ErrorIs(t, young.Commit(ctx), unit.ErrLocked)
	}
	// Now the cancelled request (if it was cancelled) reaches the
	// server.
	close(h.release)
	h.late.Wait()
	t.Logf("%s: lock writes cancelled and sent late: %d (landed %d)", via, h.held.Load(), h.landed.Load())
	assert.Zero(t, lockedBy(t, e, young.ID()), "%s: items left locked by the rolled-back unit", via)

	require.NoError(t, old.Rollback(ctx))
	assert.Zero(t, lockedItems(t, e.c, e.accounts.Name()))
	n, err := unit.Recover(ctx, e.c, e.coord)
	require.NoError(t, err)
	assert.Zero(t, n, "nothing left for recovery")
}

// lockedBy counts the accounts that hold the lock of unit id.
func lockedBy(t *testing.T, e *env, id string) int {
	t.Helper()
	n := 0
	for _, it := range raw(t, e.c, e.accounts.Name()) {
		if l, ok := unitproto.Parse(it); ok && l.Unit == id {
			n++
		}
	}
	return n
}

// Under load: units that transfer between accounts they lock with GetAll
// (meeting each other's locks, so that wait-die cancels lock writes in
// flight), or whose destination only Commit locks, some committed, some
// rolled back, while readers Scan the table
// and GetAll every account. Once every unit ended, no item may hold a
// lock, the total is the one units never change, and no read showed a
// committed unit half applied (some of its writes and not others). It
// runs 1.5 s on the wall clock, and on until every path was taken at
// least once (see loadCases), whatever the machine's load; 30 s with
// OPTIMIST_LONG=1: a soak of real concurrency, not a test of the
// library's timing.
func TestUnitsUnderLoadLeaveNoLock(t *testing.T) {
	e := newEnv(t)
	ctx := ctxT(t, 3*time.Minute)
	const accounts, balance, workers, readers = 16, 100, 10, 2
	run := 1500 * time.Millisecond // about a hundred units when the machine is quiet
	if ddbtest.Long() {
		run = 30 * time.Second
	}
	var seen loadCases
	e.seed(t, accounts, balance)
	keys := make([]Account, accounts)
	for i := range keys {
		keys[i] = Account{ID: accountID(i)}
	}
	var committed, rolledBack, reads, halfSeen, busy atomic.Int64
	// The readers' own client counts what resolving their reads cost:
	// rounds of reading the 16 items again (a TransactGetItems each, or a
	// GetItem per item), and the units' records and item-list pages read.
	rc := &readCounter{Client: e.c, table: e.accounts.Name()}
	readTable, err := mapper.NewTable[Account](rc, e.accounts.Name())
	require.NoError(t, err)
	stop := time.Now().Add(run)
	// Past stop, on until every path was taken, for at most half a minute
	// more: then seen.all fails the test.
	more := func() bool {
		now := time.Now()
		return now.Before(stop) || (!seen.all() && now.Before(stop.Add(30*time.Second)))
	}
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(w), 7))
			for more() {
				u, err := unit.Begin(ctx, e.c, unit.Coordinator(e.coord), unit.Wait(50*time.Millisecond))
				if !assert.NoError(t, err) {
					return
				}
				perm := rng.Perm(accounts)[:3+rng.IntN(6)]
				ks := make([]Account, len(perm))
				for i, p := range perm {
					ks[i] = keys[p]
				}
				// Half the units lock every item they write first; the
				// others lock only the source and leave the destination to
				// Commit, which prepares one while the other carries
				// nothing of the unit yet.
				lockAll := rng.IntN(2) == 0
				read := ks
				if !lockAll {
					read = ks[:1]
				}
				got, err := unit.GetAll(ctx, u, e.accounts, read)
				if err != nil {
					assert.ErrorIs(t, err, unit.ErrLocked)
					assert.NoError(t, u.Rollback(ctx))
					rolledBack.Add(1)
					seen.lockedAtGetAll.Add(1)
					continue
				}
				amount := int64(1 + rng.IntN(5))
				got[0].Balance -= amount
				if lockAll {
					got[1].Balance += amount
				} else {
					assert.NoError(t, u.Add(e.accounts.UpdateOp(ks[1], update.Add("balance", amount), mapper.Unversioned())))
				}
				for _, a := range got {
					assert.NoError(t, u.Add(e.accounts.PutOp(a)))
				}
				if rng.IntN(4) == 0 {
					assert.NoError(t, u.Rollback(ctx))
					rolledBack.Add(1)
					seen.rolledBack.Add(1)
					continue
				}
				if err := u.Commit(ctx); err != nil {
					assert.ErrorIs(t, err, unit.ErrLocked)
					rolledBack.Add(1)
					continue
				}
				committed.Add(1)
				if lockAll {
					seen.committedLockAll.Add(1)
				} else {
					seen.committedAtCommit.Add(1)
				}
			}
		}()
	}
	for r := range readers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for more() {
				var sum int64
				var n int
				if r == 0 {
					var err error
					for a, e := range readTable.Scan(ctx) {
						if err = e; err != nil {
							break
						}
						sum += a.Balance
						n++
					}
					if errors.Is(err, unit.ErrLocked) {
						busy.Add(1) // units kept committing on the page: read again
						continue
					}
					if !assert.NoError(t, err) {
						return
					}
				} else {
					all, err := readTable.GetAll(ctx, keys)
					if errors.Is(err, unit.ErrLocked) {
						busy.Add(1)
						continue
					}
					if !assert.NoError(t, err) {
						return
					}
					for _, a := range all {
						if a != nil {
							sum += a.Balance
							n++
						}
					}
				}
				reads.Add(1)
				seen.reads[r].Add(1)
				if n != accounts || sum != accounts*balance {
					halfSeen.Add(1)
				}
			}
		}()
	}
	wg.Wait()
	locked := lockedItems(t, e.c, e.accounts.Name())
	t.Logf("units committed %d, rolled back %d; reads %d, half seen %d, given up as busy %d; items left locked %d",
		committed.Load(), rolledBack.Load(), reads.Load(), halfSeen.Load(), busy.Load(), locked)
	t.Logf("resolving the reads: %d rounds of reading again (%d TransactGetItems, %d GetItems of items), %d records and %d item-list pages read",
		rc.rounds.Load()+rc.again.Load()/accounts, rc.rounds.Load(), rc.again.Load(), rc.records.Load(), rc.pages.Load())
	// A read that met a committed unit's lock on some items and nothing of
	// the unit on others it had locked since is read again (see
	// unitproto.Resolve), so no read shows a unit half applied.
	assert.Zero(t, halfSeen.Load(), "reads that showed a committed unit half applied")
	assert.Less(t, busy.Load(), max(reads.Load()/10, 1), "reads given up as busy (ErrLocked) are rare")
	assert.Zero(t, locked, "items left locked after every unit ended")
	assert.True(t, seen.all(), "every path taken: %d refused at GetAll, %d rolled back, %d and %d committed (all locked first, destination locked by Commit), %d and %d reads (Scan, GetAll)",
		seen.lockedAtGetAll.Load(), seen.rolledBack.Load(), seen.committedLockAll.Load(), seen.committedAtCommit.Load(), seen.reads[0].Load(), seen.reads[1].Load())
	var total int64
	for a, err := range e.accounts.Scan(ctx) {
		require.NoError(t, err)
		total += a.Balance
	}
	assert.Equal(t, int64(accounts*balance), total)
}

// loadCases counts the paths of TestUnitsUnderLoadLeaveNoLock that its
// short run must take at least once: a unit refused at its GetAll (it met
// an older unit's lock), one rolled back by its caller, a committed unit
// that locked all it wrote, one whose destination only Commit locked, and
// a read of each reader (Scan, GetAll).
type loadCases struct {
	lockedAtGetAll, rolledBack, committedLockAll, committedAtCommit atomic.Int64
	reads                                                           [2]atomic.Int64
}

func (c *loadCases) all() bool {
	return c.lockedAtGetAll.Load() > 0 && c.rolledBack.Load() > 0 && c.committedLockAll.Load() > 0 &&
		c.committedAtCommit.Load() > 0 && c.reads[0].Load() > 0 && c.reads[1].Load() > 0
}

// readCounter counts a reader's TransactGetItems calls and GetItem calls:
// items of table (read again), and in other tables units' records and
// item-list pages (whose ids hold a '#').
type readCounter struct {
	*dynamodb.Client
	table                         string
	rounds, again, records, pages atomic.Int64
}

func (r *readCounter) TransactGetItems(ctx context.Context, in *dynamodb.TransactGetItemsInput, optFns ...func(*dynamodb.Options)) (*dynamodb.TransactGetItemsOutput, error) {
	r.rounds.Add(1)
	return r.Client.TransactGetItems(ctx, in, optFns...)
}

func (r *readCounter) GetItem(ctx context.Context, in *dynamodb.GetItemInput, optFns ...func(*dynamodb.Options)) (*dynamodb.GetItemOutput, error) {
	switch id, _ := in.Key[unitproto.RecID].(*types.AttributeValueMemberS); {
	case aws.ToString(in.TableName) == r.table:
		r.again.Add(1)
	case id != nil && strings.Contains(id.Value, "#"):
		r.pages.Add(1)
	default:
		r.records.Add(1)
	}
	return r.Client.GetItem(ctx, in, optFns...)
}
