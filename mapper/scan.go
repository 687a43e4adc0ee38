package mapper

import (
	"context"
	"fmt"
	"iter"
	"sync"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
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
		if err := t.usable(); err != nil {
			yield(nil, err)
			return
		}
		c, err := newReadConfig(callScan, opts)
		var in *dynamodb.ScanInput
		if err == nil {
			in, err = t.buildScan(&c)
		}
		if err != nil {
			yield(nil, err)
			return
		}
		if c.segments > 0 {
			t.parallelScan(ctx, &c, in, yield)
			return
		}
		t.iterate(&c, func(limit *int32) ([]map[string]types.AttributeValue, bool, error) {
			in.Limit = limit
			out, err := t.client.Scan(ctx, in)
			if err != nil {
				return nil, false, fmt.Errorf("mapper: Scan on %s: %w", describe(t.name, c.index), err)
			}
			c.capacity.add(out.ConsumedCapacity, false)
			in.ExclusiveStartKey = out.LastEvaluatedKey
			items, err := t.visibleAll(ctx, out.Items, c.filterCheck, c.keyCheck)
			return items, len(out.LastEvaluatedKey) > 0, err
		}, yield)
	}
}

func (t *Table[T]) buildScan(c *readConfig) (*dynamodb.ScanInput, error) {
	t.s.ent.typed(c)
	start, err := t.startKey(c)
	if err != nil {
		return nil, err
	}
	e, _, err := t.readExpression(c, nil)
	if err != nil {
		return nil, err
	}
	in := &dynamodb.ScanInput{
		ReturnConsumedCapacity:    c.capacity.returnCapacity(),
		TableName:                 t.nameP,
		FilterExpression:          e.Filter(),
		ProjectionExpression:      e.Projection(),
		ExpressionAttributeNames:  e.Names(),
		ExpressionAttributeValues: e.Values(),
		ExclusiveStartKey:         start,
	}
	if c.index != "" {
		in.IndexName = aws.String(c.index)
	}
	if c.consistent {
		in.ConsistentRead = aws.Bool(true)
	}
	return in, nil
}

// parallelScan runs one goroutine per segment. Each sends its decoded pages
// on an unbuffered channel, selecting on stop, which is closed when the
// iteration ends (early stop, error, limit): the goroutines then exit, and
// their in-flight calls are canceled through ctx. The iterator waits for
// them before it returns. They do not select on ctx itself: when the
// caller's ctx ends, the error of the call it cut short must still reach
// the caller, or the scan would look complete.
func (t *Table[T]) parallelScan(ctx context.Context, c *readConfig, base *dynamodb.ScanInput, yield func(*T, error) bool) {
	ctx, cancel := context.WithCancel(ctx)
	stop := make(chan struct{})
	pages := make(chan scanPage[T])
	var wg sync.WaitGroup
	for seg := range c.segments {
		wg.Add(1)
		simhook.Go(func() {
			defer wg.Done()
			t.scanSegment(ctx, c, base, seg, pages, stop)
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

// scanSegment reads the segment seg page by page and sends each page on
// pages, until its last page, an error, c.limit items, or stop.
func (t *Table[T]) scanSegment(ctx context.Context, c *readConfig, base *dynamodb.ScanInput, seg int, pages chan<- scanPage[T], stop <-chan struct{}) {
	in := *base
	in.Segment, in.TotalSegments = aws.Int32(int32(seg)), aws.Int32(int32(c.segments))
	got := 0
	for {
		in.Limit = pageLimit(c, got)
		var p scanPage[T]
		out, err := t.client.Scan(ctx, &in)
		if err == nil {
			out.Items, err = t.visibleAll(ctx, out.Items, c.filterCheck, c.keyCheck)
		}
		if err != nil {
			p.err = fmt.Errorf("mapper: Scan on %s, segment %d of %d: %w", describe(t.name, c.index), seg, c.segments, err)
		} else {
			c.capacity.add(out.ConsumedCapacity, false)
			p.items, p.err = decodePage[T](t.c, out.Items)
		}
		select {
		case pages <- p:
		case <-stop:
			return
		}
		if p.err != nil || len(out.LastEvaluatedKey) == 0 {
			return
		}
		if got += len(p.items); c.limit > 0 && got >= c.limit {
			return // this segment alone has given all that is wanted
		}
		in.ExclusiveStartKey = out.LastEvaluatedKey
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
