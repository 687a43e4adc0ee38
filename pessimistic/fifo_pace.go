package pessimistic

import (
	"time"

	"github.com/optimist-dynamo/optimist/internal/rnd"
)

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
// (BenchmarkContendedSections; bench/README.md has the figures).
func (q *fifoQueue) pause(p place, mine int64, misses int, o Options) time.Duration {
	now := time.Now()
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
	d = min(max(d, floor), o.LeaseDuration)
	d = d - d/10 + rnd.N(d/5+1) // ±10%, so that waiters do not wake in step
	// The jitter never carries a pause past the lease, nor past the moment
	// an entry ahead may be seen abandoned: the takeover bound in the
	// package doc counts on both.
	d = min(d, o.LeaseDuration)
	if !p.due.IsZero() && p.due.Sub(now) < d {
		d = max(p.due.Sub(now), 0)
	}
	return d
}

// handOver is how often the head changes when each holds for hold: the
// hold, and the next one's delay in noticing that its turn came (it reads
// every eighth of a hold once its turn is due: half that on average).
func handOver(hold time.Duration) time.Duration { return hold + hold/16 }
