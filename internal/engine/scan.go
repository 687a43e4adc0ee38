package engine

import (
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// Scan reads every item of a table or an index, partition by partition; a
// parallel scan (Segment, TotalSegments) reads the partitions assigned to
// one segment.

// maxSegments is DynamoDB's limit on TotalSegments.
const maxSegments = 1000000

func (e *Engine) scan(s *scope, in *readInput) (any, error) {
	r, err := e.prepareRead(s, in, true)
	if err != nil {
		return nil, err
	}
	// Scan has no such parameter: DynamoDB ignores it as any unknown member.
	in.KeyConditionExpression, in.ScanIndexForward = nil, nil
	if err := r.expressions(in, "FilterExpression is null"); err != nil {
		return nil, err
	}
	esk, err := r.startKey(in.ExclusiveStartKey)
	if err != nil {
		return nil, err
	}
	if err := r.filterKeys(in); err != nil {
		return nil, err
	}
	if err := r.selection(in); err != nil {
		return nil, err
	}
	seg, total := 0, 1
	switch {
	case in.Segment != nil && in.TotalSegments == nil:
		return nil, validation(msgIfSegmentSpecifiedTotalSegment)
	case in.Segment == nil && in.TotalSegments != nil:
		return nil, validation(msgIfTotalSegmentsSpecifiedParticular)
	case in.Segment != nil:
		seg, total = *in.Segment, *in.TotalSegments
		// DynamoDB Local checks the segment against the total first, so a
		// total below 1 is reported as a segment out of range.
		if total > maxSegments {
			return nil, validation(msgConstraintTotalSegmentsHaveLessThan, total, maxSegments)
		}
		if seg < 0 || seg >= total {
			return nil, validation(msgConstraintSegmentHaveLessThan, seg, total-1)
		}
	}
	if r.ix != nil {
		return r.page(r.scanIndex(esk, seg, total))
	}
	return r.page(r.scanTable(esk, seg, total))
}

// scanTable walks the table's items in order from the start key, those
// of segment seg only.
func (r *read) scanTable(esk map[string]types.AttributeValue, seg, total int) func() (row, bool) {
	tree := r.t.items.tree
	c := tree.First()
	if esk != nil {
		var rng types.AttributeValue
		if r.t.rng.name != "" {
			rng = esk[r.t.rng.name]
		}
		start := tableKey(esk[r.t.hash.name], rng)
		c = tree.Seek(func(e entry) bool { return e.key() > start })
	}
	next := segmented(tree, c, func(e entry) string { return partitionOf(e.key()) }, seg, total, r.t.rng.name != "")
	return func() (row, bool) {
		en, ok := next()
		if !ok {
			return row{}, false
		}
		return row{en: en, size: en.size()}, true // decoded when needed: see readPage
	}
}

// segmented returns the values of t from c on whose partition (the
// encoded hash key part gives) falls to segment seg of total, one per
// call, then false. Where partitions may hold many values (seek), it skips
// a partition of another segment with one search.
func segmented[T any](t *btree[T], c cursor[T], part func(T) string, seg, total int, seek bool) func() (T, bool) {
	last, in := "", false
	return func() (T, bool) {
		for {
			v, ok := c.Next()
			if !ok || total == 1 {
				return v, ok
			}
			p := part(v)
			if p != last || last == "" {
				last, in = p, segmentOf(p, total) == seg
			}
			if in {
				return v, true
			}
			if seek {
				c = t.Seek(func(x T) bool { return part(x) > p })
			}
		}
	}
}

// scanIndex walks the index from the start key, those of segment seg
// only.
func (r *read) scanIndex(esk map[string]types.AttributeValue, seg, total int) func() (row, bool) {
	tree := r.ix.st.tree
	c := tree.First()
	if esk != nil {
		start := r.t.ixStart(r.ix, esk)
		c = tree.Seek(func(x ixEntry) bool { return compareIx(x, start) > 0 })
	}
	next := segmented(tree, c, func(x ixEntry) string { return partitionOf(x.key()) }, seg, total, true)
	return func() (row, bool) {
		x, ok := next()
		if !ok {
			return row{}, false
		}
		return r.t.ixRow(r.ix, x), true
	}
}
