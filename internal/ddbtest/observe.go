package ddbtest

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/optimist-dynamo/optimist/observe"
)

// Recorder is an observe.Observer that keeps every event, for tests. It
// checks the context contract as it goes: each Start returns a context
// marking the span, and the span's End, and every event emitted inside it,
// must come with that context (Span records which span, 0 for none). It
// asks for consumed capacity when Capacity is set. Safe for concurrent use.
type Recorder struct {
	Capacity bool

	mu     sync.Mutex
	events []Recorded
	spans  int
}

// Recorded is an event as a Recorder saw it.
type Recorded struct {
	observe.Event
	// Span is the span whose context the event came with (1 for the first
	// span started, ...); 0 if none. A Start records the span it starts.
	Span int
}

type spanKey struct{}

// Observe records e.
func (r *Recorder) Observe(ctx context.Context, e observe.Event) context.Context {
	r.mu.Lock()
	defer r.mu.Unlock()
	span, _ := ctx.Value(spanKey{}).(int)
	if e.Phase == observe.Start {
		r.spans++
		span = r.spans
		ctx = context.WithValue(ctx, spanKey{}, span)
	}
	r.events = append(r.events, Recorded{Event: e, Span: span})
	return ctx
}

// WantsCapacity returns r.Capacity.
func (r *Recorder) WantsCapacity() bool { return r.Capacity }

// Events returns the events recorded so far.
func (r *Recorder) Events() []Recorded {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Recorded(nil), r.events...)
}

// Of returns the events of kind k recorded so far.
func (r *Recorder) Of(k observe.Kind) []Recorded {
	var out []Recorded
	for _, e := range r.Events() {
		if e.Kind == k {
			out = append(out, e)
		}
	}
	return out
}

// Names returns the events recorded so far as "kind" or "kind phase".
func (r *Recorder) Names() []string {
	var out []string
	for _, e := range r.Events() {
		out = append(out, Name(e.Event))
	}
	return out
}

// Name names an event: "conflict", "write start".
func Name(e observe.Event) string {
	if e.Phase == observe.Point {
		return e.Kind.String()
	}
	return e.Kind.String() + " " + e.Phase.String()
}

// Reset forgets the events recorded.
func (r *Recorder) Reset() {
	r.mu.Lock()
	r.events = nil
	r.mu.Unlock()
}

// Await waits up to d for an event named name (see Name) and returns the
// first; it fails the test if none comes.
func (r *Recorder) Await(t testing.TB, name string, d time.Duration) Recorded {
	t.Helper()
	deadline := time.Now().Add(d)
	for {
		for _, e := range r.Events() {
			if Name(e.Event) == name {
				return e
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("no %q event within %v; got %s", name, d, strings.Join(r.Names(), ", "))
		}
		time.Sleep(5 * time.Millisecond)
	}
}
