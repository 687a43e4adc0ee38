package pessimistic

import (
	"time"

	"github.com/optimist-dynamo/optimist/internal/rnd"
)

// nextHold folds a new sample of the holders' holds into the estimate, a
// moving average of the hold and of its spread (the mean distance of a
// sample from the average). It serves only a queue whose record has no
// pace yet (see nextPace): the samples are then the time between changes
// of the head, as this Locker saw them.
func nextHold(hold, spread, sample time.Duration) (time.Duration, time.Duration) {
	if hold == 0 {
		return sample, sample / 4
	}
	dev := sample - hold
	if dev < 0 {
		dev = -dev
	}
	return (3*hold + sample) / 4, (3*spread + dev) / 4
}

// pause is how long a waiter, ahead of whom p.ahead live entries stand,
// sleeps before reading the queue again: about once per turn ahead of it,
// so that its one read finds it at the head. A turn (see handOver) is the
// queue's pace, which the releases keep in the record, and a margin; its
// turn is due when the current head, whose turn began at headSince, has
// had its turn and each of the p.ahead-1 others after it too, or by the
// schedule (see turnDue). It reads a little after that, never before. A
// waiter further back whose turn has passed, the head being slow, reads
// again when it could be next at the earliest: were the head to change
// now, after p.ahead-1 turns. The next in line, late, reads after a step
// (the spread of the turns, at least an eighth of a turn, a round trip and
// a twentieth of PollInterval), and each read that saw the same head
// doubles the next pause, so that a slow holder does not make it spin,
// but never past half of what the head has held so far. Until a pace is
// known (no release recorded, no change of the head seen), each of those
// ahead is taken to hold as long again as the head has held so far (at
// least PollInterval), from now: the reads come at doubling intervals. A
// waiter behind another waiter of its Locker reads on its own at most
// every four PollIntervals: that one's reads wake it.
//
// Whatever the estimate, a waiter reads again when an entry ahead could
// first be seen abandoned (a lease after its record version was first
// seen), so that a dead head is taken over about a lease after its last
// heartbeat; and no pause is longer than the waiter's own lease.
func (q *fifoQueue) pause(p place, mine int64, misses int, o Options) time.Duration {
	now := time.Now()
	q.mu.Lock()
	floor := max(time.Millisecond, o.PollInterval/20)
	hold, since, step := q.hold, q.headSince, q.step(floor)
	turn := q.turnDue(p.ahead, mine, floor)
	behind := false // another waiter of this Locker is ahead: its reads wake us
	for t := range q.waiting {
		behind = behind || t < mine
	}
	q.mu.Unlock()
	var d time.Duration
	switch {
	case !p.known || p.ahead == 0:
		d = floor
	case hold == 0:
		// No hold known: were each ahead to hold as long as the head has
		// so far, from now.
		d = time.Duration(p.ahead) * max(o.PollInterval, now.Sub(since))
	default:
		// Late: reads after a step, then at doubling intervals, but never
		// longer than half the time the head has held: a waiter that
		// slept long behind a slow head would, once the head went, keep
		// everyone behind it waiting as long.
		late := min(step<<min(misses, 16), max(step, now.Sub(since)/2))
		d = max(turn.Sub(now), late)
	}
	if behind && p.known && p.ahead > 0 {
		d = max(d, 4*o.PollInterval)
	}
	d = min(max(d, floor), o.LeaseDuration)
	q.plan(mine, now.Add(d))
	// Jitter, so that waiters do not wake in step: ±10% before a pace is
	// known; after, only later, by up to half a step (a read a little
	// late costs the next holder that much of its wait, one early costs a
	// call), since waiters at different places wake apart anyway.
	if j := d / 10; hold > 0 {
		d += rnd.N(min(j, step/2) + 1)
	} else {
		d = d - j + rnd.N(2*j+1)
	}
	// The jitter never carries a pause past the lease, nor past the moment
	// an entry ahead may be seen abandoned: the takeover bound in the
	// package doc counts on both.
	d = min(d, o.LeaseDuration)
	if !p.due.IsZero() && p.due.Sub(now) < d {
		d = max(p.due.Sub(now), 0)
	}
	return d
}

// turnDue is when the turn of the waiter with ticket mine, ahead of which
// ahead live entries stand, is due (q.mu held; zero with no pace known).
// From the head: after the head's turn, which began at headSince, and
// ahead-1 more. But the head's start is known only as well as the
// snapshots tell it (a waiter that just released takes its own release
// for it, while the next one reads a margin later), and each holder's
// deviation from the pace would move the turns behind it, for good: in a
// queue that never empties, the gaps between the waiters' turns wander
// until some come too close and reads find the head still there. So a
// waiter of a Locker whose last waiter's turn came at lastTurn (as
// planned, if its read found it at the head) keeps to that schedule: its
// turn is due a turn per ticket after it, unless the head's estimate is
// more than two turns away, when the schedule is taken for stale (the
// queue emptied, or moved at another pace, since).
func (q *fifoQueue) turnDue(ahead int, mine int64, floor time.Duration) time.Time {
	if q.hold == 0 || ahead <= 0 {
		return time.Time{}
	}
	per := q.handOver(floor)
	others := time.Duration(ahead-1) * per
	turn := q.headSince.Add(others + per)
	if q.lastTicket > 0 && mine > q.lastTicket {
		sched := q.lastTurn.Add(time.Duration(mine-q.lastTicket) * per)
		if sched.After(turn.Add(-2*per)) && sched.Before(turn.Add(2*per)) {
			turn = sched
		}
	}
	if later := time.Now().Add(others); later.After(turn) {
		turn = later
	}
	return turn
}

// handOver is how long a turn is expected to take (q.mu held): the pace,
// which counts the holder's hold and a round trip (its read's way back and
// its release's way to DynamoDB), and a margin of two steps, so that the
// next one reads a little late rather than early: a read that finds the
// head still there costs a call, and a turn that runs late delays every
// turn behind it. Every Locker reads the same pace from the record and
// computes the same turn, so that waiters of different Lockers keep the
// same schedule (their own round trips and delays in waking differ, and
// a waiter seven places back multiplies any difference by seven).
func (q *fifoQueue) handOver(floor time.Duration) time.Duration {
	return q.hold + 2*max(q.spread, q.hold/8, floor)
}

// step is the next in line's pause once its turn is due (each read that
// finds the head still there doubles it): the spread of the turns, at
// least an eighth of a turn, a round trip and floor (a twentieth of
// PollInterval: reading more often than that, when holds are as short as
// a few calls, made reads, not hand-overs, most of the calls) (q.mu held).
func (q *fifoQueue) step(floor time.Duration) time.Duration {
	return max(q.spread, q.hold/8, q.rtt, floor)
}

// nextPace folds the turn of the n-th release into the queue's pace: the
// mean of the turns so far up to the sixteenth, then a slow moving
// average. A turn counts for at most twice the pace and four spreads in
// the mean, and half a pace or four spreads beyond it in the moving
// average: every waiter times its read by the pace it last read, times
// its place, so a pace that moves fast, or jumps with one stalled holder,
// moves the reads of waiters that read it a few releases apart by
// different amounts. (A lock's first turns, a fresh lock's, can be far
// from its usual ones: the cap in the mean lets the pace double per turn.)
func nextPace(pace, dev, sample time.Duration, n int64) (time.Duration, time.Duration) {
	w := time.Duration(min(max(n, 1), 16))
	switch {
	case w == 1:
		return sample, sample / 4
	case w < 16:
		sample = min(sample, 2*pace+4*dev)
	default:
		sample = min(sample, pace+max(4*dev, pace/2))
	}
	d := sample - pace
	if d < 0 {
		d = -d
	}
	return ((w-1)*pace + sample) / w, ((w-1)*dev + d) / w
}

// nextRTT folds a round trip into the moving average.
func nextRTT(avg, sample time.Duration) time.Duration {
	if avg == 0 {
		return sample
	}
	return (7*avg + sample) / 8
}
