// Package fakeclock is a clock for tests that moves only when told to, so
// that timing logic (leases, heartbeats, takeovers) runs deterministically.
package fakeclock

import (
	"context"
	"sync"
	"time"
)

// Clock is a manual clock. It implements pessimistic.TimeSource.
type Clock struct {
	mu       sync.Mutex
	now      time.Time
	sleepers map[*sleeper]struct{}
	changed  chan struct{} // closed and replaced whenever sleepers change
}

type sleeper struct {
	until time.Time
	wake  chan struct{}
}

// New returns a clock reading start.
func New(start time.Time) *Clock {
	return &Clock{now: start, sleepers: map[*sleeper]struct{}{}, changed: make(chan struct{})}
}

// Now returns the clock's time.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// Sleep blocks until the clock has been advanced by d, or ctx ends.
func (c *Clock) Sleep(ctx context.Context, d time.Duration) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if d <= 0 {
		return nil
	}
	c.mu.Lock()
	s := &sleeper{until: c.now.Add(d), wake: make(chan struct{})}
	c.sleepers[s] = struct{}{}
	c.notify()
	c.mu.Unlock()
	select {
	case <-s.wake:
		return nil
	case <-ctx.Done():
		c.mu.Lock()
		delete(c.sleepers, s)
		c.notify()
		c.mu.Unlock()
		return ctx.Err()
	}
}

func (c *Clock) notify() {
	close(c.changed)
	c.changed = make(chan struct{})
}

// Advance moves the clock by d and wakes the sleepers whose time came.
func (c *Clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
	for s := range c.sleepers {
		if !s.until.After(c.now) {
			delete(c.sleepers, s)
			close(s.wake)
		}
	}
	c.notify()
}

// Sleepers returns how many goroutines are sleeping on the clock.
func (c *Clock) Sleepers() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.sleepers)
}

// WaitForSleepers blocks until at least n goroutines sleep on the clock, or
// timeout passes (real time); it reports whether they did.
func (c *Clock) WaitForSleepers(n int, timeout time.Duration) bool {
	deadline := time.After(timeout)
	for {
		c.mu.Lock()
		ok, changed := len(c.sleepers) >= n, c.changed
		c.mu.Unlock()
		if ok {
			return true
		}
		select {
		case <-changed:
		case <-deadline:
			return false
		}
	}
}

// NextWake returns the earliest time a sleeper waits for, and false if none
// sleeps.
func (c *Clock) NextWake() (time.Time, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	var first time.Time
	for s := range c.sleepers {
		if first.IsZero() || s.until.Before(first) {
			first = s.until
		}
	}
	return first, !first.IsZero()
}

// Run runs f while advancing the clock to each sleeper's wake time, so
// that f's sleeps take no real time; it returns once f has.
func (c *Clock) Run(f func()) {
	done := make(chan struct{})
	go func() { defer close(done); f() }()
	for {
		select {
		case <-done:
			return
		default:
		}
		if c.WaitForSleepers(1, 10*time.Millisecond) {
			if next, ok := c.NextWake(); ok {
				c.Advance(next.Sub(c.Now()))
			}
		}
	}
}
