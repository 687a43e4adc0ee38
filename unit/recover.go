package unit

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/optimist-dynamo/optimist/internal/obs"
	"github.com/optimist-dynamo/optimist/internal/unitlock"
	"github.com/optimist-dynamo/optimist/observe"
	"github.com/optimist-dynamo/optimist/txn"
)

// Recover finishes the units recorded in the coordinator table name that
// are not finished and whose owner is gone, and returns how many it
// finished: a committed unit is rolled forward (each held item gets the
// unit's write and loses its lock), an aborted one is undone (each held
// item loses its lock), and an active one whose heartbeat counter stays
// unchanged for its full lease, watched on this process's own clock, is
// first marked aborted (conditional on the counter it watched, so a unit
// that is alive after all is never touched) and then undone.
//
// Units seen alive are left alone as soon as Recover can tell: after one
// heartbeat for a unit of this process, after two changes of its counter
// for others. All active units are watched together, so
// Recover returns after about one lease (less for units this process has
// watched before, in earlier calls). One unit that cannot be finished (its
// items' table was deleted, DynamoDB refuses a write) does not stop the
// others: its error is returned, joined with the others', after every unit
// was tried, and the unit is left for a later Recover. Options: [Clock].
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
	if isNilClient(c) || name == "" {
		return 0, fmt.Errorf("%w: Recover needs a client and the coordinator table's name", ErrInvalidOption)
	}
	if err := checkCoordinator(ctx, c, name); err != nil {
		return 0, fmt.Errorf("unit: Recover: %w", err)
	}
	type pending struct {
		id    string
		rec   unitlock.Record
		moved bool // its counter changed once while watched
	}
	var watch []pending
	var errs []error
	n := 0
	began := o.clock.Now()
	finish := func(id string, commit bool) {
		skipped, err := finishUnit(ctx, c, name, id, commit, o.workers)
		errs = append(errs, skipped...)
		if err != nil {
			errs = append(errs, err)
			return
		}
		n++
		if o.observer != nil {
			obs.Point(ctx, o.observer, observe.Event{Kind: observe.UnitRecovered, Op: "Recover", Table: name, Name: id, Outcome: obs.UnitOutcome(commit)})
		}
	}
	var strays []string // pages found in the scan, checked once it is over
	// No filter: a filter saves no read capacity (DynamoDB charges for
	// every item scanned), and each item is checked to be a unit's record
	// or page, so that a table of another kind is refused.
	in := &dynamodb.ScanInput{
		TableName:      aws.String(name),
		ConsistentRead: aws.Bool(true),
	}
	for {
		out, err := c.Scan(ctx, in)
		if err != nil {
			return n, errors.Join(append(errs, fmt.Errorf("unit: Recover: scanning %s: %w", name, err))...)
		}
		for _, it := range out.Items {
			id, _ := it[unitlock.RecID].(*types.AttributeValueMemberS)
			_, isPage := it[unitlock.RecItems]
			_, isRecord := it[unitlock.RecState]
			if id == nil || !isPage && !isRecord {
				return n, errors.Join(append(errs, fmt.Errorf("unit: Recover: %w: %s holds an item that is neither a unit's record nor a page of one", ErrNotCoordinator, name))...)
			}
			if isPage {
				strays = append(strays, id.Value)
				continue
			}
			rec := unitlock.ParseRecord(it)
			switch {
			case rec.Done: // finished: nothing to do
			case rec.State != unitlock.StateActive:
				finish(id.Value, rec.State == unitlock.StateCommitted)
			default:
				watch = append(watch, pending{id: id.Value, rec: rec})
			}
		}
		if len(out.LastEvaluatedKey) == 0 {
			break
		}
		in.ExclusiveStartKey = out.LastEvaluatedKey
	}
	// A page whose unit is finished (or whose record expired) was written by
	// the unit after recovery finished it: a unit that paused past its
	// lease and took a lock before it learnt so. Its items are finished as
	// the record says, and the page goes.
	for _, page := range strays {
		id, _, _ := strings.Cut(page, "#")
		rec, err := unitlock.ReadRecord(ctx, c, name, id)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if rec.Found && !rec.Done {
			continue // its unit is being finished (or watched) above
		}
		if err := finishPage(ctx, c, name, id, page, rec.State == unitlock.StateCommitted, o.workers); err != nil {
			errs = append(errs, err)
		}
	}
	for len(watch) > 0 {
		var next []pending
		for _, p := range watch {
			rec, err := unitlock.ReadRecord(ctx, c, name, p.id)
			if err != nil {
				errs = append(errs, err)
				continue
			}
			switch {
			case !rec.Found || rec.Done:
				continue
			case rec.State != unitlock.StateActive:
				finish(p.id, rec.State == unitlock.StateCommitted)
				continue
			case aliveHere(name, p.id, began):
				continue
			case rec.Beat != p.rec.Beat:
				// Seen alive, unless this was a heartbeat sent before its
				// owner died that landed late: watch on, and take a second
				// change for life.
				if p.moved {
					continue
				}
				p.moved, p.rec = true, rec
			}
			if !unitlock.Observe(name, p.id, rec.Beat, rec.Lease, o.clock) {
				next = append(next, p)
				continue
			}
			st, err := unitlock.SetState(ctx, c, name, p.id, unitlock.StateAborted, rec.Beat)
			if err != nil {
				errs = append(errs, fmt.Errorf("unit: Recover: aborting unit %s: %w", p.id, err))
				continue
			}
			unitlock.Forget(name, p.id)
			if st == unitlock.StateActive {
				continue // it beat in the meantime: alive
			}
			finish(p.id, st == unitlock.StateCommitted)
		}
		watch = next
		if len(watch) > 0 {
			poll := o.poll()
			for _, p := range watch {
				poll = min(poll, max(p.rec.Lease/4, 1))
			}
			if err := o.clock.Sleep(ctx, poll); err != nil {
				return n, errors.Join(append(errs, err)...)
			}
		}
	}
	return n, errors.Join(errs...)
}

// aliveHere reports whether unit id runs in this process and made a
// heartbeat since since.
func aliveHere(coord, id string, since time.Time) bool {
	v, ok := live.Load(unitlock.StateKey(coord, id))
	return ok && v.(*Unit).beatSince(since)
}

// finishPage finishes the items of one page of unit id and deletes it.
func finishPage(ctx context.Context, c Client, coord, id, page string, commit bool, workers int) error {
	out, err := c.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(coord), Key: unitlock.RecordKey(page), ConsistentRead: aws.Bool(true)})
	if err != nil {
		return fmt.Errorf("unit: reading page %s: %w", page, err)
	}
	ss, _ := out.Item[unitlock.RecItems].(*types.AttributeValueMemberSS)
	if ss == nil {
		return nil
	}
	errs, _ := finishRefs(ctx, c, id, ss.Value, commit, workers)
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("unit: finishing a page of unit %s: %w", id, err)
	}
	_, err = c.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String(coord), Key: unitlock.RecordKey(page)})
	return err
}

// finishUnit rolls a unit forward (commit) or undoes it, from its pages:
// every item is tried, whatever happens to the others; the record is
// marked finished only when all were. A logged reference that names no
// usable item (unreadable, or a key DynamoDB refuses in every call: it
// could hold no lock) is passed over and reported in skipped.
func finishUnit(ctx context.Context, c Client, coord, id string, commit bool, workers int) (skipped []error, err error) {
	refs, pages, err := readPages(ctx, c, coord, id)
	if err != nil {
		return nil, err
	}
	errs, skipped := finishRefs(ctx, c, id, refs, commit, workers)
	if err := errors.Join(errs...); err != nil {
		return skipped, fmt.Errorf("unit: finishing unit %s: %w", id, err)
	}
	return skipped, finishRecord(ctx, c, coord, id, pages)
}

// finishRefs finishes the items of unit id named by refs (page entries),
// all of them whatever happens to the others: the error of each, and the
// references passed over as unusable.
func finishRefs(ctx context.Context, c Client, id string, refs []string, commit bool, workers int) (errs, skipped []error) {
	errs = make([]error, len(refs))
	bad := make([]error, len(refs))
	parallel(ctx, len(refs), workers, func(ctx context.Context, i int) {
		table, key, err := unitlock.DecodeKey(refs[i])
		if err == nil {
			err = unitlock.CheckKey(key)
		}
		if err != nil {
			bad[i] = fmt.Errorf("%w: unit %s logged an unusable item %s, passed over: %v", txn.ErrInvalidItem, id, refs[i], err)
			return
		}
		_, errs[i] = unitlock.Finish(ctx, c, table, key, id, commit, nil)
	})
	for _, e := range bad {
		if e != nil {
			skipped = append(skipped, e)
		}
	}
	return errs, skipped
}
