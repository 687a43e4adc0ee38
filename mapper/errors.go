package mapper

import (
	"errors"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/optimist-dynamo/optimist/internal/attrs"
	"github.com/optimist-dynamo/optimist/internal/errs"
	"github.com/optimist-dynamo/optimist/internal/unitproto"
	"github.com/optimist-dynamo/optimist/version"
)

// The errors a caller branches on. Each is matched with errors.Is; most
// come inside a typed error with the details (errors.As).
var (
	// ErrNotFound is returned by [Table.Get] when no item has the key, and
	// by [Table.One] when no item matches; [Table.GetAll] returns a
	// [*MissingError] that matches it. The message names the table (and
	// the key). An item a unit of work holds while it does not exist is
	// not found. [Table.Modify] never returns it: a missing item reaches
	// fn as a zero value with the key set, so Modify can create.
	ErrNotFound = errors.New("mapper: item not found")

	// ErrNotUnique is returned by [Table.One] when more than one item
	// matches. The message names the table (and index).
	ErrNotUnique = errors.New("mapper: more than one item matches")

	// ErrConditionFailed is the class of [*ConditionError]: a write whose
	// version check passed (or that had none) but whose own condition,
	// given with [If] or [Fence], was false. Nothing was written. (A
	// version conflict is version.ErrConflict, a *version.ConflictError.)
	ErrConditionFailed = errors.New("mapper: condition failed")

	// ErrFenced matches a write refused by its [Fence] because the item
	// holds a higher fencing token than the write's: a newer lock holder
	// has written, and this one must stop (the write is never retried,
	// not by Modify either). It is decided from the item DynamoDB returns
	// with the refusal (ALL_OLD): stored token above the write's, fenced;
	// otherwise the refusal is the write's other conditions' (a version
	// conflict, or ErrConditionFailed alone). A fenced write's error is a
	// [*ConditionError] with Fenced set, so it matches ErrConditionFailed
	// too; it is never a version conflict, even when the newer holder also
	// changed the version. txn.ErrFenced is the same value: a transaction
	// canceled by a fenced op matches it.
	ErrFenced = errs.ErrFenced

	// ErrLocked is the class of [*LockedError]: a write refused because a
	// unit of work (package unit) holds the item, alive. unit.ErrLocked is
	// the same value. A read (Get, GetAll, Query, Scan, txn.Get) that met
	// units committing on its items every time it read them again also
	// matches it: try it again. See [LockedError] for how writes and reads
	// treat held items, and when a write settles the lock of a unit that
	// is over or dead instead.
	ErrLocked = unitproto.ErrLocked

	// ErrUnknownOutcome is [version.ErrUnknownOutcome] (the same value):
	// a write may or may not have been applied. See [ExactlyOnce] for
	// when each write returns it and how to settle it; [Table.Modify]
	// returns it rather than re-running fn. It never matches
	// version.ErrConflict.
	ErrUnknownOutcome = version.ErrUnknownOutcome

	// ErrOldUnknown is returned by a Put, Save, Update or Delete given
	// [Old] when the write was applied but the item it replaced cannot be
	// known: the response of an attempt was lost, the SDK resent the
	// write, and the resend found that the first attempt had landed; what
	// DynamoDB returned then is our own write, not what it replaced. The
	// write is done (for Put and Save the struct has its new version): do
	// not repeat it. It does not match ErrUnknownOutcome or a conflict.
	ErrOldUnknown = errors.New("mapper: the write was applied, but the item it replaced is unknown")

	// ErrUnprocessed is the cause in a [*BatchError] when DynamoDB kept
	// returning items as unprocessed (UnprocessedKeys, UnprocessedItems):
	// the table is throttled. The items left are listed in the BatchError;
	// try them again later.
	ErrUnprocessed = errors.New("mapper: DynamoDB left items unprocessed")

	// ErrGlobalTable is returned, before anything is sent, by a write of a
	// versioned type, or a conditional write (a fence, an [If]), to a global
	// table in multi-Region eventual consistency, where no condition can
	// protect an item from a concurrent write in another Region; and when
	// DescribeTable, asked once to learn that, fails. The message says
	// why and what to do: name the one Region every write goes to
	// ([TableOptions].WriteRegion), or use multi-Region strong
	// consistency. pessimistic.ErrGlobalTable and unit.ErrGlobalTable are
	// the same value.
	ErrGlobalTable = errs.ErrGlobalTable

	// ErrSchemaMismatch is the class of the [*MismatchError] that
	// [CreateTable] returns when the table exists with another schema, and
	// that [Table.Check] returns when the table does not match the struct.
	// Use errors.As for the list of differences. The CreateTable of
	// packages unit and pessimistic return it too, and
	// pessimistic.ErrSchemaMismatch is the same value.
	ErrSchemaMismatch = errs.ErrSchemaMismatch

	// ErrItemTooLarge is returned, before anything is sent, by Put, Save,
	// PutOp and PutAll for an item over DynamoDB's 400 KB limit, counted by
	// DynamoDB's size rules (attribute names plus values; numbers one byte
	// per two digits plus one; lists and maps 3 bytes plus one per
	// element), the version and write token included; and by Update and
	// UpdateOp when the values of the update alone exceed it. The message
	// names the largest attribute. It also matches [ErrInvalidItem]. An
	// Update whose values fit but that would take the stored item past the
	// limit is sent (the stored size is unknown before), and DynamoDB's
	// refusal matches ErrItemTooLarge too, naming the update's largest
	// value; nothing was written. A transaction op (package txn) or a unit
	// of work (package unit, whose items hold the unit's write beside their
	// state) refuses an item too large with this value too.
	ErrItemTooLarge = errs.ErrItemTooLarge
)

// Mistakes, in three classes: each is returned before anything is sent,
// with a message that names the field, attribute or option concerned.
var (
	// ErrInvalidSchema is the class of every error [NewTable] and
	// [CreateTable] return for a struct type they cannot map: use
	// errors.As with [*SchemaError] for the type, field and problem.
	ErrInvalidSchema = errors.New("mapper: invalid schema")

	// ErrInvalidOption: an option or argument that a call cannot honour or
	// that cannot work: a read option the call does not take (the table of
	// [ReadOptions] says which takes which; a write option a call does not
	// take does not compile), a value out
	// of range (MaxAttempts(0), Limit(0), a negative backoff), a nil item,
	// function or condition, a batch write of a versioned type without
	// [Unversioned] (BatchWriteItem cannot check versions: write such items
	// in a transaction), an update that touches a key, the version, the
	// write token or the fence (or whose builder holds an error, which it
	// wraps, such as update.ErrInvalidPath), and a [Table] not made by
	// [NewTable] (nil, or a zero value). It is one value across the
	// library: txn.ErrInvalidOption, unit.ErrInvalidOption and
	// pessimistic.ErrInvalidOption are this error, so one errors.Is
	// matches a mistake found by any of them.
	ErrInvalidOption = errs.ErrInvalidOption

	// ErrInvalidItem: a key, value or item DynamoDB would refuse, found
	// before sending: an empty key attribute, or one over 2,048 bytes (the
	// hash key) or 1,024 (the range key); NaN, infinities and numbers
	// beyond DynamoDB's 38 digits or its range (1E-130 to 9.9E+125); an
	// empty set from a custom Marshaler; a value held in an interface of a
	// type that cannot be stored; two items with one key in a batch write;
	// an item over 400 KB ([ErrItemTooLarge]). Values in conditions,
	// key conditions and filters are checked too. An update's values are
	// also checked against the struct: a value its field could not be read
	// back from, at any depth, is refused naming the field. These checks
	// hold for Get, Put, Save, Update, Delete, Modify, the transaction ops
	// and the batch calls: nothing is sent, and the message names the
	// attribute, where DynamoDB would answer with a ValidationException
	// after a round trip. txn.ErrInvalidItem is the same value.
	ErrInvalidItem = errs.ErrInvalidItem
)

// LockedError reports an item held by a unit of work (package unit): the
// table and key of the item, and the id, owner and coordinator table of
// the unit. It matches [ErrLocked] with errors.Is and unwraps to the error
// underneath (usually the SDK's *types.ConditionalCheckFailedException).
// unit.LockedError is the same type.
//
// A unit of work holds an item by a lock in its attribute "optimist_unit",
// and keeps its write for the item in the lock until it is applied, after
// the unit's commit point: what the item stores outside the lock is its
// committed state, except in the moments between a unit's commit point
// and its apply of that item. The mapper honours such locks:
//
//   - Every write (Put, Update, Delete, Save, Modify, and the transaction
//     ops) carries attribute_not_exists(optimist_unit), ANDed with its
//     other conditions. A refused write reads the unit's record (one
//     GetItem): if the unit is over (committed or rolled back) or dead (its
//     heartbeat counter stayed the same for a full lease, watched by this
//     process across calls), the write rolls the item forward or back (one
//     write, and for a dead unit one on its record) and is sent again,
//     once; otherwise it is a LockedError. So an item is never blocked much
//     longer than a lease after its unit's process died, whoever touches
//     it. Batch writes (PutAll, DeleteAll) cannot carry conditions and do
//     not honour locks: one that overwrites an item a unit holds removes
//     the unit's lock, and the unit's write of that item is then lost. Use
//     them for items no unit is working on.
//   - Every read (Get, GetAll, Query, Scan, One, and txn.Get with GetOp)
//     shows the last committed state of a held item: as stored without the
//     lock; "not found" for an item a unit holds while it does not exist;
//     and for an item whose lock holds the unit's write, that write if the
//     unit's record says it committed (one GetItem of the record per unit
//     and page; an update is applied by the reader, one write, as the unit
//     would). A [Filter], and the key condition of a Query of a secondary
//     index, are evaluated again on what is shown: a filter is sent as
//     "(filter) OR attribute_exists(optimist_unit.p)" so that such items
//     come back, and the mapper decides. Count and ScanCount count items
//     as stored, but for those a unit holds while they do not exist.
//   - A Query of a secondary index finds items by their index key as
//     stored. An item a unit moves to another index key is found under its
//     old key, and shown there only if its committed state still matches,
//     until the unit applies it: between the unit's commit point and its
//     apply (or, if the unit's process died there, until recovery or any
//     call that touches the item applies it), a query of the new key may
//     miss it. An index that does not project "optimist_unit" (KEYS_ONLY,
//     or an INCLUDE made elsewhere) shows items as stored: never an
//     uncommitted state, but in those same moments the state from before
//     the unit. [CreateTable] adds the attribute to every INCLUDE
//     projection.
type LockedError = unitproto.LockedError

// ConditionError reports a conditional write refused by the caller's own
// condition ([If]) or by a [Fence], while the version (if any) matched. It
// matches [ErrConditionFailed] and unwraps to the SDK's
// *types.ConditionalCheckFailedException. [Table.Modify] does not retry it.
type ConditionError struct {
	Table string
	Key   map[string]types.AttributeValue
	// Item is the stored item (ALL_OLD), nil if there is none.
	Item map[string]types.AttributeValue
	// Fenced: the item holds a fencing token above the write's ([Fence]);
	// the error then matches [ErrFenced] too.
	Fenced bool
	Err    error
}

func (e *ConditionError) Error() string {
	if e == nil {
		return "<nil ConditionError>"
	}
	if e.Fenced {
		return fmt.Sprintf("mapper: fenced: %s %s holds a higher fencing token than the write's (a newer lock holder wrote)", e.Table, attrs.FormatKey(e.Key))
	}
	return fmt.Sprintf("mapper: condition failed on %s %s", e.Table, attrs.FormatKey(e.Key))
}

// Is reports whether target is [ErrConditionFailed], or [ErrFenced] for a
// fenced write.
func (e *ConditionError) Is(target error) bool {
	return e != nil && (target == ErrConditionFailed || (e.Fenced && target == ErrFenced))
}

// Unwrap returns the SDK error.
func (e *ConditionError) Unwrap() error {
	if e == nil {
		return nil
	}
	return e.Err
}

// UnknownOutcomeError is [version.UnknownOutcomeError], the error behind
// [ErrUnknownOutcome]; its Last field holds the conflict or condition
// failure the write met after its unanswered attempt, if any.
type UnknownOutcomeError = version.UnknownOutcomeError
