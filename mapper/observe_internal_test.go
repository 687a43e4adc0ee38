package mapper

import (
	"context"
	"io"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/optimist-dynamo/optimist/observe"
)

// TestObserveBatchResend: the batch calls' resends of unprocessed items
// are Retry events, with the call about to be made and its backoff.
// (DynamoDB Local never leaves items unprocessed: the loop is driven by
// hand.)
func TestObserveBatchResend(t *testing.T) {
	var mu sync.Mutex
	var got []observe.Event
	tb, err := NewTable[batchItem](nopClient{}, "t", func(o *TableOptions) {
		o.BackoffBase, o.BackoffMax = time.Millisecond, 2*time.Millisecond
		o.Observer = observe.Func(func(_ context.Context, e observe.Event) {
			mu.Lock()
			got = append(got, e)
			mu.Unlock()
		})
	})
	require.NoError(t, err)
	calls := 0
	_, err = tb.batch(context.Background(), "BatchWriteItem", 5, 5, func(batch []int) ([]int, error) {
		if calls++; calls < 3 {
			return batch[1:], nil
		}
		return nil, nil
	})
	require.NoError(t, err)
	require.Len(t, got, 2)
	for i, e := range got {
		assert.Equal(t, observe.Retry, e.Kind)
		assert.Equal(t, observe.Point, e.Phase)
		assert.Equal(t, "BatchWriteItem", e.Op)
		assert.Equal(t, "t", e.Table)
		assert.Equal(t, i+2, e.Attempt, "the call about to be made")
		assert.Less(t, e.Wait, 2*time.Millisecond)
		assert.False(t, e.Time.IsZero())
	}
}

// BenchmarkObserverOverhead is the cost an observer adds to a Put, with a
// client that answers at once (no network): no observer, one that does
// nothing, Slog to a handler that discards everything (slog.DiscardHandler:
// records below its level are never built), and Slog formatting every
// event as text into io.Discard (Debug enabled: the cost of reading logs).
func BenchmarkObserverOverhead(b *testing.B) {
	for _, c := range []struct {
		name string
		o    observe.Observer
	}{
		{"none", nil},
		{"nop", observe.Func(func(context.Context, observe.Event) {})},
		{"slog-discard", observe.Slog(slog.New(slog.DiscardHandler))},
		{"slog-debug-text", observe.Slog(slog.New(slog.NewTextHandler(io.Discard, &slog.HandlerOptions{Level: slog.LevelDebug})))},
	} {
		b.Run(c.name, func(b *testing.B) {
			tb, err := NewTable[benchItem](&stubPut{}, "t", func(o *TableOptions) { o.Observer = c.o })
			if err != nil {
				b.Fatal(err)
			}
			ctx := context.Background()
			it := &benchItem{ID: "a", Title: "hello", Votes: 3, Tags: []string{"x", "y"}, Score: 1.5}
			b.ReportAllocs()
			for b.Loop() {
				it.Version = 3
				if err := tb.Put(ctx, it); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
