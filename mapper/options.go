package mapper

import (
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"

	"github.com/optimist-dynamo/optimist/internal/plan"
	"github.com/optimist-dynamo/optimist/internal/retry"
	"github.com/optimist-dynamo/optimist/observe"
	"github.com/optimist-dynamo/optimist/update"
)

// TableOptions configure a [Table]; pass functions that change them to
// [NewTable]. The defaults are set before the functions run.
type TableOptions struct {
	// TokenAttribute names the attribute in which every conditional write
	// stores a token unique to that write (default "optimist_token"). It is
	// how a write whose response was lost is recognised as ours when the
	// SDK's retry then fails its condition (see [ErrUnknownOutcome]): by the
	// token, never by comparing content, because two concurrent increments
	// often compute identical items. It costs about 35 bytes per item. Set it
	// to "" to turn the check off; lost responses then surface as
	// ErrUnknownOutcome.
	TokenAttribute string

	// VersionZeroExists makes a stored version 0 an existing version, for
	// tables written by code that starts counting at 0 (such as AWS's Java
	// DynamoDBMapper v1). With
	// it, a write of a struct whose version is 0 (Put,
	// Save, PutOp, Modify; CheckOp checks the same) is conditional on
	// "no item, or an item with version 0" (attribute_not_exists(hash) OR
	// v = 0) instead of "no item", and stores version 1. An item without a
	// version attribute still conflicts. The price: a create can no longer
	// tell a new key from a stored version 0, so it overwrites an item
	// stored with version 0. Off by default: then a struct's version 0
	// means create, and a stored version 0 is a conflict that
	// [Table.Modify] reports without retrying.
	VersionZeroExists bool

	// EncoderOptions and DecoderOptions are applied, after TagKey is set to
	// "dynamo", to the attributevalue encoder and decoder the table uses.
	// With encoder options set, every field is encoded by attributevalue
	// (the table's fast path for plain fields is turned off).
	EncoderOptions []func(*attributevalue.EncoderOptions)
	DecoderOptions []func(*attributevalue.DecoderOptions)

	// MaxAttempts is how many writes [Table.Modify] tries before it returns
	// the last conflict (default 50), and BackoffBase and BackoffMax bound
	// its jittered exponential backoff between them (defaults 20ms and
	// 200ms). Per call, [MaxAttempts] and [Backoff] override them. The
	// batch calls (GetAll, PutAll, DeleteAll) use the same settings for
	// retrying what DynamoDB left unprocessed.
	MaxAttempts int
	BackoffBase time.Duration
	BackoffMax  time.Duration

	// ExactlyOnce makes [ExactlyOnce] the default of every Put, Update,
	// Delete, Save and Modify of the table.
	ExactlyOnce bool

	// Observer, if set, receives the table's events (package observe): a
	// Write span around each write Put, Save, Update, Delete and Modify
	// send (with ExactlyOnce, txn.Commit's span), Conflict, Retry (Modify's
	// retries, the batch calls' resends), Settled, UnknownOutcome and
	// UnitSettled. nil (the default) costs nothing. If it asks for the
	// capacity consumed (observe.WantsCapacity), every write asks DynamoDB
	// for it (ReturnConsumedCapacity=TOTAL, at no cost).
	Observer observe.Observer

	// WriteRegion names the one AWS Region every write to the table goes
	// to, for a global table (one with replicas) whose other Regions only
	// read. Without it the table's first write of a versioned type, or
	// first conditional write (a fence, an [If]), calls DescribeTable once,
	// with that call's context, and refuses to write to a global table in
	// multi-Region eventual consistency: there a condition is checked
	// against the item in the writer's Region only, and concurrent writes
	// in two Regions are settled by last writer wins, so no version check
	// can protect it (see [ErrGlobalTable]). A table in multi-Region strong
	// consistency passes, and DynamoDB's ReplicatedWriteConflictException
	// is then a conflict that Modify retries. With WriteRegion set no
	// DescribeTable is made, and a client configured for another Region is
	// refused before it sends anything. A client without DescribeTable
	// (a wrapper of yours) is not checked.
	WriteRegion string
}

// policy is the retry policy of Modify and the batch calls.
func (o TableOptions) policy() retry.Policy {
	return retry.Policy{MaxAttempts: o.MaxAttempts, Base: o.BackoffBase, Max: o.BackoffMax}
}

// Default retry settings of Modify (and of the batch calls' retries of
// unprocessed items). Modify sleeps its backoff from its third conflict
// on, until it takes the item's turn (see Table.Modify), and after that
// where it cannot take it (the item missing, or held by a unit of work).
// The waits grow with full jitter from 20ms to a cap of 200ms, and a
// waiter reads again after each sleep. MaxAttempts is a backstop: with
// turns, a change made by Modify alone does not come near it. Items that
// hot are better changed with Table.Update.
const (
	defaultMaxAttempts = 50
	defaultBackoffBase = 20 * time.Millisecond
	defaultBackoffMax  = 200 * time.Millisecond
	defaultToken       = "optimist_token"
)

// WriteOptions configure one write: Put, Save, Update, Delete, Modify, the
// transaction ops (PutOp, UpdateOp, DeleteOp, CheckOp) and the batch
// writes (PutAll, DeleteAll). Pass functions that change them, such as
// [If], [Unversioned], [Fence], [ExactlyOnce], [Old], [WriteCapacity],
// [MaxAttempts]; one type serves every write, and each call refuses, with
// an error matching [ErrInvalidOption] and before anything is sent, what
// it cannot honour:
//
//	option            Put  Save  Update  Delete  Modify  *Op  PutAll/DeleteAll
//	If, Fence          ✓    ✓      ✓       ✓       ✓      ✓
//	Unversioned        ✓    ✓      ✓       ✓              ✓         ✓
//	ExactlyOnce        ✓    ✓      ✓       ✓       ✓      ✓ (the transaction is)
//	ExactlyOnceToken   ✓    ✓      ✓       ✓
//	Old, WriteCapacity ✓    ✓      ✓       ✓
//	Also                    ✓
//	Outside                        ✓                      ✓ (UpdateOp)
//	MaxAttempts,
//	Backoff                                        ✓
type WriteOptions struct {
	// Conditions are the caller's own conditions, ANDed with the version
	// check and with each other ([If]).
	Conditions []expression.ConditionBuilder
	// Unversioned turns the version check off ([Unversioned]).
	Unversioned bool
	// Outside names attributes outside the struct that an update writes on
	// purpose ([Outside]).
	Outside []string
	// FenceAttr and FenceToken are a fencing token's condition and value
	// ([Fence]); FenceAttr "" means none.
	FenceAttr  string
	FenceToken int64
	// ExactlyOnce sends the write as a one-action transaction ([ExactlyOnce]),
	// with the client request token Token ([ExactlyOnceToken]) or a fresh one.
	ExactlyOnce bool
	Token       string
	// Also adds actions on attributes outside the struct to a Save ([Also]).
	Also *update.Builder
	// Capacity receives the write capacity consumed ([WriteCapacity]).
	Capacity *Capacity
	// turn is Modify's turn condition for its write (turn.go).
	turn *plan.Turn
	// MaxAttempts, BackoffBase and BackoffMax override the table's retry
	// settings for one Modify ([MaxAttempts], [Backoff]); 0 keeps them.
	MaxAttempts             int
	BackoffBase, BackoffMax time.Duration

	backoff bool     // Backoff was given (Backoff(0, 0) means no wait)
	old     *oldItem // Old
	err     error    // the first option given a value that cannot work
}

// A WriteOption changes the [WriteOptions] of one write.
type WriteOption = func(*WriteOptions)

// A RetryOption is a [WriteOption] given to [Table.Modify]: the write
// options apply to each write it makes, and [MaxAttempts] and [Backoff] to
// its retries.
type RetryOption = WriteOption

func (o *WriteOptions) fail(format string, args ...any) {
	if o.err == nil {
		o.err = fmt.Errorf("%w: "+format, append([]any{ErrInvalidOption}, args...)...)
	}
}

// writeCall names a call that takes WriteOptions, with what it honours.
type writeCall struct {
	name string
	take wopt
}

type wopt uint16

const (
	wCond wopt = 1 << iota
	wUnversioned
	wExactlyOnce
	wToken
	wReturns
	wAlso
	wRetry
	wOutside
)

var (
	callPut    = writeCall{"Put", wCond | wUnversioned | wExactlyOnce | wToken | wReturns}
	callSave   = writeCall{"Save", wCond | wUnversioned | wExactlyOnce | wToken | wReturns | wAlso}
	callUpdate = writeCall{"Update", wCond | wUnversioned | wExactlyOnce | wToken | wReturns | wOutside}
	callDelete = writeCall{"Delete", wCond | wUnversioned | wExactlyOnce | wToken | wReturns}
	callModify = writeCall{"Modify", wCond | wExactlyOnce | wRetry}
	callOp     = writeCall{"a transaction op", wCond | wUnversioned | wExactlyOnce | wOutside}
	callBatch  = writeCall{"a batch write (PutAll, DeleteAll)", wUnversioned}
)

// given returns the options set in o.
func (o *WriteOptions) given() (set wopt) {
	for f := wopt(1); f <= wOutside; f <<= 1 {
		if o.name(f) != "" {
			set |= f
		}
	}
	return set
}

// name returns the name of the option of o that sets flag f, "" if none
// does (for error messages: only one name is given per flag).
func (o *WriteOptions) name(f wopt) string {
	switch {
	case f == wCond && (o.FenceAttr != "" || o.FenceToken != 0):
		return "Fence"
	case f == wCond && len(o.Conditions) > 0:
		return "If"
	case f == wUnversioned && o.Unversioned:
		return "Unversioned"
	case f == wExactlyOnce && o.ExactlyOnce && o.Token == "":
		return "ExactlyOnce"
	case f == wToken && o.Token != "":
		return "ExactlyOnceToken"
	case f == wReturns && o.old != nil:
		return "Old"
	case f == wReturns && o.Capacity != nil:
		return "WriteCapacity"
	case f == wAlso && o.Also != nil:
		return "Also"
	case f == wRetry && (o.MaxAttempts != 0 || o.BackoffBase != 0 || o.BackoffMax != 0 || o.backoff):
		return "MaxAttempts or Backoff"
	case f == wOutside && len(o.Outside) > 0:
		return "Outside"
	}
	return ""
}

// writeOptions applies opts for call and refuses what call cannot honour
// and values that cannot work; the table's ExactlyOnce default applies to
// single writes and Modify.
func (t *Table[T]) writeOptions(call writeCall, opts []WriteOption) (*WriteOptions, error) {
	o := &WriteOptions{}
	for _, fn := range opts {
		if fn == nil {
			o.fail("a nil WriteOption given to %s", call.name)
			continue
		}
		fn(o)
	}
	if o.err != nil {
		return nil, o.err
	}
	set := o.given()
	if bad := set &^ call.take; bad != 0 {
		for f := wopt(1); f <= bad; f <<= 1 {
			if bad&f != 0 {
				why := ""
				switch {
				case call.take == callBatch.take && (f == wCond || f == wExactlyOnce || f == wToken):
					why = ": BatchWriteItem carries no conditions and no request tokens; use Put, or a transaction (package txn)"
				case f == wToken && call.take == callModify.take:
					why = ", which may write several times; use ExactlyOnce"
				case f == wToken && call.take == callOp.take:
					why = ": the transaction's request token is its own (txn.Token)"
				case f == wAlso:
					why = ": Also is for Save; put the actions in the update instead"
				case f == wUnversioned && call.take == callModify.take:
					why = ": Modify with Unversioned would lose concurrent updates"
				}
				return nil, fmt.Errorf("%w: %s does not apply to %s%s", ErrInvalidOption, o.name(f), call.name, why)
			}
		}
	}
	if o.Token != "" {
		if len(o.Token) > 36 {
			return nil, fmt.Errorf("%w: ExactlyOnceToken(%q): need 1 to 36 characters", ErrInvalidOption, o.Token)
		}
		o.ExactlyOnce = true
	}
	for _, c := range o.Conditions {
		if !c.IsSet() {
			return nil, fmt.Errorf("%w: If of an empty condition", ErrInvalidOption)
		}
	}
	if o.FenceToken != 0 && o.FenceAttr == "" {
		return nil, fmt.Errorf("%w: Fence needs an attribute name", ErrInvalidOption)
	}
	if call.take&wExactlyOnce != 0 && call.take != callOp.take {
		o.ExactlyOnce = o.ExactlyOnce || t.opts.ExactlyOnce
	}
	if o.ExactlyOnce && set&wReturns != 0 {
		// A transaction returns neither the old item nor capacity per item.
		return nil, fmt.Errorf("%w: %s does not apply to an ExactlyOnce write (TransactWriteItems returns neither)", ErrInvalidOption, o.name(wReturns))
	}
	return o, nil
}

// fence returns the write's fence, nil if none.
func (o *WriteOptions) fence() *plan.Fence {
	if o.FenceAttr == "" {
		return nil
	}
	return &plan.Fence{Attr: o.FenceAttr, Token: o.FenceToken}
}

// If adds a condition of the caller's own to the write. It is ANDed with the
// version check (and with other If conditions), never replaces it: the write
// happens only when every condition holds. When only the caller's condition
// fails, the error is a [*ConditionError].
func If(cond expression.ConditionBuilder) WriteOption {
	return func(o *WriteOptions) { o.Conditions = append(o.Conditions, cond) }
}

// Unversioned turns the version check off for one write: the item is written
// whatever version is stored (a forced write). A Put still writes the
// struct's version plus one, which may set the stored version back; use it
// for migrations and repairs, not in ordinary code. It is also how types
// with a version field are written in batches.
func Unversioned() WriteOption {
	return func(o *WriteOptions) { o.Unversioned = true }
}

// Fence makes the write conditional on a fencing token from a lock: it is
// refused when attribute attr holds a higher token than token
// (attribute_not_exists(attr) OR attr <= token), and it stores token in
// attr. A lock holder that paused past its lease, while another took the lock
// with a higher token, can then no longer write. The condition is ANDed with
// the others; a refusal is a [*ConditionError].
func Fence(attr string, token int64) WriteOption {
	return func(o *WriteOptions) {
		if attr == "" {
			o.fail("Fence needs an attribute name")
			return
		}
		o.FenceAttr, o.FenceToken = attr, token
	}
}

// Outside lets an [Table.Update] or [Table.UpdateOp] write the attributes
// attrs, which are outside the struct, although each is spelled as the Go
// name of a field stored under another attribute name. Without it such an
// update is refused before sending (update.ErrInvalidPath, with
// [ErrInvalidOption]) and the error names the attribute the field is
// stored as: update.Add("Balance", 1) on a field Balance stored as
// "balance" is almost always a slip. An attribute that no field's Go name
// spells needs no option.
func Outside(attrs ...string) WriteOption {
	return func(o *WriteOptions) {
		if len(attrs) == 0 {
			o.fail("Outside needs at least one attribute name")
			return
		}
		o.Outside = append(o.Outside, attrs...)
	}
}

// Also adds the actions of u to a [Table.Save], in the same UpdateItem: for
// attributes outside the struct, such as a counter kept beside it or the
// attributes of a lock held in the item. They may not touch the struct's
// attributes. The other writes refuse it ([ErrInvalidOption]): put the
// actions in their own update instead.
func Also(u *update.Builder) WriteOption {
	return func(o *WriteOptions) {
		if u == nil {
			o.fail("Also(nil)")
			return
		}
		o.Also = u
	}
}

// ExactlyOnce sends a Put, Update, Delete, Save or Modify write as a
// TransactWriteItems of one action whose ClientRequestToken is fixed for the
// write, instead of PutItem, UpdateItem or DeleteItem. DynamoDB applies a
// token's transaction at most once within 10 minutes, so the SDK can resend
// it after a lost answer even when other writers changed the item in
// between: a lost answer costs a resend, not an unknown outcome. The
// conditions, errors and version semantics are those of the plain write
// (a refused write is a [*version.ConflictError] or a [*ConditionError]).
//
// Only when every attempt the SDK makes goes unanswered is the outcome
// unknown: the error matches [ErrUnknownOutcome], and its Token
// ([UnknownOutcomeError].Token) resends the same write safely within 10
// minutes of the first attempt: make the same call, with the same item or
// key and update, with [ExactlyOnceToken](token) in place of ExactlyOnce.
//
// Cost: a transactional write uses twice the write capacity of a plain one;
// an Update also reads the item after writing it, with one consistent
// GetItem, because TransactWriteItems returns no item. Items written this way
// carry no write token (the request token does its work). A transaction's
// own ops (PutOp and the others) are exactly-once already, by the
// transaction's token: there it is accepted and changes nothing. Batch
// writes refuse it. Set [TableOptions].ExactlyOnce to make it the table's
// default for Put, Save, Update, Delete and Modify.
func ExactlyOnce() WriteOption {
	return func(o *WriteOptions) { o.ExactlyOnce = true }
}

// ExactlyOnceToken is [ExactlyOnce] with a ClientRequestToken of the
// caller's (1 to 36 characters): to resend a write whose outcome was unknown
// with the token of its error, or to make a write idempotent across
// processes. The same token with a different request within 10 minutes is
// refused by DynamoDB (IdempotentParameterMismatchException). Modify, which
// may write several times, refuses it, as do transaction ops (the
// transaction's token is [txn.Token]).
func ExactlyOnceToken(token string) WriteOption {
	return func(o *WriteOptions) {
		if len(token) < 1 || len(token) > 36 {
			o.fail("ExactlyOnceToken(%q): need 1 to 36 characters", token)
			return
		}
		o.ExactlyOnce, o.Token = true, token
	}
}

// MaxAttempts sets how many writes Modify tries in all (at least 1).
func MaxAttempts(n int) RetryOption {
	return func(o *WriteOptions) {
		if n < 1 {
			o.fail("MaxAttempts(%d): need at least 1", n)
			return
		}
		o.MaxAttempts = n
	}
}

// Backoff sets the bounds of Modify's jittered exponential backoff. The
// first conflict is retried at once; after the k-th (k >= 2) Modify sleeps
// a random duration in [0, min(max, base<<(k-2))), then reads again.
func Backoff(base, max time.Duration) RetryOption {
	return func(o *WriteOptions) {
		if base < 0 || max < base {
			o.fail("Backoff(%v, %v): need 0 <= base <= max", base, max)
			return
		}
		o.BackoffBase, o.BackoffMax, o.backoff = base, max, true
	}
}

// policy returns the retry policy of a Modify: the table's, with o's
// overrides.
func (t *Table[T]) policy(o *WriteOptions) retry.Policy {
	p := t.opts.policy()
	if o != nil {
		if o.MaxAttempts != 0 {
			p.MaxAttempts = o.MaxAttempts
		}
		if o.backoff || o.BackoffMax != 0 {
			p.Base, p.Max = o.BackoffBase, o.BackoffMax
		}
	}
	return p
}
