package mapper

import (
	"errors"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/optimist-dynamo/optimist/internal/attrs"
	"github.com/optimist-dynamo/optimist/version"
)

var (
	// ErrNotFound is returned by [Table.Get] when no item has the key.
	// Match it with errors.Is; the message names the table and key.
	// [Table.Modify] never returns it: a missing item reaches fn as a zero
	// value with the key set, so Modify can create.
	ErrNotFound = errors.New("mapper: item not found")

	// ErrUnknownOutcome means a write may or may not have been applied: an
	// attempt's response was lost (a timeout, a reset connection, a 5xx),
	// the SDK retried, and the retry could not tell whether the first
	// attempt had landed. The error wraps what happened last (often a
	// [*version.ConflictError], so check ErrUnknownOutcome first: retrying
	// a computed change blindly may apply it twice). Read the item to learn
	// the outcome. [Table.Modify] returns it rather than re-running fn.
	//
	// The mapper resolves most of these cases itself: every conditional
	// Put stores a write token (see [TableOptions.TokenAttribute]), and
	// when the retry's condition fails on an item that carries our token,
	// the write was ours and Put reports success.
	ErrUnknownOutcome = version.ErrUnknownOutcome

	// ErrConditionFailed is the class of [*ConditionError]: a write whose
	// version check passed (or that had none) but whose own condition,
	// given with [If] or [Fence], was false. Nothing was written.
	ErrConditionFailed = errors.New("mapper: condition failed")

	// ErrInvalidKey is returned, before anything is sent, when a key
	// attribute is empty or of a type DynamoDB keys cannot have.
	ErrInvalidKey = errors.New("mapper: invalid key")

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

// UnknownOutcomeError is the error behind [ErrUnknownOutcome]: it names the
// write and wraps the last error seen.
type UnknownOutcomeError struct {
	Op    string // "PutItem", "UpdateItem", "DeleteItem"
	Table string
	Key   map[string]types.AttributeValue
	Err   error
}

func (e *UnknownOutcomeError) Error() string {
	return fmt.Sprintf("mapper: %s on %s %s: outcome unknown, an attempt's response was lost and it may have been applied: %v",
		e.Op, e.Table, attrs.FormatKey(e.Key), e.Err)
}

// Is reports whether target is [ErrUnknownOutcome].
func (e *UnknownOutcomeError) Is(target error) bool { return target == ErrUnknownOutcome }

// Unwrap returns the last error seen.
func (e *UnknownOutcomeError) Unwrap() error { return e.Err }
