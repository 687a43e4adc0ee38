package unit

import (
	"context"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/optimist-dynamo/optimist/internal/unitlock"
)

// Recover finishes the units recorded in the coordinator table name that
// are not finished and whose owner is gone, and returns how many it
// finished: a committed unit is rolled forward (its prepared items keep
// their new state and lose their locks), an aborted one is undone, and an
// active one whose heartbeat counter stays unchanged for its full lease,
// watched on this process's own clock, is first marked aborted
// (conditional on the counter it watched, so a unit that is alive after
// all is never touched) and then undone. Units seen alive (their counter
// moves) are left alone. Recover therefore returns after at most about
// one lease of the units it watches. Options: [Clock].
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
	type pending struct {
		id    string
		rec   record
		moved bool // its counter changed once while watched
	}
	var watch []pending
	n := 0
	in := &dynamodb.ScanInput{
		TableName:                aws.String(name),
		ConsistentRead:           aws.Bool(true),
		FilterExpression:         aws.String("attribute_exists(#st) AND attribute_not_exists(#fin)"),
		ExpressionAttributeNames: map[string]string{"#st": unitlock.RecState, "#fin": unitlock.RecFinished},
	}
	for {
		out, err := c.Scan(ctx, in)
		if err != nil {
			return n, fmt.Errorf("unit: Recover: scanning %s: %w", name, err)
		}
		for _, it := range out.Items {
			id, _ := it[unitlock.RecID].(*types.AttributeValueMemberS)
			if id == nil {
				continue
			}
			rec := parseRecord(it)
			if rec.state == unitlock.StateActive {
				watch = append(watch, pending{id: id.Value, rec: rec})
				continue
			}
			if err := finishUnit(ctx, c, name, id.Value, rec.state == unitlock.StateCommitted, o.workers); err != nil {
				return n, err
			}
			n++
		}
		if len(out.LastEvaluatedKey) == 0 {
			break
		}
		in.ExclusiveStartKey = out.LastEvaluatedKey
	}
	for len(watch) > 0 {
		var next []pending
		for _, p := range watch {
			rec, err := readRecord(ctx, c, name, p.id)
			if err != nil {
				return n, err
			}
			switch {
			case !rec.found || rec.done:
				continue
			case rec.state != unitlock.StateActive:
				if err := finishUnit(ctx, c, name, p.id, rec.state == unitlock.StateCommitted, o.workers); err != nil {
					return n, err
				}
				n++
				continue
			case rec.beat != p.rec.beat:
				// Seen alive, unless this was a heartbeat sent before its
				// owner died that landed late: watch on, and take a second
				// change for life.
				if p.moved {
					continue
				}
				p.moved, p.rec = true, rec
			}
			if !observe(name, p.id, rec.beat, rec.lease, o.clock) {
				next = append(next, p)
				continue
			}
			st, err := setState(ctx, c, name, p.id, unitlock.StateAborted, rec.beat)
			if err != nil {
				return n, fmt.Errorf("unit: Recover: aborting unit %s: %w", p.id, err)
			}
			forget(name, p.id)
			if st == unitlock.StateActive {
				continue // it beat in the meantime: alive
			}
			if err := finishUnit(ctx, c, name, p.id, st == unitlock.StateCommitted, o.workers); err != nil {
				return n, err
			}
			n++
		}
		watch = next
		if len(watch) > 0 {
			poll := o.poll()
			for _, p := range watch {
				poll = min(poll, max(p.rec.lease/4, 1))
			}
			if err := o.clock.Sleep(ctx, poll); err != nil {
				return n, err
			}
		}
	}
	return n, nil
}

// finishUnit rolls a unit forward (commit) or undoes it, from its pages.
func finishUnit(ctx context.Context, c Client, coord, id string, commit bool, workers int) error {
	refs, pages, err := readPages(ctx, c, coord, id)
	if err != nil {
		return err
	}
	err = parallel(ctx, len(refs), workers, func(ctx context.Context, i int) error {
		table, key, err := unitlock.DecodeKey(refs[i])
		if err != nil {
			return err
		}
		return finishItem(ctx, c, table, key, id, commit, nil)
	})
	if err != nil {
		return err
	}
	return finishRecord(ctx, c, coord, id, pages)
}
