package mapper

import (
	"errors"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/optimist-dynamo/optimist/internal/attrs"
	"github.com/optimist-dynamo/optimist/version"
)

var (
	// ErrNotFound is returned by [Table.Get] when no item has the key,
	// and by [Table.One] when no item matches. Match it with errors.Is;
	// the message names the table (and the key).
	// [Table.Modify] never returns it: a missing item reaches fn as a zero
	// value with the key set, so Modify can create.
	ErrNotFound = errors.New("mapper: item not found")

	// ErrUnknownOutcome is [version.ErrUnknownOutcome] (the same value):
	// a write may or may not have been applied. See the package doc
	// ("Lost responses") for when each write returns it and how to settle
	// it; [Table.Modify] returns it rather than re-running fn. It never
	// matches version.ErrConflict.
	ErrUnknownOutcome = version.ErrUnknownOutcome

	// ErrConditionFailed is the class of [*ConditionError]: a write whose
	// version check passed (or that had none) but whose own condition,
	// given with [If] or [Fence], was false. Nothing was written.
	ErrConditionFailed = errors.New("mapper: condition failed")

	// ErrInvalidKey is returned, before anything is sent, when a key
	// attribute is empty, of a type DynamoDB keys cannot have, or too long:
	// over 2,048 bytes for the hash key, 1,024 for the range key (UTF-8
	// bytes of a string, bytes of a binary). Every call that takes a key or
	// an item returns it (Get, Put, Save, Update, Delete, Modify, the
	// transaction ops, GetAll, PutAll, DeleteAll, Key); the message names
	// the attribute.
	ErrInvalidKey = errors.New("mapper: invalid key")

	// ErrInvalidValue is returned, before anything is sent, by every write
	// (Put, Save, Update, Modify, PutOp, UpdateOp, PutAll) for a value
	// DynamoDB would refuse or the mapper could not read back: a NaN or
	// infinite float, a number beyond DynamoDB's 38 digits or its range
	// (1E-130 to 9.9E+125), an empty set from a custom Marshaler, or a
	// value held in an interface (any, map[string]any) of a type that
	// cannot be stored (a channel, a function, a complex number, ...).
	// Values in conditions ([If]), key conditions and filters (Query, Scan)
	// are checked too. The message names the field or attribute path. Floats tagged "string"
	// are stored as text, where NaN and infinities are fine.
	ErrInvalidValue = errors.New("mapper: invalid value")

	// ErrItemTooLarge is returned, before anything is sent, by Put, Save,
	// PutOp and PutAll for an item over DynamoDB's 400 KB limit, counted by
	// DynamoDB's size rules (attribute names plus values; numbers one byte
	// per two digits plus one; lists and maps 3 bytes plus one per
	// element), the version and write token included; and by Update and
	// UpdateOp when the values of the update alone exceed it. The message
	// names the largest attribute.
	ErrItemTooLarge = errors.New("mapper: item over DynamoDB's 400 KB limit")

	// ErrInvalidOption is returned, before anything is sent, for options
	// that cannot work (MaxAttempts(0), a negative backoff, a nil condition).
	ErrInvalidOption = errors.New("mapper: invalid option")

	// ErrBatchVersioned is returned by [Table.PutAll] and [Table.DeleteAll],
	// before anything is sent, for a type with a version field:
	// BatchWriteItem cannot carry conditions, so the version checks that
	// protect every other write would be silently skipped. Write such items
	// in a transaction (package txn, with [Table.PutOp] and [Table.DeleteOp]),
	// which checks every version, or pass [Unversioned] to write them
	// unchecked on purpose.
	ErrBatchVersioned = errors.New("mapper: batch writes cannot check versions")

	// ErrDuplicateKey is returned by [Table.PutAll] and [Table.DeleteAll],
	// before anything is sent, when two items have the same key: DynamoDB
	// refuses a batch that writes one item twice.
	ErrDuplicateKey = errors.New("mapper: two items with the same key in one batch")

	// ErrUnprocessed is the cause in a [*BatchError] when DynamoDB kept
	// returning items as unprocessed (UnprocessedKeys, UnprocessedItems):
	// the table is throttled. The items left are listed in the BatchError;
	// try them again later.
	ErrUnprocessed = errors.New("mapper: DynamoDB left items unprocessed")
)

// ConditionError reports a conditional write refused by the caller's own
// condition ([If]) or by a [Fence], while the version (if any) matched. It
// matches [ErrConditionFailed] and unwraps to the SDK's
// *types.ConditionalCheckFailedException. [Table.Modify] does not retry it.
type ConditionError struct {
	Table string
	Key   map[string]types.AttributeValue
	// Item is the stored item (ALL_OLD), nil if there is none.
	Item map[string]types.AttributeValue
	Err  error
}

func (e *ConditionError) Error() string {
	return fmt.Sprintf("mapper: condition failed on %s %s", e.Table, attrs.FormatKey(e.Key))
}

// Is reports whether target is [ErrConditionFailed].
func (e *ConditionError) Is(target error) bool { return target == ErrConditionFailed }

// Unwrap returns the SDK error.
func (e *ConditionError) Unwrap() error { return e.Err }

// UnknownOutcomeError is [version.UnknownOutcomeError], the error behind
// [ErrUnknownOutcome]; its Last field holds the conflict or condition
// failure the write met after its unanswered attempt, if any.
type UnknownOutcomeError = version.UnknownOutcomeError
