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

// ErrUnknownOutcome means a write may or may not have been applied: an
// attempt was sent and its answer never came (the response was lost, the
// connection reset, the call timed out, the server answered 5xx), and what
// followed could not tell whether it had landed. No write in optimist
// reports success for a change it cannot prove was applied exactly once,
// and none resends a change that could apply twice; where neither can be
// settled, the call returns an error matching ErrUnknownOutcome (a
// [*UnknownOutcomeError]). Read the item to learn the outcome, or, for
// transactions and writes made with a client request token, send the same
// write again with the same token within DynamoDB's 10-minute idempotency
// window (the error's Token).
//
// An unknown outcome is never a conflict: errors.Is(err, ErrConflict) and
// [IsConflict] are false for it, so that a caller who retries on conflict
// does not apply a change twice. What the last attempt met (a conflict, a
// failed condition) stays reachable through [UnknownOutcomeError.Last].
var ErrUnknownOutcome = errors.New("version: outcome unknown (the write may have been applied)")

// UnknownOutcomeError is the error behind [ErrUnknownOutcome]: it names the
// write and says why its outcome is unknown. It matches ErrUnknownOutcome
// and unwraps to Err, the failure of the attempt that was left unanswered;
// it does not unwrap to Last, so it never matches [ErrConflict].
type UnknownOutcomeError struct {
	// Op is the DynamoDB operation: "PutItem", "UpdateItem", "DeleteItem"
	// or "TransactWriteItems".
	Op string
	// Table and Key name the item written; empty for a transaction.
	Table string
	Key   map[string]types.AttributeValue
	// Token is the ClientRequestToken of a TransactWriteItems (txn.Commit,
	// or a mapper write made with ExactlyOnce), "" otherwise. Sending the
	// same request again with this token within 10 minutes of the first
	// attempt applies it at most once.
	Token string
	// Err is why the outcome is unknown: the error of the attempt that went
	// unanswered, or the error the call ended with.
	Err error
	// Last is what the write met after the unanswered attempt, if it was
	// refused: a [*ConflictError] or another condition failure, which may
	// be the write's own first attempt seen from outside. nil otherwise.
	Last error
}

// Error describes the write and the failure.
func (e *UnknownOutcomeError) Error() string {
	if e == nil {
		return "<nil UnknownOutcomeError>"
	}
	var b strings.Builder
	b.WriteString("version: ")
	b.WriteString(e.Op)
	writeItem(&b, e.Table, e.Key)
	if e.Token != "" {
		fmt.Fprintf(&b, " (client request token %s)", e.Token)
	}
	b.WriteString(": outcome unknown, an attempt went unanswered and may have been applied")
	if e.Err != nil {
		fmt.Fprintf(&b, ": %v", e.Err)
	}
	if e.Last != nil {
		fmt.Fprintf(&b, "; then: %v", e.Last)
	}
	return b.String()
}

// writeItem appends " on <table> <key>" to a message, leaving out what is
// empty.
func writeItem(b *strings.Builder, table string, key map[string]types.AttributeValue) {
	if table != "" {
		b.WriteString(" on ")
		b.WriteString(table)
	}
	if len(key) > 0 {
		b.WriteString(" ")
		b.WriteString(attrs.FormatKey(key))
	}
}

// Is reports whether target is [ErrUnknownOutcome].
func (e *UnknownOutcomeError) Is(target error) bool { return target == ErrUnknownOutcome }

// Unwrap returns Err (never Last).
func (e *UnknownOutcomeError) Unwrap() error {
	if e == nil {
		return nil
	}
	return e.Err
}

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
	// was no item (Item is nil), the item has no version attribute
	// (ActualMissing), or it stores version 0.
	Actual int64
	// ActualMissing is true when the item exists but has no version
	// attribute (or one that is not an integer): it was written by other
	// code. It tells that case from a stored version 0.
	ActualMissing bool
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
	if e == nil {
		return "<nil ConflictError>"
	}
	var b strings.Builder
	b.WriteString("version: conflict")
	writeItem(&b, e.Table, e.Key)
	found := fmt.Sprintf("version %d", e.Actual)
	if e.ActualMissing {
		found = "an item without a version attribute"
	}
	switch {
	case e.Expected == 0 && e.Item != nil:
		fmt.Fprintf(&b, ": expected no item, found %s", found)
	case e.Expected == 0:
		b.WriteString(": expected no item")
	case e.Item == nil:
		fmt.Fprintf(&b, ": expected version %d, found no item", e.Expected)
	case e.ActualMissing:
		fmt.Fprintf(&b, ": expected version %d, found %s", e.Expected, found)
	default:
		fmt.Fprintf(&b, ": expected version %d, found %d", e.Expected, e.Actual)
	}
	return b.String()
}

// Is reports whether target is [ErrConflict].
func (e *ConflictError) Is(target error) bool { return target == ErrConflict }

// Unwrap returns the error underneath.
func (e *ConflictError) Unwrap() error {
	if e == nil {
		return nil
	}
	return e.Err
}

// IsConflict reports whether err, or any error it wraps, is a version
// conflict. It is true for a [*ConflictError] and for a transaction
// cancellation (txn.CanceledError) in which at least one operation failed its
// version check. It is the same as errors.Is(err, ErrConflict), and false for
// an unknown outcome ([ErrUnknownOutcome]), even one whose last attempt met a
// conflict: that conflict may be the write's own earlier attempt.
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
