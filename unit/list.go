package unit

import (
	"context"
	"fmt"
	"iter"
	"strconv"
	"time"

	"github.com/optimist-dynamo/optimist/internal/ddbapi"
	"github.com/optimist-dynamo/optimist/internal/unitproto"
)

// States of a unit, as [Info].State reports them.
const (
	// StateActive: begun, neither committed nor aborted. Recover undoes it
	// once its heartbeat counter stays unchanged for its lease.
	StateActive = unitproto.StateActive
	// StateCommitted: past its commit point; its writes stand (Recover
	// finishes them if the owner died before it did).
	StateCommitted = unitproto.StateCommitted
	// StateAborted: rolled back; Recover finishes the undoing if needed.
	StateAborted = unitproto.StateAborted
)

// Info is a unit's record in the coordinator table, as [List] reads it:
// what is recorded, not a judgement of whether its owner is alive (a live
// owner's Beat moves every heartbeat; read twice a lease apart to tell).
type Info struct {
	ID    string
	Owner string
	State string // StateActive, StateCommitted or StateAborted
	// Finished reports that every item was applied or undone and the
	// unit's locks are gone; the record then expires by TTL.
	Finished bool
	// Started is when the unit began, by its owner's clock.
	Started time.Time
	Lease   time.Duration // the owner's lease
	Beat    int64         // the heartbeat counter
}

// List returns the units recorded in the coordinator table, in the order
// of the table's Scan (not sorted), finished or not; the records of
// finished units stay until TTL removes them, about an hour after they
// finished. It is one consistent Scan of the table, following its pages
// (one page per MB read; the Scan reads, and is charged for, every item of
// the table, the pages of the units' item lists included, which it skips).
// An error ends the sequence. It changes nothing.
//
// A table that is not a coordinator table is refused with an error
// matching [ErrNotCoordinator]: one whose key is not the hash key "id" of
// type S (one DescribeTable first, when the client has the call, as
// *dynamodb.Client does), or that holds an item that is neither a unit's
// record nor one of its pages.
func List(ctx context.Context, c Client, coordinator string) iter.Seq2[*Info, error] {
	return func(yield func(*Info, error) bool) {
		if ddbapi.IsNil(c) || coordinator == "" {
			yield(nil, fmt.Errorf("%w: List needs a client and the coordinator table's name", ErrInvalidOption))
			return
		}
		co := unitproto.NewCoordinator(c, coordinator, nil)
		if err := co.CheckTable(ctx); err != nil {
			yield(nil, fmt.Errorf("unit: List: %w", err))
			return
		}
		for r, err := range co.Records(ctx) {
			if err != nil {
				yield(nil, fmt.Errorf("unit: List: %w", err))
				return
			}
			info := &Info{ID: r.ID, State: r.State, Owner: r.Owner, Finished: r.Done, Lease: r.Lease}
			if r.Started != 0 {
				info.Started = time.Unix(0, r.Started)
			}
			info.Beat, _ = strconv.ParseInt(r.Beat, 10, 64)
			if !yield(info, nil) {
				return
			}
		}
	}
}
