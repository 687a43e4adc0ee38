package pessimistic

import (
	"context"
	"slices"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/optimist-dynamo/optimist/internal/attrs"
	"github.com/optimist-dynamo/optimist/internal/retry"
	"github.com/optimist-dynamo/optimist/internal/simhook"
)

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
	users int // guarded by memory.mu

	mu        sync.Mutex
	entries   []entry   // the last snapshot, in ticket order
	sent      time.Time // when the call that brought it was sent
	at        time.Time // when it arrived
	news      chan struct{}
	obs       map[string]observed // entry id → its record version, and since when
	head      int64               // the head's ticket, as last seen
	headSince time.Time           // when that head's turn began, as well as can be told
	hold      time.Duration       // how long a turn takes: the record's pace, or a moving average of the changes of the head seen (0: not known yet)
	removing  bool                // a waiter is removing abandoned entries
	waiting   map[int64]bool      // the tickets of this Locker's waiters
	gone      holder              // the last entry removed without releasing, as the record says
	spread    time.Duration       // how far a turn is from hold, on average
	rtt       time.Duration       // the round trip of this Locker's calls to the queue, a moving average
	plans     map[int64]time.Time // ticket → when its waiter planned its next read
	paceN     int64               // how many releases the record's pace counts (hold and spread are the record's pace when set)
	// When the turn of this Locker's last waiter to reach the head came
	// (its read as planned, or the grant if sooner), and its ticket.
	lastTurn   time.Time
	lastTicket int64
}

func newFIFOQueue() *fifoQueue {
	return &fifoQueue{news: make(chan struct{}), obs: map[string]observed{}, waiting: map[int64]bool{}, plans: map[int64]time.Time{}}
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
	now := time.Now()
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
	if rtt := now.Sub(sent); rtt >= 0 {
		q.rtt = nextRTT(q.rtt, rtt)
	}
	q.observe(es, now)
	// The pace the releases keep in the record: every waiter of every
	// Locker times its reads by the same figures.
	paceUs, _ := attrs.Int64(item[attrPace])
	devUs, _ := attrs.Int64(item[attrPaceDev])
	recorded := paceUs > 0
	if recorded {
		q.hold, q.spread = time.Duration(paceUs)*time.Microsecond, time.Duration(devUs)*time.Microsecond
		q.paceN, _ = attrs.Int64(item[attrPaceN])
	}
	if !moved && q.head != 0 && len(es) > 0 && es[0].token > q.head {
		// served heads changed since the old head's turn began, at about
		// even intervals: the last one half an interval ago on average, a
		// better guess than the midpoint since the last snapshot when
		// reads are far apart (as they are, about one per hand-over).
		served := time.Duration(es[0].token - q.head)
		interval := now.Sub(q.headSince) * 2 / (2*served + 1)
		if guess := now.Add(-interval / 2); guess.After(lower) {
			changed = guess
		}
	}
	if !recorded && len(es) > 0 && q.head != 0 && es[0].token > q.head {
		// Tickets are handed out one by one, so every ticket between
		// the old head and the new one was served (or given up) since
		// the old head was first seen.
		served := es[0].token - q.head
		sample := max(changed.Sub(q.headSince), 0) / time.Duration(served)
		q.hold, q.spread = nextHold(q.hold, q.spread, sample)
	}
	switch {
	case len(es) == 0:
		q.head, q.headSince = 0, changed
	case es[0].token > q.head:
		q.head, q.headSince = es[0].token, changed
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

// observe notes each entry's record version, from now if it is new: the
// observation starts when the answer arrives, since it was written no
// later than that (q.mu held).
func (q *fifoQueue) observe(es []entry, now time.Time) {
	present := make(map[string]bool, len(es))
	for _, e := range es {
		present[e.id] = true
		if ob, ok := q.obs[e.id]; !ok || ob.rvn != e.rvn {
			q.obs[e.id] = observed{rvn: e.rvn, since: now, lease: e.lease}
		}
	}
	for id := range q.obs {
		if !present[id] {
			delete(q.obs, id)
		}
	}
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
	now := time.Now()
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

// paceNow returns the queue's pace as last read, and the round trip.
func (q *fifoQueue) paceNow() (pace, dev time.Duration, n int64, rtt time.Duration) {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.hold, q.spread, q.paceN, q.rtt
}

func (q *fifoQueue) plan(ticket int64, at time.Time) {
	q.mu.Lock()
	q.plans[ticket] = at
	q.mu.Unlock()
}

// turnCame notes that the waiter with ticket is at the head now: its turn
// came when it planned to read, or now if sooner.
func (q *fifoQueue) turnCame(ticket int64) {
	now := time.Now()
	q.mu.Lock()
	defer q.mu.Unlock()
	at, ok := q.plans[ticket]
	if !ok || at.After(now) {
		at = now
	}
	if ticket > q.lastTicket {
		q.lastTurn, q.lastTicket = at, ticket
	}
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
	delete(q.plans, ticket)
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

// sleep waits for d, or until a new snapshot arrives
// (then it returns false: no need to read), or until ctx ends.
func (q *fifoQueue) sleep(ctx context.Context, d time.Duration, news <-chan struct{}) (bool, error) {
	sctx, cancel := context.WithCancel(ctx)
	defer cancel()
	woken := make(chan struct{})
	simhook.Go(func() {
		select {
		case <-news:
			close(woken)
			cancel()
		case <-sctx.Done():
		}
	})
	err := retry.Sleep(sctx, d)
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
