package otel_test

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/optimist-dynamo/optimist/dynamolocal"
	"github.com/optimist-dynamo/optimist/mapper"
	"github.com/optimist-dynamo/optimist/observe"
	"github.com/optimist-dynamo/optimist/otel"
	"github.com/optimist-dynamo/optimist/pessimistic"
	"github.com/optimist-dynamo/optimist/unit"
	"github.com/optimist-dynamo/optimist/update"
	"github.com/optimist-dynamo/optimist/version"
)

// Counter is the versioned item of the tests.
type Counter struct {
	ID      string `dynamo:"id,hash"`
	N       int    `dynamo:"n"`
	Version int64  `dynamo:"v,version"`
}

// harness is an observer recording into in-memory exporters.
type harness struct {
	spans  *tracetest.SpanRecorder
	reader *sdkmetric.ManualReader
	tracer trace.Tracer
	obs    observe.Observer
}

func newHarness(t *testing.T, opts ...otel.Option) *harness {
	h := &harness{spans: tracetest.NewSpanRecorder(), reader: sdkmetric.NewManualReader()}
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(h.spans))
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(h.reader))
	t.Cleanup(func() {
		_ = tp.Shutdown(context.Background())
		_ = mp.Shutdown(context.Background())
	})
	h.tracer = tp.Tracer("test")
	h.obs = otel.New(append([]otel.Option{otel.WithTracerProvider(tp), otel.WithMeterProvider(mp)}, opts...)...)
	return h
}

// ended returns the ended spans named name.
func (h *harness) ended(name string) []sdktrace.ReadOnlySpan {
	var out []sdktrace.ReadOnlySpan
	for _, s := range h.spans.Ended() {
		if s.Name() == name {
			out = append(out, s)
		}
	}
	return out
}

// point is one data point of a metric: its value and attributes.
type point struct {
	value float64
	count uint64 // histograms
	attrs attribute.Set
}

// metrics collects every metric's data points, by name.
func (h *harness) metrics(t *testing.T) map[string][]point {
	t.Helper()
	var rm metricdata.ResourceMetrics
	require.NoError(t, h.reader.Collect(context.Background(), &rm))
	out := map[string][]point{}
	for _, sm := range rm.ScopeMetrics {
		assert.Equal(t, otel.ScopeName, sm.Scope.Name)
		for _, m := range sm.Metrics {
			switch d := m.Data.(type) {
			case metricdata.Sum[int64]:
				for _, p := range d.DataPoints {
					out[m.Name] = append(out[m.Name], point{value: float64(p.Value), attrs: p.Attributes})
				}
			case metricdata.Sum[float64]:
				for _, p := range d.DataPoints {
					out[m.Name] = append(out[m.Name], point{value: p.Value, attrs: p.Attributes})
				}
			case metricdata.Histogram[float64]:
				for _, p := range d.DataPoints {
					out[m.Name] = append(out[m.Name], point{value: p.Sum, count: p.Count, attrs: p.Attributes})
				}
			default:
				t.Fatalf("metric %s: unexpected data %T", m.Name, m.Data)
			}
		}
	}
	// No key, token, lock name or unit id ever reaches a metric.
	for name, ps := range out {
		for _, p := range ps {
			for _, kv := range p.attrs.ToSlice() {
				assert.NotContains(t, []attribute.Key{"optimist.key", "optimist.token", "optimist.lock.name", "optimist.unit.id", "optimist.name"}, kv.Key, "metric %s", name)
			}
		}
	}
	return out
}

func attr(s attribute.Set, k string) string {
	v, _ := s.Value(attribute.Key(k))
	return v.String()
}

func spanAttr(s sdktrace.ReadOnlySpan, k string) string {
	for _, kv := range s.Attributes() {
		if string(kv.Key) == k {
			return kv.Value.String()
		}
	}
	return ""
}

// sum adds the values of the points whose attributes hold want.
func sum(ps []point, want map[string]string) float64 {
	total := 0.0
next:
	for _, p := range ps {
		for k, v := range want {
			if attr(p.attrs, k) != v {
				continue next
			}
		}
		total += p.value
	}
	return total
}

var tableSeq atomic.Int64

func tableName(t *testing.T) string {
	return fmt.Sprintf("otel-%s-%d-%d", strings.NewReplacer("/", "_").Replace(t.Name()), time.Now().UnixNano(), tableSeq.Add(1))
}

// counters creates a table of Counters and returns its name.
func counters(t *testing.T, c *dynamodb.Client) string {
	t.Helper()
	name := tableName(t)
	require.NoError(t, mapper.CreateTable[Counter](context.Background(), c, name))
	t.Cleanup(func() {
		_, _ = c.DeleteTable(context.Background(), &dynamodb.DeleteTableInput{TableName: aws.String(name)})
	})
	return name
}

// TestWriteSpansAndMetrics: writes are client spans under the caller's,
// following the database conventions; a conflict is an event of its span
// and a count, Modify's retry an event of the caller's span and a count;
// consumed capacity and durations are metrics.
func TestWriteSpansAndMetrics(t *testing.T) {
	srv := dynamolocal.New(t)
	h := newHarness(t)
	name := counters(t, srv.Client())
	table, err := mapper.NewTable[Counter](srv.Client(), name, func(o *mapper.TableOptions) { o.Observer = h.obs })
	require.NoError(t, err)

	ctx, parent := h.tracer.Start(context.Background(), "request")
	c := &Counter{ID: "a"}
	require.NoError(t, table.Put(ctx, c))
	stale := *c
	require.NoError(t, table.Put(ctx, c))
	require.ErrorIs(t, table.Put(ctx, &stale), version.ErrConflict)
	calls := 0
	_, err = table.Modify(ctx, Counter{ID: "a"}, func(x *Counter) error {
		if calls++; calls == 1 {
			_, err := table.Update(context.Background(), Counter{ID: "a"}, update.Add("n", 1))
			require.NoError(t, err)
		}
		x.N += 10
		return nil
	})
	require.NoError(t, err)
	parent.End()

	puts := h.ended("PutItem " + name)
	require.Len(t, puts, 5, "three Puts, two writes of Modify")
	ok, conflict := puts[0], puts[2]
	assert.Equal(t, trace.SpanKindClient, ok.SpanKind())
	assert.Equal(t, parent.SpanContext().SpanID(), ok.Parent().SpanID(), "under the caller's span")
	assert.Equal(t, "aws.dynamodb", spanAttr(ok, "db.system.name"))
	assert.Equal(t, "PutItem", spanAttr(ok, "db.operation.name"))
	assert.Equal(t, name, spanAttr(ok, "db.collection.name"))
	assert.Equal(t, `["`+name+`"]`, spanAttr(ok, "aws.dynamodb.table_names"))
	assert.Equal(t, `{id="a"}`, spanAttr(ok, "optimist.key"))
	assert.NotEmpty(t, spanAttr(ok, "optimist.token"))
	assert.NotEmpty(t, spanAttr(ok, "optimist.capacity"), "capacity asked for by default")
	assert.Equal(t, codes.Unset, ok.Status().Code)

	assert.Equal(t, codes.Error, conflict.Status().Code)
	assert.Equal(t, "conflict", spanAttr(conflict, "error.type"))
	var names []string
	for _, e := range conflict.Events() {
		names = append(names, e.Name)
	}
	assert.Equal(t, []string{"optimist.conflict", "exception"}, names, "the conflict, and the error recorded")

	// Modify's retry is an event of the caller's span.
	req := h.ended("request")
	require.Len(t, req, 1)
	require.Len(t, req[0].Events(), 1)
	retry := req[0].Events()[0]
	assert.Equal(t, "optimist.retry", retry.Name)
	assert.Contains(t, retry.Attributes, attribute.Int("optimist.attempt", 2))

	m := h.metrics(t)
	write := map[string]string{"db.system.name": "aws.dynamodb", "db.operation.name": "PutItem", "db.collection.name": name}
	assert.Equal(t, 2.0, sum(m["optimist.conflicts"], write), "the stale Put's, and Modify's first write's")
	assert.Equal(t, 1.0, sum(m["optimist.retries"], map[string]string{"db.operation.name": "Modify", "db.collection.name": name}))
	assert.Positive(t, sum(m["optimist.capacity.consumed"], write))
	assert.Positive(t, sum(m["optimist.capacity.consumed"], map[string]string{"db.operation.name": "UpdateItem"}))
	var count uint64
	for _, p := range m["db.client.operation.duration"] {
		count += p.count
		if attr(p.attrs, "db.operation.name") == "PutItem" && attr(p.attrs, "error.type") == "conflict" {
			assert.Equal(t, uint64(2), p.count, "the failed writes, by error type")
		}
	}
	assert.Equal(t, uint64(6), count, "every write timed: five Puts and the Update")
}

// TestLostAnswers: writes whose answers are lost are settled by a read
// (optimist.settled) or end in an unknown outcome (optimist.unknown_outcomes).
func TestLostAnswers(t *testing.T) {
	srv := dynamolocal.New(t)
	h := newHarness(t, otel.WithCapacity(false), otel.WithKeys(false))
	name := counters(t, srv.Client())

	// Every PutItem answer is lost; the read that settles it is not.
	lossyPut := &dynamolocal.FaultTransport{LoseResponse: 1, Ops: []string{"PutItem"}}
	table, err := mapper.NewTable[Counter](srv.NewClient(lossyPut.Option()), name, func(o *mapper.TableOptions) { o.Observer = h.obs })
	require.NoError(t, err)
	require.NoError(t, table.Put(context.Background(), &Counter{ID: "a"}))

	// Every UpdateItem and GetItem answer is lost: nothing can settle it.
	lossy := &dynamolocal.FaultTransport{LoseResponse: 1, Ops: []string{"UpdateItem", "GetItem"}}
	table, err = mapper.NewTable[Counter](srv.NewClient(lossy.Option()), name, func(o *mapper.TableOptions) { o.Observer = h.obs })
	require.NoError(t, err)
	_, err = table.Update(context.Background(), Counter{ID: "a"}, update.Add("n", 1))
	require.ErrorIs(t, err, mapper.ErrUnknownOutcome)

	m := h.metrics(t)
	assert.Equal(t, 1.0, sum(m["optimist.settled"], map[string]string{"db.operation.name": "PutItem", "optimist.outcome": observe.OutcomeLanded}))
	assert.Equal(t, 1.0, sum(m["optimist.unknown_outcomes"], map[string]string{"db.operation.name": "UpdateItem", "db.collection.name": name}))
	assert.Empty(t, m["optimist.capacity.consumed"], "not asked for")

	upd := h.ended("UpdateItem " + name)
	require.Len(t, upd, 1)
	assert.Equal(t, "unknown_outcome", spanAttr(upd[0], "error.type"))
	assert.Empty(t, spanAttr(upd[0], "optimist.key"), "WithKeys(false)")
	assert.Empty(t, spanAttr(upd[0], "optimist.token"))
	put := h.ended("PutItem " + name)
	require.Len(t, put, 1)
	assert.Equal(t, codes.Unset, put[0].Status().Code, "settled: success")
	require.NotEmpty(t, put[0].Events())
	assert.Equal(t, "optimist.settled", put[0].Events()[0].Name)
}

// TestLockAndUnitSpans: a lock hold is a span that ends when the lock is
// lost, counted by error type; a unit of work is a span. It runs in a
// testing/synctest bubble on an engine of its own: the heartbeat that
// finds the lock lost comes in virtual time.
func TestLockAndUnitSpans(t *testing.T) { synctest.Test(t, testLockAndUnitSpans) }

func testLockAndUnitSpans(t *testing.T) {
	srv := dynamolocal.NewEngine(t, dynamolocal.WithoutListener())
	h := newHarness(t)
	ctx := context.Background()
	locks := tableName(t)
	require.NoError(t, pessimistic.CreateTable(ctx, srv.Client(), locks))
	l, err := pessimistic.New(srv.Client(), locks, pessimistic.Observer(h.obs), pessimistic.Heartbeat(50*time.Millisecond), pessimistic.LeaseDuration(5*time.Second), pessimistic.Owner("worker-7"))
	require.NoError(t, err)
	defer l.Close()
	lease, err := l.Acquire(ctx, "job-7")
	require.NoError(t, err)
	operator, err := pessimistic.New(srv.Client(), locks)
	require.NoError(t, err)
	require.NoError(t, operator.ForceRelease(ctx, "job-7"))
	select {
	case <-lease.Context().Done():
	case <-time.After(5 * time.Second):
		t.Fatal("the lease was not lost")
	}
	synctest.Wait() // the hold's span ends after the lease's context
	require.Len(t, h.ended("optimist.lock.held"), 1)
	held := h.ended("optimist.lock.held")[0]
	assert.Equal(t, "job-7", spanAttr(held, "optimist.lock.name"))
	assert.Equal(t, fmt.Sprint(lease.Token()), spanAttr(held, "optimist.lock.token"))
	assert.Equal(t, "worker-7", spanAttr(held, "optimist.lock.owner"))
	assert.Equal(t, "lease_lost", spanAttr(held, "error.type"))
	assert.Equal(t, codes.Error, held.Status().Code)
	assert.Equal(t, "optimist.lock_lost", held.Events()[0].Name)
	m := h.metrics(t)
	assert.Equal(t, 1.0, sum(m["optimist.lock.losses"], map[string]string{"optimist.table": locks, "error.type": "lease_lost"}))

	coord := tableName(t)
	require.NoError(t, unit.CreateTable(ctx, srv.Client(), coord))
	name := counters(t, srv.Client())
	table, err := mapper.NewTable[Counter](srv.Client(), name)
	require.NoError(t, err)
	u, err := unit.Begin(ctx, srv.Client(), unit.Coordinator(coord), unit.Observer(h.obs))
	require.NoError(t, err)
	require.NoError(t, u.Add(table.PutOp(&Counter{ID: "u"})))
	require.NoError(t, u.Commit(ctx))
	spans := h.ended("optimist.unit")
	require.Len(t, spans, 1)
	assert.Equal(t, u.ID(), spanAttr(spans[0], "optimist.unit.id"))
	assert.Equal(t, coord, spanAttr(spans[0], "optimist.unit.coordinator"))
	assert.Equal(t, codes.Unset, spans[0].Status().Code)
	assert.Equal(t, "optimist.unit_commit", spans[0].Events()[0].Name)
}

// TestLockTakeover: a lock taken from a force-released holder is counted
// as a takeover; the new hold's span names the new owner.
func TestLockTakeover(t *testing.T) {
	srv := dynamolocal.New(t)
	h := newHarness(t)
	ctx := context.Background()
	locks := tableName(t)
	require.NoError(t, pessimistic.CreateTable(ctx, srv.Client(), locks))
	first, err := pessimistic.New(srv.Client(), locks, pessimistic.Owner("first"))
	require.NoError(t, err)
	defer first.Close()
	old, err := first.Acquire(ctx, "job-8")
	require.NoError(t, err)
	require.NoError(t, first.ForceRelease(ctx, "job-8"))
	next, err := pessimistic.New(srv.Client(), locks, pessimistic.Owner("next"), pessimistic.Observer(h.obs))
	require.NoError(t, err)
	defer next.Close()
	lease, err := next.Acquire(ctx, "job-8")
	require.NoError(t, err)
	require.NoError(t, lease.Release(ctx))

	m := h.metrics(t)
	assert.Equal(t, 1.0, sum(m["optimist.lock.takeovers"], map[string]string{"optimist.table": locks}))
	held := h.ended("optimist.lock.held")
	require.Len(t, held, 1)
	assert.Equal(t, "next", spanAttr(held[0], "optimist.lock.owner"))
	assert.Equal(t, fmt.Sprint(old.Token()+2), spanAttr(held[0], "optimist.lock.token"), "the force's bump, then ours")
}
