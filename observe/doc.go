// Package observe lets a program see what optimist decides on its behalf:
// conflicts and retries, lost answers settled by the item they left,
// writes whose outcome is unknown, locks acquired, lost, forced, taken
// over and handed over, heartbeats that fail, units of work committed,
// rolled back and recovered. It is one small interface, [Observer], given to each
// package through its options; [Slog] turns the events into structured
// logs, and the module github.com/optimist-dynamo/optimist/otel into
// OpenTelemetry spans and metrics.
//
// # Attaching an observer
//
//	o := observe.Slog(logger) // or otel.New(), or observe.Multi(both, ...)
//
//	mapper.NewTable[Account](client, "accounts", func(opts *mapper.TableOptions) { opts.Observer = o })
//	txn.New(client, txn.Observer(o))
//	pessimistic.New(client, "locks", pessimistic.Observer(o)) // or per call: Acquire(ctx, name, pessimistic.Observer(o))
//	pessimistic.LockItem(ctx, accounts, key, pessimistic.Observer(o))
//	unit.Begin(ctx, client, unit.Coordinator("units"), unit.Observer(o))
//	unit.Recover(ctx, client, "units", unit.Observer(o))
//
// A mapper write with ExactlyOnce is a transaction: the table hands its
// observer to txn, whose events it reports.
//
// # Events
//
// Each [Event] has a [Kind], a [Phase] and a Time, and, where they apply,
// the table, the item's key, the DynamoDB call or library call (Op), the
// attempt, a token (write token, client request token or fencing token),
// a lock's name or a unit's id, a lock's owner, the error and an outcome
// (one of the Outcome constants, the words logs and metrics use too). Three kinds are
// spans, reported as a Start and an End (with Duration and Err): Write
// (one write sent: a Put, Save, Update, Delete, each write of Modify, a
// transaction), LockHeld (from acquisition to release or loss) and Unit
// (from Begin to Commit or Rollback). The others are points, reported
// inside the span they belong to where there is one (a Conflict comes
// within its Write). See [Kind] for what each kind carries and where it is
// emitted.
//
// # Contexts and spans
//
// Observe returns, for a Start, the context the operation continues
// with: an adapter may put a span in it. The DynamoDB calls made during
// the operation, its point events and its End get that context, so
// instrumented SDK clients (otelaws) nest their spans under the
// library's. A lease's heartbeats and a unit's run on goroutines of their
// own; their calls carry the span's values too.
//
// # Cost
//
// A nil Observer (the default everywhere) costs a nil check: no event is
// built. With an observer, a write builds two or three events on the
// stack and passes them by value; a Put (or Save) also makes the map of
// its key, for the events. The observer is called synchronously, on the goroutine of
// the operation (for a lease's heartbeats and loss, and a unit's
// heartbeats, on their own goroutine): a slow observer slows the
// operation, and one observer is called from many goroutines at once, so
// it must be safe for concurrent use. It must not call back into the
// operation it observes.
//
// Consumed capacity is not asked of DynamoDB by default. An observer
// that has a method WantsCapacity() bool returning true (the otel
// adapter's) makes every write ask for it (ReturnConsumedCapacity=TOTAL,
// which costs no capacity and a few bytes of response) and receives it in
// the Capacity of its Write's End; see [WantsCapacity].
package observe
