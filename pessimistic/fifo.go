package pessimistic

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"

	"github.com/optimist-dynamo/optimist/internal/attrs"
)

// A FIFO lock's queue lives in the lock's record, beside the fence counter
// that the lease lock uses too (so tokens increase across both modes), in
// two maps keyed by each waiter's entry id (random, unique per Acquire):
//
//	qt: id → ticket                      written once, at the join
//	qw: id → {o: owner, r: record version, l: lease in ms}
//
// A join is one UpdateItem that adds the fence counter and writes the
// waiter's ticket (the counter's new value) and entry in the same item:
// tickets are therefore handed out in the order of the joins, a lower
// ticket can never appear after a higher one, and the answer (ALL_NEW)
// holds the whole queue, so the waiter learns its ticket and its place in
// the same call. The waiter with the lowest ticket holds the lock. A
// heartbeat rewrites the waiter's own record version only (a nested SET),
// not the queue; a release, or the removal of an entry seen abandoned,
// removes one entry from both maps. Maps rather than a list: an entry is
// addressed by its id, so no removal can hit the wrong entry after the
// list shifted.
const (
	attrQueueTickets = "qt"
	attrQueueEntries = "qw"
	entryOwner       = "o"
	entryRvn         = "r"
	entryLease       = "l"
	entryData        = "d" // B: the waiter's Data, if any
	// How long the last holder to release held the lock (ms, on its own
	// clock), and its ticket: the pace of the queue, for the waiters.
	attrHeldMs = "heldMs"
	attrHeldBy = "heldBy"
)

// MaxQueue is how many waiters a FIFO lock's queue holds; Acquire with
// [FIFO] returns [ErrQueueFull] rather than join a full queue. The queue is
// one item, and DynamoDB items stop at 400 KB: an entry takes about 70
// bytes plus the owner's name, so 1000 entries fit with owner names of up
// to 300 bytes. (Write throughput is the practical bound well before:
// every heartbeat of every waiter writes the item, and a write costs a
// write unit per KB of it; one item takes at most 1000 units a second.)
const MaxQueue = 1000

// removeBatch bounds how many abandoned entries one UpdateItem removes (the
// condition expression stops at 4 KB).
const removeBatch = 50

// entry is a waiter of a FIFO queue, as read.
type entry struct {
	id string
	holder
}

// parseQueue returns the queue's entries in ticket order.
func parseQueue(item map[string]types.AttributeValue) []entry {
	tickets, _ := item[attrQueueTickets].(*types.AttributeValueMemberM)
	entries, _ := item[attrQueueEntries].(*types.AttributeValueMemberM)
	if tickets == nil {
		return nil
	}
	out := make([]entry, 0, len(tickets.Value))
	for id, t := range tickets.Value {
		e := entry{id: id}
		e.token, _ = attrs.Int64(t)
		if entries != nil {
			e.holder = entryHolder(entries.Value[id], e.token)
		}
		out = append(out, e)
	}
	slices.SortFunc(out, func(a, b entry) int { return cmpInt(a.token, b.token) })
	return out
}

func cmpInt(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func entryHolder(v types.AttributeValue, ticket int64) holder {
	h := holder{token: ticket}
	m, ok := v.(*types.AttributeValueMemberM)
	if !ok {
		return h
	}
	if s, ok := m.Value[entryOwner].(*types.AttributeValueMemberS); ok {
		h.owner = s.Value
	}
	if s, ok := m.Value[entryRvn].(*types.AttributeValueMemberS); ok {
		h.rvn = s.Value
	}
	ms, _ := attrs.Int64(m.Value[entryLease])
	h.lease = time.Duration(ms) * time.Millisecond
	if b, ok := m.Value[entryData].(*types.AttributeValueMemberB); ok {
		h.data = b.Value
	}
	return h
}

// fifoQueue is a Locker's view of one lock's queue, shared by its waiters
// on that lock and kept across calls (see memory): the last snapshot any
// of them read or got back from a write, since when each entry's record
// version has been seen unchanged, and how fast the head has been moving.
// A new snapshot wakes the Locker's waiters, so a release by one of them
// hands the lock to the next in line at no cost if that one is local too.
type fifoQueue struct {
	clock TimeSource
	users int // guarded by memory.mu

	mu        sync.Mutex
	entries   []entry   // the last snapshot, in ticket order
	sent      time.Time // when the call that brought it was sent
	at        time.Time // when it arrived
	news      chan struct{}
	obs       map[string]observed // entry id → its record version, and since when
	head      int64               // the head's ticket, as last seen
	headSince time.Time           // when that head was first seen
	hold      time.Duration       // how long a head holds, a low estimate (0: not known yet)
	removing  bool                // a waiter is removing abandoned entries
	waiting   map[int64]bool      // the tickets of this Locker's waiters
	gone      holder              // the last entry removed without releasing, as the record says
	heldBy    int64               // the ticket of the last release whose hold was taken as a sample
}

func newFIFOQueue(clock TimeSource) *fifoQueue {
	return &fifoQueue{clock: clock, news: make(chan struct{}), obs: map[string]observed{}, waiting: map[int64]bool{}}
}

// publish takes a snapshot of the queue, from a read or join sent at sent
// whose answer just arrived, and wakes the waiters.
func (q *fifoQueue) publish(item map[string]types.AttributeValue, sent time.Time) {
	q.take(item, sent, false)
}

// published is publish for a write that moved the head itself (a release,
// a removal): the head changed after sent.
func (q *fifoQueue) published(item map[string]types.AttributeValue, sent time.Time) {
	q.take(item, sent, true)
}

func (q *fifoQueue) take(item map[string]types.AttributeValue, sent time.Time, moved bool) {
	es := parseQueue(item)
	now := q.clock.Now()
	q.mu.Lock()
	defer q.mu.Unlock()
	// The head changed after the last snapshot arrived (or, for a write
	// that moved it, after the write was sent), and before now: take the
	// middle, so that the waiters' estimates of when their turn comes are
	// not late by half a poll on average.
	lower := q.at
	if moved || lower.IsZero() || lower.After(now) {
		lower = sent
	}
	changed := lower.Add(now.Sub(lower) / 2)
	// The observation of a record version starts when the answer arrives:
	// it was written no later than that.
	present := make(map[string]bool, len(es))
	for _, e := range es {
		present[e.id] = true
		if ob, ok := q.obs[e.id]; !ok || ob.rvn != e.rvn {
			q.obs[e.id] = observed{rvn: e.rvn, since: now, lease: e.lease, clock: q.clock}
		}
	}
	for id := range q.obs {
		if !present[id] {
			delete(q.obs, id)
		}
	}
	// The last holder's own measure of its hold, new since the last
	// sample: the best sample there is (the midpoint below is off by up to
	// half the time between reads, and a waiter far back reads seldom).
	heldMs, _ := attrs.Int64(item[attrHeldMs])
	heldBy, _ := attrs.Int64(item[attrHeldBy])
	reported := heldBy > q.heldBy && heldMs > 0
	if reported {
		q.heldBy = heldBy
	}
	if reported && q.head != 0 && len(es) > 0 && es[0].token > q.head {
		// The heads since the one first seen at headSince held about
		// that long each: a better guess of the change than the midpoint
		// when reads are far apart (as they are, one per hand-over).
		served := time.Duration(es[0].token - q.head)
		if guess := q.headSince.Add(served * handOver(time.Duration(heldMs)*time.Millisecond)); guess.After(lower) && guess.Before(now) {
			changed = guess
		}
	}
	switch {
	case len(es) == 0:
		q.head, q.headSince = 0, changed
	case es[0].token > q.head:
		switch {
		case reported:
			q.hold = nextHold(q.hold, time.Duration(heldMs)*time.Millisecond)
		case q.head != 0:
			// Tickets are handed out one by one, so every ticket between
			// the old head and the new one was served (or given up) since
			// the old head was first seen.
			served := es[0].token - q.head
			sample := max(changed.Sub(q.headSince), 0) / time.Duration(served)
			q.hold = nextHold(q.hold, sample)
		}
		q.head, q.headSince = es[0].token, changed
	case reported && q.hold == 0:
		q.hold = time.Duration(heldMs) * time.Millisecond // a first estimate, from a join or read
	}
	q.entries, q.sent, q.at = es, sent, now
	q.gone = holder{}
	if v, ok := item[attrGoneOwner].(*types.AttributeValueMemberS); ok {
		q.gone.owner = v.Value
		q.gone.token, _ = attrs.Int64(item[attrGoneToken])
	}
	close(q.news)
	q.news = make(chan struct{})
}

// place is where a waiter stands, by the last snapshot.
type place struct {
	known     bool      // the snapshot holds the waiter's entry (or the waiter has none)
	ahead     int       // live entries ahead
	first     *entry    // the first live entry ahead: the holder
	abandoned []entry   // entries ahead seen unchanged for their lease
	due       time.Time // when the next entry ahead may be seen abandoned
	news      <-chan struct{}
	sent      time.Time // when the call that brought the snapshot was sent
	before    *entry    // the entry just ahead (live or abandoned), nil if none
	gone      holder    // the last entry removed without releasing
}

// look returns where the waiter with ticket mine stands (mine 0: one that
// has not joined, behind everyone).
func (q *fifoQueue) look(mine int64) place {
	now := q.clock.Now()
	q.mu.Lock()
	defer q.mu.Unlock()
	p := place{known: mine == 0, news: q.news, sent: q.sent, gone: q.gone}
	for i := range q.entries {
		e := &q.entries[i]
		if mine != 0 && e.token >= mine {
			p.known = p.known || e.token == mine
			break
		}
		p.before = e
		ob := q.obs[e.id]
		if ob.lease == 0 {
			ob.lease = DefaultLeaseDuration
		}
		if until := ob.since.Add(ob.lease); !now.Before(until) {
			p.abandoned = append(p.abandoned, *e)
			continue
		} else if p.due.IsZero() || until.Before(p.due) {
			p.due = until
		}
		p.ahead++
		if p.first == nil {
			p.first = e
		}
	}
	return p
}

// nextHold folds a new sample of the time between changes of the head
// into the estimate: fast down, slow up. The estimate sits in the lower part
// of the spread, so that a waiter reads a little early (a read that finds
// the head unchanged costs one call) rather than sleep past its turn (which
// makes everyone behind it wait, and lengthens the next samples too).
func nextHold(hold, sample time.Duration) time.Duration {
	switch {
	case hold == 0:
		return sample
	case sample < hold:
		return (hold + sample) / 2
	}
	return (7*hold + sample) / 8
}

// pause is how long a waiter, ahead of whom p.ahead live entries stand,
// sleeps before reading the queue again: about once per hand-over ahead of
// it. Its turn is expected when the current head, first seen at headSince,
// has held for hold (the time between changes of the head: the last
// releaser's own measure, which it leaves in the record, or as seen) and
// each of the p.ahead-1 others after it too: it reads then, the one read
// that finds it at the head if the estimate was right. A waiter further
// back whose expected turn has passed, the head being slow, reads again
// when it could be next at the earliest: were the head to change now,
// after p.ahead-1 holds. The next in line, late, reads every eighth of
// hold, and after two reads that saw the same head each pause is twice
// the last, so that a slow holder does not make it spin. Until a hold is
// known (no release seen, none recorded), each of those ahead is taken to
// hold as long again as the head has held so far (at least PollInterval),
// from now: the reads come at doubling intervals. A waiter
// behind another waiter of its Locker reads on its own at most every four
// PollIntervals: that one's reads wake it.
//
// Whatever the estimate, a waiter reads again when an entry ahead could
// first be seen abandoned (a lease after its record version was first
// seen), so that a dead head is taken over about a lease after its last
// heartbeat; and no pause is longer than the waiter's own lease.
//
// Reading earlier (a quarter of hold before the expected turn, and every
// quarter of hold after) cost more calls and made handovers slower, and an
// average instead of the low estimate made waiters wake after their turn
// (BenchmarkContendedSections; the README has the figures).
func (q *fifoQueue) pause(p place, mine int64, misses int, o Options) time.Duration {
	now := q.clock.Now()
	q.mu.Lock()
	hold, since := q.hold, q.headSince
	behind := false // another waiter of this Locker is ahead: its reads wake us
	for t := range q.waiting {
		behind = behind || t < mine
	}
	q.mu.Unlock()
	floor := max(time.Millisecond, o.PollInterval/50)
	var d time.Duration
	switch {
	case !p.known || p.ahead == 0:
		d = floor
	case hold == 0:
		// No hold known: were each ahead to hold as long as the head has
		// so far, from now.
		d = time.Duration(p.ahead) * max(o.PollInterval, now.Sub(since))
		if behind {
			d = max(d, 4*o.PollInterval)
		}
	default:
		per := handOver(hold)
		others := time.Duration(p.ahead-1) * per
		turn := since.Add(others + per)
		if later := now.Add(others); later.After(turn) {
			turn = later
		}
		late := hold / 8 << min(max(misses-2, 0), 16)
		d = max(turn.Sub(now), late) // (a jittered pause may wake just before the turn: no read for the rest)
		if behind {
			d = max(d, 4*o.PollInterval)
		}
	}
	if !p.due.IsZero() && p.due.Sub(now) < d {
		d = p.due.Sub(now)
	}
	d = min(max(d, floor), o.LeaseDuration)
	return d - d/10 + rand.N(d/5+1) // ±10%, so that waiters do not wake in step
}

// handOver is how often the head changes when each holds for hold: the
// hold, and the next one's delay in noticing that its turn came (it reads
// every eighth of a hold once its turn is due: half that on average).
func handOver(hold time.Duration) time.Duration { return hold + hold/16 }

// queueRecord is where the lease of the waiter with entry id lives: its
// entry in the queue of the lock called name.
func (l *Locker) queueRecord(name, id string, q *fifoQueue) *record {
	return &record{
		client: l.client, table: l.tableP, key: l.key(name, lockSK),
		names:    map[string]string{"#qw": attrQueueEntries, "#id": id, "#eo": entryOwner, "#er": entryRvn},
		ownerRef: "#qw.#id.#eo", rvnRef: "#qw.#id.#er", ttl: true,
		remove:      "REMOVE #qw.#id, #qt.#id SET #t = :t",
		removeNames: map[string]string{"#qt": attrQueueTickets, "#t": attrTTL},
		parse: func(item map[string]types.AttributeValue) holder {
			ticket, _ := attrs.Int64(mapValue(item, attrQueueTickets, id))
			return entryHolder(mapValue(item, attrQueueEntries, id), ticket)
		},
		released: q.published,
		holds:    true,
	}
}

func mapValue(item map[string]types.AttributeValue, attr, key string) types.AttributeValue {
	if m, ok := item[attr].(*types.AttributeValueMemberM); ok {
		return m.Value[key]
	}
	return nil
}

// acquireFIFO joins the queue, then waits until no live entry is ahead of
// its own: then it holds the lock. The lease lives in its entry, whose
// heartbeats start at once, so that a long wait does not make the waiter
// look abandoned to those behind it.
func (l *Locker) acquireFIFO(ctx context.Context, name string, parent context.Context, o Options) (*Lease, error) {
	q := l.memory.queue(name, o.Clock)
	defer l.memory.done(q)
	noWait := o.NoWait()
	if noWait {
		// Look before joining: a held lock is refused with nothing written.
		// (Entries this Locker saw unchanged for a lease, in earlier calls,
		// are removed as abandoned.)
		for try := 1; ; try++ {
			if err := l.readQueue(ctx, name, q); err != nil {
				return nil, err
			}
			p := q.look(0)
			if p.first != nil {
				return nil, &NotAcquiredError{Name: name, Owner: p.first.owner, Token: p.first.token, Queued: p.ahead}
			}
			if len(p.abandoned) == 0 {
				break
			}
			if !tries.More(try) {
				return nil, &NotAcquiredError{Name: name, Owner: p.abandoned[0].owner, Token: p.abandoned[0].token, Queued: len(p.abandoned)}
			}
			if err := l.removeAbandoned(ctx, name, q, p.abandoned); err != nil {
				return nil, err
			}
		}
	}
	wait, bounded := o.Bounded()
	var deadline time.Time
	if bounded {
		deadline = o.Clock.Now().Add(wait)
	}
	lease, ticket, err := l.join(ctx, name, parent, o, q)
	if err != nil {
		return nil, err
	}
	joined := o.Clock.Now()
	q.enter(ticket)
	defer q.leave(ticket)
	misses, lastHead, looks := 0, int64(0), 0
	var pred *entry // the entry last seen just ahead: the one whose turn ends before ours
	giveUp := func(err error) (*Lease, error) {
		if errors.Is(lease.Err(), ErrClosed) {
			return nil, err // like a crash: the entry stays until it is seen abandoned
		}
		return nil, errors.Join(err, ignoreNotHeld(lease.releaseDetached(ctx)))
	}
	for {
		looks++
		p := q.look(ticket)
		if p.before != nil {
			pred = p.before
		}
		switch {
		case lease.Err() != nil:
			return giveUp(fmt.Errorf("pessimistic: acquire %q: lost our place in the queue: %w", name, lease.Err()))
		case !p.known && !p.sent.Before(joined):
			// Read after the join landed, without our entry: it was removed
			// as abandoned (this process paused for a lease, say).
			return giveUp(fmt.Errorf("pessimistic: acquire %q: lost our place in the queue: %w", name, ErrLeaseLost))
		case p.known && p.ahead == 0 && len(p.abandoned) == 0:
			var prev *holder
			if pred != nil && p.gone.token == pred.token { // it was removed, not released
				prev = &holder{owner: pred.owner, token: pred.token}
			}
			lease.headAt = o.Clock.Now()
			lease.observeHeld(ctx, "Acquire", looks, prev)
			return lease, nil // at the head of the queue
		case len(p.abandoned) > 0 && q.startRemoving():
			err := l.removeAbandoned(ctx, name, q, p.abandoned)
			q.stopRemoving()
			if err != nil {
				return giveUp(err)
			}
			continue
		}
		locked := func() error {
			le := &NotAcquiredError{Name: name, Queued: p.ahead}
			if p.first != nil {
				le.Owner, le.Token = p.first.owner, p.first.token
			}
			return le
		}
		if noWait {
			return giveUp(locked())
		}
		d := q.pause(p, ticket, misses, o)
		if bounded {
			left := deadline.Sub(o.Clock.Now())
			if left <= 0 {
				return giveUp(locked())
			}
			d = min(d, left)
		}
		polled, err := q.sleep(ctx, d, p.news)
		if err != nil {
			return giveUp(fmt.Errorf("pessimistic: acquire %q: %w", name, err))
		}
		if polled {
			if err := l.readQueue(ctx, name, q); err != nil {
				return giveUp(err)
			}
			if head := q.headTicket(); head != lastHead {
				misses, lastHead = 0, head
			} else {
				misses++
			}
		}
	}
}

// sleep waits for d on the queue's clock, or until a new snapshot arrives
// (then it returns false: no need to read), or until ctx ends.
func (q *fifoQueue) sleep(ctx context.Context, d time.Duration, news <-chan struct{}) (bool, error) {
	sctx, cancel := context.WithCancel(ctx)
	defer cancel()
	woken := make(chan struct{})
	go func() {
		select {
		case <-news:
			close(woken)
			cancel()
		case <-sctx.Done():
		}
	}()
	err := q.clock.Sleep(sctx, d)
	select {
	case <-woken:
		return false, nil
	default:
	}
	if err != nil {
		return false, ctx.Err()
	}
	return true, nil
}

func (q *fifoQueue) headTicket() int64 {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.head
}

// enter and leave keep the tickets of this Locker's waiters. Leaving wakes
// the others: the one behind may be the first of them now.
func (q *fifoQueue) enter(ticket int64) {
	q.mu.Lock()
	q.waiting[ticket] = true
	q.mu.Unlock()
}

func (q *fifoQueue) leave(ticket int64) {
	q.mu.Lock()
	defer q.mu.Unlock()
	delete(q.waiting, ticket)
	close(q.news)
	q.news = make(chan struct{})
}

func (q *fifoQueue) startRemoving() bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.removing {
		return false
	}
	q.removing = true
	return true
}

func (q *fifoQueue) stopRemoving() {
	q.mu.Lock()
	q.removing = false
	q.mu.Unlock()
}

func ignoreNotHeld(err error) error {
	if errors.Is(err, ErrNotHeld) {
		return nil
	}
	return err
}

// readQueue reads the lock's record (consistently) into q.
func (l *Locker) readQueue(ctx context.Context, name string, q *fifoQueue) error {
	sent := q.clock.Now()
	out, err := l.client.GetItem(ctx, &dynamodb.GetItemInput{TableName: l.tableP, Key: l.key(name, lockSK), ConsistentRead: aws.Bool(true)})
	if err != nil {
		return fmt.Errorf("pessimistic: acquire %q: reading the queue: %w", name, err)
	}
	q.publish(out.Item, sent)
	return nil
}

// join puts a new entry at the end of the queue with one UpdateItem, and
// returns its lease and ticket. The write is conditioned on the entry's id
// being new, so a resend after a lost response can never queue the waiter
// twice: the resend fails its condition and the item it returns, like a
// read after a lost answer, shows the entry as ours (see claim). The first
// join on a lock that has never had a queue finds no maps to write into:
// it creates them (one idempotent UpdateItem) and joins again.
func (l *Locker) join(ctx context.Context, name string, parent context.Context, o Options, q *fifoQueue) (*Lease, int64, error) {
	maxQueue := MaxQueue
	if o.maxQueue > 0 {
		maxQueue = o.maxQueue
	}
	for try := 1; ; try++ {
		id, rvn := newRvn()+newRvn(), newRvn()
		rec := l.queueRecord(name, id, q)
		names := map[string]string{"#f": attrFence, "#qt": attrQueueTickets, "#qw": attrQueueEntries, "#id": id, "#t": attrTTL}
		e := map[string]types.AttributeValue{
			entryOwner: attrs.S(o.Owner), entryRvn: attrs.S(rvn), entryLease: attrs.N(o.LeaseDuration.Milliseconds()),
		}
		if o.Data != nil {
			e[entryData] = &types.AttributeValueMemberB{Value: o.Data}
		}
		sent := o.Clock.Now()
		res, err := claim(ctx, l.client, &dynamodb.UpdateItemInput{
			TableName: l.tableP,
			Key:       rec.key,
			// The counter starts from the wall clock in milliseconds, as
			// the lease lock's does (see tryAcquire).
			UpdateExpression:         aws.String("SET #f = if_not_exists(#f, :base) + :one, #qt.#id = if_not_exists(#f, :base) + :one, #qw.#id = :e, #t = :t"),
			ConditionExpression:      aws.String("attribute_exists(#qt) AND attribute_not_exists(#qt.#id) AND size(#qt) < :max"),
			ExpressionAttributeNames: names,
			ExpressionAttributeValues: map[string]types.AttributeValue{
				":base": attrs.N(time.Now().UnixMilli()), ":one": attrs.N(1), ":max": attrs.N(int64(maxQueue)), ":t": o.ttlValue(),
				":e": &types.AttributeValueMemberM{Value: e},
			},
		}, rec.read, func(item map[string]types.AttributeValue) bool {
			h := rec.parse(item)
			return h.owner == o.Owner && h.rvn == rvn
		})
		switch {
		case tooLarge(err):
			return nil, 0, fmt.Errorf("%w: %q: the queue's item would pass DynamoDB's 400 KB limit: %w", ErrQueueFull, name, err)
		case err != nil:
			return nil, 0, fmt.Errorf("pessimistic: acquire %q: joining the queue: %w", name, err)
		case res.won:
			q.publish(res.item, sent)
			ticket := rec.parse(res.item).token
			lease, err := l.startLease(rec, name, ticket, rvn, sent, o, parent)
			if err == nil && res.late && ctx.Err() != nil {
				return nil, 0, errors.Join(fmt.Errorf("pessimistic: acquire %q: %w", name, ctx.Err()), lease.releaseDetached(ctx))
			}
			return lease, ticket, err
		}
		tickets, ok := res.item[attrQueueTickets].(*types.AttributeValueMemberM)
		if ok && len(tickets.Value) >= maxQueue {
			q.publish(res.item, sent)
			return nil, 0, fmt.Errorf("%w: %q has %d waiters (at most %d)", ErrQueueFull, name, len(tickets.Value), maxQueue)
		}
		if !tries.More(try) {
			return nil, 0, fmt.Errorf("pessimistic: acquire %q: joining the queue: refused %d times", name, try)
		}
		if !ok {
			// No queue yet: create its maps, whoever else does too.
			_, err := l.client.UpdateItem(ctx, &dynamodb.UpdateItemInput{
				TableName:                l.tableP,
				Key:                      rec.key,
				UpdateExpression:         aws.String("SET #qt = if_not_exists(#qt, :m), #qw = if_not_exists(#qw, :m), #t = :t"),
				ExpressionAttributeNames: map[string]string{"#qt": attrQueueTickets, "#qw": attrQueueEntries, "#t": attrTTL},
				ExpressionAttributeValues: map[string]types.AttributeValue{
					":m": &types.AttributeValueMemberM{Value: map[string]types.AttributeValue{}}, ":t": o.ttlValue(),
				},
			})
			if err != nil {
				return nil, 0, fmt.Errorf("pessimistic: acquire %q: creating the queue: %w", name, err)
			}
		}
		// (Otherwise the random id was taken: join again with another.)
	}
}

// tooLarge reports whether err is DynamoDB's refusal of an item over 400 KB.
func tooLarge(err error) bool {
	var ae smithy.APIError
	return errors.As(err, &ae) && ae.ErrorCode() == "ValidationException" &&
		strings.Contains(strings.ToLower(ae.ErrorMessage()), "size")
}

// removeAbandoned removes entries seen unchanged for their lease, each on
// the condition that it still holds the record version seen, in batches of
// one UpdateItem. If any was renewed after all (or is gone), the item the
// failed condition returns is the new snapshot, and the waiters look again.
func (l *Locker) removeAbandoned(ctx context.Context, name string, q *fifoQueue, abandoned []entry) error {
	batch := abandoned[:min(len(abandoned), removeBatch)]
	last := batch[len(batch)-1] // the highest ticket: the one whose turn was last
	names := map[string]string{"#qt": attrQueueTickets, "#qw": attrQueueEntries, "#er": entryRvn, "#go": attrGoneOwner, "#gt": attrGoneToken}
	values := map[string]types.AttributeValue{":go": attrs.S(last.owner), ":gt": attrs.N(last.token)}
	var remove, cond []string
	for i, e := range batch {
		id := fmt.Sprintf("#i%d", i)
		names[id] = e.id
		values[fmt.Sprintf(":r%d", i)] = attrs.S(e.rvn)
		remove = append(remove, "#qt."+id, "#qw."+id)
		cond = append(cond, fmt.Sprintf("#qw.%s.#er = :r%d", id, i))
	}
	sent := q.clock.Now()
	out, err := l.client.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName:                           l.tableP,
		Key:                                 l.key(name, lockSK),
		UpdateExpression:                    aws.String("REMOVE " + strings.Join(remove, ", ") + " SET #go = :go, #gt = :gt"),
		ConditionExpression:                 aws.String(strings.Join(cond, " AND ")),
		ExpressionAttributeNames:            names,
		ExpressionAttributeValues:           values,
		ReturnValues:                        types.ReturnValueAllNew,
		ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld,
	})
	switch {
	case err == nil:
		q.published(out.Attributes, sent)
		return nil
	case isConditionFailed(err):
		q.publish(conditionItem(err), sent)
		return nil
	}
	return fmt.Errorf("pessimistic: acquire %q: removing %d abandoned queue entries (first %s's): %w", name, len(batch), batch[0].owner, err)
}
