package mapper

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
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
	p, err := t.readPager(callOne, opts, &key, false)
	if err != nil {
		return nil, err
	}
	c := p.c
	c.limit = 2 // stop reading at the second item
	var items []*T
	iterate(ctx, p, t.decode, func(v *T, e error) bool {
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
	p, err := t.readPager(callCount, opts, &key, true)
	if err != nil {
		return 0, err
	}
	return p.countAll(ctx)
}

// ScanCount returns how many items the table (or the index given with
// [Index]) holds that pass any [Filter]: Scan calls with Select=COUNT, one
// per page, following every page; with [Segments](n), n segments are
// counted at once. A count by scan reads, and is charged for, the whole
// table. (DescribeTable's ItemCount costs nothing but is refreshed only
// about every six hours.) Options: [Index], [Filter], [PageSize],
// [StartAfter], [Segments], [ConsistentRead], [ReadCapacity].
func (t *Table[T]) ScanCount(ctx context.Context, opts ...ReadOption) (int, error) {
	base, err := t.readPager(callScanCount, opts, nil, true)
	if err != nil {
		return 0, err
	}
	segments := max(base.c.segments, 1)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	counts := make([]int, segments)
	errs := make([]error, segments)
	var wg sync.WaitGroup
	for seg := range segments {
		wg.Add(1)
		simhook.Go(func() {
			defer wg.Done()
			counts[seg], errs[seg] = base.segment(seg).countAll(ctx)
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
