// Package retry has the backoff that optimist's retry loops share.
package retry

import (
	"context"
	"math/rand/v2"
	"time"
)

// Backoff returns the wait before attempt+1, after attempt failures: a
// random duration in [0, min(max, base<<(attempt-1))) ("full jitter", which
// keeps retrying writers from colliding again in step).
func Backoff(attempt int, base, max time.Duration) time.Duration {
	d := max
	if attempt >= 1 && attempt-1 < 32 && base<<(attempt-1) > 0 && base<<(attempt-1) < max {
		d = base << (attempt - 1)
	}
	if d <= 0 {
		return 0
	}
	return rand.N(d)
}

// Sleep waits for d, or until ctx ends (then it returns ctx's error).
func Sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
