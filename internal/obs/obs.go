// Package obs is how optimist's packages emit observe events: spans that
// remember their start, point events, and nothing at all (no event built)
// when no observer is set.
//
// It imports observe, whose types it emits; observe in turn imports only
// internal/attrs, which imports nothing of the module, so the imports
// between observe and internal/ never form a cycle (the root's
// TestImportsPointOneWay holds them to it).
package obs

import (
	"context"
	"time"

	"github.com/optimist-dynamo/optimist/observe"
)

// Span is a span-shaped operation being observed. The zero Span (no
// observer), and a nil *Span, do nothing. It is a value, so that a span
// kept on the stack costs no allocation.
type Span struct {
	o   observe.Observer
	ctx context.Context
	e   observe.Event
}

// Start emits e as the Start of a span to o and returns the context the
// operation continues with, and the span to end; with a nil o it returns
// ctx and the zero Span.
func Start(ctx context.Context, o observe.Observer, e observe.Event) (context.Context, Span) {
	if o == nil {
		return ctx, Span{}
	}
	e.Phase, e.Time = observe.Start, time.Now()
	if c := o.Observe(ctx, e); c != nil {
		ctx = c
	}
	return ctx, Span{o: o, ctx: ctx, e: e}
}

// On reports whether the span is observed.
func (s *Span) On() bool { return s != nil && s.o != nil }

// Context is the span's context (ctx if it is not observed).
func (s *Span) Context(ctx context.Context) context.Context {
	if !s.On() {
		return ctx
	}
	return s.ctx
}

// Event returns the span's Start event, for point events inside it to
// copy; the zero Event if it is not observed.
func (s *Span) Event() observe.Event {
	if !s.On() {
		return observe.Event{}
	}
	return s.e
}

// Point emits e, a point event inside the span, with the span's context.
func (s *Span) Point(e observe.Event) {
	if s.On() {
		Point(s.ctx, s.o, e)
	}
}

// End emits the span's End with err and capacity; op and attempt, if not
// zero, replace the Start's. It must be called once.
func (s *Span) End(err error, capacity float64, op string, attempt int) {
	if !s.On() {
		return
	}
	e := s.e
	now := time.Now()
	e.Phase, e.Err, e.Capacity, e.Duration, e.Time = observe.End, err, capacity, now.Sub(e.Time), now
	if op != "" {
		e.Op = op
	}
	if attempt != 0 {
		e.Attempt = attempt
	}
	s.o.Observe(s.ctx, e)
}

// Point emits the point event e to o (nothing if o is nil).
func Point(ctx context.Context, o observe.Observer, e observe.Event) {
	if o == nil {
		return
	}
	e.Phase, e.Time = observe.Point, time.Now()
	o.Observe(ctx, e)
}

// Values returns a context that ends with cancel and holds the values of
// values: for calls made on a goroutine of the library's own (heartbeats),
// within a span started on the caller's context.
func Values(cancel, values context.Context) context.Context {
	if values == nil {
		return cancel
	}
	return valuesCtx{cancel, values}
}

type valuesCtx struct {
	context.Context
	values context.Context
}

func (c valuesCtx) Value(key any) any { return c.values.Value(key) }

// UnitOutcome is the Outcome of an event that rolled a unit's item, or the
// unit, forward (committed) or back.
func UnitOutcome(committed bool) string {
	if committed {
		return observe.OutcomeForward
	}
	return observe.OutcomeBack
}
