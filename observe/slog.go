package observe

import (
	"context"
	"log/slog"
)

// Slog returns an Observer that logs each event as one structured record
// on l (nil: slog.Default() at the time of each event), with the message
// "optimist: <kind>" ("optimist: write end" for spans) and the attributes
// that apply: kind, phase (spans only), op, table, key (as [FormatKey]
// renders it), attempt, token, name, owner, outcome (one of the Outcome
// constants), err, capacity, duration, wait.
//
// Levels:
//
//   - Warn: UnknownOutcome, LockLost, LockForced, LockTakenOver,
//     HeartbeatFailed: what an operator may have to act on.
//   - Info: decisions: Settled, LockAcquired, LockReleased,
//     LockHandedOver, UnitCommit, UnitRollback, UnitRecovered,
//     UnitSettled.
//   - Debug: the Start and End of spans (every write, lock hold and unit),
//     Conflict and Retry. Conflicts are the normal working of optimistic
//     locking, and under contention they come by the hundred; the errors
//     they end in reach the caller anyway. Count them with metrics (the
//     otel module) rather than read them at Info.
//
// A record below the handler's level is not built at all (Enabled is
// asked first).
func Slog(l *slog.Logger) Observer { return slogObserver{l} }

type slogObserver struct{ l *slog.Logger }

// level is the level Slog logs an event of kind k in phase p at.
func level(k Kind, p Phase) slog.Level {
	if p != Point {
		return slog.LevelDebug
	}
	switch k {
	case UnknownOutcome, LockLost, LockForced, LockTakenOver, HeartbeatFailed:
		return slog.LevelWarn
	case Conflict, Retry:
		return slog.LevelDebug
	}
	return slog.LevelInfo
}

func (s slogObserver) Observe(ctx context.Context, e Event) context.Context {
	l := s.l
	if l == nil {
		l = slog.Default()
	}
	lvl := level(e.Kind, e.Phase)
	if !l.Enabled(ctx, lvl) {
		return ctx
	}
	msg := "optimist: " + e.Kind.String()
	attrs := make([]slog.Attr, 0, 8)
	attrs = append(attrs, slog.String("kind", e.Kind.String()))
	if e.Phase != Point {
		msg += " " + e.Phase.String()
		attrs = append(attrs, slog.String("phase", e.Phase.String()))
	}
	str := func(k, v string) {
		if v != "" {
			attrs = append(attrs, slog.String(k, v))
		}
	}
	str("op", e.Op)
	str("table", e.Table)
	if e.Key != nil {
		attrs = append(attrs, slog.String("key", FormatKey(e.Key)))
	}
	if e.Attempt != 0 {
		attrs = append(attrs, slog.Int("attempt", e.Attempt))
	}
	str("token", e.Token)
	str("name", e.Name)
	str("owner", e.Owner)
	str("outcome", e.Outcome)
	if e.Err != nil {
		attrs = append(attrs, slog.String("err", e.Err.Error()))
	}
	if e.Capacity != 0 {
		attrs = append(attrs, slog.Float64("capacity", e.Capacity))
	}
	if e.Phase == End {
		attrs = append(attrs, slog.Duration("duration", e.Duration))
	}
	if e.Kind == Retry {
		attrs = append(attrs, slog.Duration("wait", e.Wait))
	}
	l.LogAttrs(ctx, lvl, msg, attrs...)
	return ctx
}
