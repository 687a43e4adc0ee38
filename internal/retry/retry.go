// Package retry has the one retry policy that optimist's own retry loops
// share (Modify's conflicts, batch calls' unprocessed items, txn.Commit and
// txn.Get's cancellations, a FIFO lock's join): a cap on the tries, and a
// full-jitter exponential backoff between them. The SDK's retries of each
// call (throttling, 5xx, lost connections) are the SDK's own, below these.
package retry

import (
	"context"
	"fmt"
	"time"

	"github.com/optimist-dynamo/optimist/internal/rnd"
	"github.com/optimist-dynamo/optimist/internal/simhook"
)

// Policy is how a loop retries: at most MaxAttempts tries in all, and
// before try n+1, after n failures, a random wait in
// [0, min(Max, Base<<(n-1))) ("full jitter", which keeps retrying writers
// from colliding again in step). A zero Base means no wait: for loops whose
// every try follows a change they saw.
type Policy struct {
	MaxAttempts int
	Base, Max   time.Duration
}

// Check reports a policy that cannot work.
func (p Policy) Check() error {
	switch {
	case p.MaxAttempts < 1:
		return fmt.Errorf("MaxAttempts(%d): need at least 1", p.MaxAttempts)
	case p.Base < 0 || p.Max < p.Base:
		return fmt.Errorf("Backoff(%v, %v): need 0 <= base <= max", p.Base, p.Max)
	}
	return nil
}

// More reports whether another try may follow try n: false once n tries
// have been made of MaxAttempts.
func (p Policy) More(n int) bool { return n < p.MaxAttempts }

// Backoff returns the wait before try n+1, after n failures.
func (p Policy) Backoff(n int) time.Duration { return Backoff(n, p.Base, p.Max) }

// Wait sleeps Backoff(n), or until ctx ends (then it returns ctx's error).
func (p Policy) Wait(ctx context.Context, n int) error { return Sleep(ctx, p.Backoff(n)) }

// Backoff returns the wait before attempt+1, after attempt failures: a
// random duration in [0, min(max, base<<(attempt-1))).
func Backoff(attempt int, base, max time.Duration) time.Duration {
	d := max
	if attempt >= 1 && attempt-1 < 32 && base<<(attempt-1) > 0 && base<<(attempt-1) < max {
		d = base << (attempt - 1)
	}
	if d <= 0 {
		return 0
	}
	return rnd.N(d)
}

// Sleep waits for d, or until ctx ends (then it returns ctx's error).
func Sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	resume := simhook.Pause()
	t := time.NewTimer(d)
	defer t.Stop()
	var err error
	select {
	case <-ctx.Done():
		err = ctx.Err()
	case <-t.C:
	}
	if resume != nil {
		// A simulation: the goroutines that wake at one instant go on one
		// at a time, and ctx is read once it is this one's turn, so that
		// a timer and ctx ending at one instant give one answer, not the
		// select's random one.
		resume()
		err = ctx.Err()
	}
	return err
}
