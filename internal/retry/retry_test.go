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
