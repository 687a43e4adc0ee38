package mapper

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/optimist-dynamo/optimist/internal/attrs"
	"github.com/optimist-dynamo/optimist/internal/plan"
	"github.com/optimist-dynamo/optimist/internal/rnd"
)

// Modify's turn across processes: a single-slot reservation kept in the
// item (the package doc's "Modify: retries and turns" says what it does
// for callers). It decides only who tries to write; what is written is
// decided by the version check, so a turn that is lost, expired or ignored
// costs retries, never a change.
//
// retryAtOnce, turnAfter, turnsWaitedOut and turnLease were chosen with
// BenchmarkContention; the bench module's package doc gives the reason for
// each value, and is the one place that does.
const (
	// TurnAttribute is the attribute in which [Table.Modify] keeps the
	// turn of a contended item: a map {o: owner, u: until} with until in
	// Unix milliseconds. Readers ignore it, and the write of the holder
	// removes it.
	TurnAttribute = plan.TurnAttr
	// retryAtOnce is how many conflicts a call retries at once, on the
	// item that came with each; later ones back off first and read.
	retryAtOnce = 2
	// turnAfter is how many refused writes (conflicts, or refusals by
	// another's turn) a call meets before it takes the turn: a change
	// made by Modify alone runs fn at most turnAfter+1 times.
	turnAfter = 8
	// turnsWaitedOut is how many turns in a row a writer waits out before
	// it queues for the turn itself.
	turnsWaitedOut = 3
	// turnLease is how long a turn holds; the holder cannot extend it.
	turnLease = time.Second
	// releaseTimeout bounds the write that gives a turn back when a call
	// ends in its turn without writing (fn's error, ctx's end).
	releaseTimeout = time.Second
	// A waiter sleeps about a hold (at least minTurnWait) between tries,
	// doubled every second try up to 1<<turnWaitGrowth holds: a turn held
	// longer than expected (its holder is slow, or died) is not polled
	// every hold by every waiter, and the wait never passes the turn's
	// expiry.
	minTurnWait    = time.Millisecond
	turnWaitGrowth = 6
)

// turnOf reads the turn stored in item: its owner and until (Unix ms).
func turnOf(item map[string]types.AttributeValue) (owner string, until int64, ok bool) {
	m, isMap := item[TurnAttribute].(*types.AttributeValueMemberM)
	if !isMap {
		return "", 0, false
	}
	o, _ := m.Value["o"].(*types.AttributeValueMemberS)
	u, isN := attrs.Int64(m.Value["u"])
	if o == nil || !isN {
		return "", 0, false
	}
	return o.Value, u, true
}

// liveTurn reports whether item carries a turn that has not expired at
// now (Unix ms) and is not owned by me.
func liveTurn(item map[string]types.AttributeValue, me string, now int64) bool {
	o, u, ok := turnOf(item)
	return ok && o != me && u >= now
}

// millis is t in Unix milliseconds, the unit of a turn's until.
func millis(t time.Time) int64 { return t.UnixMilli() }

// itemTurn is one Modify call's dealings with the item's turn across
// processes: the turn it holds, if any, and its waits for another's.
type itemTurn[T any] struct {
	t     *Table[T]
	ctx   context.Context
	k     map[string]types.AttributeValue
	owner string        // the turn the call holds, "" if none
	taken time.Time     // when it asked for it
	call  time.Duration // how long its last call took
}

// take asks for the turn after the attempt-th write was refused with err
// (item: the item as stored then). granted, got is the item the turn came
// with (ALL_NEW). Not granted and no error: the item cannot carry a turn
// (there is none, or a unit of work holds it). A writer turned away by
// another's turn sleeps about one hold before each try.
func (c *itemTurn[T]) take(attempt int, item map[string]types.AttributeValue, err error) (got map[string]types.AttributeValue, granted bool, _ error) {
	t := c.t
	call := c.call
	for tries := 0; ; tries++ {
		if now := millis(t.turns.clock()); liveTurn(item, "", now) {
			if serr := c.sleep(attempt, tries, item, now, call, err); serr != nil {
				return nil, false, serr
			}
		} else if tries > 0 || item == nil || item[plan.LockAttr] != nil {
			return nil, false, nil
		}
		owner, start := t.newToken(), t.turns.clock()
		granted, got, terr := t.takeTurn(c.ctx, c.k, owner, start)
		if terr != nil {
			return nil, false, terr
		}
		call = t.turns.clock().Sub(start)
		if granted {
			c.owner, c.taken = owner, start
			return got, true, nil
		}
		item = got
	}
}

// wait waits for the live turn on item (another writer's) to end: it
// sleeps about one hold, reads the item, and sleeps again while the turn is
// still live (longer each time, see turnWait). It returns the item as read
// once no live turn is on it; or, with queue, the item as it is when it
// has seen turnsWaitedOut turns in a row: turns are coming back to back,
// and a writer that only waited them out could wait for ever.
func (c *itemTurn[T]) wait(attempt int, item map[string]types.AttributeValue, err error) (_ map[string]types.AttributeValue, queue bool, _ error) {
	t := c.t
	last, _, _ := turnOf(item)
	seen := 1
	for tries := 0; ; tries++ {
		now := millis(t.turns.clock())
		if !liveTurn(item, "", now) {
			return item, false, nil
		}
		if owner, _, _ := turnOf(item); owner != last {
			if seen++; seen >= turnsWaitedOut {
				return item, true, nil
			}
			last = owner
		}
		if serr := c.sleep(attempt, tries, item, now, c.call, err); serr != nil {
			return nil, false, serr
		}
		var rerr error
		if item, rerr = t.getVisible(c.ctx, c.k, true, nil, nil); rerr != nil {
			return nil, false, rerr
		}
	}
}

// sleep sleeps while item carries another's live turn at now: about one
// hold (call: how long this call's last call took), longer with tries
// (see turnWait). The first sleep after the attempt-th write, refused
// with err, is reported as a retry.
func (c *itemTurn[T]) sleep(attempt, tries int, item map[string]types.AttributeValue, now int64, call time.Duration, err error) error {
	t := c.t
	wait := turnWait(t.turns.holdOf(call), tries, item, now)
	if tries == 0 {
		t.retrying(c.ctx, c.k, attempt, wait, err)
	}
	if serr := t.sleep(c.ctx, wait); serr != nil {
		return fmt.Errorf("mapper: Modify stopped after %d attempts, waiting for a turn: %w (last: %v)", attempt, serr, err)
	}
	return nil
}

// release gives back a turn the call ends in without having written.
func (c *itemTurn[T]) release() {
	if c.owner != "" {
		c.t.releaseTurn(c.ctx, c.k, c.owner)
		c.owner = ""
	}
}

// withTurn returns o with the turn condition tc (o is not changed).
func withTurn(o *WriteOptions, tc plan.Turn) *WriteOptions {
	w := *o
	w.turn = &tc
	return &w
}

// takeTurn asks for the turn of the item with key for owner: one
// UpdateItem that sets the turn if the item exists, no unit of work holds
// it and it has no live turn, and changes nothing else (no version, no
// token: a write of the struct is not refused because of it). granted
// says it was taken, with item the item as it is then (ALL_NEW); refused,
// item is the item as stored (ALL_OLD; nil for none).
func (t *Table[T]) takeTurn(ctx context.Context, key map[string]types.AttributeValue, owner string, now time.Time) (granted bool, item map[string]types.AttributeValue, err error) {
	ms := millis(now)
	until := strconv.FormatInt(ms+turnLease.Milliseconds(), 10)
	res := plan.Exec(ctx, t.client, &plan.Request{Update: &dynamodb.UpdateItemInput{
		TableName:           t.nameP,
		Key:                 key,
		UpdateExpression:    aws.String("SET #t = :t"),
		ConditionExpression: aws.String("attribute_exists(#h) AND attribute_not_exists(#lk) AND (attribute_not_exists(#t) OR #t.#u < :now)"),
		ExpressionAttributeNames: map[string]string{
			"#t": TurnAttribute, "#u": "u", "#h": t.s.hash.name, "#lk": plan.LockAttr,
		},
		ExpressionAttributeValues: map[string]types.AttributeValue{
			":t": &types.AttributeValueMemberM{Value: map[string]types.AttributeValue{
				"o": &types.AttributeValueMemberS{Value: owner},
				"u": &types.AttributeValueMemberN{Value: until},
			}},
			":now": &types.AttributeValueMemberN{Value: strconv.FormatInt(ms, 10)},
		},
		ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld,
	}}, plan.Call{ReturnValues: types.ReturnValueAllNew, Settle: plan.Settle{
		// A lost answer landed if the item holds the very turn we wrote.
		Ours: func(item map[string]types.AttributeValue) bool {
			m, ok := item[TurnAttribute].(*types.AttributeValueMemberM)
			if !ok {
				return false
			}
			o, _ := m.Value["o"].(*types.AttributeValueMemberS)
			u, _ := m.Value["u"].(*types.AttributeValueMemberN)
			return o != nil && u != nil && o.Value == owner && u.Value == until
		},
	}})
	switch {
	case res.Outcome == plan.Applied:
		return true, res.Item, nil
	case res.Outcome == plan.Refused, res.Outcome == plan.Unknown && res.Seen():
		return false, res.Item, nil
	}
	err = res.Err
	if err == nil {
		err = res.LostErr
	}
	return false, nil, fmt.Errorf("mapper: Modify: UpdateItem (taking the turn) on %s %s: %w", t.name, attrs.FormatKey(key), err)
}

// releaseTurn gives back the turn of owner, which a call holds and ends
// without writing, so that others need not wait for it to expire. It runs
// after ctx may have ended, for at most releaseTimeout, and its failure is
// of no consequence (the turn then expires).
func (t *Table[T]) releaseTurn(ctx context.Context, key map[string]types.AttributeValue, owner string) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), releaseTimeout)
	defer cancel()
	_ = plan.Exec(ctx, t.client, &plan.Request{Update: &dynamodb.UpdateItemInput{
		TableName:                 t.nameP,
		Key:                       key,
		UpdateExpression:          aws.String("REMOVE #t"),
		ConditionExpression:       aws.String("#t.#o = :me"),
		ExpressionAttributeNames:  map[string]string{"#t": TurnAttribute, "#o": "o"},
		ExpressionAttributeValues: map[string]types.AttributeValue{":me": &types.AttributeValueMemberS{Value: owner}},
	}}, plan.Call{})
}

// holdOf returns the Table's estimate of how long a turn is held: from the
// holder's take to its write's answer, learnt from its own turns (an
// average), or twice the latency of a call if it has held none yet.
func (ts *turns) holdOf(call time.Duration) time.Duration {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	if ts.hold > 0 {
		return ts.hold
	}
	return 2 * call
}

// held records how long one of this Table's turns was held.
func (ts *turns) held(d time.Duration) {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	if ts.hold == 0 {
		ts.hold = d
	} else {
		ts.hold += (d - ts.hold) / 4
	}
}

// turnWait is how long a writer turned away by another's turn sleeps
// before it tries again (tries counts its tries so far): about a hold,
// longer with each try (so that many waiters do not poll one turn every
// hold), never past the turn's expiry, with jitter.
func turnWait(hold time.Duration, tries int, item map[string]types.AttributeValue, now int64) time.Duration {
	n := 1 << min(tries/2, turnWaitGrowth)
	d := time.Duration(float64(max(hold, minTurnWait)) * float64(n) * (0.5 + rnd.Float64()))
	if _, u, ok := turnOf(item); ok {
		if left := time.Duration(u-now+1) * time.Millisecond; left < d {
			d = max(left, 0)
		}
	}
	return max(d, time.Microsecond)
}
