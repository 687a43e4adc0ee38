package mapper

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/optimist-dynamo/optimist/internal/retry"
)

type retryItem struct {
	ID      string `dynamo:"id,hash"`
	Version int64  `dynamo:"v,version"`
}

// TestRetryDefaults: the documented defaults of Modify's and the batch
// calls' retries (TableOptions, Table.Modify): 50 tries, and waits from
// 20ms doubling to 200ms, with full jitter.
func TestRetryDefaults(t *testing.T) {
	var seen TableOptions
	tb, err := NewTable[retryItem](&stubPut{}, "t", func(o *TableOptions) { seen = *o })
	require.NoError(t, err)
	assert.Equal(t, 50, seen.MaxAttempts)
	assert.Equal(t, 20*time.Millisecond, seen.BackoffBase)
	assert.Equal(t, 200*time.Millisecond, seen.BackoffMax)
	p := tb.opts.policy()
	assert.Equal(t, retry.Policy{MaxAttempts: 50, Base: 20 * time.Millisecond, Max: 200 * time.Millisecond}, p)
	assert.True(t, p.More(49))
	assert.False(t, p.More(50))
	for range 100 {
		// Modify's second conflict waits Backoff(1), its seventh Backoff(6).
		require.Less(t, p.Backoff(1), 20*time.Millisecond)
		require.Less(t, p.Backoff(6), 200*time.Millisecond)
	}

	// Impossible settings are refused, by NewTable and per call.
	_, err = NewTable[retryItem](&stubPut{}, "t", func(o *TableOptions) { o.MaxAttempts = 0 })
	assert.ErrorIs(t, err, ErrInvalidOption)
	_, err = NewTable[retryItem](&stubPut{}, "t", func(o *TableOptions) { o.BackoffBase = time.Second })
	assert.ErrorIs(t, err, ErrInvalidOption)
}
