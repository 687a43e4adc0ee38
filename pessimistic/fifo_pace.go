package pessimistic

import (
	"time"

	"github.com/optimist-dynamo/optimist/internal/rnd"
)

// nextHold folds a new sample of the holders' holds into the estimate, a
// moving average of the hold and of its spread (the mean distance of a
// sample from the average): waiters read when their turn is due on
// average, and the next in line, if the head is late, reads again every
// spread, so that a read finds the head gone about as often as not.
// (Reading by a low estimate instead, early, cost a read more per waiter
// in every turn when the holds varied.)
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
// sleeps before reading the queue again: about once per hand-over ahead of
// it. A hand-over takes a hold (the releasers' own measure, which each
// leaves in the record) and the time the next one takes to notice (see
// handOver). Its turn is expected when the current head, whose turn began
// at headSince, has had its hand-over and each of the p.ahead-1 others
// after it too: it reads then, the one read that finds it at the head if
// the estimate was right. A waiter further back whose expected turn has
// passed, the head being slow, reads again when it could be next at the
// earliest: were the head to change now, after p.ahead-1 hand-overs. The
// next in line, late, reads after a step (the spread of the holds, at
// least an eighth of a hold, a round trip and a twentieth of
// PollInterval), and each read that saw the same head doubles the next
// pause, so that a slow holder does not make it spin, but never past half
// of what the head has held so far. Until a hold is known (no release seen, none recorded), each of
// those ahead is taken to hold as long again as the head has held so far
// (at least PollInterval), from now: the reads come at doubling
// intervals. A waiter behind another waiter of its Locker reads on its
// own at most every four PollIntervals: that one's reads wake it.
//
// Whatever the estimate, a waiter reads again when an entry ahead could
// first be seen abandoned (a lease after its record version was first
// seen), so that a dead head is taken over about a lease after its last
// heartbeat; and no pause is longer than the waiter's own lease.
//
// Reading by a low estimate of the hold alone (as first built) made
// waiters read early, two to three times per turn when holds were as
// short as a few calls: the round trips and the next one's delay in
// noticing are a large part of a short hand-over (BenchmarkLockContenders
// and TestFIFOCallsPerAcquisition; bench/README.md has the figures).
func (q *fifoQueue) pause(p place, mine int64, misses int, o Options) time.Duration {
	now := time.Now()
	q.mu.Lock()
	floor := max(time.Millisecond, o.PollInterval/20)
	hold, since, step := q.hold, q.headSince, q.step(floor)
	per := q.handOver(floor)
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
		if behind {
			d = max(d, 4*o.PollInterval)
		}
	default:
		others := time.Duration(p.ahead-1) * per
		turn := since.Add(others + per)
		if later := now.Add(others); later.After(turn) {
			turn = later
		}
		// Late: reads after a step, then at doubling intervals, but never
		// longer than half the time the head has held: a waiter that
		// slept long behind a slow head would, once the head went, keep
		// everyone behind it waiting as long.
		late := min(step<<min(misses, 16), max(step, now.Sub(since)/2))
		d = max(turn.Sub(now), late) // (a jittered pause may wake just before the turn: no read for the rest)
		if behind {
			d = max(d, 4*o.PollInterval)
		}
	}
	d = min(max(d, floor), o.LeaseDuration)
	// ±10%, so that waiters do not wake in step; with a hold known, at
	// most half a step: waiters at different places wake apart anyway,
	// and a tenth of a long sleep would be most of a turn.
	j := d / 10
	if hold > 0 {
		j = min(j, step/2)
	}
	d = d - j + rnd.N(2*j+1)
	// The jitter never carries a pause past the lease, nor past the moment
	// an entry ahead may be seen abandoned: the takeover bound in the
	// package doc counts on both.
	d = min(d, o.LeaseDuration)
	if !p.due.IsZero() && p.due.Sub(now) < d {
		d = max(p.due.Sub(now), 0)
	}
	return d
}

// handOver is how long a hand-over takes (q.mu held): the hold; the
// release's way to DynamoDB and the next one's read's way back, a round
// trip in all; the next one's delay in noticing that its turn came (it
// reads every step once its turn is due), with a margin of half a step
// and a round trip, so that it reads a little late rather than early (a
// read that finds the head still there costs a call; one a little late
// costs the next holder that much of its wait); and how much later than
// asked a sleeping waiter wakes on this machine.
func (q *fifoQueue) handOver(floor time.Duration) time.Duration {
	return q.hold + 2*q.rtt + q.step(floor)*3/2 + q.oversleep
}

// step is the next in line's pause once its turn is due (each read that
// finds the head still there doubles it): the spread of the holds, at
// least an eighth of a hold, a round trip and floor (a twentieth of
// PollInterval: reading more often than that, when holds are as short as
// a few calls, made reads, not hand-overs, most of the calls) (q.mu held).
func (q *fifoQueue) step(floor time.Duration) time.Duration {
	return max(q.spread, q.hold/8, q.rtt, floor)
}

// nextRTT folds a round trip into the moving average.
func nextRTT(avg, sample time.Duration) time.Duration {
	if avg == 0 {
		return sample
	}
	return (7*avg + sample) / 8
}
