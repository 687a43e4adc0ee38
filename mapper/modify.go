package mapper

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/optimist-dynamo/optimist/internal/attrs"
	"github.com/optimist-dynamo/optimist/internal/plan"
	"github.com/optimist-dynamo/optimist/internal/replica"
	"github.com/optimist-dynamo/optimist/internal/retry"
	"github.com/optimist-dynamo/optimist/version"
)

// Modify applies fn to the item with the key of key and writes the result,
// retrying on version conflicts: the optimistic read-modify-write loop. T
// must have a version field. It reads the item (one consistent GetItem),
// calls fn on it and writes it with a version-checked [Table.Put]; a
// missing item reaches fn as a zero value with the key fields set, so
// Modify can create. It returns the item as written. How it retries, and
// how its calls take turns so that a change made by Modify alone runs fn
// at most nine times, is the package doc's "Modify: retries and turns".
//
// fn may run several times and must not have other side effects; it must
// not change the key or the version. An error from fn ends Modify and is
// returned as is, once fn has seen the stored item. Modify gives up after
// [MaxAttempts] writes, returning the last conflict, and stops when ctx
// ends. It does not retry an [ErrUnknownOutcome] (fn's change may already
// be stored) nor a [*ConditionError]. Its write options ([If], [Fence],
// [ExactlyOnce]) apply to every write.
//
// Cost: calm, one GetItem and one PutItem (one PutItem when it starts from
// a kept item); under contention, as the package doc's section says.
func (t *Table[T]) Modify(ctx context.Context, key T, fn func(*T) error, opts ...RetryOption) (*T, error) {
	o, policy, err := t.modifyOptions(fn, opts)
	if err != nil {
		return nil, err
	}
	kv := reflect.ValueOf(&key).Elem()
	k, err := t.c.keyOf(kv)
	if err != nil {
		return nil, err
	}
	turn, idle, err := t.turns.take(ctx, t.s.keyString(k))
	if err != nil {
		return nil, err
	}
	defer t.turns.done(turn)
	// cur is the item fn runs on; confirmed says it was read, or came with
	// a conflict, rather than handed over from an earlier write.
	cur, confirmed, kept, err := t.modifyStart(ctx, turn, idle, k, kv)
	if err != nil {
		return nil, err
	}
	// c is the call's state across processes: the turn it holds, if any.
	c := modifyCall[T]{itemTurn: itemTurn[T]{t: t, ctx: ctx, k: k}, kv: kv, policy: policy}
	defer c.release()
	for attempt := 1; ; attempt++ {
		cv := reflect.ValueOf(cur).Elem()
		read, err := versionOf(cv.FieldByIndex(t.s.version.index))
		if err != nil {
			return nil, err
		}
		if err := fn(cur); err != nil {
			if confirmed {
				return nil, err
			}
			// fn refused an item that may be out of date: let it judge the
			// stored one. Nothing was written, so no attempt was made.
			if cur, err = t.read(ctx, k, kv); err != nil {
				return nil, err
			}
			confirmed = true
			attempt--
			continue
		}
		if err := t.unchanged(cv, k, read); err != nil {
			return nil, err
		}
		now := millis(t.turns.clock())
		wo := withTurn(o, plan.Turn{Owner: c.owner, Now: now})
		sent := t.turns.clock()
		written, err := t.put(ctx, cur, wo)
		c.call = t.turns.clock().Sub(sent)
		if err == nil {
			if c.owner != "" {
				t.turns.held(t.turns.clock().Sub(c.taken))
				c.owner = "" // the write removed the turn
			}
			turn.wrote(written, attempt == 1, kept, t.turns.clock())
			return cur, nil
		}
		if cur, err = c.next(attempt, err, now); err != nil {
			return nil, err
		}
		confirmed = true
	}
}

// modifyOptions checks a Modify call's arguments: its options (and the
// retry policy they make), fn, and that T is versioned.
func (t *Table[T]) modifyOptions(fn func(*T) error, opts []RetryOption) (*WriteOptions, retry.Policy, error) {
	if err := t.usable(); err != nil {
		return nil, retry.Policy{}, err
	}
	if fn == nil {
		return nil, retry.Policy{}, fmt.Errorf("%w: Modify needs a function (fn is nil)", ErrInvalidOption)
	}
	o, err := t.retryOptions(opts)
	if err != nil {
		return nil, retry.Policy{}, err
	}
	policy := t.policy(o)
	if err := policy.Check(); err != nil {
		return nil, retry.Policy{}, fmt.Errorf("%w: %w", ErrInvalidOption, err)
	}
	if t.s.version == nil {
		return nil, retry.Policy{}, fmt.Errorf("%w: Modify needs a versioned type, and %v has no `dynamo:\",version\"` field", ErrInvalidOption, t.s.typ)
	}
	return o, policy, nil
}

// modifyStart is the item a Modify call starts from: the one the turn
// hands over (kept: from an earlier call rather than a waiting one), or
// one consistent read (confirmed).
func (t *Table[T]) modifyStart(ctx context.Context, turn *turn, idle bool, k map[string]types.AttributeValue, kv reflect.Value) (cur *T, confirmed, kept bool, err error) {
	if item := turn.handOver(t.turns.clock()); item != nil {
		cur, err = decodeItem[T](t.c, item)
		return cur, false, idle, err
	}
	cur, err = t.read(ctx, k, kv)
	return cur, true, false, err
}

// next is what follows a refused write of attempt (err, at now): the item
// the next attempt starts from, at once or after waiting for the turn; or
// the error that ends the call (an unknown outcome, a refusal of the
// caller's condition, a create that can never succeed, the last attempt).
func (c *modifyCall[T]) next(attempt int, err error, now int64) (*T, error) {
	t := c.t
	ce, item, stop := c.refusal(err, now)
	if stop != nil {
		return nil, stop
	}
	if !c.policy.More(attempt) {
		return nil, fmt.Errorf("mapper: Modify gave up after %d attempts: %w", attempt, err)
	}
	if ce != nil && replica.IsReplicatedWriteConflict(ce.Err) {
		// A strongly consistent global table refused the write for one
		// in another Region: the stored item is unknown, so read it.
		t.retrying(c.ctx, c.k, attempt, 0, err)
		return t.read(c.ctx, c.k, c.kv)
	}
	if c.owner != "" {
		if owner, _, ok := turnOf(item); ok && owner == c.owner {
			// A write of other code came in between, and the turn is
			// still ours: write again at once on the item it left.
			t.retrying(c.ctx, c.k, attempt, 0, err)
			return c.decode(item)
		}
		// The turn expired and was taken, or a write of other code
		// removed it: wait for it again.
		c.owner = ""
	}
	switch {
	case attempt >= turnAfter:
		return c.await(attempt, item, err)
	case liveTurn(item, "", now):
		// Another writer's turn refused the write, or will: wait until
		// it is over, without running fn.
		return c.waitOut(attempt, item, err)
	case attempt <= retryAtOnce:
		t.retrying(c.ctx, c.k, attempt, 0, err)
		// The conflict's item is as fresh as a read: write again at once.
		return c.decode(item)
	}
	// Contended: back off, so that fewer writers race for each version,
	// and read the item as it is then.
	return c.backOff(attempt, c.policy.Backoff(attempt-retryAtOnce), err)
}

// backOff sleeps wait after the attempt-th write was refused with err, and
// reads the item as it is then.
func (c *modifyCall[T]) backOff(attempt int, wait time.Duration, err error) (*T, error) {
	c.t.retrying(c.ctx, c.k, attempt, wait, err)
	if serr := c.t.sleep(c.ctx, wait); serr != nil {
		return nil, fmt.Errorf("mapper: Modify stopped after %d attempts: %w (last: %v)", attempt, serr, err)
	}
	return c.t.read(c.ctx, c.k, c.kv)
}

// refusal sorts the error of a refused write: a version conflict (ce) or
// a refusal by a turn, with the item stored; or, returned as the error,
// what ends the call.
func (c *modifyCall[T]) refusal(err error, now int64) (ce *version.ConflictError, item map[string]types.AttributeValue, _ error) {
	t := c.t
	var cde *ConditionError
	switch {
	case errors.Is(err, ErrUnknownOutcome):
		return nil, nil, err
	case errors.As(err, &ce):
		item = ce.Item
	case errors.As(err, &cde):
		// The version matched: the turn refused the write, or the
		// caller's own condition did.
		item = cde.Item
		if owner, _, ok := turnOf(item); c.owner != "" && ok && owner == c.owner {
			return nil, nil, err
		}
		if c.owner == "" && !liveTurn(item, "", now) {
			return nil, nil, err
		}
		return nil, item, nil
	default:
		return nil, nil, err
	}
	if ce.Expected == 0 && ce.Item != nil && ce.Actual == 0 {
		// Every retry would try to create the item again.
		if ce.ActualMissing {
			// Written by other code.
			return nil, nil, fmt.Errorf("mapper: Modify: %s %s exists without a version attribute %q; write it once with Put(..., Unversioned()) to version it: %w",
				t.name, attrs.FormatKey(c.k), t.s.version.name, err)
		}
		return nil, nil, fmt.Errorf("mapper: Modify: %s %s stores version 0 (as mappers that count from 0 write, such as Java's DynamoDBMapper v1), which this table takes for \"no item\"; set TableOptions.VersionZeroExists: %w",
			t.name, attrs.FormatKey(c.k), err)
	}
	return ce, item, nil
}

// modifyCall is one Modify call: its key, its retry policy, and its
// dealings with the item's turn across processes (turn.go).
type modifyCall[T any] struct {
	itemTurn[T]
	kv     reflect.Value
	policy retry.Policy
}

// waitOut waits for another writer's live turn on item to end, and
// returns the item as read then; if turns come back to back, it queues
// for the turn itself (await).
func (c *modifyCall[T]) waitOut(attempt int, item map[string]types.AttributeValue, err error) (*T, error) {
	item, queue, werr := c.wait(attempt, item, err)
	switch {
	case werr != nil:
		return nil, werr
	case queue:
		return c.await(attempt, item, err)
	}
	return c.decode(item)
}

// await waits for the turn after the attempt-th write was refused with
// err (item: the item as stored then), and returns the item the turn came
// with, which no other Modify will write before the call's next write. If
// the item cannot carry a turn (there is none, or a unit of work holds
// it), it backs off and reads instead, as writers did before turns, and
// the next write is made without the turn.
func (c *modifyCall[T]) await(attempt int, item map[string]types.AttributeValue, err error) (*T, error) {
	got, granted, terr := c.take(attempt, item, err)
	switch {
	case terr != nil:
		return nil, terr
	case granted:
		return c.decode(got)
	}
	return c.backOff(attempt, c.policy.Backoff(attempt-1), err)
}

// decode is the item as fn sees it: item decoded, or for none a zero T
// with the key.
func (c *modifyCall[T]) decode(item map[string]types.AttributeValue) (*T, error) {
	if item == nil {
		return c.t.withKey(c.kv), nil
	}
	return decodeItem[T](c.t.c, item)
}

// read is Modify's consistent read: the item, or a zero T with the key
// fields of kv if there is none.
func (t *Table[T]) read(ctx context.Context, k map[string]types.AttributeValue, kv reflect.Value) (*T, error) {
	cur, err := t.get(ctx, k, true, nil)
	if errors.Is(err, ErrNotFound) {
		return t.withKey(kv), nil
	}
	return cur, err
}

// How long, for how many keys, and for how many calls in a row a Table
// keeps the item its last Modify of a key wrote without conflict, when no
// other call waits for it. A second covers calls made back to back (a
// loop, a stream of events for one key) and keeps no item so long that
// other processes have likely written it since; the bound on keys keeps a
// Table that modifies many keys from holding an item for each. After
// keepRun calls in a row that started from the kept item, the next one
// reads: a process modifying the key back to back would otherwise keep
// writing before anyone else can, and its read leaves others a chance.
const (
	keepItemFor = time.Second
	keepItems   = 64
	keepRun     = 8
)

// turns lets Modify calls on one key take turns within a Table, first come
// first served, and hands each turn the item the previous one wrote. A
// turn that no call holds or waits for is kept (idle) while its item may
// start the next call, and dropped otherwise.
type turns struct {
	mu   sync.Mutex
	m    map[string]*turn
	idle int           // turns in m that no call holds or waits for
	hold time.Duration // how long this Table's turns across processes last (turn.go)
}

// turn is one key's queue: a channel of one slot, held by the Modify whose
// turn it is (goroutines blocked sending on a channel are served in order).
type turn struct {
	key  string
	slot chan struct{}
	n    int // holding or waiting; the turn is dropped or kept idle at 0
	// item is the item as the last Modify of this turn wrote it, nil if
	// unknown; at is when, keep says it may start a later call (its call
	// met no conflict), and run counts the calls in a row that started
	// from a kept item. Only the holder touches them, and turns.leave once
	// no call holds the turn.
	item map[string]types.AttributeValue
	at   time.Time
	keep bool
	run  int
}

// clock is the time turns and the items they keep are timed by: the time
// package's, as everything the library times (a test in a
// testing/synctest bubble runs them in virtual time).
func (ts *turns) clock() time.Time { return time.Now() }

// handOver returns the item the turn's last write stored, if it was
// written less than keepItemFor before now, and forgets it until this
// turn's own write is known.
func (tn *turn) handOver(now time.Time) map[string]types.AttributeValue {
	item := tn.item
	tn.item = nil
	if item == nil || now.Sub(tn.at) >= keepItemFor {
		return nil
	}
	return item
}

// wrote records the item a Modify wrote: quiet says it met no conflict,
// and kept that the call started from a kept item.
func (tn *turn) wrote(item map[string]types.AttributeValue, quiet, kept bool, now time.Time) {
	tn.item, tn.at = item, now
	if quiet && kept {
		tn.run++
	} else {
		tn.run = 0
	}
	tn.keep = tn.run < keepRun
	if !tn.keep {
		tn.run = 0
	}
}

// take waits for the turn of key; idle says it was kept idle, with the
// item of an earlier call.
func (ts *turns) take(ctx context.Context, key string) (tn *turn, idle bool, err error) {
	ts.mu.Lock()
	tn = ts.m[key]
	if tn == nil {
		if ts.m == nil {
			ts.m = map[string]*turn{}
		}
		tn = &turn{key: key, slot: make(chan struct{}, 1)}
		ts.m[key] = tn
	} else if tn.n == 0 {
		ts.idle--
		idle = true
	}
	tn.n++
	ts.mu.Unlock()
	select {
	case tn.slot <- struct{}{}:
		return tn, idle, nil
	case <-ctx.Done():
		ts.leave(tn)
		return nil, false, fmt.Errorf("mapper: Modify stopped waiting for its turn: %w", ctx.Err())
	}
}

func (ts *turns) done(tn *turn) {
	ts.leave(tn)
	<-tn.slot
}

// leave counts a call out of tn. When none is left, tn stays (idle) if its
// item may start the next call; at keepItems idle turns, the idle ones are
// dropped first.
func (ts *turns) leave(tn *turn) {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	if tn.n--; tn.n > 0 {
		return
	}
	if tn.item == nil || !tn.keep {
		delete(ts.m, tn.key)
		return
	}
	if ts.idle >= keepItems {
		for k, o := range ts.m {
			if o.n == 0 && o != tn {
				delete(ts.m, k)
			}
		}
		ts.idle = 0
	}
	ts.idle++
}

// unchanged checks that fn kept the key and the version.
func (t *Table[T]) unchanged(v reflect.Value, key map[string]types.AttributeValue, ver int64) error {
	k, err := t.c.keyOf(v)
	if err != nil {
		return err
	}
	for name, want := range key {
		if !attrs.SameKeyValue(k[name], want) {
			return fmt.Errorf("%w: Modify's fn changed the key attribute %q", ErrInvalidOption, name)
		}
	}
	if got, _ := versionOf(v.FieldByIndex(t.s.version.index)); got != ver {
		return fmt.Errorf("%w: Modify's fn changed the version (from %d to %d); the mapper sets it", ErrInvalidOption, ver, got)
	}
	return nil
}
