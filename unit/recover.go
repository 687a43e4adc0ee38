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
// Calls: one Scan of the coordinator table (a page per MB), for each unit
// watched a GetItem per poll, and for each unit finished its pages
// (GetItem each), one read and one write per item, and a write per page
// and for its record.
func Recover(ctx context.Context, c Client, name string, opts ...Option) (int, error) {
	o, err := newOptions(opts)
	if err != nil {
		return 0, err
	}
	if c == nil || name == "" {
		return 0, fmt.Errorf("%w: Recover needs a client and the coordinator table's name", ErrInvalidOption)
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
		if err := finishUnit(ctx, c, name, id, commit, o.workers); err != nil {
			errs = append(errs, err)
			return
		}
		n++
		if o.observer != nil {
			outcome := "back"
			if commit {
				outcome = "forward"
			}
			obs.Point(ctx, o.observer, observe.Event{Kind: observe.UnitRecovered, Op: "Recover", Table: name, Name: id, Outcome: outcome})
		}
	}
	var strays []string // pages found in the scan, checked once it is over
	in := &dynamodb.ScanInput{
		TableName:                aws.String(name),
		ConsistentRead:           aws.Bool(true),
		FilterExpression:         aws.String("(attribute_exists(#st) AND attribute_not_exists(#fin)) OR attribute_exists(#items)"),
		ExpressionAttributeNames: map[string]string{"#st": unitlock.RecState, "#fin": unitlock.RecFinished, "#items": unitlock.RecItems},
	}
	for {
		out, err := c.Scan(ctx, in)
		if err != nil {
			return n, errors.Join(append(errs, fmt.Errorf("unit: Recover: scanning %s: %w", name, err))...)
		}
		for _, it := range out.Items {
			id, _ := it[unitlock.RecID].(*types.AttributeValueMemberS)
			if id == nil {
				continue
			}
			if _, isPage := it[unitlock.RecItems]; isPage {
				strays = append(strays, id.Value)
				continue
			}
			rec := unitlock.ParseRecord(it)
			switch {
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
	errs := make([]error, len(ss.Value))
	parallel(ctx, len(ss.Value), workers, func(ctx context.Context, i int) {
		if table, key, err := unitlock.DecodeKey(ss.Value[i]); err == nil {
			_, errs[i] = unitlock.Finish(ctx, c, table, key, id, commit, nil)
		}
	})
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("unit: finishing a page of unit %s: %w", id, err)
	}
	_, err = c.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String(coord), Key: unitlock.RecordKey(page)})
	return err
}

// finishUnit rolls a unit forward (commit) or undoes it, from its pages:
// every item is tried, whatever happens to the others; the record is
// marked finished only when all were.
func finishUnit(ctx context.Context, c Client, coord, id string, commit bool, workers int) error {
	refs, pages, err := readPages(ctx, c, coord, id)
	if err != nil {
		return err
	}
	errs := make([]error, len(refs))
	parallel(ctx, len(refs), workers, func(ctx context.Context, i int) {
		table, key, err := unitlock.DecodeKey(refs[i])
		if err != nil {
			return // an unreadable reference names no item that could hold a lock
		}
		_, errs[i] = unitlock.Finish(ctx, c, table, key, id, commit, nil)
	})
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("unit: finishing unit %s: %w", id, err)
	}
	return finishRecord(ctx, c, coord, id, pages)
}
