package mapper_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/optimist-dynamo/optimist/internal/fakeclock"
	"github.com/optimist-dynamo/optimist/mapper"
)

// recordingClock is a fake clock that records the sleeps asked of it.
type recordingClock struct {
	*fakeclock.Clock
	mu     sync.Mutex
	sleeps []time.Duration
}

func (c *recordingClock) Sleep(ctx context.Context, d time.Duration) error {
	c.mu.Lock()
	c.sleeps = append(c.sleeps, d)
	c.mu.Unlock()
	return c.Clock.Sleep(ctx, d)
}

// Modify's backoff runs on TableOptions.Clock. Another process deletes
// the item, or creates it, between each read and write of Modify's, so
// that conflicts 1 and 2 are retried at once and conflicts 3 to 6 back off
// (before the turn, which comes after the eighth). With a backoff of
// hours, the call returns at once in real time, having slept exactly
// those four backoffs, each within its bound, and the virtual clock has
// moved by exactly their sum.
func TestModifyBackoffRunsOnTheTableClock(t *testing.T) {
	f := newFixture(t)
	start := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	clock := &recordingClock{Clock: fakeclock.New(start)}
	const base, maxWait = time.Hour, 4 * time.Hour
	table, err := mapper.NewTable[Counter](f.Calls, f.Name, func(o *mapper.TableOptions) {
		o.Clock = clock
		o.BackoffBase, o.BackoffMax = base, maxWait
	})
	require.NoError(t, err)
	// Another Table of the same items: its writes are another process's.
	other, err := mapper.NewTable[Counter](f.Raw, f.Name)
	require.NoError(t, err)
	const conflicts = 6
	runs := 0
	var got *Counter
	began := time.Now()
	clock.Run(func() {
		got, err = table.Modify(f.Ctx, Counter{ID: "c"}, func(c *Counter) error {
			runs++
			if runs <= conflicts {
				// Lands between this run's read and its write.
				if c.Version == 0 {
					if err := other.Put(f.Ctx, &Counter{ID: "c", N: 100}); err != nil {
						return err
					}
				} else if err := other.Delete(f.Ctx, Counter{ID: "c"}); err != nil {
					return err
				}
			}
			c.N++
			return nil
		})
	})
	require.NoError(t, err)
	assert.Less(t, time.Since(began), time.Minute, "slept in real time")
	assert.Equal(t, conflicts+1, runs)
	assert.Equal(t, 1, got.N, "written on no item")
	assert.Equal(t, int64(1), got.Version)

	clock.mu.Lock()
	sleeps := append([]time.Duration(nil), clock.sleeps...)
	clock.mu.Unlock()
	require.Len(t, sleeps, 4, "a sleep after each conflict from the third")
	var sum time.Duration
	for i, after := range []int{3, 4, 5, 6} {
		d := sleeps[i]
		bound := min(maxWait, base<<(after-3)) // after conflict k (k >= 3): [0, min(max, base<<(k-3)))
		assert.GreaterOrEqual(t, d, time.Duration(0), "sleep %d", i+1)
		assert.Less(t, d, bound, "sleep %d", i+1)
		sum += d
	}
	assert.Equal(t, start.Add(sum), clock.Now(), "the clock moved by the sleeps, and only by them")
}

// The item a Table keeps after a quiet Modify is timed on its clock: a
// second call within keepItemFor (a second) of virtual time starts from
// it with no read; once the clock has moved past it, the call reads.
func TestModifyKeptItemRunsOnTheTableClock(t *testing.T) {
	f := newFixture(t)
	clock := fakeclock.New(time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC))
	table, err := mapper.NewTable[Counter](f.Calls, f.Name, func(o *mapper.TableOptions) { o.Clock = clock })
	require.NoError(t, err)
	inc := func(c *Counter) error { c.N++; return nil }
	_, err = table.Modify(f.Ctx, Counter{ID: "k"}, inc)
	require.NoError(t, err)

	f.Calls.Reset()
	clock.Advance(999 * time.Millisecond)
	_, err = table.Modify(f.Ctx, Counter{ID: "k"}, inc)
	require.NoError(t, err)
	assert.Zero(t, f.Calls.Count("GetItem"), "within the second: started from the kept item")

	f.Calls.Reset()
	clock.Advance(time.Second)
	got, err := table.Modify(f.Ctx, Counter{ID: "k"}, inc)
	require.NoError(t, err)
	assert.Equal(t, int64(1), f.Calls.Count("GetItem"), "past the second: read again")
	assert.Equal(t, 3, got.N)
}
