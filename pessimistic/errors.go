package pessimistic

import (
	"errors"
	"fmt"

	"github.com/optimist-dynamo/optimist/internal/errs"
)

var (
	// ErrNotAcquired is the class of [*NotAcquiredError]: Acquire, Do or
	// LockItem found the lock held by another owner and did not get it
	// within its Wait. (An item held by a unit of work is another thing:
	// LockItem reports it as mapper.ErrLocked.)
	ErrNotAcquired = errors.New("pessimistic: lock not acquired")

	// ErrLeaseLost is Lease.Err after another owner took the lock over (or
	// the lock record was changed or deleted by hand): the holder's
	// heartbeat found a record that is not its own.
	ErrLeaseLost = errors.New("pessimistic: lease lost to another owner")

	// ErrUnreachable is Lease.Err when heartbeats could not reach DynamoDB
	// before the lease would run out: the lease context is canceled while
	// the lease is still valid (with a safety margin), so that the holder
	// stops before anyone may take over.
	ErrUnreachable = errors.New("pessimistic: DynamoDB unreachable, lease given up before it expired")

	// ErrNotHeld is returned by Release and SaveAndRelease when the lock is
	// not held by this lease any more: another owner took it over, or it
	// expired and was released by someone else. Release never removes
	// another owner's lock. It is not returned for a lease that this
	// process released already: a second Release returns nil (see
	// [Lease.Release]). A nil or zero *Lease or *ItemLock returns it too,
	// with [ErrInvalidOption].
	ErrNotHeld = errors.New("pessimistic: lock not held by this lease")

	// ErrClosed is returned by a Locker after Close, and (with
	// [ErrInvalidOption]) by a nil or zero Locker.
	ErrClosed = errors.New("pessimistic: locker closed")

	// ErrInvalidOption is returned by New, Acquire, Do and LockItem for
	// options that cannot work together: non-positive durations, a
	// heartbeat of half the lease or more, an empty owner. Nothing is
	// sent. It is one value with mapper.ErrInvalidOption,
	// txn.ErrInvalidOption and unit.ErrInvalidOption.
	ErrInvalidOption = errs.ErrInvalidOption

	// ErrSchemaMismatch is returned by [CreateTable] for a table that
	// exists with another key schema or TTL attribute than a lock table's
	// (pk S hash, sk S range, TTL on "ttl"), and by the first call of a
	// [Locker] (or [Locker.Check]) for a table whose key schema is not a
	// lock table's. It is one value with mapper.ErrSchemaMismatch; from
	// CreateTable, errors.As with *mapper.MismatchError lists the
	// differences.
	ErrSchemaMismatch = errs.ErrSchemaMismatch

	// ErrGlobalTable: the lock table is a global table in multi-Region
	// eventual consistency, where two Regions could each grant the same
	// lock, and no [WriteRegion] was named (or DescribeTable failed).
	// Returned by [Locker.Check] and the first call that reaches DynamoDB.
	// mapper.ErrGlobalTable and unit.ErrGlobalTable are the same value.
	ErrGlobalTable = errs.ErrGlobalTable
)

// ErrHolderChanged is the class of [*HolderChangedError]:
// [Locker.ForceReleaseIf] found the lock held by another holder than the
// one it was told to remove, and removed nothing.
var ErrHolderChanged = errors.New("pessimistic: lock holder changed")

// HolderChangedError reports that [Locker.ForceReleaseIf] removed nothing
// because the lock is held by someone else than the holder it was given
// (typically: that holder's lease ran out and a waiter took over). It
// matches [ErrHolderChanged].
type HolderChangedError struct {
	Name  string // the lock
	Owner string // the holder the caller asked to remove
	Token int64  // and its token
	// NowOwner and NowToken are the lock's holder as the refused write
	// found it (for a FIFO lock, the head of the queue and its ticket).
	NowOwner string
	NowToken int64
}

// Error describes the refusal; a nil *HolderChangedError gives a fixed
// string rather than panicking.
func (e *HolderChangedError) Error() string {
	if e == nil {
		return "pessimistic: <nil HolderChangedError>"
	}
	return fmt.Sprintf("pessimistic: force release %q: held by %s (token %d) now, not by %s (token %d); nothing removed",
		e.Name, e.NowOwner, e.NowToken, e.Owner, e.Token)
}

// Is reports whether target is [ErrHolderChanged].
func (e *HolderChangedError) Is(target error) bool { return target == ErrHolderChanged }

// NotAcquiredError reports who holds a lock that could not be acquired. It
// matches [ErrNotAcquired]; with Wait it is the holder seen last.
type NotAcquiredError struct {
	Name  string // the lock
	Owner string // the holder
	Token int64  // the holder's fencing token
	// Queued is, for a FIFO lock, how many waiters were ahead.
	Queued int
}

// Error names the lock and its holder; a nil *NotAcquiredError gives a
// fixed string rather than panicking.
func (e *NotAcquiredError) Error() string {
	if e == nil {
		return "pessimistic: <nil NotAcquiredError>"
	}
	if e.Queued > 0 {
		return fmt.Sprintf("pessimistic: lock %q held by %s (token %d), %d ahead in the queue", e.Name, e.Owner, e.Token, e.Queued)
	}
	return fmt.Sprintf("pessimistic: lock %q held by %s (token %d)", e.Name, e.Owner, e.Token)
}

// Is reports whether target is [ErrNotAcquired].
func (e *NotAcquiredError) Is(target error) bool { return target == ErrNotAcquired }

// ErrQueueFull is returned by Acquire with [FIFO] when the lock's queue
// holds [MaxQueue] waiters already, or when the queue's item would pass
// DynamoDB's 400 KB item limit (owner names far longer than usual).
// Nothing was queued; try again later, or use the lease lock without FIFO.
var ErrQueueFull = errors.New("pessimistic: FIFO queue full")
