package observe

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// Observer receives the library's events. The library calls Observe
// synchronously, on the goroutine of the operation (for a lease's
// heartbeats and its loss, on the lease's own goroutine), so a slow
// Observer slows the operation down; one Observer may be called from many
// goroutines at once and must be safe for concurrent use. It must not
// panic, and must not call back into the operation that emitted the event.
type Observer interface {
	// Observe receives one event. For the Start of a span-shaped operation
	// (Phase Start) it returns the context the operation continues with: ctx,
	// or a context derived from it (an adapter may put a span in it); the
	// operation's End event, and the DynamoDB calls made meanwhile, get that
	// context. Other events' return is ignored. Returning nil means ctx.
	Observe(ctx context.Context, e Event) context.Context
}

// Func is an Observer made of a function: it returns ctx as is, so it
// starts no spans. A nil Func observes nothing (a nil Observer is the
// usual way to say "none").
type Func func(ctx context.Context, e Event)

// Observe calls f and returns ctx; a nil f does nothing.
func (f Func) Observe(ctx context.Context, e Event) context.Context {
	if f != nil {
		f(ctx, e)
	}
	return ctx
}

// Event is one thing the library did or decided. Fields that do not apply
// to its Kind are zero; see [Kind] for what each kind carries.
type Event struct {
	Kind  Kind
	Phase Phase // Start or End of a span-shaped operation (Write, Unit, LockHeld), else Point
	Time  time.Time
	// Op is the DynamoDB call ("PutItem", "UpdateItem", "DeleteItem",
	// "TransactWriteItems", "BatchWriteItem", ...) or the library call
	// ("Modify", "Acquire", "Release", "Commit", ...) the event belongs to.
	Op    string
	Table string
	// Key is the primary key of the item, where one item is concerned. It
	// is the library's own map: read it, do not change or keep it.
	Key map[string]types.AttributeValue
	// Attempt counts tries, from 1, where retries happen.
	Attempt int
	// Token is the write token stored with a write, the client request
	// token of a transaction, or a lock's fencing token (in decimal).
	Token string
	// Name is a lock's name, or a unit's id.
	Name string
	// Owner is, for the lock events, the lock's holder as its Owner option
	// named it: the one that acquired, released, lost or was removed from
	// the lock (for LockTakenOver, the previous holder).
	Owner string
	// Outcome is what a settlement decided, one of the Outcome constants:
	// [OutcomeLanded] or [OutcomeNotSeen] for Settled, [OutcomeForward] or
	// [OutcomeBack] for UnitSettled and UnitRecovered.
	Outcome string
	// Err is the error of a failure, a conflict, an unknown outcome, a lost
	// lease, or of the operation an End event ends (nil: it succeeded).
	Err error
	// Capacity is the capacity consumed (in capacity units) as DynamoDB
	// reported it, on the End of a Write, when an observer asked for it
	// (see [WantsCapacity]); 0 otherwise.
	Capacity float64
	// Duration is, on an End event, the time since its Start.
	Duration time.Duration
	// Wait is, on a Retry, the backoff before the next attempt.
	Wait time.Duration
}

// The outcomes of settlements (Event.Outcome): the one vocabulary of the
// library's events, its logs (package observe's Slog) and its metrics
// (module otel's optimist.outcome attribute).
const (
	// OutcomeLanded: the item a Settled write found carries the write's
	// token (for a delete: the item is gone): the write succeeded.
	OutcomeLanded = "landed"
	// OutcomeNotSeen: the item a Settled write found does not show it (it
	// carries another write's token or none, or is missing; for a
	// delete, it is still there). Whether the write landed and was
	// overwritten, or never landed, cannot be known: an UnknownOutcome
	// follows.
	OutcomeNotSeen = "not_seen"
	// OutcomeForward: a unit past its commit point was finished (its
	// writes applied).
	OutcomeForward = "forward"
	// OutcomeBack: a unit before its commit point was undone.
	OutcomeBack = "back"
)

// Phase tells a span-shaped operation's Start and End from a point event.
type Phase uint8

// The phases.
const (
	Point Phase = iota // a single event
	Start              // an operation begins; Observe's result is its context
	End                // the operation ends; Duration and Err say how
)

// String returns "point", "start" or "end".
func (p Phase) String() string {
	switch p {
	case Start:
		return "start"
	case End:
		return "end"
	}
	return "point"
}

// Kind is what an event is about. The span-shaped kinds (Write, Unit,
// LockHeld) come as a Start and an End event; the others are points.
type Kind uint8

// The kinds of events, with the package that emits each and what it
// carries (besides Kind, Phase and Time, which every event has).
const (
	// Write: one write sent to DynamoDB, a span. mapper: each Put, Save,
	// Update and Delete, and each write of Modify (Op the call, "PutItem",
	// "UpdateItem" or "DeleteItem"; Table, Key; Token the write token, if
	// the table stores one; Attempt 2 when the write is sent again after
	// settling a dead unit's lock on the item). txn: each Commit that sends
	// (Op "TransactWriteItems"; Token the client request token; Table the
	// tables written, joined by commas; Key for a transaction of one op;
	// on End, Attempt the attempts Commit made). End: Err, Duration, and
	// Capacity when asked for. A write with ExactlyOnce is a transaction:
	// its span is txn's.
	Write Kind = iota + 1
	// Conflict: a write lost its version check (mapper, txn). Err is the
	// *version.ConflictError, or for a transaction the *txn.CanceledError.
	// Op, Table, Key, Token as for its Write, inside whose span it comes.
	Conflict
	// Retry: the library tries again. Modify after a conflict (Op "Modify";
	// Attempt the write about to be made, from 2; Wait its backoff; Err the
	// conflict); Commit after a TransactionConflict cancellation or a
	// transaction still in progress (Op "TransactWriteItems", Token); the
	// batch calls resending what DynamoDB left unprocessed (Op
	// "BatchGetItem" or "BatchWriteItem", Attempt the call about to be made).
	Retry
	// Settled: a mapper write whose answer was lost was settled without
	// writing again, by the write token in the item: the item a resend's
	// failed condition returned, or, when the write ended on the
	// unanswered attempt, one consistent read. Outcome [OutcomeLanded]
	// (the write is ours: success) or [OutcomeNotSeen] (an UnknownOutcome
	// follows). A write that cannot be settled (no write token, ctx
	// ended, the read failed) has no Settled event, only its
	// UnknownOutcome; a write with ExactlyOnce is a transaction and is
	// never settled this way. Op, Table, Key, Token, inside the Write.
	Settled
	// UnknownOutcome: a write whose outcome cannot be known (mapper, txn,
	// unit's commit point); Err matches version.ErrUnknownOutcome. Op,
	// Table, Key, Token where they apply; Name the unit's id for a unit.
	UnknownOutcome
	// LockHeld: a lock held, a span (pessimistic): Start when it is
	// acquired, End when it is released or lost (Err nil, or why it was
	// lost: ErrLeaseLost, ErrUnreachable, ErrClosed, the context's error
	// with ReleaseOnDone). Op "Acquire" or "LockItem"; Table the lock table
	// (or the item's table), Key the item's key for an item lock; Name;
	// Token the fencing token (none for item locks); Owner the holder.
	LockHeld
	// LockAcquired: Acquire or LockItem got the lock. Name, Table, Token,
	// Owner (the new holder);
	// Attempt the conditional writes it made (for a FIFO lock, the looks at
	// the queue after joining it); Op "Acquire" or "LockItem".
	LockAcquired
	// LockReleased: a lease's release write landed (Op "Release", or
	// "SaveAndRelease" for an item lock). Name, Table, Token, Owner.
	LockReleased
	// LockLost: a held lease ended without its holder releasing it. Err is
	// ErrLeaseLost (another owner took the lock, or it was forced) or
	// ErrUnreachable (heartbeats could not reach DynamoDB in time). Name,
	// Table, Token, Owner (the holder that lost it); Op "Heartbeat" or
	// "Release" (where it was found).
	LockLost
	// LockForced: Locker.ForceRelease or ForceReleaseIf removed a holder
	// (Op "ForceRelease"; Name, Table; Owner and Token the removed
	// holder's, empty when a resend found the lock free already).
	LockForced
	// LockHandedOver: a FIFO lock's release left waiters in the queue: the
	// next in line holds the lock now (Name, Table, Owner the releasing
	// holder; Token the next one's ticket).
	LockHandedOver
	// HeartbeatFailed: a heartbeat call failed, or could not be settled
	// (pessimistic: Op "Heartbeat", Name, Table, Token; unit: Op "Heartbeat",
	// Name the unit's id, Table the coordinator). Err is the call's error,
	// or unit.ErrAborted when recovery aborted the unit.
	HeartbeatFailed
	// Unit: a unit of work, a span (unit): Start at Begin, End at Commit,
	// Rollback, or an abort (Err). Name the unit's id, Table the
	// coordinator table.
	Unit
	// UnitCommit: a unit passed its commit point (Op "Commit").
	UnitCommit
	// UnitRollback: a unit rolled back (Op "Rollback" or "Commit"); Err is
	// why, when Commit rolled it back (a conflict, ErrLocked, ...).
	UnitRollback
	// UnitRecovered: Recover finished a unit whose owner was gone (Op
	// "Recover"; Name the unit's id; Table the coordinator; Outcome
	// "forward" for a committed unit rolled forward, "back" for one undone).
	UnitRecovered
	// UnitSettled: a write or a unit met another unit's lock on an item,
	// found that unit over or dead, and rolled the item forward or back
	// (Outcome) so that it could go on. Op the call that met it; Table,
	// Key the item; Name the other unit's id.
	UnitSettled
	// LockTakenOver: Acquire got a lock whose previous holder did not
	// release it: one that stopped renewing its lease (seen unchanged for
	// a lease, for a FIFO lock removed from the queue), or one that
	// Locker.ForceRelease removed. Name, Table; Owner and Token are the
	// previous holder's (Token its fencing token or ticket). It comes just
	// before the new holder's LockAcquired, which names the new holder.
	LockTakenOver
	kindCount
)

var kindNames = [kindCount]string{"", "write", "conflict", "retry", "settled", "unknown_outcome",
	"lock_held", "lock_acquired", "lock_released", "lock_lost", "lock_forced", "lock_handed_over",
	"heartbeat_failed", "unit", "unit_commit", "unit_rollback", "unit_recovered", "unit_settled", "lock_taken_over"}

// String returns the kind's name in snake case ("unknown_outcome").
func (k Kind) String() string {
	if k == 0 || k >= kindCount {
		return "unknown"
	}
	return kindNames[k]
}

// Span reports whether events of the kind come as a Start and an End.
func (k Kind) Span() bool { return k == Write || k == Unit || k == LockHeld }

// WantsCapacity reports whether o asks for the capacity DynamoDB consumes:
// it has a method WantsCapacity() bool that returns true. Writes then ask
// DynamoDB for it (ReturnConsumedCapacity=TOTAL, which costs no capacity)
// and report it in the Capacity of their End event. Without such an
// observer nothing is asked.
func WantsCapacity(o Observer) bool {
	w, ok := o.(interface{ WantsCapacity() bool })
	return ok && w.WantsCapacity()
}

// FormatKey renders a key for logs: {name="value", n=3}, names sorted;
// strings are quoted, numbers as they are, binary values by their length.
// It is observe's own (observe imports no package of the module: the
// library's layers all import it), and renders keys as the library's error
// messages do.
func FormatKey(key map[string]types.AttributeValue) string {
	if key == nil {
		return ""
	}
	parts := make([]string, 0, len(key))
	for _, name := range slices.Sorted(maps.Keys(key)) {
		var v string
		switch av := key[name].(type) {
		case *types.AttributeValueMemberS:
			v = fmt.Sprintf("%q", av.Value)
		case *types.AttributeValueMemberN:
			v = av.Value
		case *types.AttributeValueMemberB:
			v = fmt.Sprintf("<%d bytes>", len(av.Value))
		case nil:
			v = "<nil>"
		default:
			v = fmt.Sprintf("<%T>", av)
		}
		parts = append(parts, name+"="+v)
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

// Multi returns an Observer that gives each event to each of obs in turn
// (nil ones are skipped). A Start's context goes from one to the next, so
// that each may add to it. Multi of no observer is nil; of one, that one.
// It asks for capacity when one of obs does.
func Multi(obs ...Observer) Observer {
	var m multi
	for _, o := range obs {
		switch o := o.(type) {
		case nil:
		case multi:
			m = append(m, o...)
		default:
			m = append(m, o)
		}
	}
	switch len(m) {
	case 0:
		return nil
	case 1:
		return m[0]
	}
	return m
}

type multi []Observer

func (m multi) Observe(ctx context.Context, e Event) context.Context {
	for _, o := range m {
		if c := o.Observe(ctx, e); c != nil && e.Phase == Start {
			ctx = c
		}
	}
	return ctx
}

func (m multi) WantsCapacity() bool {
	for _, o := range m {
		if WantsCapacity(o) {
			return true
		}
	}
	return false
}
