package mapper

import (
	"errors"
	"fmt"
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

	"github.com/optimist-dynamo/optimist/internal/plan"
)

// Tests of Modify's turn across processes (turn.go), against the engine
// (or DynamoDB Local). Each Table stands for a process of its own.

// TestModifyAttemptsBoundedAcrossTables: 16 and then 20 writers, each with
// its own Table, increment one item. The count is exact, and no change
// took more than turnAfter+1 attempts (runs of fn that wrote). The backoff is made
// short so that writers without turns would retry often and lose often,
// as they did before turns. Each count runs in a testing/synctest bubble:
// backoffs and turns pass in virtual time.
func TestModifyAttemptsBoundedAcrossTables(t *testing.T) {
	for _, writers := range []int{16, 20} {
		t.Run(fmt.Sprint(writers), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				f := newBubbleKeepFixture(t)
				const per = 15
				id := fmt.Sprintf("w%d", writers)
				var most atomic.Int64
				var wg sync.WaitGroup
				errs := make(chan error, writers)
				for range writers {
					tb, _ := f.table(t)
					wg.Add(1)
					go func() {
						defer wg.Done()
						for range per {
							runs := 0
							_, err := tb.Modify(f.ctx, tally{ID: id}, func(c *tally) error { runs++; return inc(c) },
								Backoff(time.Millisecond, 2*time.Millisecond), MaxAttempts(1000))
							if err != nil {
								errs <- err
								return
							}
							for m := most.Load(); int64(runs) > m && !most.CompareAndSwap(m, int64(runs)); m = most.Load() {
							}
						}
					}()
				}
				wg.Wait()
				close(errs)
				for err := range errs {
					require.NoError(t, err)
				}
				got := f.stored(t, id)
				assert.Equal(t, writers*per, got.N, "every increment landed once")
				assert.Equal(t, int64(writers*per), got.Version)
				t.Logf("%d writers: at most %d attempts for one change", writers, most.Load())
				assert.LessOrEqual(t, most.Load(), int64(turnAfter+1), "attempts of one change: at most the refused writes before the turn, and the one in it")
			})
		})
	}
}

// turnAt is the turn condition of a write now.
func turnAt(owner string) plan.Turn {
	return plan.Turn{Owner: owner, Now: millis(time.Now())}
}

// The turn step by step, in virtual time: the holder's write lands and
// removes the turn; another writer's write is refused while the turn is
// live, and so is a second take; a stale holder's write, once its turn is
// gone, is refused; a turn whose holder died is taken over once expired,
// and not a millisecond before.
func TestModifyTurnSteps(t *testing.T) { synctest.Test(t, testModifyTurnSteps) }

func testModifyTurnSteps(t *testing.T) {
	f := newBubbleKeepFixture(t)
	tb, _ := f.table(t)
	_, err := tb.Modify(f.ctx, tally{ID: "s"}, inc)
	require.NoError(t, err)
	key := map[string]types.AttributeValue{"id": &types.AttributeValueMemberS{Value: "s"}}
	o, err := tb.retryOptions(nil)
	require.NoError(t, err)

	granted, item, err := tb.takeTurn(f.ctx, key, "a", time.Now())
	require.NoError(t, err)
	require.True(t, granted)
	owner, until, ok := turnOf(item)
	require.True(t, ok, "ALL_NEW carries the turn")
	assert.Equal(t, "a", owner)
	assert.Equal(t, millis(time.Now().Add(turnLease)), until)
	cur, err := decodeItem[tally](tb.c, item)
	require.NoError(t, err, "readers ignore the turn")
	assert.Equal(t, tally{ID: "s", N: 1, Version: 1}, *cur, "the take changed no version")

	granted, item, err = tb.takeTurn(f.ctx, key, "b", time.Now())
	require.NoError(t, err)
	assert.False(t, granted, "one turn at a time")
	owner, _, _ = turnOf(item)
	assert.Equal(t, "a", owner, "the refusal shows the holder")

	other := tally{ID: "s", N: 50, Version: 1}
	_, err = tb.put(f.ctx, &other, withTurn(o, turnAt("")))
	var cde *ConditionError
	require.ErrorAs(t, err, &cde, "a write outside the turn is refused while it is live")
	assert.True(t, liveTurn(cde.Item, "", millis(time.Now())))

	mine := tally{ID: "s", N: 2, Version: 1}
	written, err := tb.put(f.ctx, &mine, withTurn(o, turnAt("a")))
	require.NoError(t, err, "the holder's write lands")
	assert.NotContains(t, written, TurnAttribute, "and removes the turn")
	assert.Equal(t, tally{ID: "s", N: 2, Version: 2}, f.stored(t, "s"))

	stale := tally{ID: "s", N: 3, Version: 2}
	_, err = tb.put(f.ctx, &stale, withTurn(o, turnAt("a")))
	require.ErrorAs(t, err, &cde, "a holder whose turn is gone is refused")

	// A holder that dies in its turn: the turn blocks until it expires.
	granted, _, err = tb.takeTurn(f.ctx, key, "dead", time.Now())
	require.NoError(t, err)
	require.True(t, granted)
	time.Sleep(turnLease)
	granted, _, err = tb.takeTurn(f.ctx, key, "c", time.Now())
	require.NoError(t, err)
	assert.False(t, granted, "not expired at its until")
	time.Sleep(time.Millisecond)
	granted, item, err = tb.takeTurn(f.ctx, key, "c", time.Now())
	require.NoError(t, err)
	assert.True(t, granted, "expired: taken over")
	owner, _, _ = turnOf(item)
	assert.Equal(t, "c", owner)
}

// A Modify that meets the turn of a writer that died waits for it to
// expire, in virtual time, reading the item between ever longer sleeps and
// running no fn while it waits, and then writes past the expired turn: fn
// ran once refused by the turn, once after it.
func TestModifyTakesOverAnExpiredTurn(t *testing.T) {
	synctest.Test(t, testModifyTakesOverAnExpiredTurn)
}

func testModifyTakesOverAnExpiredTurn(t *testing.T) {
	f := newBubbleKeepFixture(t)
	tb, calls := f.table(t)
	_, err := tb.Modify(f.ctx, tally{ID: "x"}, inc)
	require.NoError(t, err)
	key := map[string]types.AttributeValue{"id": &types.AttributeValueMemberS{Value: "x"}}
	dead, _ := f.table(t)
	granted, _, err := dead.takeTurn(f.ctx, key, "dead", time.Now())
	require.NoError(t, err)
	require.True(t, granted)

	start := time.Now()
	calls.Reset()
	runs := 0
	got, err := tb.Modify(f.ctx, tally{ID: "x"}, func(c *tally) error { runs++; return inc(c) })
	require.NoError(t, err)
	assert.Equal(t, 2, runs, "refused by the live turn, then written once it expired")
	assert.Equal(t, tally{ID: "x", N: 2, Version: 2}, *got)
	assert.GreaterOrEqual(t, time.Since(start), turnLease, "waited for the lease to end")
	assert.Equal(t, int64(2), calls.Count("PutItem"))
	assert.Equal(t, int64(0), calls.Count("UpdateItem"), "one refusal is not the tail: no turn taken")
	assert.Less(t, calls.Count("GetItem"), int64(60), "the waits grow: the turn is not polled every millisecond")
	assert.Positive(t, calls.Count("GetItem"))
	assert.Equal(t, tally{ID: "x", N: 2, Version: 2}, f.stored(t, "x"))
}

// A Modify waiting out another's turn that finds a second turn after the
// first, and then a third, queues for the turn itself, in virtual time: it
// takes it once the third expires and writes in it, running fn once
// refused, once in its turn. Turns back to back cannot keep it waiting for
// ever.
func TestModifyQueuesBehindBackToBackTurns(t *testing.T) {
	synctest.Test(t, testModifyQueuesBehindBackToBackTurns)
}

func testModifyQueuesBehindBackToBackTurns(t *testing.T) {
	f := newBubbleKeepFixture(t)
	tb, calls := f.table(t)
	_, err := tb.Modify(f.ctx, tally{ID: "b"}, inc)
	require.NoError(t, err)
	key := map[string]types.AttributeValue{"id": &types.AttributeValueMemberS{Value: "b"}}
	others, _ := f.table(t)
	granted, _, err := others.takeTurn(f.ctx, key, "first", time.Now())
	require.NoError(t, err)
	require.True(t, granted)

	calls.Reset()
	runs := 0
	var got *tally
	done := make(chan struct{})
	go func() {
		defer close(done)
		got, err = tb.Modify(f.ctx, tally{ID: "b"}, func(c *tally) error { runs++; return inc(c) })
	}()
	// While it sleeps, the first turn is given back and a second taken;
	// once it has woken, read the second and slept again, the second is
	// given back and a third taken.
	synctest.Wait() // refused by the first turn, it sleeps
	next := func(done, taken string) {
		others.releaseTurn(f.ctx, key, done)
		granted, _, err := others.takeTurn(f.ctx, key, taken, time.Now())
		require.NoError(t, err)
		require.True(t, granted)
	}
	next("first", "second")
	reads := calls.Count("GetItem")
	for calls.Count("GetItem") == reads { // time moves on once it sleeps: it wakes and reads
		time.Sleep(time.Millisecond)
	}
	synctest.Wait() // it read the second turn, and sleeps again
	assert.Equal(t, int64(0), calls.Count("UpdateItem"), "one turn after another is waited out")
	next("second", "third")
	third := time.Now()
	<-done
	require.NoError(t, err)
	assert.Equal(t, 2, runs, "refused by the first turn, then written in its own")
	assert.Equal(t, tally{ID: "b", N: 2, Version: 2}, *got)
	assert.Greater(t, time.Since(third), turnLease, "it waited for the third turn to expire")
	assert.Positive(t, calls.Count("UpdateItem"), "it asked for the turn")
	assert.Equal(t, int64(2), calls.Count("PutItem"))
	out, err := f.raw.GetItem(f.ctx, &dynamodb.GetItemInput{TableName: aws.String(f.name), ConsistentRead: aws.Bool(true), Key: key})
	require.NoError(t, err)
	assert.NotContains(t, out.Item, TurnAttribute, "its write removed its turn")
}

// A calm Modify costs what it did before turns: a first call one GetItem
// and one PutItem, the next one PutItem, and no UpdateItem.
func TestModifyCalmCost(t *testing.T) {
	f := newKeepFixture(t)
	tb, calls := f.table(t)
	_, err := tb.Modify(f.ctx, tally{ID: "calm"}, inc)
	require.NoError(t, err)
	assert.Equal(t, int64(1), calls.Count("DescribeTable"), "the table's first write learns whether it is a global table")
	assert.Equal(t, int64(2), calls.Total()-1, "read and write")
	assert.Equal(t, int64(1), calls.Count("GetItem"))
	calls.Reset()
	_, err = tb.Modify(f.ctx, tally{ID: "calm"}, inc)
	require.NoError(t, err)
	assert.Equal(t, int64(1), calls.Total(), "the write alone")
	assert.Equal(t, int64(1), calls.Count("PutItem"))
}

// A Modify that loses every race takes the turn at its eighth refused
// write, not before: the first two conflicts are retried at once, the next
// five after a backoff and a read. Its fn then fails in its turn, and it
// gives the turn back: the next writer need not wait for it to expire.
func TestModifyGivesBackAnUnusedTurn(t *testing.T) {
	f := newKeepFixture(t)
	tb, calls := f.table(t)
	other, _ := f.table(t)
	_, err := tb.Modify(f.ctx, tally{ID: "g"}, inc)
	require.NoError(t, err)
	calls.Reset()
	stop := errors.New("stop")
	runs := 0
	_, err = tb.Modify(f.ctx, tally{ID: "g"}, func(c *tally) error {
		runs++
		if runs <= turnAfter {
			// Lands between this run's read and its write.
			_, err := other.Modify(f.ctx, tally{ID: "g"}, inc)
			require.NoError(t, err)
			return inc(c)
		}
		return stop
	})
	require.ErrorIs(t, err, stop)
	assert.Equal(t, turnAfter+1, runs, "the last run was in the turn")
	assert.Equal(t, int64(turnAfter), calls.Count("PutItem"), "every write before the turn was refused")
	assert.Equal(t, int64(turnAfter-retryAtOnce-1), calls.Count("GetItem"), "a read after each backoff")
	assert.Equal(t, int64(2), calls.Count("UpdateItem"), "the turn taken once, and given back")
	out, err := f.raw.GetItem(f.ctx, &dynamodb.GetItemInput{TableName: aws.String(f.name), ConsistentRead: aws.Bool(true),
		Key: map[string]types.AttributeValue{"id": &types.AttributeValueMemberS{Value: "g"}}})
	require.NoError(t, err)
	assert.NotContains(t, out.Item, TurnAttribute, "the turn was given back")
}
