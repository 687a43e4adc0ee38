package mapper

import (
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"

	"github.com/optimist-dynamo/optimist/internal/errs"
	"github.com/optimist-dynamo/optimist/internal/plan"
	"github.com/optimist-dynamo/optimist/update"
)

// WriteOptions configure one write: Put, Save, Update, Delete, Modify, the
// transaction ops (PutOp, UpdateOp, DeleteOp, CheckOp) and the batch
// writes (PutAll, DeleteAll). They are set by the options the call takes,
// and each call has its own option type, so that an option a call cannot
// honour does not compile:
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
//
//	call                          takes
//	Put, Update, Delete           WriteOption
//	Save                          SaveOption
//	Modify                        RetryOption
//	PutOp, DeleteOp, CheckOp      OpOption
//	UpdateOp                      UpdateOpOption
//	PutAll, DeleteAll             BatchOption
//
// Put, Update and Delete share WriteOption, so that one []WriteOption can
// be passed to each of them; Outside is a WriteOption for Update's sake,
// and Put and Delete refuse it ([ErrInvalidOption]) before anything is
// sent. A value that cannot work (MaxAttempts(0), Fence("", n), If of an
// empty condition, ExactlyOnceToken of more than 36 characters), a nil
// option, and Old or WriteCapacity on an ExactlyOnce write (the table's
// default included) are refused the same way.
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

// The option types, one per kind of call (see [WriteOptions] for which
// call takes which). Their methods are unexported: the options are the
// ones this package's functions return.
type (
	// A WriteOption is an option of [Table.Put], [Table.Update] and
	// [Table.Delete].
	WriteOption interface{ applyWrite(*WriteOptions) }
	// A SaveOption is an option of [Table.Save].
	SaveOption interface{ applySave(*WriteOptions) }
	// A RetryOption is an option of [Table.Modify]: the write options
	// apply to each write it makes, and [MaxAttempts] and [Backoff] to its
	// retries.
	RetryOption interface{ applyRetry(*WriteOptions) }
	// An OpOption is an option of [Table.PutOp], [Table.DeleteOp] and
	// [Table.CheckOp].
	OpOption interface{ applyOp(*WriteOptions) }
	// An UpdateOpOption is an option of [Table.UpdateOp].
	UpdateOpOption interface{ applyUpdateOp(*WriteOptions) }
	// A BatchOption is an option of [Table.PutAll] and [Table.DeleteAll].
	BatchOption interface{ applyBatch(*WriteOptions) }
)

// A CommonOption ([If], [Fence], [ExactlyOnce]) is taken by every
// single-item write: Put, Save, Update, Delete, Modify and the
// transaction ops.
type CommonOption struct{ set func(*WriteOptions) }

// An UnversionedOption ([Unversioned]) is taken by every write that
// checks a version of its own: Put, Save, Update, Delete, the transaction
// ops and the batch writes (not Modify, whose retries are the version
// check's).
type UnversionedOption struct{ set func(*WriteOptions) }

// A CallOption ([ExactlyOnceToken], [Old], [WriteCapacity]) is taken by
// the calls that send one write and return its answer: Put, Save, Update
// and Delete.
type CallOption struct{ set func(*WriteOptions) }

// An OutsideOption ([Outside]) is taken by the updates: Update and
// UpdateOp (and, as a WriteOption, refused by Put and Delete).
type OutsideOption struct{ set func(*WriteOptions) }

// saveOption ([Also]) and retryOption ([MaxAttempts], [Backoff]) serve one
// call each.
type (
	saveOption  struct{ set func(*WriteOptions) }
	retryOption struct{ set func(*WriteOptions) }
)

func (f CommonOption) applyWrite(o *WriteOptions)    { o.run(f.set) }
func (f CommonOption) applySave(o *WriteOptions)     { o.run(f.set) }
func (f CommonOption) applyRetry(o *WriteOptions)    { o.run(f.set) }
func (f CommonOption) applyOp(o *WriteOptions)       { o.run(f.set) }
func (f CommonOption) applyUpdateOp(o *WriteOptions) { o.run(f.set) }

func (f UnversionedOption) applyWrite(o *WriteOptions)    { o.run(f.set) }
func (f UnversionedOption) applySave(o *WriteOptions)     { o.run(f.set) }
func (f UnversionedOption) applyOp(o *WriteOptions)       { o.run(f.set) }
func (f UnversionedOption) applyUpdateOp(o *WriteOptions) { o.run(f.set) }
func (f UnversionedOption) applyBatch(o *WriteOptions)    { o.run(f.set) }

func (f CallOption) applyWrite(o *WriteOptions) { o.run(f.set) }
func (f CallOption) applySave(o *WriteOptions)  { o.run(f.set) }

func (f OutsideOption) applyWrite(o *WriteOptions)    { o.run(f.set) }
func (f OutsideOption) applyUpdateOp(o *WriteOptions) { o.run(f.set) }

func (f saveOption) applySave(o *WriteOptions)   { o.run(f.set) }
func (f retryOption) applyRetry(o *WriteOptions) { o.run(f.set) }

// run applies set, refusing the zero value of an option type.
func (o *WriteOptions) run(set func(*WriteOptions)) {
	if set == nil {
		o.fail("the zero value of an option type is not an option")
		return
	}
	set(o)
}

func (o *WriteOptions) fail(format string, args ...any) { errs.Invalid(&o.err, format, args...) }

// gather applies the options of call, each through apply, and refuses a
// nil one and values that cannot work.
func gather[O any](call string, opts []O, apply func(O, *WriteOptions)) (*WriteOptions, error) {
	o := &WriteOptions{}
	for _, opt := range opts {
		if any(opt) == nil {
			o.fail("a nil option given to %s", call)
			continue
		}
		apply(opt, o)
	}
	if o.err != nil {
		return nil, o.err
	}
	for _, c := range o.Conditions {
		if !c.IsSet() {
			return nil, fmt.Errorf("%w: If of an empty condition", ErrInvalidOption)
		}
	}
	if o.FenceToken != 0 && o.FenceAttr == "" {
		return nil, fmt.Errorf("%w: Fence needs an attribute name", ErrInvalidOption)
	}
	return o, nil
}

// single finishes the options of a single write (Put, Save, Update,
// Delete, Modify): the table's ExactlyOnce default applies, and an
// ExactlyOnce write returns neither the old item nor capacity.
func (t *Table[T]) single(o *WriteOptions, err error) (*WriteOptions, error) {
	if err != nil {
		return nil, err
	}
	o.ExactlyOnce = o.ExactlyOnce || t.opts.ExactlyOnce
	if o.ExactlyOnce && (o.old != nil || o.Capacity != nil) {
		name := "Old"
		if o.old == nil {
			name = "WriteCapacity"
		}
		return nil, fmt.Errorf("%w: %s does not apply to an ExactlyOnce write (TransactWriteItems returns neither)", ErrInvalidOption, name)
	}
	return o, nil
}

// writeOptions applies the options of Put, Update or Delete (call); only
// Update takes Outside.
func (t *Table[T]) writeOptions(call string, opts []WriteOption) (*WriteOptions, error) {
	o, err := gather(call, opts, WriteOption.applyWrite)
	if err == nil && len(o.Outside) > 0 && call != "Update" {
		err = fmt.Errorf("%w: Outside does not apply to %s: it names attributes an update writes (Update, UpdateOp)", ErrInvalidOption, call)
	}
	return t.single(o, err)
}

// saveOptions applies the options of Save.
func (t *Table[T]) saveOptions(opts []SaveOption) (*WriteOptions, error) {
	return t.single(gather("Save", opts, SaveOption.applySave))
}

// retryOptions applies the options of Modify.
func (t *Table[T]) retryOptions(opts []RetryOption) (*WriteOptions, error) {
	return t.single(gather("Modify", opts, RetryOption.applyRetry))
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
func If(cond expression.ConditionBuilder) CommonOption {
	return CommonOption{func(o *WriteOptions) { o.Conditions = append(o.Conditions, cond) }}
}

// Unversioned turns the version check off for one write: the item is written
// whatever version is stored (a forced write). A Put still writes the
// struct's version plus one, which may set the stored version back; use it
// for migrations and repairs, not in ordinary code. It is also how types
// with a version field are written in batches. Modify does not take it: it
// would lose concurrent updates.
func Unversioned() UnversionedOption {
	return UnversionedOption{func(o *WriteOptions) { o.Unversioned = true }}
}

// Fence makes the write conditional on a fencing token from a lock: it is
// refused when attribute attr holds a higher token than token
// (attribute_not_exists(attr) OR attr <= token), and it stores token in
// attr. A lock holder that paused past its lease, while another took the lock
// with a higher token, can then no longer write. The condition is ANDed with
// the others; a refusal is a [*ConditionError].
func Fence(attr string, token int64) CommonOption {
	return CommonOption{func(o *WriteOptions) {
		if attr == "" {
			o.fail("Fence needs an attribute name")
			return
		}
		o.FenceAttr, o.FenceToken = attr, token
	}}
}

// Outside lets an [Table.Update] or [Table.UpdateOp] write the attributes
// attrs, which are outside the struct, although each is spelled as the Go
// name of a field stored under another attribute name. Without it such an
// update is refused before sending (update.ErrInvalidPath, with
// [ErrInvalidOption]) and the error names the attribute the field is
// stored as: update.Add("Balance", 1) on a field Balance stored as
// "balance" is almost always a slip. An attribute that no field's Go name
// spells needs no option.
func Outside(attrs ...string) OutsideOption {
	return OutsideOption{func(o *WriteOptions) {
		if len(attrs) == 0 {
			o.fail("Outside needs at least one attribute name")
			return
		}
		o.Outside = append(o.Outside, attrs...)
	}}
}

// Also adds the actions of u to a [Table.Save], in the same UpdateItem: for
// attributes outside the struct, such as a counter kept beside it or the
// attributes of a lock held in the item. They may not touch the struct's
// attributes. Only Save takes it: other writes put such actions in an
// update of their own.
func Also(u *update.Builder) SaveOption {
	return saveOption{func(o *WriteOptions) {
		if u == nil {
			o.fail("Also(nil)")
			return
		}
		o.Also = u
	}}
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
// writes do not take it. Set [TableOptions].ExactlyOnce to make it the
// table's default for Put, Save, Update, Delete and Modify.
//
// Lost answers. When an attempt's answer is lost (a timeout, a reset
// connection, a 5xx), the write may or may not have been applied. The
// rule, for every write: a change applied twice is never reported as
// success, and where the outcome cannot be known the error matches
// [ErrUnknownOutcome], never version.ErrConflict. Without ExactlyOnce the
// mapper keeps it by watching the SDK's attempts of each call, and by
// storing a token unique to each write in the item
// ([TableOptions].TokenAttribute):
//
//   - Writes with a version check (Put and Save of a versioned item,
//     Modify, Update and Delete with a non-zero version): once applied, the
//     write's own check is false, so the SDK may resend it. If the resend
//     fails its condition, the token decides: ours means the first attempt
//     landed (success); not ours means another writer came in between, and
//     the outcome is unknown. Cost: nothing unless an answer is lost.
//   - Writes without one (Update of whatever version is stored,
//     [Unversioned] writes, types without a version, writes conditioned
//     only by [If] or [Fence]): a resend could apply them again after
//     another writer replaced the token, so the SDK resends them only after
//     answers that prove nothing was written (throttling and other 4xx,
//     refused connections). After an unanswered attempt, one consistent
//     GetItem settles the write: the item carries our token (success;
//     Update returns the item read) or, for a Delete, is gone (success);
//     otherwise the outcome is unknown. Cost: one GetItem per unanswered
//     attempt.
//
// ExactlyOnce, above, leaves an unknown outcome only when all of the SDK's
// attempts go unanswered, whatever other writers do. Items are never
// compared by content: two concurrent increments often compute identical
// items. TestExactlyOnceUnderFaults, at the repository root, checks the
// rule under lost answers, refused connections, throttling, 500s and
// delays, in both modes. Batch writes ([Table.PutAll], [Table.DeleteAll])
// are outside this rule: BatchWriteItem carries no conditions and no
// tokens, and the SDK resends it.
func ExactlyOnce() CommonOption {
	return CommonOption{func(o *WriteOptions) { o.ExactlyOnce = true }}
}

// ExactlyOnceToken is [ExactlyOnce] with a ClientRequestToken of the
// caller's (1 to 36 characters): to resend a write whose outcome was unknown
// with the token of its error, or to make a write idempotent across
// processes. The same token with a different request within 10 minutes is
// refused by DynamoDB (IdempotentParameterMismatchException). Modify, which
// may write several times, does not take it, nor do transaction ops (the
// transaction's token is [txn.Token]).
func ExactlyOnceToken(token string) CallOption {
	return CallOption{func(o *WriteOptions) {
		if len(token) < 1 || len(token) > 36 {
			o.fail("ExactlyOnceToken(%q): need 1 to 36 characters", token)
			return
		}
		o.ExactlyOnce, o.Token = true, token
	}}
}

// MaxAttempts sets how many writes Modify tries in all (at least 1).
func MaxAttempts(n int) RetryOption {
	return retryOption{func(o *WriteOptions) { errs.SetCount(&o.err, &o.MaxAttempts, "MaxAttempts", n) }}
}

// Backoff sets the bounds of Modify's jittered exponential backoff. The
// first two conflicts are retried at once; after the k-th (k >= 3) Modify
// sleeps a random duration in [0, min(max, base<<(k-3))), then reads again.
func Backoff(base, max time.Duration) RetryOption {
	return retryOption{func(o *WriteOptions) {
		if base < 0 || max < base {
			o.fail("Backoff(%v, %v): need 0 <= base <= max", base, max)
			return
		}
		o.BackoffBase, o.BackoffMax, o.backoff = base, max, true
	}}
}
