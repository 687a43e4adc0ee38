// Package otel records optimist's events (package observe) with
// OpenTelemetry: spans for writes, lock holds and units of work, span
// events for what happens inside them, and metrics of conflicts, retries,
// unknown outcomes, lost leases and consumed capacity. It is a module of
// its own, so that the core module depends on no OpenTelemetry package.
//
//	o := otel.New() // the global providers; or WithTracerProvider, WithMeterProvider
//	accounts, err := mapper.NewTable[Account](client, "accounts",
//		func(opts *mapper.TableOptions) { opts.Observer = o })
//	locker, err := pessimistic.New(client, "locks", pessimistic.Observer(o))
//	u, err := unit.Begin(ctx, client, unit.Coordinator("units"), unit.Observer(o))
//
// # Spans
//
// Following OpenTelemetry's database conventions where they apply:
//
//   - A write (Put, Save, Update, Delete, each write of Modify; a
//     transaction's commit) is a client span named "<call> <table>"
//     ("PutItem accounts"; a transaction over several tables is named
//     "TransactWriteItems"), with db.system.name "aws.dynamodb",
//     db.operation.name, db.collection.name (one table),
//     aws.dynamodb.table_names, optimist.key and optimist.token (see
//     [WithKeys]), optimist.capacity (the capacity units consumed, see
//     [WithCapacity]), optimist.attempt (a write sent again after a dead
//     unit's lock was settled) and optimist.attempts (a commit's attempts,
//     when more than one). A failed write has status Error, error.type and
//     the error recorded.
//   - A lock hold is a span "optimist.lock.held" from acquisition to release
//     or loss (optimist.lock.name, optimist.lock.table, optimist.lock.token,
//     optimist.lock.owner).
//   - A unit of work is a span "optimist.unit" from Begin to Commit or
//     Rollback (optimist.unit.id, optimist.unit.coordinator).
//
// The DynamoDB calls made within a span carry its context: a client
// instrumented with otelaws nests its spans under these. Conflicts,
// retries, settled answers, unknown outcomes, lost leases, hand-overs,
// takeovers, forced releases and failed heartbeats are events
// ("optimist.conflict", ...) of the span in whose context they happen,
// with optimist.owner for the lock events (the holder; for a takeover,
// the previous one) and optimist.outcome for settlements: the write's, the lock's, or the caller's for
// Modify's retries. error.type is a low-cardinality class: the library's
// outcomes by name (conflict, unknown_outcome, condition_failed, locked,
// lease_lost, unreachable, aborted, ...), DynamoDB's errors by their code,
// other errors by their Go type.
//
// # Metrics
//
// Counters, with attributes kept to a few values each (tables,
// operations, outcomes; never keys, tokens, lock names or unit ids):
//
//	optimist.conflicts            {conflict}       db.system.name, db.operation.name, db.collection.name
//	optimist.retries              {retry}          the same (operation: Modify, TransactWriteItems, BatchWriteItem, ...)
//	optimist.unknown_outcomes     {write}          the same
//	optimist.settled              {write}          the same, optimist.outcome (landed, not_seen)
//	optimist.lock.takeovers       {lock}           optimist.table (from a dead or force-released holder)
//	optimist.capacity.consumed    {capacity_unit}  the same
//	optimist.lock.losses          {lease}          optimist.table, error.type (lease_lost, unreachable)
//	optimist.heartbeat.failures   {heartbeat}      optimist.table (the lock or coordinator table), error.type
//	optimist.unit.recoveries      {unit}           optimist.table (the coordinator), optimist.outcome (forward, back)
//
// The values of optimist.outcome are the observe package's Outcome
// constants (observe.OutcomeLanded, OutcomeNotSeen, OutcomeForward,
// OutcomeBack), the same words the events and Slog's logs carry.
//
// and the histogram db.client.operation.duration (seconds) of writes,
// with db.system.name, db.operation.name, db.collection.name and, for a
// failed write, error.type.
//
// The observer asks writes for their consumed capacity
// (ReturnConsumedCapacity=TOTAL: no capacity cost, a few bytes per
// response) unless [WithCapacity](false) is given.
package otel
