package mapper

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/optimist-dynamo/optimist/dynamolocal"
	"github.com/optimist-dynamo/optimist/internal/ddbtest"
)

// Tests of the item a Table keeps from its last Modify of a key (see
// Table.Modify and turns in modify.go), against DynamoDB Local.

type tally struct {
	ID      string `dynamo:"id,hash"`
	N       int    `dynamo:"n"`
	Version int64  `dynamo:"v,version"`
}

// keepFixture is a table of tallies on the shared server.
type keepFixture struct {
	ctx  context.Context
	raw  *dynamodb.Client
	name string
}

func newKeepFixture(t *testing.T) *keepFixture {
	t.Helper()
	return newKeepFixtureOn(t, dynamolocal.New(t))
}

// newBubbleKeepFixture is newKeepFixture on an engine of the test's own,
// for a test in a testing/synctest bubble (see dynamolocal.NewEngine).
func newBubbleKeepFixture(t *testing.T) *keepFixture {
	t.Helper()
	return newKeepFixtureOn(t, dynamolocal.NewEngine(t, dynamolocal.WithoutListener()))
}

func newKeepFixtureOn(t *testing.T, srv *dynamolocal.Server) *keepFixture {
	t.Helper()
	raw := srv.Client()
	name := ddbtest.CreateTable(t, raw, "id", types.ScalarAttributeTypeS, "", "")
	return &keepFixture{ctx: context.Background(), raw: raw, name: name}
}

// table returns a new Table (a process of its own, as far as Modify's turns
// and kept items go) calling DynamoDB through a counting client.
func (f *keepFixture) table(t *testing.T) (*Table[tally], *ddbtest.CountingClient) {
	t.Helper()
	calls := ddbtest.NewCounting(f.raw)
	tb, err := NewTable[tally](calls, f.name)
	require.NoError(t, err)
	return tb, calls
}

func (f *keepFixture) stored(t *testing.T, id string) tally {
	t.Helper()
	tb, _ := f.table(t)
	got, err := tb.Get(f.ctx, tally{ID: id})
	require.NoError(t, err)
	return *got
}

func inc(c *tally) error { c.N++; return nil }

// TestModifyStartsFromItsLastWrite: after a Modify whose write met no
// conflict, the Table's next Modify of the key writes at once, with no
// read: one PutItem.
func TestModifyStartsFromItsLastWrite(t *testing.T) {
	f := newKeepFixture(t)
	tb, calls := f.table(t)
	_, err := tb.Modify(f.ctx, tally{ID: "a"}, inc)
	require.NoError(t, err)
	assert.Equal(t, int64(1), calls.Count("GetItem"), "the first call reads")

	calls.Reset()
	var seen []tally
	got, err := tb.Modify(f.ctx, tally{ID: "a"}, func(c *tally) error { seen = append(seen, *c); return inc(c) })
	require.NoError(t, err)
	assert.Equal(t, []tally{{ID: "a", N: 1, Version: 1}}, seen, "fn ran once, on the item the Table wrote")
	assert.Equal(t, tally{ID: "a", N: 2, Version: 2}, *got)
	assert.Equal(t, int64(0), calls.Count("GetItem"))
	assert.Equal(t, int64(1), calls.Total(), "one PutItem")
	assert.Equal(t, *got, f.stored(t, "a"))

	// Another key is read as usual.
	calls.Reset()
	_, err = tb.Modify(f.ctx, tally{ID: "b"}, inc)
	require.NoError(t, err)
	assert.Equal(t, int64(1), calls.Count("GetItem"))
}

// TestModifyKeptRunIsBounded: at most keepRun calls in a row start from
// the kept item; the next reads, which lets another process in between a
// process's back-to-back calls.
func TestModifyKeptRunIsBounded(t *testing.T) {
	f := newKeepFixture(t)
	tb, calls := f.table(t)
	var reads []int
	for i := range 2*keepRun + 3 {
		before := calls.Count("GetItem")
		_, err := tb.Modify(f.ctx, tally{ID: "a"}, inc)
		require.NoError(t, err)
		if calls.Count("GetItem") > before {
			reads = append(reads, i)
		}
	}
	assert.Equal(t, []int{0, keepRun + 1, 2*keepRun + 2}, reads, "the calls that read")
	assert.Equal(t, int64(2*keepRun+3), calls.Count("PutItem"))
	assert.Equal(t, 2*keepRun+3, f.stored(t, "a").N)
}

// TestModifyKeptItemOutOfDate: another process wrote the item since the
// Table's last write. The write from the kept item is refused on its
// version, and the conflict's item takes the place of the read: two
// PutItems, no GetItem, and the other process's change is kept.
func TestModifyKeptItemOutOfDate(t *testing.T) {
	f := newKeepFixture(t)
	tb, calls := f.table(t)
	other, _ := f.table(t)
	_, err := tb.Modify(f.ctx, tally{ID: "a"}, inc)
	require.NoError(t, err)
	_, err = other.Modify(f.ctx, tally{ID: "a"}, func(c *tally) error { c.N += 10; return nil })
	require.NoError(t, err)

	calls.Reset()
	var seen []int
	got, err := tb.Modify(f.ctx, tally{ID: "a"}, func(c *tally) error { seen = append(seen, c.N); return inc(c) })
	require.NoError(t, err)
	assert.Equal(t, []int{1, 11}, seen, "fn ran on the kept item, then on the stored one")
	assert.Equal(t, tally{ID: "a", N: 12, Version: 3}, *got)
	assert.Equal(t, int64(0), calls.Count("GetItem"))
	assert.Equal(t, int64(2), calls.Count("PutItem"))
	assert.Equal(t, *got, f.stored(t, "a"))

	// That call met a conflict, and its item is kept all the same: it is
	// the item as written, so the next call starts from it.
	calls.Reset()
	_, err = tb.Modify(f.ctx, tally{ID: "a"}, inc)
	require.NoError(t, err)
	assert.Equal(t, int64(0), calls.Count("GetItem"), "after a conflict, the next call starts from the item written")
	assert.Equal(t, int64(1), calls.Count("PutItem"))
	assert.Equal(t, tally{ID: "a", N: 13, Version: 4}, f.stored(t, "a"))
}

// TestModifyKeptItemExpires: a kept item starts the next call only within
// keepItemFor of its write (in a testing/synctest bubble, to the
// nanosecond).
func TestModifyKeptItemExpires(t *testing.T) { synctest.Test(t, testModifyKeptItemExpires) }

func testModifyKeptItemExpires(t *testing.T) {
	f := newBubbleKeepFixture(t)
	tb, calls := f.table(t)

	_, err := tb.Modify(f.ctx, tally{ID: "a"}, inc)
	require.NoError(t, err)
	time.Sleep(keepItemFor - time.Nanosecond)
	calls.Reset()
	_, err = tb.Modify(f.ctx, tally{ID: "a"}, inc)
	require.NoError(t, err)
	assert.Equal(t, int64(0), calls.Count("GetItem"), "just within keepItemFor: no read")

	time.Sleep(keepItemFor)
	calls.Reset()
	got, err := tb.Modify(f.ctx, tally{ID: "a"}, inc)
	require.NoError(t, err)
	assert.Equal(t, int64(1), calls.Count("GetItem"), "keepItemFor after the write: read again")
	assert.Equal(t, 3, got.N)
}

// TestModifyFnErrorOnKeptItem: fn's error counts only on the stored item.
// When fn refuses the kept item, which another process changed since,
// Modify reads and runs fn again; an error on an item it read is returned
// as is.
func TestModifyFnErrorOnKeptItem(t *testing.T) {
	f := newKeepFixture(t)
	tb, calls := f.table(t)
	other, _ := f.table(t)
	_, err := tb.Modify(f.ctx, tally{ID: "a"}, inc)
	require.NoError(t, err)
	_, err = other.Modify(f.ctx, tally{ID: "a"}, func(c *tally) error { c.N = 10; return nil })
	require.NoError(t, err)

	tooLow := errors.New("too low")
	atLeast6 := func(c *tally) error {
		if c.N < 6 {
			return tooLow
		}
		c.N -= 5
		return nil
	}
	calls.Reset()
	got, err := tb.Modify(f.ctx, tally{ID: "a"}, atLeast6)
	require.NoError(t, err, "fn refused the kept item (1), and took the stored one (10)")
	assert.Equal(t, 5, got.N)
	assert.Equal(t, int64(1), calls.Count("GetItem"))
	assert.Equal(t, int64(1), calls.Count("PutItem"))

	// Kept again (no conflict), and too low (5); so is the stored item now.
	_, err = other.Modify(f.ctx, tally{ID: "a"}, func(c *tally) error { c.N = 2; return nil })
	require.NoError(t, err)
	calls.Reset()
	_, err = tb.Modify(f.ctx, tally{ID: "a"}, atLeast6)
	assert.Same(t, tooLow, err, "fn's error on the stored item is returned as is")
	assert.Equal(t, int64(1), calls.Count("GetItem"))
	assert.Equal(t, int64(0), calls.Count("PutItem"))
	assert.Equal(t, 2, f.stored(t, "a").N)
}

// TestModifyKeptItemLostResponse: the write from a kept item lands, its
// response is lost, and another process writes before the SDK's retry.
// As for any write, the outcome is unknown and fn is not run again.
func TestModifyKeptItemLostResponse(t *testing.T) {
	f := newKeepFixture(t)
	other, _ := f.table(t)
	drop := &ddbtest.DropTransport{Drop: func(op string, call int) bool {
		if op != "PutItem" {
			return false
		}
		if call == 3 { // the SDK's retry of the second call's write
			_, err := other.Modify(context.Background(), tally{ID: "a"}, func(c *tally) error { c.N += 100; return nil })
			assert.NoError(t, err)
		}
		return call == 2
	}}
	lossy, err := NewTable[tally](dynamolocal.New(t).NewClient(drop.Option()), f.name)
	require.NoError(t, err)
	_, err = lossy.Modify(f.ctx, tally{ID: "a"}, inc)
	require.NoError(t, err)

	runs := 0
	_, err = lossy.Modify(f.ctx, tally{ID: "a"}, func(c *tally) error { runs++; return inc(c) })
	require.ErrorIs(t, err, ErrUnknownOutcome)
	assert.Equal(t, 1, runs, "fn is not run again when its change may be stored")
	assert.Equal(t, 3, drop.Calls("PutItem"))
	assert.Equal(t, 1, drop.Calls("GetItem"), "the second call started from the kept item")
	assert.Equal(t, 102, f.stored(t, "a").N, "ours landed once, theirs once")

	// Nothing is kept from a call that failed: the next one reads.
	_, err = lossy.Modify(f.ctx, tally{ID: "a"}, inc)
	require.NoError(t, err)
	assert.Equal(t, 2, drop.Calls("GetItem"))
	assert.Equal(t, 103, f.stored(t, "a").N)
}

// TestModifyTablesFairness: N Tables, standing for N processes, each make
// increments of one item with Modify, one goroutine per Table. Every
// increment lands exactly once, and no change starves: none needs more than
// 20 writes. (The unluckiest change takes 5 to 11 here; the bench module's
// BenchmarkContention reports it with 16 and 4 writers. The bound is wide
// so that a loaded machine cannot fail the test by chance, and still fails
// a Modify that leaves one caller behind.)
func TestModifyTablesFairness(t *testing.T) {
	for _, tc := range []struct{ tables, each int }{{4, 25}, {8, 12}} {
		t.Run(fmt.Sprintf("%d tables", tc.tables), func(t *testing.T) {
			f := newKeepFixture(t)
			var wg sync.WaitGroup
			var most atomic.Int64
			for range tc.tables {
				tb, _ := f.table(t)
				wg.Add(1)
				go func() {
					defer wg.Done()
					for range tc.each {
						n := 0
						_, err := tb.Modify(f.ctx, tally{ID: "a"}, func(c *tally) error { n++; return inc(c) })
						if !assert.NoError(t, err) {
							return
						}
						for m := most.Load(); int64(n) > m && !most.CompareAndSwap(m, int64(n)); m = most.Load() {
						}
					}
				}()
			}
			wg.Wait()
			got := f.stored(t, "a")
			assert.Equal(t, tc.tables*tc.each, got.N, "no increment lost, none applied twice")
			assert.Equal(t, int64(tc.tables*tc.each), got.Version)
			assert.LessOrEqual(t, most.Load(), int64(20), "the unluckiest change")
			t.Logf("%d tables x %d: the unluckiest change took %d writes", tc.tables, tc.each, most.Load())
		})
	}
}

// TestTurnsKeepFewItems: idle turns are kept only for an item that may
// start the next call, and at most keepItems of them. In a
// testing/synctest bubble: synctest.Wait, not a wall-clock poll, lets the
// waiter queue.
func TestTurnsKeepFewItems(t *testing.T) { synctest.Test(t, testTurnsKeepFewItems) }

func testTurnsKeepFewItems(t *testing.T) {
	var ts turns
	ctx := context.Background()
	now := time.Now()
	item := map[string]types.AttributeValue{"id": &types.AttributeValueMemberS{Value: "x"}}
	for i := range 3 * keepItems {
		tn, _, err := ts.take(ctx, fmt.Sprint(i))
		require.NoError(t, err)
		tn.wrote(item, true, false, now)
		ts.done(tn)
		require.LessOrEqual(t, len(ts.m), keepItems, "after %d keys", i+1)
		require.Equal(t, len(ts.m), ts.idle)
	}
	// The last key's item is still there, and taken over by its next call.
	tn, _, err := ts.take(ctx, fmt.Sprint(3*keepItems-1))
	require.NoError(t, err)
	assert.Equal(t, len(ts.m)-1, ts.idle)
	assert.Equal(t, item, tn.handOver(now))
	ts.done(tn)
	_, kept := ts.m[fmt.Sprint(3*keepItems-1)]
	assert.False(t, kept, "a turn whose holder wrote nothing is dropped")

	// An item whose write met a conflict is kept too: it is the item as
	// written.
	tn, _, err = ts.take(ctx, "conflicted")
	require.NoError(t, err)
	tn.wrote(item, false, false, now)
	ts.done(tn)
	_, kept = ts.m["conflicted"]
	assert.True(t, kept)

	// A waiter that gives up last leaves the holder's item kept.
	tn, _, err = ts.take(ctx, "k")
	require.NoError(t, err)
	waitCtx, cancel := context.WithCancel(ctx)
	waited := make(chan error, 1)
	go func() {
		_, _, err := ts.take(waitCtx, "k")
		waited <- err
	}()
	synctest.Wait() // the waiter queued
	ts.mu.Lock()
	queued := ts.m["k"].n
	ts.mu.Unlock()
	require.Equal(t, 2, queued)
	tn.wrote(item, true, false, now)
	ts.leave(tn) // the holder is done but has not let go of the slot yet
	cancel()
	require.ErrorIs(t, <-waited, context.Canceled)
	<-tn.slot
	ts.mu.Lock()
	kk := ts.m["k"]
	ts.mu.Unlock()
	require.NotNil(t, kk, "kept for its item")
	assert.Equal(t, item, kk.handOver(now))
}
