package mapper

import (
	"context"
	"iter"
	"sync"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/optimist-dynamo/optimist/internal/simhook"
)

// Scan returns an iterator over every item of the table (or of the index
// given with [Index]), following every page: one Scan call per page, a page
// ending after [PageSize] items or at 1 MB. Items come in no useful order.
// With [Segments](n) the scan is parallel: n goroutines read a segment each.
//
// A Scan reads, and is charged for, the whole table (the total size of the
// items evaluated, rounded up to 4 KB per call), whatever a [Filter] then
// drops; reads are eventually consistent, at half the cost, unless
// [ConsistentRead](true) is given. Options: [Index], [Filter], [Project],
// [Limit], [PageSize], [StartAfter], [Segments], [ConsistentRead],
// [ReadCapacity]; invalid options are the iterator's first and only error,
// before any call.
//
// Each range over the iterator runs the scan anew. After an error the
// iteration ends; breaking out of the loop makes no further call.
func (t *Table[T]) Scan(ctx context.Context, opts ...ReadOption) iter.Seq2[*T, error] {
	return func(yield func(*T, error) bool) {
		p, err := t.readPager(callScan, opts, nil, false)
		if err != nil {
			yield(nil, err)
			return
		}
		if p.c.segments > 0 {
			t.parallelScan(ctx, p, yield)
			return
		}
		iterate(ctx, p, t.decode, yield)
	}
}

// parallelScan runs one goroutine per segment. Each sends its decoded pages
// on an unbuffered channel, selecting on stop, which is closed when the
// iteration ends (early stop, error, limit): the goroutines then exit, and
// their in-flight calls are canceled through ctx. The iterator waits for
// them before it returns. They do not select on ctx itself: when the
// caller's ctx ends, the error of the call it cut short must still reach
// the caller, or the scan would look complete.
func (t *Table[T]) parallelScan(ctx context.Context, base *pager, yield func(*T, error) bool) {
	c := base.c
	ctx, cancel := context.WithCancel(ctx)
	stop := make(chan struct{})
	pages := make(chan scanPage[T])
	var wg sync.WaitGroup
	for seg := range c.segments {
		wg.Add(1)
		simhook.Go(func() {
			defer wg.Done()
			t.scanSegment(ctx, base.segment(seg), pages, stop)
		})
	}
	simhook.Go(func() {
		wg.Wait()
		close(pages)
	})
	defer func() {
		close(stop)
		cancel()
		for range pages { // until every goroutine has exited
		}
	}()
	n := 0
	for p := range pages {
		if p.err != nil {
			yield(nil, p.err)
			return
		}
		for _, v := range p.items {
			if !yield(v, nil) {
				return
			}
			if n++; c.limit > 0 && n >= c.limit {
				return
			}
		}
	}
}

// scanPage is a page of a parallel scan's segment, decoded, or its error.
type scanPage[T any] struct {
	items []*T
	err   error
}

// scanSegment reads the segment of p page by page and sends each page on
// pages, until its last page, an error, c.limit items, or stop.
func (t *Table[T]) scanSegment(ctx context.Context, p *pager, pages chan<- scanPage[T], stop <-chan struct{}) {
	got := 0
	for {
		var sp scanPage[T]
		items, _, more, err := p.next(ctx, pageLimit(p.c, got))
		if err != nil {
			sp.err = err
		} else {
			sp.items, sp.err = decodePage[T](t.c, items)
		}
		select {
		case pages <- sp:
		case <-stop:
			return
		}
		if sp.err != nil || !more {
			return
		}
		if got += len(sp.items); p.c.limit > 0 && got >= p.c.limit {
			return // this segment alone has given all that is wanted
		}
	}
}

// decodePage decodes the items of a page, up to the first that fails.
func decodePage[T any](c *codec, items []map[string]types.AttributeValue) ([]*T, error) {
	out := make([]*T, 0, len(items))
	for _, it := range items {
		v, err := decodeItem[T](c, it)
		if err != nil {
			return out, err
		}
		out = append(out, v)
	}
	return out, nil
}
