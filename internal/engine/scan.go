package engine

import (
	"sort"

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
		return nil, validation("If segment is specified, total segment must also be specified")
	case in.Segment == nil && in.TotalSegments != nil:
		return nil, validation("If total segments is specified, a particular segment must also be specified for this request")
	case in.Segment != nil:
		seg, total = *in.Segment, *in.TotalSegments
		// DynamoDB Local checks the segment against the total first, so a
		// total below 1 is reported as a segment out of range.
		if total > maxSegments {
			return nil, validation("1 validation error detected: Value '%d' at 'totalSegments' failed to satisfy constraint: Member must have value less than or equal to %d", total, maxSegments)
		}
		if seg < 0 || seg >= total {
			return nil, validation("1 validation error detected: Value '%d' at 'segment' failed to satisfy constraint: Member must have value less than or equal to %d", seg, total-1)
		}
	}
	if r.ix != nil {
		return r.page(r.scanIndex(esk, seg, total))
	}
	return r.page(r.scanTable(esk, seg, total))
}

// scanTable walks the table's partitions in order from the start key,
// those of segment seg only.
func (r *read) scanTable(esk map[string]types.AttributeValue, seg, total int) func() (row, bool) {
	order := r.t.items.order
	pi, ei := 0, 0
	if esk != nil {
		enc := encodeKey(esk[r.t.hash.name])
		pi = sort.Search(len(order), func(i int) bool { return order[i].enc >= enc })
		if pi < len(order) && order[pi].enc == enc {
			if r.t.rng.name == "" {
				pi++
			} else {
				k := esk[r.t.rng.name]
				es := order[pi].entries
				ei = sort.Search(len(es), func(i int) bool { return compareKeys(es[i].rng, k) > 0 })
			}
		}
	}
	return func() (row, bool) {
		for pi < len(order) {
			p := order[pi]
			if ei >= len(p.entries) || (total > 1 && segmentOf(p.enc, total) != seg) {
				pi, ei = pi+1, 0
				continue
			}
			en := p.entries[ei]
			ei++
			return row{item: en.item, en: en, size: en.size}, true
		}
		return row{}, false
	}
}

// scanIndex walks the index, computed from the table, from the start key.
func (r *read) scanIndex(esk map[string]types.AttributeValue, seg, total int) func() (row, bool) {
	rows := r.t.indexRows(r.ix, nil)
	i := 0
	if esk != nil {
		start := r.t.ixStart(r.ix, esk)
		i = sort.Search(len(rows), func(j int) bool { return compareIxRows(&rows[j], start) > 0 })
	}
	return func() (row, bool) {
		for i < len(rows) {
			x := rows[i]
			i++
			if total > 1 && segmentOf(x.enc, total) != seg {
				continue
			}
			return x.row, true
		}
		return row{}, false
	}
}
