package pessimistic

import (
	"context"
	"errors"
	"fmt"
	"time"
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
	// The pace of the queue, for the waiters to time their reads by: a
	// moving average of how long a turn takes (µs; each release adds its
	// hold and its round trip, measured on its own clock), and of the
	// distance of a turn from it.
	attrPace    = "paceUs"
	attrPaceDev = "paceDevUs"
	attrPaceN   = "paceN" // how many releases it counts, up to 16
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

// acquireFIFO joins the queue, then waits until no live entry is ahead of
// its own: then it holds the lock. The lease lives in its entry, whose
// heartbeats start at once, so that a long wait does not make the waiter
// look abandoned to those behind it.
func (l *Locker) acquireFIFO(ctx context.Context, name string, parent context.Context, o Options) (*Lease, error) {
	q := l.memory.queue(name)
	defer l.memory.done(q)
	noWait := o.NoWait()
	if noWait {
		if err := l.lookBeforeJoin(ctx, name, q); err != nil {
			return nil, err
		}
	}
	wait, bounded := o.Bounded()
	var deadline time.Time
	if bounded {
		deadline = time.Now().Add(wait)
	}
	lease, ticket, err := l.join(ctx, name, parent, o, q)
	if err != nil {
		return nil, err
	}
	joined := time.Now()
	q.enter(ticket)
	defer q.leave(ticket)
	w := &fifoWait{l: l, name: name, q: q, ticket: ticket, lease: lease, o: o,
		noWait: noWait, bounded: bounded, deadline: deadline, joined: joined}
	return w.await(ctx)
}

// fifoWait is one acquisition's wait in its queue, from its join until its
// entry is at the head or it gives up.
type fifoWait struct {
	l       *Locker
	name    string
	q       *fifoQueue
	ticket  int64
	lease   *Lease
	o       Options
	noWait  bool
	bounded bool
	// deadline is when a bounded wait ends; joined, when the join returned.
	deadline, joined time.Time
}

// await looks at the queue until the entry is at its head (returning the
// lease), removing abandoned entries ahead and waiting for turns between
// looks, or gives up its place.
func (w *fifoWait) await(ctx context.Context) (*Lease, error) {
	misses, lastHead, looks := 0, int64(0), 0
	var pred *entry // the entry last seen just ahead: the one whose turn ends before ours
	for {
		looks++
		p := w.q.look(w.ticket)
		if p.before != nil {
			pred = p.before
		}
		switch {
		case w.lease.Err() != nil:
			return w.giveUp(ctx, fmt.Errorf("pessimistic: acquire %q: lost our place in the queue: %w", w.name, w.lease.Err()))
		case !p.known && p.sent.After(w.joined):
			// Read after the join landed, without our entry: it was removed
			// as abandoned (this process paused for a lease, say). Strictly
			// after: a read sent at the very time the join returned may
			// have been served before the join landed, when the clock did
			// not move between them (a coarse clock, or a test's virtual
			// one).
			return w.giveUp(ctx, fmt.Errorf("pessimistic: acquire %q: lost our place in the queue: %w", w.name, ErrLeaseLost))
		case p.known && p.ahead == 0 && len(p.abandoned) == 0:
			var prev *holder
			if pred != nil && p.gone.token == pred.token { // it was removed, not released
				prev = &holder{owner: pred.owner, token: pred.token}
			}
			w.lease.headAt = time.Now()
			w.lease.pace, w.lease.paceDev, w.lease.paceN, w.lease.rtt = w.q.paceNow()
			w.q.turnCame(w.ticket)
			w.lease.observeHeld(ctx, "Acquire", looks, prev)
			return w.lease, nil // at the head of the queue
		case len(p.abandoned) > 0 && w.q.startRemoving():
			err := w.l.removeAbandoned(ctx, w.name, w.q, p.abandoned)
			w.q.stopRemoving()
			if err != nil {
				return w.giveUp(ctx, err)
			}
			continue
		}
		if w.noWait {
			return w.giveUp(ctx, w.notAcquired(p))
		}
		d := w.q.pause(p, w.ticket, misses, w.o)
		if w.bounded {
			left := time.Until(w.deadline)
			if left <= 0 {
				return w.giveUp(ctx, w.notAcquired(p))
			}
			d = min(d, left)
		}
		if err := w.l.waitTurn(ctx, w.name, w.q, d, p.news, &misses, &lastHead); err != nil {
			return w.giveUp(ctx, err)
		}
	}
}

// giveUp returns err after releasing the entry, joined with any error of
// the release.
func (w *fifoWait) giveUp(ctx context.Context, err error) (*Lease, error) {
	if errors.Is(w.lease.Err(), ErrClosed) {
		return nil, err // like a crash: the entry stays until it is seen abandoned
	}
	return nil, errors.Join(err, ignoreNotHeld(w.lease.releaseDetached(ctx)))
}

// notAcquired is the error of a wait that ends with entries ahead, as the
// look p saw them.
func (w *fifoWait) notAcquired(p place) error {
	le := &NotAcquiredError{Name: w.name, Queued: p.ahead}
	if p.first != nil {
		le.Owner, le.Token = p.first.owner, p.first.token
	}
	return le
}

// waitTurn is a FIFO waiter's pause between looks: it sleeps for d, or
// until another waiter's read brings news; if it slept the whole pause, it
// reads the queue itself, and counts the reads that found the same head
// (misses), which lengthen its next pause.
func (l *Locker) waitTurn(ctx context.Context, name string, q *fifoQueue, d time.Duration, news <-chan struct{}, misses *int, lastHead *int64) error {
	polled, err := q.sleep(ctx, d, news)
	if err != nil {
		return fmt.Errorf("pessimistic: acquire %q: %w", name, err)
	}
	if !polled {
		return nil
	}
	if err := l.readQueue(ctx, name, q); err != nil {
		return err
	}
	if head := q.headTicket(); head != *lastHead {
		*misses, *lastHead = 0, head
	} else {
		*misses++
	}
	return nil
}

// lookBeforeJoin is the first step of a FIFO Acquire with Wait(0): a held
// lock is refused with nothing written. (Entries this Locker saw unchanged
// for a lease, in earlier calls, are removed as abandoned.)
func (l *Locker) lookBeforeJoin(ctx context.Context, name string, q *fifoQueue) error {
	for try := 1; ; try++ {
		if err := l.readQueue(ctx, name, q); err != nil {
			return err
		}
		p := q.look(0)
		if p.first != nil {
			return &NotAcquiredError{Name: name, Owner: p.first.owner, Token: p.first.token, Queued: p.ahead}
		}
		if len(p.abandoned) == 0 {
			return nil
		}
		if !tries.More(try) {
			return &NotAcquiredError{Name: name, Owner: p.abandoned[0].owner, Token: p.abandoned[0].token, Queued: len(p.abandoned)}
		}
		if err := l.removeAbandoned(ctx, name, q, p.abandoned); err != nil {
			return err
		}
	}
}

// ignoreNotHeld drops ErrNotHeld: a release that found the entry gone already.
func ignoreNotHeld(err error) error {
	if errors.Is(err, ErrNotHeld) {
		return nil
	}
	return err
}
