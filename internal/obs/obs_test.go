package obs

import (
	"context"
	"errors"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/optimist-dynamo/optimist/observe"
)

type key struct{}

func TestNoObserver(t *testing.T) {
	ctx := context.WithValue(context.Background(), key{}, "v")
	got, span := Start(ctx, nil, observe.Event{Kind: observe.Write})
	assert.Equal(t, ctx, got)
	assert.False(t, span.On())
	assert.Equal(t, ctx, span.Context(ctx))
	assert.Equal(t, observe.Event{}, span.Event())
	span.Point(observe.Event{Kind: observe.Conflict}) // no panic, nothing
	span.End(nil, 0, "", 0)
	var nilSpan *Span
	assert.False(t, nilSpan.On())
	nilSpan.Point(observe.Event{})
	nilSpan.End(nil, 0, "", 0)
	Point(ctx, nil, observe.Event{})
}

// TestSpan runs in a testing/synctest bubble: the span's duration is the
// bubble's time, moved by exactly the millisecond slept.
func TestSpan(t *testing.T) { synctest.Test(t, testSpan) }

func testSpan(t *testing.T) {
	var got []observe.Event
	var ctxs []context.Context
	o := observe.Func(func(ctx context.Context, e observe.Event) {
		got = append(got, e)
		ctxs = append(ctxs, ctx)
	})
	tagging := observe.Multi(o, tagger{})
	ctx, span := Start(context.Background(), tagging, observe.Event{Kind: observe.Write, Op: "PutItem", Attempt: 1})
	assert.Equal(t, "span", ctx.Value(key{}))
	e := span.Event()
	e.Kind = observe.Conflict
	span.Point(e)
	boom := errors.New("boom")
	time.Sleep(time.Millisecond)
	span.End(boom, 2.5, "TransactWriteItems", 3)

	assert.Len(t, got, 3)
	assert.Equal(t, observe.Start, got[0].Phase)
	assert.False(t, got[0].Time.IsZero())
	assert.Equal(t, observe.Point, got[1].Phase)
	assert.Equal(t, "PutItem", got[1].Op)
	assert.Equal(t, "span", ctxs[1].Value(key{}), "points in the span's context")
	end := got[2]
	assert.Equal(t, observe.End, end.Phase)
	assert.Equal(t, "span", ctxs[2].Value(key{}))
	assert.Equal(t, boom, end.Err)
	assert.Equal(t, 2.5, end.Capacity)
	assert.Equal(t, "TransactWriteItems", end.Op)
	assert.Equal(t, 3, end.Attempt)
	assert.Equal(t, time.Millisecond, end.Duration)
	assert.Equal(t, end.Duration, end.Time.Sub(got[0].Time))
}

type tagger struct{}

func (tagger) Observe(ctx context.Context, e observe.Event) context.Context {
	if e.Phase == observe.Start {
		return context.WithValue(ctx, key{}, "span")
	}
	return ctx
}

// TestValues runs in a testing/synctest bubble: the second a missed
// cancellation would be given passes in virtual time.
func TestValues(t *testing.T) { synctest.Test(t, testValues) }

func testValues(t *testing.T) {
	values := context.WithValue(context.Background(), key{}, "v")
	cancel, stop := context.WithCancel(context.Background())
	ctx := Values(cancel, values)
	assert.Equal(t, "v", ctx.Value(key{}))
	tctx, done := context.WithTimeout(ctx, time.Hour)
	defer done()
	assert.Equal(t, "v", tctx.Value(key{}), "kept by derived contexts")
	stop()
	select {
	case <-tctx.Done():
	case <-time.After(time.Second):
		t.Fatal("the cancellation did not reach the derived context")
	}
	assert.Equal(t, cancel, Values(cancel, nil))
}
