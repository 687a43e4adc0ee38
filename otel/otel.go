package otel

import (
	"context"
	"errors"
	"strings"

	"github.com/aws/smithy-go"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/metric"
	semconv "go.opentelemetry.io/otel/semconv/v1.43.0"
	"go.opentelemetry.io/otel/trace"

	"github.com/optimist-dynamo/optimist/mapper"
	"github.com/optimist-dynamo/optimist/observe"
	"github.com/optimist-dynamo/optimist/pessimistic"
	"github.com/optimist-dynamo/optimist/unit"
	"github.com/optimist-dynamo/optimist/version"
)

// ScopeName is the instrumentation scope of the tracer and meter.
const ScopeName = "github.com/optimist-dynamo/optimist/otel"

// An Option configures [New].
type Option func(*config)

type config struct {
	tp       trace.TracerProvider
	mp       metric.MeterProvider
	capacity bool
	keys     bool
}

// WithTracerProvider sets the tracer provider (default: the global one,
// otel.GetTracerProvider, as it is when New is called).
func WithTracerProvider(tp trace.TracerProvider) Option {
	return func(c *config) { c.tp = tp }
}

// WithMeterProvider sets the meter provider (default: the global one,
// otel.GetMeterProvider, as it is when New is called).
func WithMeterProvider(mp metric.MeterProvider) Option {
	return func(c *config) { c.mp = mp }
}

// WithCapacity sets whether writes ask DynamoDB for the capacity they
// consume (default true; it costs no capacity). Without it the capacity
// counter stays at zero and spans carry no capacity.
func WithCapacity(on bool) Option {
	return func(c *config) { c.capacity = on }
}

// WithKeys sets whether spans carry the item's key (optimist.key) and the
// write or request token (optimist.token): default true. Turn it off when
// keys hold data that must not reach the tracing backend. Metrics never
// carry them.
func WithKeys(on bool) Option {
	return func(c *config) { c.keys = on }
}

// observer is the Observer New returns.
type observer struct {
	tracer   trace.Tracer
	capacity bool
	keys     bool

	conflicts, retries, unknown, settled     metric.Int64Counter
	lockLosses, beatFailures, unitsRecovered metric.Int64Counter
	takeovers                                metric.Int64Counter
	consumed                                 metric.Float64Counter
	duration                                 metric.Float64Histogram
}

// New returns an Observer that records the library's events with
// OpenTelemetry. See the package doc for the spans and metrics.
func New(opts ...Option) observe.Observer {
	c := config{capacity: true, keys: true}
	for _, fn := range opts {
		fn(&c)
	}
	if c.tp == nil {
		c.tp = otel.GetTracerProvider()
	}
	if c.mp == nil {
		c.mp = otel.GetMeterProvider()
	}
	m := c.mp.Meter(ScopeName)
	o := &observer{tracer: c.tp.Tracer(ScopeName), capacity: c.capacity, keys: c.keys}
	var errs []error
	counter := func(name, unit, desc string) metric.Int64Counter {
		ctr, err := m.Int64Counter(name, metric.WithUnit(unit), metric.WithDescription(desc))
		errs = append(errs, err)
		return ctr
	}
	o.conflicts = counter("optimist.conflicts", "{conflict}", "Writes refused by their version check.")
	o.retries = counter("optimist.retries", "{retry}", "Retries the library made: Modify after a conflict, Commit after a TransactionConflict, batch calls resending unprocessed items.")
	o.unknown = counter("optimist.unknown_outcomes", "{write}", "Writes whose outcome could not be known.")
	o.settled = counter("optimist.settled", "{write}", "Writes whose answer was lost, settled by a read (optimist.outcome: "+observe.OutcomeLanded+" or "+observe.OutcomeNotSeen+").")
	o.takeovers = counter("optimist.lock.takeovers", "{lock}", "Locks taken over from a holder that did not release them (dead, or force-released).")
	o.lockLosses = counter("optimist.lock.losses", "{lease}", "Held leases lost (error.type: lease_lost or unreachable).")
	o.beatFailures = counter("optimist.heartbeat.failures", "{heartbeat}", "Heartbeats of locks and units that failed.")
	o.unitsRecovered = counter("optimist.unit.recoveries", "{unit}", "Units finished by Recover (optimist.outcome: "+observe.OutcomeForward+" or "+observe.OutcomeBack+").")
	var err error
	o.consumed, err = m.Float64Counter("optimist.capacity.consumed", metric.WithUnit("{capacity_unit}"),
		metric.WithDescription("Capacity units consumed by writes, as DynamoDB reported them."))
	errs = append(errs, err)
	o.duration, err = m.Float64Histogram("db.client.operation.duration", metric.WithUnit("s"),
		metric.WithDescription("Duration of database client operations."),
		metric.WithExplicitBucketBoundaries(0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5, 10))
	errs = append(errs, err)
	if err := errors.Join(errs...); err != nil {
		otel.Handle(err) // the instruments are no-ops then
	}
	return o
}

// WantsCapacity makes writes ask for the capacity they consume.
func (o *observer) WantsCapacity() bool { return o.capacity }

// spanKey finds, in a context, the span this observer started.
type spanKey struct{ o *observer }

// Observe records e.
func (o *observer) Observe(ctx context.Context, e observe.Event) context.Context {
	switch e.Phase {
	case observe.Start:
		return o.start(ctx, e)
	case observe.End:
		o.end(ctx, e)
		return ctx
	}
	o.point(ctx, e)
	return ctx
}

// tables is the tables of e: several for a transaction.
func tables(e observe.Event) []string {
	if e.Table == "" {
		return nil
	}
	return strings.Split(e.Table, ",")
}

// dbAttrs are the low-cardinality attributes of a write: for metrics,
// and spans.
func dbAttrs(e observe.Event) []attribute.KeyValue {
	kv := []attribute.KeyValue{semconv.DBSystemNameAWSDynamoDB}
	if e.Op != "" {
		kv = append(kv, semconv.DBOperationName(e.Op))
	}
	if t := tables(e); len(t) == 1 {
		kv = append(kv, semconv.DBCollectionName(t[0]))
	}
	return kv
}

func (o *observer) start(ctx context.Context, e observe.Event) context.Context {
	var name string
	var kv []attribute.KeyValue
	kind := trace.SpanKindInternal
	switch e.Kind {
	case observe.Write:
		kind = trace.SpanKindClient
		name = e.Op
		if t := tables(e); len(t) == 1 {
			name += " " + t[0]
		}
		kv = append(dbAttrs(e), semconv.AWSDynamoDBTableNames(tables(e)...))
		if e.Attempt > 1 {
			kv = append(kv, attribute.Int("optimist.attempt", e.Attempt))
		}
	case observe.LockHeld:
		name = "optimist.lock.held"
		kv = append(kv, attribute.String("optimist.lock.name", e.Name), attribute.String("optimist.lock.table", e.Table),
			attribute.String("optimist.lock.op", e.Op))
		if e.Token != "" {
			kv = append(kv, attribute.String("optimist.lock.token", e.Token))
		}
		if e.Owner != "" {
			kv = append(kv, attribute.String("optimist.lock.owner", e.Owner))
		}
	case observe.Unit:
		name = "optimist.unit"
		kv = append(kv, attribute.String("optimist.unit.id", e.Name), attribute.String("optimist.unit.coordinator", e.Table))
	default:
		return ctx
	}
	if o.keys && e.Kind != observe.LockHeld {
		if e.Key != nil {
			kv = append(kv, attribute.String("optimist.key", observe.FormatKey(e.Key)))
		}
		if e.Token != "" {
			kv = append(kv, attribute.String("optimist.token", e.Token))
		}
	}
	if o.keys && e.Kind == observe.LockHeld && e.Key != nil {
		kv = append(kv, attribute.String("optimist.key", observe.FormatKey(e.Key)))
	}
	ctx, span := o.tracer.Start(ctx, name, trace.WithSpanKind(kind), trace.WithTimestamp(e.Time), trace.WithAttributes(kv...))
	return context.WithValue(ctx, spanKey{o}, span)
}

func (o *observer) end(ctx context.Context, e observe.Event) {
	if e.Kind == observe.Write {
		kv := dbAttrs(e)
		if e.Err != nil {
			kv = append(kv, semconv.ErrorTypeKey.String(errorType(e.Err)))
		}
		o.duration.Record(ctx, e.Duration.Seconds(), metric.WithAttributes(kv...))
		if e.Capacity > 0 {
			o.consumed.Add(ctx, e.Capacity, metric.WithAttributes(dbAttrs(e)...))
		}
	}
	span, ok := ctx.Value(spanKey{o}).(trace.Span)
	if !ok {
		return
	}
	if e.Capacity > 0 {
		span.SetAttributes(attribute.Float64("optimist.capacity", e.Capacity))
	}
	if e.Kind == observe.Write && e.Attempt > 1 {
		span.SetAttributes(attribute.Int("optimist.attempts", e.Attempt))
	}
	if e.Err != nil {
		span.SetAttributes(semconv.ErrorTypeKey.String(errorType(e.Err)))
		span.RecordError(e.Err, trace.WithTimestamp(e.Time))
		span.SetStatus(codes.Error, e.Err.Error())
	}
	span.End(trace.WithTimestamp(e.Time))
}

func (o *observer) point(ctx context.Context, e observe.Event) {
	metricKV := dbAttrs(e)
	switch e.Kind {
	case observe.Conflict:
		o.conflicts.Add(ctx, 1, metric.WithAttributes(metricKV...))
	case observe.Retry:
		o.retries.Add(ctx, 1, metric.WithAttributes(metricKV...))
	case observe.UnknownOutcome:
		o.unknown.Add(ctx, 1, metric.WithAttributes(metricKV...))
	case observe.Settled:
		o.settled.Add(ctx, 1, metric.WithAttributes(append(metricKV, attribute.String("optimist.outcome", e.Outcome))...))
	case observe.LockLost:
		o.lockLosses.Add(ctx, 1, metric.WithAttributes(attribute.String("optimist.table", e.Table),
			semconv.ErrorTypeKey.String(errorType(e.Err))))
	case observe.HeartbeatFailed:
		o.beatFailures.Add(ctx, 1, metric.WithAttributes(attribute.String("optimist.table", e.Table),
			semconv.ErrorTypeKey.String(errorType(e.Err))))
	case observe.LockTakenOver:
		o.takeovers.Add(ctx, 1, metric.WithAttributes(attribute.String("optimist.table", e.Table)))
	case observe.UnitRecovered:
		o.unitsRecovered.Add(ctx, 1, metric.WithAttributes(attribute.String("optimist.table", e.Table),
			attribute.String("optimist.outcome", e.Outcome)))
	}
	span := trace.SpanFromContext(ctx)
	if !span.IsRecording() {
		return
	}
	kv := []attribute.KeyValue{}
	if e.Op != "" {
		kv = append(kv, attribute.String("optimist.op", e.Op))
	}
	if e.Attempt != 0 {
		kv = append(kv, attribute.Int("optimist.attempt", e.Attempt))
	}
	if e.Kind == observe.Retry {
		kv = append(kv, attribute.Float64("optimist.wait", e.Wait.Seconds()))
	}
	if e.Outcome != "" {
		kv = append(kv, attribute.String("optimist.outcome", e.Outcome))
	}
	if e.Name != "" {
		kv = append(kv, attribute.String("optimist.name", e.Name))
	}
	if e.Owner != "" {
		kv = append(kv, attribute.String("optimist.owner", e.Owner))
	}
	if e.Kind == observe.LockTakenOver && e.Token != "" {
		kv = append(kv, attribute.String("optimist.token", e.Token))
	}
	if e.Err != nil {
		kv = append(kv, semconv.ErrorTypeKey.String(errorType(e.Err)), attribute.String("optimist.error", e.Err.Error()))
	}
	span.AddEvent("optimist."+e.Kind.String(), trace.WithTimestamp(e.Time), trace.WithAttributes(kv...))
}

// errorType is the low-cardinality class of err, for error.type: the
// library's outcomes by name, DynamoDB's errors by their code, others by
// their Go type.
func errorType(err error) string {
	for _, c := range errorClasses {
		if errors.Is(err, c.err) {
			return c.name
		}
	}
	var api smithy.APIError
	if errors.As(err, &api) {
		return api.ErrorCode()
	}
	return semconv.ErrorType(err).Value.AsString()
}

// errorClasses are the library's outcomes, and the context's, that
// errorType names, in the order it tries them.
var errorClasses = []struct {
	err  error
	name string
}{
	{version.ErrUnknownOutcome, "unknown_outcome"},
	{version.ErrConflict, "conflict"},
	{mapper.ErrConditionFailed, "condition_failed"},
	{mapper.ErrLocked, "locked"},
	{pessimistic.ErrLeaseLost, "lease_lost"},
	{pessimistic.ErrUnreachable, "unreachable"},
	{pessimistic.ErrNotHeld, "not_held"},
	{pessimistic.ErrClosed, "closed"},
	{unit.ErrAborted, "aborted"},
	{context.Canceled, "canceled"},
	{context.DeadlineExceeded, "deadline_exceeded"},
}
