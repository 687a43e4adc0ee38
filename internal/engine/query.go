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
	if esk != nil && r.t.rng.name == "" {
		return func() (row, bool) { return row{}, false } // a hash-only table has one item per partition
	}
	var fromStart func(entry) int
	if esk != nil {
		start := tableKey(esk[r.t.hash.name], esk[r.t.rng.name])
		fromStart = func(e entry) int { return strings.Compare(e.key(), start) }
	}
	lo, past := spanTests(entry.key, encodeKey(hv), rc, forward, fromStart)
	next := walk(r.t.items.tree, lo, past, forward)
	return func() (row, bool) {
		en, ok := next()
		if !ok {
			return row{}, false
		}
		return row{en: en, size: en.size()}, true // decoded when needed: see readPage
	}
}

// spanTests returns, for the values whose key strings (key) are of
// partition part pp and whose next part rc accepts, the tests that turn
// true at the first value in the span (lo) and at the first beyond it
// (past), along the order; fromStart, when there is a start key, compares
// a value with it, and the span is cut to the values after it in the
// direction of the read.
func spanTests[T any](key func(T) string, pp string, rc *keyCond, forward bool, fromStart func(T) int) (lo, past func(T) bool) {
	l, h := keyRange(pp, rc)
	lo = func(v T) bool { return key(v) >= l }
	past = func(v T) bool { return !below(key(v), h) }
	switch {
	case fromStart != nil && forward:
		lo = func(v T) bool { return key(v) >= l && fromStart(v) > 0 }
	case fromStart != nil:
		past = func(v T) bool { return !below(key(v), h) || fromStart(v) >= 0 }
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
	if r.ix.rng.name == "" {
		rc = nil
	}
	var fromStart func(ixEntry) int
	if esk != nil {
		start := r.t.ixStart(r.ix, esk)
		fromStart = func(x ixEntry) int { return compareIx(x, start) }
	}
	lo, past := spanTests(ixEntry.key, encodeKey(hv), rc, forward, fromStart)
	next := walk(r.ix.st.tree, lo, past, forward)
	return func() (row, bool) {
		x, ok := next()
		if !ok {
			return row{}, false
		}
		return r.t.ixRow(r.ix, x), true
	}
}
