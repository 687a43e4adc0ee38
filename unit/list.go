package unit

import (
	"context"
	"fmt"
	"iter"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/optimist-dynamo/optimist/internal/attrs"
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
		if isNilClient(c) || coordinator == "" {
			yield(nil, fmt.Errorf("%w: List needs a client and the coordinator table's name", ErrInvalidOption))
			return
		}
		if err := checkCoordinator(ctx, c, coordinator); err != nil {
			yield(nil, fmt.Errorf("unit: List: %w", err))
			return
		}
		in := &dynamodb.ScanInput{
			TableName:      aws.String(coordinator),
			ConsistentRead: aws.Bool(true),
			// The records' attributes only: an item-list page's item
			// references can be large.
			ProjectionExpression: aws.String("#id, #st, #o, #s, #l, #b, #f"),
			ExpressionAttributeNames: map[string]string{
				"#id": unitproto.RecID, "#st": unitproto.RecState, "#o": unitproto.RecOwner, "#s": unitproto.RecStarted,
				"#l": unitproto.RecLease, "#b": unitproto.RecBeat, "#f": unitproto.RecFinished,
			},
		}
		for {
			out, err := c.Scan(ctx, in)
			if err != nil {
				yield(nil, fmt.Errorf("unit: List: scanning %s: %w", coordinator, err))
				return
			}
			for _, item := range out.Items {
				id, _ := item[unitproto.RecID].(*types.AttributeValueMemberS)
				if id != nil && strings.Contains(id.Value, "#") { // a page of a unit's item list
					continue
				}
				if _, rec := item[unitproto.RecState]; id == nil || !rec {
					yield(nil, fmt.Errorf("unit: List: %w: %s holds an item that is neither a unit's record nor a page of one", ErrNotCoordinator, coordinator))
					return
				}
				if !yield(infoOf(id.Value, item), nil) {
					return
				}
			}
			if len(out.LastEvaluatedKey) == 0 {
				return
			}
			in.ExclusiveStartKey = out.LastEvaluatedKey
		}
	}
}

func infoOf(id string, item map[string]types.AttributeValue) *Info {
	r := unitproto.ParseRecord(item)
	info := &Info{ID: id, State: r.State, Owner: r.Owner, Finished: r.Done, Lease: r.Lease}
	if r.Started != 0 {
		info.Started = time.Unix(0, r.Started)
	}
	info.Beat, _ = attrs.Int64(item[unitproto.RecBeat])
	return info
}
