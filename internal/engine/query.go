package engine

import (
	"sort"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// Query reads the items of one partition of a table or an index, in range
// key order, forward or backward.

func (e *Engine) query(s *scope, in *readInput) (any, error) {
	r, err := e.prepareRead(s, in, false)
	if err != nil {
		return nil, err
	}
	root, check, err := r.x.keyConditions(in.KeyConditionExpression, in.ExpressionAttributeValues)
	if err != nil {
		return nil, err
	}
	r.keyCheck = check
	if err := r.expressions(in, "FilterExpression and KeyConditionExpression are null"); err != nil {
		return nil, err
	}
	if root == nil && in.KeyConditions == nil {
		return nil, validation("Either the KeyConditions or KeyConditionExpression parameter must be specified in the request.")
	}
	hk, rk := r.keysOf()
	hv, rc, err := r.keySchema(root, in.KeyConditions)
	if err != nil {
		return nil, err
	}
	esk, err := r.startKey(in.ExclusiveStartKey)
	if err != nil {
		return nil, err
	}
	if esk != nil {
		if encodeKey(esk[hk.name]) != encodeKey(hv) || (rk.name != "" && !rc.matches(esk[rk.name])) {
			return nil, validation("The provided starting key does not match the range key predicate")
		}
	}
	if err := r.filterKeys(in); err != nil {
		return nil, err
	}
	if err := r.selection(in); err != nil {
		return nil, err
	}
	r.single = r.ix == nil && r.t.rng.name == ""
	forward := in.ScanIndexForward == nil || *in.ScanIndexForward
	// DynamoDB Local compares the bound with the table's range key, also
	// on an index: see read.page.
	if rc != nil && r.t.rng.name != "" {
		switch {
		case forward && rc.op == "<=", !forward && rc.op == ">=":
			r.endKey, r.endBound = r.t.rng.name, rc.vals[0]
		case rc.op == "BETWEEN" && forward:
			r.endKey, r.endBound = r.t.rng.name, rc.vals[1]
		case rc.op == "BETWEEN":
			r.endKey, r.endBound = r.t.rng.name, rc.vals[0]
		}
	}
	if r.ix != nil {
		return r.page(r.queryIndex(hv, rc, esk, forward))
	}
	return r.page(r.queryTable(hv, rc, esk, forward))
}

// queryTable walks the partition of hv between the bounds of rc: a binary
// search finds them, so a query costs O(log n) plus its page.
func (r *read) queryTable(hv types.AttributeValue, rc *keyCond, esk map[string]types.AttributeValue, forward bool) func() (row, bool) {
	p := r.t.items.parts[encodeKey(hv)]
	if p == nil {
		return func() (row, bool) { return row{}, false }
	}
	es := p.entries
	lo, hi := 0, len(es)
	if rc != nil {
		v := rc.vals[0]
		search := func(from int, f func(c int) bool) int {
			return from + sort.Search(hi-from, func(i int) bool { return f(compareKeys(es[from+i].rng, v)) })
		}
		switch rc.op {
		case "=":
			lo = search(0, func(c int) bool { return c >= 0 })
			hi = search(lo, func(c int) bool { return c > 0 })
		case "<":
			hi = search(0, func(c int) bool { return c >= 0 })
		case "<=":
			hi = search(0, func(c int) bool { return c > 0 })
		case ">":
			lo = search(0, func(c int) bool { return c > 0 })
		case ">=":
			lo = search(0, func(c int) bool { return c >= 0 })
		case "BETWEEN":
			lo = search(0, func(c int) bool { return c >= 0 })
			v = rc.vals[1]
			hi = search(lo, func(c int) bool { return c > 0 })
		case "begins_with":
			lo = search(0, func(c int) bool { return c >= 0 })
			hi = lo + sort.Search(hi-lo, func(i int) bool { return !rc.matches(es[lo+i].rng) })
		}
	}
	if esk != nil && r.t.rng.name != "" {
		k := esk[r.t.rng.name]
		if forward {
			lo = max(lo, sort.Search(len(es), func(i int) bool { return compareKeys(es[i].rng, k) > 0 }))
		} else {
			hi = min(hi, sort.Search(len(es), func(i int) bool { return compareKeys(es[i].rng, k) >= 0 }))
		}
	} else if esk != nil {
		lo = hi // a hash-only table has one item per partition
	}
	i, step := lo, 1
	if !forward {
		i, step = hi-1, -1
	}
	return func() (row, bool) {
		if i < lo || i >= hi {
			return row{}, false
		}
		en := es[i]
		i += step
		return row{item: en.item, en: en, size: en.size}, true
	}
}

// queryIndex walks the index partition of hv, computed from the table.
func (r *read) queryIndex(hv types.AttributeValue, rc *keyCond, esk map[string]types.AttributeValue, forward bool) func() (row, bool) {
	all := r.t.indexRows(r.ix, hv)
	rows := all[:0]
	for _, x := range all {
		if r.ix.rng.name == "" || rc.matches(x.rng) {
			rows = append(rows, x)
		}
	}
	lo, hi := 0, len(rows)
	if esk != nil {
		start := r.t.ixStart(r.ix, esk)
		if forward {
			lo = sort.Search(len(rows), func(i int) bool { return compareIxRows(&rows[i], start) > 0 })
		} else {
			hi = sort.Search(len(rows), func(i int) bool { return compareIxRows(&rows[i], start) >= 0 })
		}
	}
	i, step := lo, 1
	if !forward {
		i, step = hi-1, -1
	}
	return func() (row, bool) {
		if i < lo || i >= hi {
			return row{}, false
		}
		x := rows[i]
		i += step
		return x.row, true
	}
}
