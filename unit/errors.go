package unit

import (
	"errors"
	"fmt"

	"github.com/optimist-dynamo/optimist/internal/errs"
	"github.com/optimist-dynamo/optimist/internal/unitproto"
	"github.com/optimist-dynamo/optimist/mapper"
)

var (
	// ErrLocked is the class of [*LockedError]: an item is held by another
	// live unit. [Get] and [Unit.Commit] return it when they could not
	// lock an item within [Wait] (or at once when the holder is older, see
	// Wait); a unit that failed so is rolled back by Commit. Plain mapper
	// writes of a locked item return it too: it is the same value as
	// mapper.ErrLocked.
	ErrLocked = mapper.ErrLocked

	// ErrAborted is returned by [Get], [Unit.Add] and [Unit.Commit] when
	// the unit was rolled back under its feet: its record was marked
	// aborted by recovery after its heartbeats stopped for a lease (a
	// paused or partitioned process), or one of its item locks was undone.
	// Nothing of the unit was applied.
	ErrAborted = errors.New("unit: aborted (rolled back by recovery)")

	// ErrGlobalTable is returned by [Begin], [Get], [GetAll] and
	// [Unit.Commit], before the write it stops, when the coordinator table
	// or a table the unit writes is a global table in multi-Region
	// eventual consistency and no [WriteRegion] was named (or
	// DescribeTable failed). mapper.ErrGlobalTable and
	// pessimistic.ErrGlobalTable are the same value.
	ErrGlobalTable = errs.ErrGlobalTable

	// ErrInvalidOption is returned, before anything is sent, for options
	// and arguments that cannot work: Begin without a Coordinator, a lease
	// that is not positive, a heartbeat of half the lease or more, an
	// empty owner, a negative wait, a nil option, a nil client
	// (or a nil *dynamodb.Client) or *Unit, an op that writes the lock
	// attribute. It is one value with mapper.ErrInvalidOption,
	// txn.ErrInvalidOption and pessimistic.ErrInvalidOption. An op whose
	// key cannot name an item is refused by [Unit.Add] with
	// mapper.ErrInvalidItem (txn.ErrInvalidItem is the same value); an item
	// too large to hold both its committed state and the unit's write
	// (DynamoDB's 400 KB item limit) fails Commit, which then rolls back
	// with nothing applied, with mapper.ErrItemTooLarge.
	ErrInvalidOption = errs.ErrInvalidOption

	// ErrDone is returned by every method of a unit after Commit or
	// Rollback returned. It is one value with txn.ErrDone.
	ErrDone = errs.ErrDone

	// ErrNotCoordinator is returned by [List] and [Recover] for a table
	// that is not a coordinator table (made by [CreateTable]): its key is
	// not the hash key "id" of type S, or it holds an item that is neither
	// a unit's record nor a page of one.
	ErrNotCoordinator = unitproto.ErrNotCoordinator
)

// errItemTooLarge is what Commit returns for an item that would pass
// DynamoDB's item limit while the unit holds it: it matches
// mapper.ErrItemTooLarge (the same meaning: the item is too large for the
// write; here the write and the item's state together), and says why.
var errItemTooLarge = fmt.Errorf("unit: an item holds both its state and the unit's write: %w", mapper.ErrItemTooLarge)

// LockedError names the unit holding an item: the item's Table and Key,
// the holder's Unit id, Owner and Coordinator table, and the Err
// underneath. It matches [ErrLocked] with errors.Is. It is the same type as
// mapper.LockedError, which plain writes of a held item return.
type LockedError = mapper.LockedError
