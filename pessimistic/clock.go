package pessimistic

import "github.com/optimist-dynamo/optimist/internal/lease"

// TimeSource is the lock's source of time, with two methods:
//
//	Now() time.Time
//	Sleep(ctx context.Context, d time.Duration) error // waits for d on this clock, or until ctx ends (returning its error)
//
// Leases are timed on it: a waiter takes a lock over only after seeing its
// record unchanged for a full lease by its Now, and a holder gives its lease
// up by its own Now; so Now must be monotonic (time.Now's reading is). Tests
// inject a fake one with the [Clock] option to run the timing logic
// deterministically. It is the same type as unit.TimeSource.
type TimeSource = lease.Clock

// SystemClock is the real clock, the default: Now returns time.Now(), Sleep
// waits for d or until ctx ends.
type SystemClock = lease.SystemClock
