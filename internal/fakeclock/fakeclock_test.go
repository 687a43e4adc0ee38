package fakeclock

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestSleepWakesOnAdvance(t *testing.T) {
	c := New(time.Unix(0, 0))
	done := make(chan error, 1)
	go func() { done <- c.Sleep(context.Background(), time.Second) }()
	require.True(t, c.WaitForSleepers(1, time.Second))
	c.Advance(999 * time.Millisecond)
	select {
	case <-done:
		t.Fatal("woke early")
	case <-time.After(20 * time.Millisecond):
	}
	c.Advance(time.Millisecond)
	assert.NoError(t, <-done)
	assert.Equal(t, time.Unix(1, 0), c.Now())
}

func TestSleepEndsWithContext(t *testing.T) {
	c := New(time.Unix(0, 0))
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- c.Sleep(ctx, time.Hour) }()
	require.True(t, c.WaitForSleepers(1, time.Second))
	cancel()
	assert.ErrorIs(t, <-done, context.Canceled)
	assert.Equal(t, 0, c.Sleepers())
}
