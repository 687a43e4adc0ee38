package mapper_test

import (
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/optimist-dynamo/optimist/internal/ddbtest"
	"github.com/optimist-dynamo/optimist/mapper"
	"github.com/optimist-dynamo/optimist/observe"
)

// Modify's backoff is slept on the time package's clock: in a
// testing/synctest bubble, with the engine made inside it, virtual time.
// Another process deletes the item, or creates it, between each read and
// write of Modify's, so that conflicts 1 and 2 are retried at once and
// conflicts 3 to 6 back off (before the turn, which comes after the
// eighth). With a backoff of hours, the bubble's clock moves by exactly
// the four backoffs reported, each within its bound.
func TestModifyBackoffInVirtualTime(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newBubbleFixture(t)
		const base, maxWait = time.Hour, 4 * time.Hour
		rec := &ddbtest.Recorder{}
		table, err := mapper.NewTable[Counter](f.Calls, f.Name, func(o *mapper.TableOptions) {
			o.BackoffBase, o.BackoffMax = base, maxWait
			o.Observer = rec
		})
		require.NoError(t, err)
		// Another Table of the same items: its writes are another process's.
		other, err := mapper.NewTable[Counter](f.Raw, f.Name)
		require.NoError(t, err)
		const conflicts = 6
		runs := 0
		start := time.Now()
		got, err := table.Modify(f.Ctx, Counter{ID: "c"}, func(c *Counter) error {
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
		require.NoError(t, err)
		slept := time.Since(start)
		assert.Equal(t, conflicts+1, runs)
		assert.Equal(t, 1, got.N, "written on no item")
		assert.Equal(t, int64(1), got.Version)

		var sleeps []time.Duration
		for _, e := range rec.Of(observe.Retry) {
			if e.Attempt > 3 { // after conflict 3 and later
				sleeps = append(sleeps, e.Wait)
			}
		}
		require.Len(t, sleeps, 4, "a sleep after each conflict from the third")
		var sum time.Duration
		for i, after := range []int{3, 4, 5, 6} {
			d := sleeps[i]
			bound := min(maxWait, base<<(after-3)) // after conflict k (k >= 3): [0, min(max, base<<(k-3)))
			assert.GreaterOrEqual(t, d, time.Duration(0), "sleep %d", i+1)
			assert.Less(t, d, bound, "sleep %d", i+1)
			sum += d
		}
		assert.Equal(t, sum, slept, "the clock moved by the sleeps, and only by them")
	})
}

// The item a Table keeps after a quiet Modify is timed by the time
// package: in a bubble, a second call within keepItemFor (a second) of
// virtual time starts from it with no read; once the clock has moved past
// it, the call reads.
func TestModifyKeptItemInVirtualTime(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newBubbleFixture(t)
		table, err := mapper.NewTable[Counter](f.Calls, f.Name)
		require.NoError(t, err)
		inc := func(c *Counter) error { c.N++; return nil }
		_, err = table.Modify(f.Ctx, Counter{ID: "k"}, inc)
		require.NoError(t, err)

		f.Calls.Reset()
		time.Sleep(999 * time.Millisecond)
		_, err = table.Modify(f.Ctx, Counter{ID: "k"}, inc)
		require.NoError(t, err)
		assert.Zero(t, f.Calls.Count("GetItem"), "within the second: started from the kept item")

		f.Calls.Reset()
		time.Sleep(time.Second)
		got, err := table.Modify(f.Ctx, Counter{ID: "k"}, inc)
		require.NoError(t, err)
		assert.Equal(t, int64(1), f.Calls.Count("GetItem"), "past the second: read again")
		assert.Equal(t, 3, got.N)
	})
}
