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
	"github.com/optimist-dynamo/optimist/internal/retry"
	"github.com/optimist-dynamo/optimist/internal/unitproto"
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
	if isNilClient(c) || name == "" {
		return 0, fmt.Errorf("%w: Recover needs a client and the coordinator table's name", ErrInvalidOption)
	}
	if err := checkCoordinator(ctx, c, name); err != nil {
		return 0, fmt.Errorf("unit: Recover: %w", err)
	}
	r := &recovery{c: c, co: unitproto.NewCoordinator(c, name), o: o, began: time.Now()}
	watch, strays, err := r.scan(ctx)
	if err != nil {
		return r.n, errors.Join(append(r.errs, err)...)
	}
	r.finishStrays(ctx, strays)
	if err := r.watch(ctx, watch); err != nil {
		return r.n, errors.Join(append(r.errs, err)...)
	}
	return r.n, errors.Join(r.errs...)
}

// recovery is one call of Recover: its steps are scan, finishStrays and
// watch; each unit is judged by unitproto's one judgement (Judge, which
// also tells a unit seen alive) and finished by finish.
type recovery struct {
	c     Client
	co    unitproto.Coordinator
	o     options
	began time.Time // when Recover began
	n     int       // units finished
	errs  []error   // failures of single units, which do not stop the others
}

// pending is an active unit being watched.
type pending struct {
	id    string
	rec   unitproto.Record
	first unitproto.Verdict // its judgement at the scan
}

// finish rolls unit id forward (commit) or back and counts it.
func (r *recovery) finish(ctx context.Context, id string, commit bool) {
	skipped, err := r.finishUnit(ctx, id, commit)
	r.errs = append(r.errs, skipped...)
	if err != nil {
		r.errs = append(r.errs, err)
		return
	}
	r.n++
	if r.o.observer != nil {
		obs.Point(ctx, r.o.observer, observe.Event{Kind: observe.UnitRecovered, Op: "Recover", Table: r.co.Table, Name: id, Outcome: obs.UnitOutcome(commit)})
	}
}

// scan reads the coordinator table once: units that are over (committed
// or aborted, not finished) are finished at once; active ones are
// returned to watch, and the ids of pages to check once the scan is over.
// An item that is neither a unit's record nor a page of one ends it with
// ErrNotCoordinator.
func (r *recovery) scan(ctx context.Context) (watch []pending, strays []string, err error) {
	// No filter: a filter saves no read capacity (DynamoDB charges for
	// every item scanned), and each item is checked to be a unit's record
	// or page, so that a table of another kind is refused.
	in := &dynamodb.ScanInput{
		TableName:      aws.String(r.co.Table),
		ConsistentRead: aws.Bool(true),
	}
	for {
		out, err := r.c.Scan(ctx, in)
		if err != nil {
			return nil, nil, fmt.Errorf("unit: Recover: scanning %s: %w", r.co.Table, err)
		}
		for _, it := range out.Items {
			id, _ := it[unitproto.RecID].(*types.AttributeValueMemberS)
			_, isPage := it[unitproto.RecItems]
			_, isRecord := it[unitproto.RecState]
			if id == nil || !isPage && !isRecord {
				return nil, nil, fmt.Errorf("unit: Recover: %w: %s holds an item that is neither a unit's record nor a page of one", ErrNotCoordinator, r.co.Table)
			}
			if isPage {
				strays = append(strays, id.Value)
				continue
			}
			rec := unitproto.ParseRecord(it)
			v, err := r.co.Judge(ctx, id.Value, rec) // an active unit: its first sighting
			switch {
			case err != nil:
				r.errs = append(r.errs, err)
			case v.Over: // finished: nothing to do
			case v.Action == unitproto.Wait:
				watch = append(watch, pending{id: id.Value, rec: rec, first: v})
			default:
				r.finish(ctx, id.Value, v.Action == unitproto.Forward)
			}
		}
		if len(out.LastEvaluatedKey) == 0 {
			return watch, strays, nil
		}
		in.ExclusiveStartKey = out.LastEvaluatedKey
	}
}

// finishStrays finishes pages whose unit is finished (or whose record
// expired): written by the unit after recovery finished it, a unit that
// paused past its lease and took a lock before it learnt so. Its items are
// finished as the record says, and the page goes.
func (r *recovery) finishStrays(ctx context.Context, strays []string) {
	for _, page := range strays {
		id, _, _ := strings.Cut(page, "#")
		rec, err := r.co.Read(ctx, id)
		if err != nil {
			r.errs = append(r.errs, err)
			continue
		}
		v := unitproto.Fate(rec)
		if !v.Over {
			continue // its unit is being finished (or watched) by scan
		}
		if err := r.finishPage(ctx, id, page, v.Action == unitproto.Forward); err != nil {
			r.errs = append(r.errs, err)
		}
	}
}

// watch polls the records of the active units together until each is
// over (finished), seen alive (left alone), or judged dead (aborted, then
// finished). Seen alive: after one heartbeat for a unit of this process,
// after two changes of its counter for others.
func (r *recovery) watch(ctx context.Context, watch []pending) error {
	for len(watch) > 0 {
		var next []pending
		for _, p := range watch {
			if r.watchOne(ctx, &p) {
				next = append(next, p)
			}
		}
		watch = next
		if len(watch) > 0 {
			poll := r.o.poll()
			for _, p := range watch {
				poll = min(poll, max(p.rec.Lease/4, 1))
			}
			if err := retry.Sleep(ctx, poll); err != nil {
				return err
			}
		}
	}
	return nil
}

// watchOne reads p's record once and acts on unitproto's judgement; it
// reports whether to go on watching p.
func (r *recovery) watchOne(ctx context.Context, p *pending) bool {
	rec, err := r.co.Read(ctx, p.id)
	if err != nil {
		r.errs = append(r.errs, err)
		return false
	}
	if unitproto.Fate(rec).Action == unitproto.Wait && aliveHere(r.co.Table, p.id, r.began) {
		return false
	}
	v, err := r.co.Judge(ctx, p.id, rec)
	switch {
	case err != nil:
		r.errs = append(r.errs, err)
		return false
	case v.Over, v.Revived, v.AliveSince(p.first):
		return false // finished, or alive after all
	case v.Action == unitproto.Wait:
		return true // not seen dead yet
	}
	r.finish(ctx, p.id, v.Action == unitproto.Forward)
	return false
}

// aliveHere reports whether unit id runs in this process and made a
// heartbeat since since.
func aliveHere(coord, id string, since time.Time) bool {
	v, ok := live.Load(unitproto.StateKey(coord, id))
	return ok && v.(*Unit).beatSince(since)
}

// finishPage finishes the items of one page of unit id and deletes it.
func (r *recovery) finishPage(ctx context.Context, id, page string, commit bool) error {
	refs, err := r.co.Page(ctx, page)
	if err != nil || refs == nil {
		return err
	}
	errs, _ := r.finishRefs(ctx, id, refs, commit)
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("unit: finishing a page of unit %s: %w", id, err)
	}
	return r.co.DeletePage(ctx, page)
}

// finishUnit rolls a unit forward (commit) or undoes it, from its pages:
// every item is tried, whatever happens to the others; the record is
// marked finished only when all were. A logged reference that names no
// usable item (unreadable, or a key DynamoDB refuses in every call: it
// could hold no lock) is passed over and reported in skipped.
func (r *recovery) finishUnit(ctx context.Context, id string, commit bool) (skipped []error, err error) {
	refs, pages, err := r.co.Pages(ctx, id)
	if err != nil {
		return nil, err
	}
	errs, skipped := r.finishRefs(ctx, id, refs, commit)
	if err := errors.Join(errs...); err != nil {
		return skipped, fmt.Errorf("unit: finishing unit %s: %w", id, err)
	}
	return skipped, r.co.Finish(ctx, id, pages)
}

// finishRefs finishes the items of unit id named by refs (page entries),
// all of them whatever happens to the others: the error of each, and the
// references passed over as unusable.
func (r *recovery) finishRefs(ctx context.Context, id string, refs []string, commit bool) (errs, skipped []error) {
	errs = make([]error, len(refs))
	bad := make([]error, len(refs))
	parallel(ctx, len(refs), r.o.workers, func(ctx context.Context, i int) {
		table, key, err := unitproto.DecodeKey(refs[i])
		if err == nil {
			err = unitproto.CheckKey(key)
		}
		if err != nil {
			bad[i] = fmt.Errorf("%w: unit %s logged an unusable item %s, passed over: %v", txn.ErrInvalidItem, id, refs[i], err)
			return
		}
		_, errs[i] = unitproto.Finish(ctx, r.c, table, key, id, commit, nil)
	})
	for _, e := range bad {
		if e != nil {
			skipped = append(skipped, e)
		}
	}
	return errs, skipped
}
