package unit

import (
	"context"
	"fmt"

	"github.com/optimist-dynamo/optimist/internal/ddbapi"
	"github.com/optimist-dynamo/optimist/internal/obs"
	"github.com/optimist-dynamo/optimist/internal/unitproto"
	"github.com/optimist-dynamo/optimist/observe"
)

// Recover finishes the units recorded in the coordinator table name that
// are not finished and whose owner is gone, and returns how many it
// finished: a committed unit is rolled forward (each held item gets the
// unit's write and loses its lock), an aborted one is undone (each held
// item loses its lock), and an active one whose heartbeat counter stays
// unchanged for its full lease, watched by this call on its own clock, is
// first marked aborted (conditional on the counter it watched, so a unit
// that is alive after all is never touched) and then undone.
//
// Units seen alive are left alone as soon as Recover can tell: after two
// changes of their counter (once is not enough: a heartbeat sent before
// its owner died may land late). All active units are watched together,
// so Recover returns after about one lease; each call watches afresh
// (nothing is remembered across calls). One unit that cannot be finished (its
// items' table was deleted, DynamoDB refuses a write) does not stop the
// others: its error is returned, joined with the others', after every unit
// was tried, and the unit is left for a later Recover. Options:
// [Observer].
//
// A table that is not a coordinator table (its key is not the hash key
// "id" of type S) is refused with an error matching [ErrNotCoordinator],
// when the client has DescribeTable (as *dynamodb.Client does), or when it
// holds an item that is neither a unit's record nor a page of one (an
// empty table with the coordinator's key cannot be told apart, and holds
// nothing to recover). A unit
// that logged an item Recover cannot use (a key DynamoDB refuses in any
// call; it could hold no lock) is finished all the same: the item is
// passed over, and reported in the error, which matches
// txn.ErrInvalidItem.
//
// Calls: one DescribeTable; one Scan of the coordinator table (a page per
// MB, finished records included), for each unit
// watched a GetItem per poll, and for each unit finished its pages
// (GetItem each), one read and one write per item, and a write per page
// and for its record.
func Recover(ctx context.Context, c Client, name string, opts ...Option) (int, error) {
	o, err := newOptions(opts)
	if err != nil {
		return 0, err
	}
	if ddbapi.IsNil(c) || name == "" {
		return 0, fmt.Errorf("%w: Recover needs a client and the coordinator table's name", ErrInvalidOption)
	}
	co := unitproto.NewCoordinator(c, name, nil)
	if err := co.CheckTable(ctx); err != nil {
		return 0, fmt.Errorf("unit: Recover: %w", err)
	}
	var finished func(ctx context.Context, id string, commit bool)
	if o.observer != nil {
		finished = func(ctx context.Context, id string, commit bool) {
			obs.Point(ctx, o.observer, observe.Event{Kind: observe.UnitRecovered, Op: "Recover", Table: name, Name: id, Outcome: obs.UnitOutcome(commit)})
		}
	}
	return co.Recover(ctx, o.workers, o.poll(), finished)
}
