package pessimistic

import (
	"context"
	"time"

	"github.com/optimist-dynamo/optimist/internal/retry"
)

// TimeSource is the lock's source of time. Leases are timed on it: a waiter
// takes a lock over only after seeing its record unchanged for a full lease
// by its Now, and a holder gives its lease up by its own Now; so Now must be
// monotonic (time.Now's reading is). Tests inject a fake one with the
// [Clock] option to run the timing logic deterministically.
type TimeSource interface {
	Now() time.Time
	// Sleep waits for d on this clock, or until ctx ends (returning its
	// error).
	Sleep(ctx context.Context, d time.Duration) error
}

// SystemClock is the real clock, the default.
type SystemClock struct{}

// Now returns time.Now().
func (SystemClock) Now() time.Time { return time.Now() }

// Sleep waits for d or until ctx ends.
func (SystemClock) Sleep(ctx context.Context, d time.Duration) error { return retry.Sleep(ctx, d) }
