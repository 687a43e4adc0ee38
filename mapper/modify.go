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
// retrying on version conflicts: the optimistic read-modify-write loop, done
// right. T must have a version field. This comment is the one statement of
// what Modify does; the package docs link here.
//
// It reads the item (one consistent GetItem), calls fn on it and writes it
// with a version-checked [Table.Put]. A missing item reaches fn as a zero
// value with the key fields set, so Modify can create. It returns the item
// as written.
//
// Writers of one item conflict when another write lands between their read
// and their write. Modify avoids that where it can, retries cheaply where
// it cannot, and bounds how often one change can lose:
//
//   - Modify calls on the same Table and key take turns within the process,
//     first come first served, so that goroutines of one process do not
//     conflict with each other; each turn starts from the item the previous
//     one wrote, with no read. Conflicts then come only from other
//     processes (or other Tables).
//   - After a call writes, the Table keeps the item it wrote for a second
//     (for up to 64 keys), and the next Modify of that key starts from it
//     instead of reading: one PutItem in all if no one wrote the item
//     since. If another process did, the write is refused on its version
//     and the conflict brings back the stored item, in place of the read.
//     Under contention, changes so land in runs of one call each. After 8
//     calls in a row that started from a kept item and met no conflict,
//     the next call reads, which leaves other processes a chance between a
//     process's back-to-back calls.
//   - A conflict carries the stored item (ALL_OLD), as fresh as a read: the
//     first two conflicts of a call are retried at once on that item, with
//     no read and no sleep.
//   - Later conflicts back off first: a jittered, exponentially growing
//     sleep (see [Backoff]; defaults 20ms to 200ms), then one consistent
//     read, so that fewer writers race for each version.
//   - After its eighth refused write, the call takes the item's turn across
//     processes: one UpdateItem that stores {o: owner, u: until} in the
//     attribute [TurnAttribute] of the item, if no live turn is there, and
//     returns the item (ALL_NEW, in place of a read). It changes neither
//     the version nor anything else. While a turn is live, every other
//     Modify write of the item is refused (each carries "no turn, or an
//     expired one"), so the holder's next write, which is conditional on
//     its turn, meets no conflict from Modify: a change made by Modify
//     alone runs fn at most nine times. The holder's write removes the
//     turn. A writer refused the turn sleeps about as long as this Table's
//     turns last, longer after each few tries, and asks for it again. The
//     turn is for the tail, the change that keeps losing: taken after
//     fewer conflicts, it would stop every other writer of a busy item
//     again and again, each paying a refused write and a read for it.
//   - A writer that has not come to its turn and meets another's live
//     turn (its write refused by it, or the item of a conflict carrying
//     it) sleeps about as long as a turn lasts and reads the item again,
//     for as long as the turn is live; that refusal counts toward its own
//     eight. If it finds three turns in a row, it queues for the turn
//     itself, so that turns back to back cannot starve it. Neither
//     kind of waiter runs fn while it waits. The turn is
//     optimistic's fallback, not a lock: a write that lands always passed
//     its version check, whoever held the turn.
//   - A turn is a lease the holder cannot extend: it expires a second after
//     it was taken (on the clock of the writer that took it, compared with
//     the clocks of the others: skewed clocks only move when an abandoned
//     turn is taken over). So a writer that died in its turn blocks
//     Modify's writes of the item for at most a second. A holder slower
//     than that finds the turn taken by another and waits for it again. A
//     call that ends in its turn without writing (fn's error, ctx's end)
//     gives the turn back with one more UpdateItem.
//   - Writes of other code (Put, Save, Update, Delete, transactions, other
//     libraries) ignore the turn. One that lands during a turn is a
//     conflict for the holder, which retries at once on the item that came
//     with it, still in its turn; a Put replaces the item and so removes
//     the turn, and the holder then asks for it again.
//   - The turn needs a stored item that no unit of work holds. Where there
//     is none, conflicts from the eighth on back off and read as the
//     earlier ones did, and the write is made without a turn.
//
// fn may run several times and must not have other side effects; it must not
// change the key or the version. An error from fn ends Modify and is
// returned as is, once fn has seen the stored item: when fn fails on an item
// handed over from an earlier write, which another process may have changed
// since, Modify reads the item and runs fn on it again. Modify gives up after
// [MaxAttempts] writes, returning the last conflict, and stops when ctx ends
// (also while it waits for the turn). It does not retry an
// [ErrUnknownOutcome] (fn's change may already be stored) nor a
// [*ConditionError]. Its write options ([If], [Fence], [ExactlyOnce])
// apply to every write.
//
// Cost: calm, one GetItem and one PutItem (one PutItem when it starts from a
// kept item); each conflict one more PutItem, and from the third on one
// GetItem after the backoff; one GetItem per sleep while another's turn is
// live; for the change that comes to its turn, one UpdateItem to take it
// and one per refused try while waiting.
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
	c := modifyCall[T]{t: t, ctx: ctx, k: k, kv: kv, policy: policy}
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

// sleepTurn sleeps while item carries another's live turn at now: about
// one hold (call: how long this call's last call took), longer with tries
// (see turnWait). The first sleep after the attempt-th write, refused
// with err, is reported as a retry.
func (c *modifyCall[T]) sleepTurn(attempt, tries int, item map[string]types.AttributeValue, now int64, call time.Duration, err error) error {
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

// waitOut waits for the live turn on item (another writer's) to end: it
// sleeps about one hold, reads the item, and sleeps again while the turn is
// still live (longer each time, see turnWait). It returns the item as read
// once no live turn is on it. If it sees turnsWaitedOut turns in a row,
// turns are coming back to back, and a writer that only waited them out
// could wait for ever: it queues for the turn itself (await).
func (c *modifyCall[T]) waitOut(attempt int, item map[string]types.AttributeValue, err error) (*T, error) {
	t := c.t
	last, _, _ := turnOf(item)
	seen := 1
	for tries := 0; ; tries++ {
		now := millis(t.turns.clock())
		if !liveTurn(item, "", now) {
			return c.decode(item)
		}
		if owner, _, _ := turnOf(item); owner != last {
			if seen++; seen >= turnsWaitedOut {
				return c.await(attempt, item, err)
			}
			last = owner
		}
		if serr := c.sleepTurn(attempt, tries, item, now, c.call, err); serr != nil {
			return nil, serr
		}
		var rerr error
		if item, rerr = t.getVisible(c.ctx, c.k, true, nil, nil); rerr != nil {
			return nil, rerr
		}
	}
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

// modifyCall is one Modify call's dealings with the turn across processes.
type modifyCall[T any] struct {
	t      *Table[T]
	ctx    context.Context
	k      map[string]types.AttributeValue
	kv     reflect.Value
	policy retry.Policy
	owner  string        // the turn the call holds, "" if none
	taken  time.Time     // when it asked for it
	call   time.Duration // how long its last call took
}

// decode is the item as fn sees it: item decoded, or for none a zero T
// with the key.
func (c *modifyCall[T]) decode(item map[string]types.AttributeValue) (*T, error) {
	if item == nil {
		return c.t.withKey(c.kv), nil
	}
	return decodeItem[T](c.t.c, item)
}

// release gives back a turn the call ends in without having written.
func (c *modifyCall[T]) release() {
	if c.owner != "" {
		c.t.releaseTurn(c.ctx, c.k, c.owner)
		c.owner = ""
	}
}

// await waits for the turn after the attempt-th write was refused with
// err (item: the item as stored then), and returns the item the turn came
// with, which no other Modify will write before the call's next write. If
// the item cannot carry a turn (there is none, or a unit of work holds
// it), it sleeps a backoff and reads instead, and the next write is made
// without the turn. A writer turned away by another's turn sleeps about
// one hold before each try; it runs no fn while it waits.
func (c *modifyCall[T]) await(attempt int, item map[string]types.AttributeValue, err error) (*T, error) {
	t := c.t
	call := c.call
	for tries := 0; ; tries++ {
		if now := millis(t.turns.clock()); liveTurn(item, "", now) {
			if serr := c.sleepTurn(attempt, tries, item, now, call, err); serr != nil {
				return nil, serr
			}
		} else if tries > 0 || item == nil || item[plan.LockAttr] != nil {
			break
		}
		owner, start := t.newToken(), t.turns.clock()
		granted, got, terr := t.takeTurn(c.ctx, c.k, owner, start)
		if terr != nil {
			return nil, terr
		}
		call = t.turns.clock().Sub(start)
		if granted {
			c.owner, c.taken = owner, start
			return c.decode(got)
		}
		item = got
	}
	// No turn to be had: back off and read, as writers did before turns.
	return c.backOff(attempt, c.policy.Backoff(attempt-1), err)
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
