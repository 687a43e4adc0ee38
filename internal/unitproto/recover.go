package unitproto

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/optimist-dynamo/optimist/internal/ddbapi"
	"github.com/optimist-dynamo/optimist/internal/errs"
	"github.com/optimist-dynamo/optimist/internal/retry"
	"github.com/optimist-dynamo/optimist/internal/syncx"
	"github.com/optimist-dynamo/optimist/internal/tabledef"
)

// ErrNotCoordinator is the error of a table that is not a coordinator
// table; package unit exports the same value.
var ErrNotCoordinator = errors.New("unit: not a coordinator table")

// recovery is one call of Recover: its steps are scan, finishStrays and
// watch; each unit is judged by the one judgement ([Coordinator.Judge],
// with a memory of the call's own) and finished by finishUnit.
type recovery struct {
	co       Coordinator
	workers  int           // items finished at once
	poll     time.Duration // the longest wait between two reads of a watched record
	finished func(ctx context.Context, id string, commit bool)
	n        int     // units finished
	errs     []error // failures of single units, which do not stop the others
}

// pending is an active unit being watched.
type pending struct {
	id    string
	rec   Record
	first Verdict // its judgement at the scan
}

// Recover finishes the units recorded in the table that are not finished
// and whose owner is gone, and returns how many it finished (see
// unit.Recover, whose steps these are): workers items at once, a watched
// record read again at least every poll, and finished, if not nil, called
// for each unit finished. It watches with a memory of its own, whatever
// co's: each call watches afresh.
func (co Coordinator) Recover(ctx context.Context, workers int, poll time.Duration, finished func(ctx context.Context, id string, commit bool)) (int, error) {
	co.mem = new(Memory)
	r := &recovery{co: co, workers: workers, poll: poll, finished: finished}
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

// finish rolls unit id forward (commit) or back and counts it.
func (r *recovery) finish(ctx context.Context, id string, commit bool) {
	skipped, err := r.finishUnit(ctx, id, commit)
	r.errs = append(r.errs, skipped...)
	if err != nil {
		r.errs = append(r.errs, err)
		return
	}
	r.n++
	if r.finished != nil {
		r.finished(ctx, id, commit)
	}
}

// scan reads the coordinator table once: units that are over (committed
// or aborted, not finished) are finished at once; active ones are
// returned to watch, and the ids of pages to check once the scan is over.
func (r *recovery) scan(ctx context.Context) (watch []pending, strays []string, err error) {
	err = r.co.scan(ctx, false, func(id string, page bool, rec Record) bool {
		if page {
			strays = append(strays, id)
			return true
		}
		v, err := r.co.Judge(ctx, id, rec) // an active unit: its first sighting
		switch {
		case err != nil:
			r.errs = append(r.errs, err)
		case v.Over: // finished: nothing to do
		case v.Action == Wait:
			watch = append(watch, pending{id: id, rec: rec, first: v})
		default:
			r.finish(ctx, id, v.Action == Forward)
		}
		return true
	})
	if err != nil {
		return nil, nil, fmt.Errorf("unit: Recover: %w", err)
	}
	return watch, strays, nil
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
		v := Fate(rec)
		if !v.Over {
			continue // its unit is being finished (or watched) by scan
		}
		if err := r.finishPage(ctx, id, page, v.Action == Forward); err != nil {
			r.errs = append(r.errs, err)
		}
	}
}

// watch polls the records of the active units together until each is
// over (finished), seen alive (left alone: [Verdict.AliveSince]), or
// judged dead (aborted, then finished).
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
			poll := r.poll
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

// watchOne reads p's record once and acts on its judgement; it reports
// whether to go on watching p.
func (r *recovery) watchOne(ctx context.Context, p *pending) bool {
	v, err := r.co.JudgeUnit(ctx, p.id)
	switch {
	case err != nil:
		r.errs = append(r.errs, err)
		return false
	case v.Over, v.Revived, v.AliveSince(p.first):
		return false // finished, or alive after all
	case v.Action == Wait:
		return true // not seen dead yet
	}
	r.finish(ctx, p.id, v.Action == Forward)
	return false
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
func (r *recovery) finishRefs(ctx context.Context, id string, refs []string, commit bool) (errList, skipped []error) {
	errList = make([]error, len(refs))
	bad := make([]error, len(refs))
	syncx.Parallel(ctx, len(refs), r.workers, func(ctx context.Context, i int) {
		table, key, err := DecodeKey(refs[i])
		if err == nil {
			err = CheckKey(key)
		}
		if err != nil {
			bad[i] = fmt.Errorf("%w: unit %s logged an unusable item %s, passed over: %v", errs.ErrInvalidItem, id, refs[i], err)
			return
		}
		_, errList[i] = Finish(ctx, r.co.c, table, key, id, commit, nil)
	})
	for _, e := range bad {
		if e != nil {
			skipped = append(skipped, e)
		}
	}
	return errList, skipped
}

// CheckTable refuses a table that is not a coordinator table: one whose
// key is not exactly the hash key RecID of type S, as unit.CreateTable
// makes it (one DescribeTable). A client without DescribeTable is not
// checked here; a scan then refuses the first item that is neither a
// unit's record nor one of its pages.
func (co Coordinator) CheckTable(ctx context.Context) error {
	d, ok := co.c.(ddbapi.Describer)
	if !ok {
		return nil
	}
	def := &tabledef.Def{Name: co.Table, Hash: tabledef.Key{Name: RecID, Type: types.ScalarAttributeTypeS}}
	_, diffs, err := tabledef.Check(ctx, d, def)
	if err != nil {
		return fmt.Errorf("unit: describing %s: %w", co.Table, err)
	}
	if len(diffs) > 0 {
		return fmt.Errorf("%w: %s: %s; a coordinator table's key is the hash key %q of type S alone (made by unit.CreateTable)",
			ErrNotCoordinator, co.Table, tabledef.Text(diffs), RecID)
	}
	return nil
}
