package engine

import (
	"strings"

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
		return nil, validation(msgEitherKeyConditionsKeyConditionExpressionSpecifiedRequest)
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
			return nil, validation(msgStartingKeyDoesNotMatch)
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

// queryTable walks the partition of hv between the bounds of rc: the
// tree finds the first, so a query costs O(log n) plus its page.
func (r *read) queryTable(hv types.AttributeValue, rc *keyCond, esk map[string]types.AttributeValue, forward bool) func() (row, bool) {
	want := encodeKey(hv)
	rlo, rpast := rangeBounds(rc)
	lo := func(e *entry) bool {
		c := strings.Compare(e.enc, want)
		return c > 0 || c == 0 && rlo(e.rng)
	}
	past := func(e *entry) bool {
		c := strings.Compare(e.enc, want)
		return c > 0 || c == 0 && rpast(e.rng)
	}
	if esk != nil && r.t.rng.name == "" {
		return func() (row, bool) { return row{}, false } // a hash-only table has one item per partition
	}
	if esk != nil {
		k := esk[r.t.rng.name]
		from := func(e *entry, strict bool) bool {
			c := strings.Compare(e.enc, want)
			if c != 0 {
				return c > 0
			}
			c = compareKeys(e.rng, k)
			return c > 0 || !strict && c == 0
		}
		if forward {
			lo0 := lo
			lo = func(e *entry) bool { return lo0(e) && from(e, true) }
		} else {
			past0 := past
			past = func(e *entry) bool { return past0(e) || from(e, false) }
		}
	}
	next := walk(r.t.items.tree, lo, past, forward)
	return func() (row, bool) {
		en, ok := next()
		if !ok {
			return row{}, false
		}
		m := en.item()
		return row{item: m, full: m, en: en, size: en.size}, true
	}
}

// rangeBounds returns, for the range key condition rc (nil: none), the
// tests of a range key value that turn true at the first value in range
// (lo) and at the first beyond it (past), along the key order.
func rangeBounds(rc *keyCond) (lo, past func(types.AttributeValue) bool) {
	lo = func(types.AttributeValue) bool { return true }
	past = func(types.AttributeValue) bool { return false }
	if rc == nil {
		return lo, past
	}
	v := rc.vals[0]
	ge := func(x types.AttributeValue) bool { return compareKeys(x, v) >= 0 }
	gt := func(x types.AttributeValue) bool { return compareKeys(x, v) > 0 }
	switch rc.op {
	case "=":
		lo, past = ge, gt
	case "<":
		past = ge
	case "<=":
		past = gt
	case ">":
		lo = gt
	case ">=":
		lo = ge
	case "BETWEEN":
		w := rc.vals[1]
		lo, past = ge, func(x types.AttributeValue) bool { return compareKeys(x, w) > 0 }
	case "begins_with":
		lo, past = ge, func(x types.AttributeValue) bool { return ge(x) && !rc.matches(x) }
	}
	return lo, past
}

// walk returns the values of t from the first for which lo is true to the
// last for which past is false (lo and past turn from false to true along
// the order), forward or backward, one per call, then false.
func walk[T any](t *btree[T], lo, past func(T) bool, forward bool) func() (T, bool) {
	var c cursor[T]
	if forward {
		c = t.Seek(lo)
	} else {
		c = t.Seek(past)
	}
	done := false
	return func() (T, bool) {
		var v T
		ok := false
		if !done {
			if forward {
				v, ok = c.Next()
				ok = ok && !past(v)
			} else {
				v, ok = c.Prev()
				ok = ok && lo(v)
			}
		}
		if !ok {
			done = true
			var zero T
			return zero, false
		}
		return v, true
	}
}

// queryIndex walks the index partition of hv between the bounds of rc.
func (r *read) queryIndex(hv types.AttributeValue, rc *keyCond, esk map[string]types.AttributeValue, forward bool) func() (row, bool) {
	want := encodeKey(hv)
	rlo, rpast := rangeBounds(rc)
	ranged := r.ix.rng.name != ""
	lo := func(x ixEntry) bool {
		c := strings.Compare(x.enc, want)
		return c > 0 || c == 0 && (!ranged || rlo(x.rng))
	}
	past := func(x ixEntry) bool {
		c := strings.Compare(x.enc, want)
		return c > 0 || c == 0 && ranged && rpast(x.rng)
	}
	if esk != nil {
		start := r.t.ixStart(r.ix, esk)
		if forward {
			lo0 := lo
			lo = func(x ixEntry) bool { return lo0(x) && compareIx(x, start) > 0 }
		} else {
			past0 := past
			past = func(x ixEntry) bool { return past0(x) || compareIx(x, start) >= 0 }
		}
	}
	next := walk(r.ix.st.tree, lo, past, forward)
	return func() (row, bool) {
		x, ok := next()
		if !ok {
			return row{}, false
		}
		return r.t.ixRow(r.ix, x), true
	}
}
