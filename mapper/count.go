package mapper

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/optimist-dynamo/optimist/internal/simhook"
)

// One returns the only item matching the key condition key (a Query, see
// [Table.Query]): an error matching [ErrNotFound] when none matches, and
// one matching [ErrNotUnique] when more than one does. It reads until it
// has seen two items: without a [Filter] one Query call asking for two items
// (Limit=2) usually settles it; with a filter, or [PageSize](1), it reads
// as many pages as that takes. Reads are eventually consistent unless
// [ConsistentRead](true). Options: [Index], [Filter], [Project],
// [PageSize], [StartAfter], [ConsistentRead], [ReadCapacity].
//
// It is meant for lookups that must be unique, such as an item found by a
// unique attribute through a global secondary index.
func (t *Table[T]) One(ctx context.Context, key expression.KeyConditionBuilder, opts ...ReadOption) (*T, error) {
	if err := t.usable(); err != nil {
		return nil, err
	}
	c, err := newReadConfig(callOne, opts)
	if err != nil {
		return nil, err
	}
	in, err := t.buildQuery(&c, key)
	if err != nil {
		return nil, err
	}
	c.limit = 2 // stop reading at the second item
	var items []*T
	t.iterate(&c, t.queryPages(ctx, &c, in), func(v *T, e error) bool {
		if e != nil {
			err = e
			return false
		}
		items = append(items, v)
		return true
	})
	switch {
	case err != nil:
		return nil, err
	case len(items) == 0:
		return nil, fmt.Errorf("%w: no item of %s matches the query", ErrNotFound, describe(t.name, c.index))
	case len(items) > 1:
		return nil, fmt.Errorf("%w: %s has several items matching the query, One wants exactly one", ErrNotUnique, describe(t.name, c.index))
	}
	return items[0], nil
}

// Count returns how many items match the key condition key (and any
// [Filter]) without reading them out: Query calls with Select=COUNT, one per
// page, following every page (DynamoDB's own count stops at 1 MB a page).
// DynamoDB charges a count as it would the
// Query itself (the items evaluated, by size, whatever the filter keeps).
// Options: [Index], [Filter], [PageSize], [StartAfter], [ConsistentRead],
// [ReadCapacity].
func (t *Table[T]) Count(ctx context.Context, key expression.KeyConditionBuilder, opts ...ReadOption) (int, error) {
	if err := t.usable(); err != nil {
		return 0, err
	}
	c, err := newReadConfig(callCount, opts)
	if err != nil {
		return 0, err
	}
	c.count = true
	in, err := t.buildQuery(&c, key)
	if err != nil {
		return 0, err
	}
	in.Select = types.SelectCount
	n := 0
	for {
		in.Limit = pageLimit(&c, 0)
		out, err := t.client.Query(ctx, in)
		if err != nil {
			return 0, fmt.Errorf("mapper: Query (count) on %s: %w", describe(t.name, c.index), err)
		}
		c.capacity.add(out.ConsumedCapacity, false)
		n += int(out.Count)
		if len(out.LastEvaluatedKey) == 0 {
			return n, nil
		}
		in.ExclusiveStartKey = out.LastEvaluatedKey
	}
}

// ScanCount returns how many items the table (or the index given with
// [Index]) holds that pass any [Filter]: Scan calls with Select=COUNT, one
// per page, following every page; with [Segments](n), n segments are
// counted at once. A count by scan reads, and is charged for, the whole
// table. (DescribeTable's ItemCount costs nothing but is refreshed only
// about every six hours.) Options: [Index], [Filter], [PageSize],
// [StartAfter], [Segments], [ConsistentRead], [ReadCapacity].
func (t *Table[T]) ScanCount(ctx context.Context, opts ...ReadOption) (int, error) {
	if err := t.usable(); err != nil {
		return 0, err
	}
	c, err := newReadConfig(callScanCount, opts)
	if err != nil {
		return 0, err
	}
	c.count = true
	base, err := t.buildScan(&c)
	if err != nil {
		return 0, err
	}
	base.Select = types.SelectCount
	segments := max(c.segments, 1)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	counts := make([]int, segments)
	errs := make([]error, segments)
	var wg sync.WaitGroup
	for seg := range segments {
		wg.Add(1)
		simhook.Go(func() {
			defer wg.Done()
			in := *base
			if c.segments > 0 {
				in.Segment, in.TotalSegments = aws.Int32(int32(seg)), aws.Int32(int32(c.segments))
			}
			counts[seg], errs[seg] = t.scanCount(ctx, &c, &in)
			if errs[seg] != nil {
				cancel() // the count is lost anyway: stop the other segments
			}
		})
	}
	wg.Wait()
	n := 0
	for seg := range segments {
		if errs[seg] != nil && !errors.Is(errs[seg], context.Canceled) {
			return 0, errs[seg]
		}
		n += counts[seg]
	}
	if err := errors.Join(errs...); err != nil {
		return 0, err
	}
	return n, nil
}

// scanCount counts the items of one segment (or of the whole scan).
func (t *Table[T]) scanCount(ctx context.Context, c *readConfig, in *dynamodb.ScanInput) (int, error) {
	n := 0
	for {
		in.Limit = pageLimit(c, 0)
		out, err := t.client.Scan(ctx, in)
		if err != nil {
			return 0, fmt.Errorf("mapper: Scan (count) on %s: %w", describe(t.name, c.index), err)
		}
		c.capacity.add(out.ConsumedCapacity, false)
		n += int(out.Count)
		if len(out.LastEvaluatedKey) == 0 {
			return n, nil
		}
		in.ExclusiveStartKey = out.LastEvaluatedKey
	}
}
