package observe_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/optimist-dynamo/optimist/observe"
)

func TestKindNames(t *testing.T) {
	want := map[observe.Kind]string{
		observe.Write: "write", observe.Conflict: "conflict", observe.Retry: "retry", observe.Settled: "settled",
		observe.UnknownOutcome: "unknown_outcome", observe.LockHeld: "lock_held", observe.LockAcquired: "lock_acquired",
		observe.LockReleased: "lock_released", observe.LockLost: "lock_lost", observe.LockForced: "lock_forced",
		observe.LockHandedOver: "lock_handed_over", observe.HeartbeatFailed: "heartbeat_failed", observe.Unit: "unit",
		observe.UnitCommit: "unit_commit", observe.UnitRollback: "unit_rollback", observe.UnitRecovered: "unit_recovered", observe.LockTakenOver: "lock_taken_over",
		observe.UnitSettled: "unit_settled",
	}
	for k, name := range want {
		assert.Equal(t, name, k.String())
		assert.Equal(t, k == observe.Write || k == observe.Unit || k == observe.LockHeld, k.Span(), "%v", k)
	}
	assert.Equal(t, "unknown", observe.Kind(0).String())
	assert.Equal(t, "unknown", observe.Kind(200).String())
	assert.Equal(t, []string{"point", "start", "end"}, []string{observe.Point.String(), observe.Start.String(), observe.End.String()})
}

type key struct{}

// tagger returns a context tagged with its name on Start.
type tagger struct {
	name string
	got  []string
	cap  bool
}

func (g *tagger) Observe(ctx context.Context, e observe.Event) context.Context {
	tags, _ := ctx.Value(key{}).(string)
	g.got = append(g.got, e.Kind.String()+"/"+e.Phase.String()+":"+tags)
	if e.Phase == observe.Start {
		return context.WithValue(ctx, key{}, tags+g.name)
	}
	return ctx
}

func (g *tagger) WantsCapacity() bool { return g.cap }

func TestMulti(t *testing.T) {
	assert.Nil(t, observe.Multi(), "no observer: nil, so that the library skips building events")
	assert.Nil(t, observe.Multi(nil, nil))
	a := &tagger{name: "a"}
	assert.Same(t, a, observe.Multi(nil, a), "one observer: itself")

	b := &tagger{name: "b"}
	m := observe.Multi(a, nil, b)
	ctx := m.Observe(context.Background(), observe.Event{Kind: observe.Write, Phase: observe.Start})
	m.Observe(ctx, observe.Event{Kind: observe.Conflict})
	m.Observe(ctx, observe.Event{Kind: observe.Write, Phase: observe.End})
	assert.Equal(t, "ab", ctx.Value(key{}), "each Start's context goes on to the next observer")
	assert.Equal(t, []string{"write/start:", "conflict/point:ab", "write/end:ab"}, a.got)
	assert.Equal(t, []string{"write/start:a", "conflict/point:ab", "write/end:ab"}, b.got)

	assert.False(t, observe.WantsCapacity(m))
	b.cap = true
	assert.True(t, observe.WantsCapacity(m), "one of them asks")
	assert.True(t, observe.WantsCapacity(observe.Multi(observe.Multi(a, b), a)), "nested")
	assert.False(t, observe.WantsCapacity(nil))
	assert.False(t, observe.WantsCapacity(observe.Func(func(context.Context, observe.Event) {})))
}

func TestFunc(t *testing.T) {
	var got []observe.Kind
	f := observe.Func(func(_ context.Context, e observe.Event) { got = append(got, e.Kind) })
	ctx := context.WithValue(context.Background(), key{}, "x")
	assert.Equal(t, ctx, f.Observe(ctx, observe.Event{Kind: observe.Unit, Phase: observe.Start}))
	assert.Equal(t, []observe.Kind{observe.Unit}, got)
}

func TestFormatKey(t *testing.T) {
	assert.Equal(t, `{id="a", n=3}`, observe.FormatKey(map[string]types.AttributeValue{
		"n": &types.AttributeValueMemberN{Value: "3"}, "id": &types.AttributeValueMemberS{Value: "a"}}))
	assert.Equal(t, "", observe.FormatKey(nil))
}

// logged runs events through Slog into a JSON handler at level, and
// returns the records.
func logged(t *testing.T, level slog.Level, events ...observe.Event) []map[string]any {
	t.Helper()
	var buf bytes.Buffer
	o := observe.Slog(slog.New(slog.NewJSONHandler(&buf, &slog.HandlerOptions{Level: level})))
	for _, e := range events {
		assert.Equal(t, context.Background(), o.Observe(context.Background(), e))
	}
	var out []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(buf.String()), "\n") {
		if line == "" {
			continue
		}
		var m map[string]any
		require.NoError(t, json.Unmarshal([]byte(line), &m))
		out = append(out, m)
	}
	return out
}

func TestSlogLevels(t *testing.T) {
	levels := map[string]observe.Event{
		"WARN":  {Kind: observe.UnknownOutcome},
		"INFO":  {Kind: observe.LockAcquired},
		"DEBUG": {Kind: observe.Conflict},
	}
	for want, e := range levels {
		recs := logged(t, slog.LevelDebug, e)
		require.Len(t, recs, 1)
		assert.Equal(t, want, recs[0]["level"], "%v", e.Kind)
	}
	for _, k := range []observe.Kind{observe.LockLost, observe.LockForced, observe.LockTakenOver, observe.HeartbeatFailed} {
		assert.Equal(t, "WARN", logged(t, slog.LevelDebug, observe.Event{Kind: k})[0]["level"], "%v", k)
	}
	for _, k := range []observe.Kind{observe.Settled, observe.LockReleased, observe.LockHandedOver, observe.UnitCommit, observe.UnitRollback, observe.UnitRecovered, observe.UnitSettled} {
		assert.Equal(t, "INFO", logged(t, slog.LevelDebug, observe.Event{Kind: k})[0]["level"], "%v", k)
	}
	for _, k := range []observe.Kind{observe.Write, observe.LockHeld, observe.Unit} {
		for _, p := range []observe.Phase{observe.Start, observe.End} {
			assert.Equal(t, "DEBUG", logged(t, slog.LevelDebug, observe.Event{Kind: k, Phase: p})[0]["level"], "%v %v", k, p)
		}
	}
	// At Info, spans, conflicts and retries are not logged.
	recs := logged(t, slog.LevelInfo,
		observe.Event{Kind: observe.Write, Phase: observe.Start}, observe.Event{Kind: observe.Conflict},
		observe.Event{Kind: observe.Retry}, observe.Event{Kind: observe.Write, Phase: observe.End},
		observe.Event{Kind: observe.LockLost})
	require.Len(t, recs, 1)
	assert.Equal(t, "optimist: lock_lost", recs[0]["msg"])
}

func TestSlogAttributes(t *testing.T) {
	recs := logged(t, slog.LevelDebug,
		observe.Event{Kind: observe.Write, Phase: observe.End, Time: time.Now(), Op: "PutItem", Table: "accounts",
			Key: map[string]types.AttributeValue{"id": &types.AttributeValueMemberS{Value: "alice"}}, Attempt: 2, Token: "t.1",
			Err: errors.New("boom"), Capacity: 1.5, Duration: 3 * time.Millisecond},
		observe.Event{Kind: observe.Retry, Op: "Modify", Wait: 7 * time.Millisecond, Attempt: 3},
		observe.Event{Kind: observe.UnitRecovered, Name: "u1", Outcome: observe.OutcomeForward},
		observe.Event{Kind: observe.LockAcquired},
		observe.Event{Kind: observe.LockTakenOver, Name: "job", Owner: "worker-1", Token: "41"},
	)
	require.Len(t, recs, 5)
	w := recs[0]
	for k, v := range map[string]any{"msg": "optimist: write end", "kind": "write", "phase": "end", "op": "PutItem", "table": "accounts",
		"key": `{id="alice"}`, "attempt": 2.0, "token": "t.1", "err": "boom", "capacity": 1.5, "duration": float64(3 * time.Millisecond)} {
		assert.Equal(t, v, w[k], k)
	}
	r := recs[1]
	assert.Equal(t, float64(7*time.Millisecond), r["wait"])
	assert.NotContains(t, r, "duration")
	assert.NotContains(t, r, "phase")
	assert.Equal(t, "u1", recs[2]["name"])
	assert.Equal(t, "forward", recs[2]["outcome"])
	// Fields that do not apply are left out.
	assert.ElementsMatch(t, []string{"time", "level", "msg", "kind"}, keys(recs[3]))
	// A lock event names its owner (for a takeover, the previous holder).
	assert.Equal(t, "worker-1", recs[4]["owner"])
	assert.Equal(t, "41", recs[4]["token"])
	assert.Equal(t, "optimist: lock_taken_over", recs[4]["msg"])
}

func keys(m map[string]any) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

// TestSlogDefault: a nil logger logs to slog.Default() as it is when the
// event comes.
func TestSlogDefault(t *testing.T) {
	var buf bytes.Buffer
	prev := slog.Default()
	slog.SetDefault(slog.New(slog.NewTextHandler(&buf, nil)))
	defer slog.SetDefault(prev)
	observe.Slog(nil).Observe(context.Background(), observe.Event{Kind: observe.LockForced, Name: "job"})
	assert.Contains(t, buf.String(), `msg="optimist: lock_forced"`)
	assert.Contains(t, buf.String(), "name=job")
}
