package pessimistic

import (
	"context"
	"testing"
	"testing/synctest"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/optimist-dynamo/optimist/dynamolocal"
	"github.com/optimist-dynamo/optimist/internal/ddbtest"
)

// TestFIFOBehindManyAbandonedEntries (in a testing/synctest bubble): 105
// abandoned entries ahead (more than one removal batch); the waiter removes
// them once they stayed unchanged for a lease, in a few calls, and
// proceeds. The entries are queued with the real join, one at a time, and
// their heartbeats stopped at once, as if 105 waiters had crashed.
func TestFIFOBehindManyAbandonedEntries(t *testing.T) {
	synctest.Test(t, testFIFOBehindManyAbandonedEntries)
}

func testFIFOBehindManyAbandonedEntries(t *testing.T) {
	srv := dynamolocal.NewEngine(t, dynamolocal.WithoutListener())
	table := ddbtest.TableName(t)
	ctx := context.Background()
	require.NoError(t, CreateTable(ctx, srv.Client(), table))
	t.Cleanup(func() {
		_, err := srv.Client().DeleteTable(ctx, &dynamodb.DeleteTableInput{TableName: aws.String(table)})
		assert.NoError(t, err)
	})
	const entries, lease = 105, 300 * time.Millisecond
	crashing, err := New(srv.Client(), table, LeaseDuration(lease))
	require.NoError(t, err)
	o, err := crashing.opts.resolve(nil)
	require.NoError(t, err)
	q := newFIFOQueue()
	var first int64
	for i := range entries {
		l, ticket, err := crashing.join(ctx, "job", ctx, o, q)
		require.NoError(t, err)
		l.stopHeartbeats(ErrClosed)
		if i == 0 {
			first = ticket
		}
	}
	fresh := newFIFOQueue() // observes every entry from now
	require.NoError(t, crashing.readQueue(ctx, "job", fresh))
	p := fresh.look(0)
	require.NotNil(t, p.first)
	assert.Equal(t, first, p.first.token, "the head is the lowest ticket")
	assert.Equal(t, entries, p.ahead)

	calls := ddbtest.NewCounting(srv.Client())
	waiting, err := New(calls, table, FIFO(), PollInterval(20*time.Millisecond))
	require.NoError(t, err)
	defer waiting.Close()
	start := time.Now()
	got, err := waiting.Acquire(ctx, "job")
	require.NoError(t, err)
	assert.GreaterOrEqual(t, time.Since(start), lease, "entries are abandoned only after a full lease")
	assert.Greater(t, got.Token(), first+entries-1)
	require.NoError(t, got.Release(ctx))
	out, err := srv.Client().GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(table), Key: crashing.key("job", lockSK), ConsistentRead: aws.Bool(true)})
	require.NoError(t, err)
	assert.Empty(t, parseQueue(out.Item), "all the abandoned entries are gone")
	t.Logf("acquired behind %d abandoned entries in %v, %d calls (%d UpdateItem)", entries, time.Since(start).Round(time.Millisecond), calls.Total(), calls.Count("UpdateItem"))
	assert.LessOrEqual(t, calls.Count("UpdateItem"), int64(2+3+1), "join, a removal per batch of 50 (plus a retry), release")
}

// TestFIFOReadTiming (in a testing/synctest bubble, for its clock): when
// a waiter reads the queue again, by the queue's pace (see pause): about
// once per turn ahead of it, with no cap at PollInterval.
func TestFIFOReadTiming(t *testing.T) { synctest.Test(t, testFIFOReadTiming) }

func testFIFOReadTiming(t *testing.T) {
	o, err := defaultOptions().resolve(nil)
	require.NoError(t, err)
	require.Equal(t, 100*time.Millisecond, o.PollInterval)
	q := newFIFOQueue()
	const hold, spread, rtt = 20 * time.Millisecond, 6 * time.Millisecond, time.Millisecond
	q.hold, q.spread, q.rtt, q.headSince = hold, spread, rtt, time.Now()
	step := spread // the spread: more than an eighth of the pace, a round trip, and the floor of PollInterval/20
	per := hold + 2*step
	require.Equal(t, per, q.handOver(o.PollInterval/20), "a turn: the pace (a hold and a round trip) and a margin of two steps")
	around := func(want time.Duration, p place, mine int64, misses int, msg string) {
		t.Helper()
		for range 20 { // the pause has up to 10% of jitter
			got := q.pause(p, mine, misses, o)
			require.GreaterOrEqual(t, got, want-want/10, msg)
			if q.hold > 0 {
				require.GreaterOrEqual(t, got, want, msg+": with a pace known, never early")
			}
			require.LessOrEqual(t, got, want+want/10+1, msg)
		}
	}
	around(per, place{known: true, ahead: 1}, 9, 0, "the next in line reads when the head is expected to have gone")
	around(3*per, place{known: true, ahead: 3}, 9, 0, "further back: after the head and the two others ahead")
	around(11*per, place{known: true, ahead: 11}, 9, 0, "further back still: no cap at PollInterval")
	around(o.LeaseDuration, place{known: true, ahead: 5000}, 9, 0, "but no pause is longer than the lease")
	around(5*time.Millisecond, place{known: true, ahead: 3, due: time.Now().Add(5 * time.Millisecond)}, 9, 0,
		"an entry ahead may be seen abandoned sooner: read then")
	for range 20 {
		got := q.pause(place{known: true, ahead: 11}, 9, 0, o)
		require.InDelta(t, float64(11*per), float64(got), float64(step/2)+1, "a long pause's jitter is at most half a step")
	}

	time.Sleep(5 * hold) // the head holds on, five times as long as expected
	around(step, place{known: true, ahead: 1}, 9, 0, "late: the next in line reads every step")
	around(step<<2, place{known: true, ahead: 1}, 9, 2, "each read that saw the same head doubles the pause")
	around(5*hold/2, place{known: true, ahead: 1}, 9, 4, "but it stays within half of what the head has held so far")
	around(2*per, place{known: true, ahead: 3}, 9, 0, "late, further back: reads when it could be next at the earliest")

	q.waiting[5] = true // another waiter of this Locker is ahead: its reads wake us
	around(4*o.PollInterval, place{known: true, ahead: 3}, 9, 0, "behind a waiter of its own Locker, it reads only as a fallback")
	delete(q.waiting, 5)

	// Before any hold is known, each ahead is taken to hold as long again
	// as the head has held so far, and at least PollInterval.
	q.hold, q.headSince = 0, time.Now().Add(-300*time.Millisecond)
	around(300*time.Millisecond, place{known: true, ahead: 1}, 9, 0, "unknown hold")
	around(900*time.Millisecond, place{known: true, ahead: 3}, 9, 0, "unknown hold, three ahead")
	q.headSince = time.Now()
	around(o.PollInterval, place{known: true, ahead: 1}, 9, 0, "unknown hold, head just seen: PollInterval")

	h, sp := nextHold(0, 0, 8*time.Millisecond)
	assert.Equal(t, []time.Duration{8 * time.Millisecond, 2 * time.Millisecond}, []time.Duration{h, sp}, "the first sample")
	h, sp = nextHold(h, sp, 12*time.Millisecond)
	assert.Equal(t, []time.Duration{9 * time.Millisecond, 2500 * time.Microsecond}, []time.Duration{h, sp}, "a moving average of holds and of their distance from it")
}

// TestFIFOSchedule (in a testing/synctest bubble, for its clock): a waiter
// keeps to the schedule of its Locker's last turn, a turn per ticket after
// it, rather than to the head's estimated start; not when the two are more
// than two turns apart (the schedule is stale).
func TestFIFOSchedule(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		o, err := defaultOptions().resolve(nil)
		require.NoError(t, err)
		floor := o.PollInterval / 20
		q := newFIFOQueue()
		q.hold, q.spread, q.headSince = 20*time.Millisecond, 6*time.Millisecond, time.Now()
		per := q.handOver(floor)
		assert.Equal(t, time.Now().Add(7*per), q.turnDue(7, 18, floor), "no turn of this Locker yet: from the head")

		planned := time.Now().Add(-3 * time.Millisecond)
		q.plan(10, planned)
		q.turnCame(10)
		assert.Equal(t, planned, q.lastTurn, "the turn came as planned: the schedule keeps the plan, not the grant")
		assert.Equal(t, q.lastTurn.Add(8*per), q.turnDue(7, 18, floor), "eight tickets after the last turn: eight turns after it")
		assert.Equal(t, time.Now().Add(7*per), q.turnDue(7, 30, floor), "twenty tickets after it, but seven ahead: the schedule is stale")

		q.plan(11, time.Now().Add(time.Second))
		q.turnCame(11)
		assert.Equal(t, time.Now(), q.lastTurn, "woken before its plan (a release by a waiter of its Locker): the turn came now")
		q.turnCame(9)
		assert.Equal(t, int64(11), q.lastTicket, "an older ticket does not move the schedule back")
		q.leave(10)
		q.leave(11)
		assert.Empty(t, q.plans, "a waiter's plan goes when it leaves")
	})
}

// TestFIFOPace: the pace that releases keep in the record is the mean of
// the first sixteen turns, then a slow moving average in which one long
// turn counts for little.
func TestFIFOPace(t *testing.T) {
	ms := time.Millisecond
	p, d := nextPace(0, 0, 8*ms, 1)
	assert.Equal(t, []time.Duration{8 * ms, 2 * ms}, []time.Duration{p, d}, "the first turn")
	p, d = nextPace(p, d, 12*ms, 2)
	assert.Equal(t, []time.Duration{10 * ms, 3 * ms}, []time.Duration{p, d}, "the mean of two")
	p, _ = nextPace(10*ms, ms, time.Second, 3)
	assert.Equal(t, 10*ms+14*ms/3, p, "in the mean, a turn counts for twice the pace and four spreads at most")
	p, d = nextPace(10*ms, ms, 12*ms, 16)
	assert.Equal(t, []time.Duration{10*ms + 125*time.Microsecond, ms + 62500*time.Nanosecond}, []time.Duration{p, d}, "a sixteenth of a turn")
	p, _ = nextPace(10*ms, ms, time.Second, 16)
	assert.Equal(t, 10*ms+5*ms/16, p, "a stalled holder counts as half a pace beyond it at most")
}
