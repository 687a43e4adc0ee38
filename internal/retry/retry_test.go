package retry

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestBackoffBounds(t *testing.T) {
	for attempt := 1; attempt < 80; attempt++ {
		limit := min(time.Second, 10*time.Millisecond<<min(attempt-1, 20))
		for range 50 {
			d := Backoff(attempt, 10*time.Millisecond, time.Second)
			assert.GreaterOrEqual(t, d, time.Duration(0))
			require.Less(t, d, limit, "attempt %d", attempt)
		}
	}
	assert.Equal(t, time.Duration(0), Backoff(3, 0, 0))
}

func TestSleepStopsWithContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	assert.ErrorIs(t, Sleep(ctx, time.Hour), context.Canceled)
	assert.ErrorIs(t, Sleep(ctx, 0), context.Canceled)
	assert.NoError(t, Sleep(context.Background(), time.Millisecond))
}

func TestPolicy(t *testing.T) {
	p := Policy{MaxAttempts: 3, Base: time.Millisecond, Max: 4 * time.Millisecond}
	require.NoError(t, p.Check())
	assert.True(t, p.More(1))
	assert.True(t, p.More(2))
	assert.False(t, p.More(3), "three tries of three: no fourth")
	for n := 1; n < 10; n++ {
		limit := min(4*time.Millisecond, time.Millisecond<<(n-1))
		for range 50 {
			require.Less(t, p.Backoff(n), limit, "after %d failures", n)
		}
	}
	// A zero base never waits, and never ignores a context that ended.
	none := Policy{MaxAttempts: 8}
	require.NoError(t, none.Check())
	assert.Equal(t, time.Duration(0), none.Backoff(5))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	assert.ErrorIs(t, none.Wait(ctx, 1), context.Canceled)
	assert.ErrorIs(t, p.Wait(ctx, 1), context.Canceled)

	for _, bad := range []Policy{{}, {MaxAttempts: 1, Base: -1}, {MaxAttempts: 1, Base: 2, Max: 1}} {
		assert.Error(t, bad.Check(), "%+v", bad)
	}
}
