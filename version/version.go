package version

import (
	"errors"
	"fmt"
	"strings"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/optimist-dynamo/optimist/internal/attrs"
)

// ErrConflict is the class of every version conflict: a conditional write
// whose expected version was not the stored one (including "expected no item"
// when one exists, and "expected version n" when the item is gone).
//
// Writes in optimist return a [*ConflictError], and transactions a
// cancellation error, that match ErrConflict with [errors.Is]. A conflict
// means nothing was written; the caller's copy was stale.
var ErrConflict = errors.New("version: conflict")

// ErrUnknownOutcome means a write may or may not have been applied (its
// response was lost and a retry could not tell). It never matches
// ErrConflict. mapper.ErrUnknownOutcome is the same value.
var ErrUnknownOutcome = errors.New("version: outcome unknown (the write may have been applied)")

// ConflictError reports a write that lost a version check. It matches
// [ErrConflict] with [errors.Is] and unwraps to the SDK error underneath
// (usually *types.ConditionalCheckFailedException).
type ConflictError struct {
	// Table is the table written to.
	Table string
	// Key is the primary key of the item.
	Key map[string]types.AttributeValue
	// Expected is the version the write expected; 0 means it expected no item.
	Expected int64
	// Actual is the version stored when the write was refused; 0 means there
	// was no item, or the item has no version attribute.
	Actual int64
	// Item is the item as stored when the write was refused (returned by
	// DynamoDB with ReturnValuesOnConditionCheckFailure=ALL_OLD, so no extra
	// read was made), or nil if there was none.
	Item map[string]types.AttributeValue
	// Err is the error underneath, usually the SDK's
	// *types.ConditionalCheckFailedException.
	Err error
}

// Error describes the conflict: table, key, expected and actual versions.
func (e *ConflictError) Error() string {
	var b strings.Builder
	b.WriteString("version: conflict")
	if e.Table != "" {
		b.WriteString(" on ")
		b.WriteString(e.Table)
	}
	if len(e.Key) > 0 {
		b.WriteString(" ")
		b.WriteString(attrs.FormatKey(e.Key))
	}
	switch {
	case e.Expected == 0 && e.Item != nil:
		fmt.Fprintf(&b, ": expected no item, found version %d", e.Actual)
	case e.Expected == 0:
		b.WriteString(": expected no item")
	case e.Item == nil:
		fmt.Fprintf(&b, ": expected version %d, found no item", e.Expected)
	default:
		fmt.Fprintf(&b, ": expected version %d, found %d", e.Expected, e.Actual)
	}
	return b.String()
}

// Is reports whether target is [ErrConflict].
func (e *ConflictError) Is(target error) bool { return target == ErrConflict }

// Unwrap returns the error underneath.
func (e *ConflictError) Unwrap() error { return e.Err }

// IsConflict reports whether err, or any error it wraps, is a version
// conflict. It is true for a [*ConflictError] and for a transaction
// cancellation (txn.CanceledError) in which at least one operation failed its
// version check. It is the same as errors.Is(err, ErrConflict).
func IsConflict(err error) bool { return errors.Is(err, ErrConflict) }

// Condition returns the condition "the attribute attr holds version
// expected": attr = expected, or attribute_not_exists(attr) when expected is 0
// (no version yet). AND it with other conditions; never let it replace them.
//
// The mapper does not use Condition(v, 0) to create items: it checks that the
// item does not exist at all (attribute_not_exists on the hash key), which is
// stricter when an item was written without a version attribute.
func Condition(attr string, expected int64) expression.ConditionBuilder {
	if expected == 0 {
		return expression.AttributeNotExists(expression.Name(attr))
	}
	return expression.Name(attr).Equal(expression.Value(expected))
}
