package txn

import (
	"errors"
	"fmt"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/optimist-dynamo/optimist/internal/attrs"
	"github.com/optimist-dynamo/optimist/internal/errs"
	"github.com/optimist-dynamo/optimist/internal/unitproto"
	"github.com/optimist-dynamo/optimist/version"
)

// Errors Commit returns before sending anything (each wrapped with detail;
// match with errors.Is), and ErrDone.
var (
	// ErrTooManyItems is returned by Commit for more ops than the limit
	// ([MaxItems], default 100).
	ErrTooManyItems = errors.New("txn: too many items")
	// ErrDuplicateItem is returned by Add and Commit for two ops on one
	// item (same table and key), which DynamoDB refuses in one
	// transaction.
	ErrDuplicateItem = errors.New("txn: two operations on one item")
	// ErrEmpty is returned by Commit of a transaction without ops.
	ErrEmpty = errors.New("txn: empty transaction")
	// ErrTooLarge is returned by Commit when the estimated request is over
	// DynamoDB's 4 MB limit for a whole transaction ([MaxBytes]). (One
	// item over 400 KB is an [ErrInvalidItem], and matches
	// mapper.ErrItemTooLarge.)
	ErrTooLarge = errors.New("txn: transaction too large")
	// ErrDone is returned by Add and Commit of a Tx that was committed, or
	// whose Commit failed: make a new one. It is one value with
	// unit.ErrDone.
	ErrDone = errs.ErrDone
	// ErrInvalidItem is returned by Add and Commit, naming the op and the
	// attribute, for an op whose item, key or expression values DynamoDB
	// would refuse (a ValidationException): a NaN or infinite number, one
	// beyond 38 digits or DynamoDB's range, an empty set, a key attribute
	// over 2,048 bytes (the hash key's limit; the mapper's ops also check
	// the range key's 1,024), or an item over 400 KB by DynamoDB's size
	// rules (which matches mapper.ErrItemTooLarge too); nothing is sent.
	// It is one value with mapper.ErrInvalidItem.
	ErrInvalidItem = errs.ErrInvalidItem
	// ErrInvalidOption is kept by New, and returned by Add and Commit (and
	// [Get]), for an option or argument that cannot work (MaxItems(0), a
	// token over 36 characters, a negative backoff, a nil option, a Check
	// without a condition), a nil client given to [New] or [Get], or a
	// method called on a nil *Tx; nothing is sent. It is one value with
	// mapper.ErrInvalidOption, unit.ErrInvalidOption and
	// pessimistic.ErrInvalidOption.
	ErrInvalidOption = errs.ErrInvalidOption
	// ErrFenced matches a [*CanceledError] when an op's fence (the
	// mapper's Fence option) refused it: the item holds a higher fencing
	// token than the op's, so a newer lock holder wrote ([Reason].Fenced).
	// It is one value with mapper.ErrFenced.
	ErrFenced = errs.ErrFenced
)

// Cancellation reason codes DynamoDB uses (Reason.Code).
const (
	CodeNone                   = "None"
	CodeConditionalCheckFailed = "ConditionalCheckFailed"
	CodeTransactionConflict    = "TransactionConflict"
	CodeThrottling             = "ThrottlingError"
	CodeProvisionedThroughput  = "ProvisionedThroughputExceeded"
	CodeValidation             = "ValidationError"
)

// CanceledError reports a transaction DynamoDB canceled: nothing was
// written. Reasons has one entry per op, in the order the ops were added;
// ops that did not cause the cancellation have Code "None".
//
// It matches [version.ErrConflict] (and so version.IsConflict is true) when
// an op failed its version check, and unwraps to the SDK's
// *types.TransactionCanceledException.
type CanceledError struct {
	Reasons  []Reason
	Attempts int   // how many times Commit sent the transaction
	Err      error // the SDK error
}

// Reason is why one op of a canceled transaction failed, or Code "None".
type Reason struct {
	Index   int // the op's position in the transaction
	Table   string
	Key     map[string]types.AttributeValue
	Code    string
	Message string
	// Item is the item as stored when the op's condition failed (ALL_OLD),
	// nil if there was none.
	Item map[string]types.AttributeValue
	// Conflict is true when the op failed its version check.
	Conflict bool
	// Fenced is true when the op's fence refused it: Item holds a higher
	// fencing token than the op's (a newer lock holder wrote). Conflict is
	// then false.
	Fenced bool
	// AtCeiling is true when the op added to a version it did not check
	// (an UpdateOp whose key has version 0) and the stored version is the
	// largest its field holds: the op was refused rather than let the
	// version leave its range. The error then matches [ErrInvalidItem].
	AtCeiling bool
}

func (e *CanceledError) Error() string {
	if e == nil {
		return "<nil CanceledError>"
	}
	var b strings.Builder
	b.WriteString("txn: transaction canceled")
	n := 0
	for _, r := range e.Reasons {
		if r.Code == CodeNone || r.Code == "" {
			continue
		}
		if n++; n == 1 {
			b.WriteString(": ")
		} else {
			b.WriteString("; ")
		}
		fmt.Fprintf(&b, "op %d (%s %s) %s", r.Index, r.Table, attrs.FormatKey(r.Key), r.Code)
		if r.Fenced {
			b.WriteString(" (fenced: a newer lock holder wrote)")
		} else if r.AtCeiling {
			b.WriteString(" (the version is at its field's ceiling: refused rather than wrapped)")
		} else if r.Conflict {
			b.WriteString(" (version conflict)")
		} else if r.Message != "" {
			b.WriteString(": " + r.Message)
		}
	}
	if e.Attempts > 1 {
		fmt.Fprintf(&b, " (after %d attempts)", e.Attempts)
	}
	return b.String()
}

// Is reports whether target is version.ErrConflict and an op failed its
// version check, [ErrFenced] and an op's fence refused it, or
// [ErrInvalidItem] and an op's version is at its ceiling
// ([Reason].AtCeiling).
func (e *CanceledError) Is(target error) bool {
	if e == nil {
		return false
	}
	if target == ErrFenced || target == ErrInvalidItem {
		for _, r := range e.Reasons {
			if (r.Fenced && target == ErrFenced) || (r.AtCeiling && target == ErrInvalidItem) {
				return true
			}
		}
		return false
	}
	if target == unitproto.ErrLocked { // an op's item is held by a unit of work
		for _, r := range e.Reasons {
			if _, ok := unitproto.Parse(r.Item); ok {
				return true
			}
		}
	}
	return target == version.ErrConflict && len(e.Conflicts()) > 0
}

// Unwrap returns the SDK error.
func (e *CanceledError) Unwrap() error {
	if e == nil {
		return nil
	}
	return e.Err
}

// Conflicts returns the reasons of the ops that failed their version check.
func (e *CanceledError) Conflicts() []Reason {
	if e == nil {
		return nil
	}
	var out []Reason
	for _, r := range e.Reasons {
		if r.Conflict {
			out = append(out, r)
		}
	}
	return out
}

// retryable: only other transactions and throttling got in the way, so
// sending the same request again may succeed.
func retryable(tce *types.TransactionCanceledException) bool {
	retry := false
	for _, r := range tce.CancellationReasons {
		switch aws.ToString(r.Code) {
		case CodeNone, "":
		case CodeTransactionConflict, CodeThrottling, CodeProvisionedThroughput:
			retry = true
		default:
			return false
		}
	}
	return retry
}

func (tx *Tx) canceled(tce *types.TransactionCanceledException, err error, attempt int) *CanceledError {
	ce := &CanceledError{Attempts: attempt, Err: err}
	for i, op := range tx.ops {
		r := Reason{Index: i, Table: op.Table(), Key: op.Key(), Code: CodeNone}
		if i < len(tce.CancellationReasons) {
			cr := tce.CancellationReasons[i]
			r.Code, r.Message = aws.ToString(cr.Code), aws.ToString(cr.Message)
			if len(cr.Item) > 0 {
				r.Item = cr.Item
			}
			if r.Code == CodeConditionalCheckFailed {
				w := op.write()
				r.AtCeiling = w.AtCeiling(r.Item)
				if r.Fenced = w.Fenced(r.Item); !r.Fenced && !r.AtCeiling {
					r.Conflict, _, _ = w.Conflict(r.Item)
				}
			}
		}
		ce.Reasons = append(ce.Reasons, r)
	}
	return ce
}
