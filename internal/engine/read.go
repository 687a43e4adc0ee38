package engine

import (
	"math"
	"strings"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/optimist-dynamo/optimist/internal/cond"
)

// What Query and Scan share: the request, its checks and the page they
// return. The rules, each measured on DynamoDB Local:
//
//   - Limit counts the items read, before the filter; a page also ends
//     after the item that brings what was read (index projections for an
//     index, whatever is returned) to 1 MB. A page that ends either way
//     has a LastEvaluatedKey, even when nothing follows, except a Query
//     whose last item has the table's range key on the inclusive bound
//     where its range ends.
//   - A LastEvaluatedKey holds the table's key and, for an index, the
//     index's key; an ExclusiveStartKey must have exactly those.
//   - Read capacity is the bytes read in 4 KB units, rounded up once per
//     call, halved for eventual consistency; nothing read costs nothing.
//     An LSI Query that reads unprojected attributes also pays for each
//     table item it fetches; an LSI Scan does not.

type readInput struct {
	TableName                 string
	IndexName                 *string
	KeyConditionExpression    *string
	FilterExpression          *string
	ProjectionExpression      *string
	ExpressionAttributeNames  map[string]string
	ExpressionAttributeValues map[string]av
	Select                    string
	Limit                     *int
	ExclusiveStartKey         item
	ScanIndexForward          *bool
	ConsistentRead            bool
	ReturnConsumedCapacity    string
	Segment                   *int
	TotalSegments             *int

	// Legacy parameters: see legacy.go.
	AttributesToGet     []string
	KeyConditions       map[string]legacyCond
	QueryFilter         map[string]legacyCond
	ScanFilter          map[string]legacyCond
	ConditionalOperator string
}

// pageBytes is the most a Query or Scan reads in one call: it stops after
// the item that brings what it read to 1 MB.
const pageBytes = 1 << 20

// row is one item as the table or index read holds it.
type row struct {
	item map[string]types.AttributeValue // the table's item or the index's projection of it; nil until decoded (a table's row)
	full map[string]types.AttributeValue // the table's item; nil until decoded
	en   entry                           // the table's entry
	size int                             // size of item
}

// read is a Query or Scan ready to run.
type read struct {
	t      *table
	ix     *index // nil for the table
	x      *exprs
	filter *cond.Expr
	proj   *projection_
	count  bool // Select COUNT
	fetch  bool // an LSI read that needs the table's items
	// filterTable: an index Scan whose filter reads the table's items.
	filterTable bool
	single      bool // a Query of a table without a range key: at most one item, never a LastEvaluatedKey
	limit       int  // 0: none
	consist     bool
	capacity    string
	scan        bool
	// endKey and endBound: a Query whose range condition ends, in the
	// direction it walks, at an inclusive bound (<= or BETWEEN forward, >=
	// or BETWEEN backward) names the table's range key and that bound; see
	// page.
	endKey   string
	endBound types.AttributeValue
	// keyCheck is a Query's evaluation of its key condition, which
	// expressions runs after the filter's and the projection's checks.
	keyCheck func() error
}

// prepareRead runs the checks Query and Scan share that come before their
// expressions. Each step of Query and Scan checks in DynamoDB Local's
// order, so that a request with several faults gets its answer: table,
// Limit, index, ConsistentRead; expressions and their names and values;
// the key condition; ExclusiveStartKey; filter on keys; Select and
// projections; (Scan) segments.
func (e *Engine) prepareRead(s *scope, in *readInput, scan bool) (*read, error) {
	t, err := s.lookup(in.TableName)
	if err != nil {
		return nil, err
	}
	if err := in.legacyMix(scan); err != nil {
		return nil, err
	}
	r := &read{t: t, consist: in.ConsistentRead, capacity: in.ReturnConsumedCapacity, scan: scan}
	if in.Limit != nil {
		if *in.Limit <= 0 {
			return nil, validation(msgLimitGreaterThanEqual1)
		}
		r.limit = *in.Limit
	}
	if in.IndexName != nil {
		if r.ix = t.indexNamed(*in.IndexName); r.ix == nil {
			return nil, validation(msgTableDoesNotHaveSpecified, *in.IndexName)
		}
	}
	if r.ix != nil && r.ix.global && in.ConsistentRead {
		verb := "querying"
		if scan {
			verb = "scanning"
		}
		return nil, validation(msgConsistentReadCannotTrueWhen, verb)
	}
	if r.x, err = newExprs(in.ExpressionAttributeNames, in.ExpressionAttributeValues); err != nil {
		return nil, err
	}
	return r, nil
}

func (t *table) indexNamed(name string) *index {
	for _, ix := range t.gsis {
		if ix.name == name {
			return ix
		}
	}
	for _, ix := range t.lsis {
		if ix.name == name {
			return ix
		}
	}
	return nil
}

// expressions parses the filter and the projection and checks names and
// values for use. nullParams words DynamoDB's message for maps given
// without expressions.
func (r *read) expressions(in *readInput, nullParams string) error {
	var err error
	if r.filter, err = r.x.condition("FilterExpression", in.FilterExpression); err != nil {
		return err
	}
	if in.FilterExpression != nil {
		// Validate placeholders now, whatever the items.
		if _, err := r.filter.Eval(nil, r.x.names, r.x.values); err != nil {
			return exprError("FilterExpression", err)
		}
	}
	if r.proj, err = r.x.projection(in.ProjectionExpression); err != nil {
		return err
	}
	if in.ProjectionExpression != nil {
		r.x.use(exprRefs(*in.ProjectionExpression).names, nil)
	}
	if r.keyCheck != nil {
		if err := r.keyCheck(); err != nil {
			return err
		}
	}
	if !r.x.any && r.x.names != nil {
		return validation(msgExpressionAttributeNamesCanOnlySpecifiedWhen)
	}
	// Values need a condition: a projection does not count.
	if r.x.values != nil && in.FilterExpression == nil && in.KeyConditionExpression == nil {
		return validation(msgExpressionAttributeValuesCanOnlySpecifiedWhen, nullParams)
	}
	if err := r.x.done(); err != nil {
		return err
	}
	return r.legacyRead(in)
}

// selection checks Select against the projection and the index, and
// decides whether an LSI read fetches the table's items.
func (r *read) selection(in *readInput) error {
	sel := in.Select
	switch sel {
	case "", "ALL_ATTRIBUTES", "ALL_PROJECTED_ATTRIBUTES", "SPECIFIC_ATTRIBUTES", "COUNT":
	default:
		return validation(msgSelectALLATTRIBUTESALLPROJECTED)
	}
	proj, projected := "ProjectionExpression", in.ProjectionExpression != nil
	if in.AttributesToGet != nil {
		proj, projected = "AttributesToGet", true
	}
	switch {
	case sel == "SPECIFIC_ATTRIBUTES" && !projected:
		return validation(msgSpecifyAttributesToGetProjectionExpressionWhenChoosing)
	case sel == "ALL_ATTRIBUTES" && projected:
		return validation(msgSelectAllWith, proj)
	case sel == "COUNT" && projected:
		return validation(msgSelectCountWith, proj)
	case sel == "ALL_PROJECTED_ATTRIBUTES" && projected:
		return validation(msgSelectAllProjectedWith, proj)
	case sel == "ALL_PROJECTED_ATTRIBUTES" && r.ix == nil:
		// Scan's answer too says Querying.
		return validation(msgALLPROJECTEDATTRIBUTESCanUsed)
	}
	r.count = sel == "COUNT"
	ix := r.ix
	if ix == nil || ix.projType == "ALL" {
		return nil
	}
	filtered := r.legacyFilterNames(in)
	if in.FilterExpression != nil {
		filtered = r.resolve(exprRefs(*in.FilterExpression).tops)
	}
	if len(filtered) > 0 {
		if missing := r.unprojected(filtered); len(missing) > 0 {
			// A Query refuses such a filter, even on an LSI. A Scan
			// accepts it and evaluates it on the table's item, GSI or LSI
			// (DynamoDB Local's behaviour: attribute_not_exists of an
			// unprojected attribute is false there).
			if !r.scan {
				return invalidParam(msgSecondaryIndexDoesNotProject, ix.name, strings.Join(missing, ", "))
			}
			r.filterTable = true
		}
	}
	if sel == "ALL_ATTRIBUTES" {
		if ix.global {
			return invalidParam(msgSelectTypeALLATTRIBUTESNot, ix.name)
		}
		r.fetch = true
	}
	if r.proj != nil {
		if missing := r.unprojected(r.proj.tops()); len(missing) > 0 {
			if ix.global {
				return invalidParam(msgGlobalSecondaryIndexDoesNot, ix.name, strings.Join(missing, ", "))
			}
			r.fetch = true
		}
	}
	return nil
}

// filterKeys refuses a filter that goes into a key attribute (pk.x), and,
// for a Query, one that names a key attribute of what it reads at all.
func (r *read) filterKeys(in *readInput) error {
	if err := r.t.scalarKeys(r.x.names, in.ProjectionExpression); err != nil {
		return err
	}
	if in.FilterExpression == nil {
		return nil
	}
	rf := exprRefs(*in.FilterExpression)
	for _, n := range r.resolve(rf.deep) {
		if n == r.t.hash.name || n == r.t.rng.name {
			return validation(msgKeyNotScalarPath, n)
		}
		if r.ix != nil && (n == r.ix.hash.name || n == r.ix.rng.name) {
			return validation(msgIndexKeyNotScalarPath, n)
		}
	}
	if r.scan {
		return nil
	}
	hk, rk := r.keysOf()
	for _, n := range r.resolve(rf.tops) {
		if n == hk.name || (rk.name != "" && n == rk.name) {
			return validation(msgFilterExpressionCanOnlyContain, n)
		}
	}
	return nil
}

// resolve replaces #names by the names they stand for.
func (r *read) resolve(tops []string) []string {
	out := make([]string, len(tops))
	for i, n := range tops {
		if strings.HasPrefix(n, "#") {
			n = r.x.names[n]
		}
		out[i] = n
	}
	return out
}

// unprojected lists, once each and in order, the attributes of names that
// the index does not hold.
func (r *read) unprojected(names []string) []string {
	held := map[string]bool{}
	for _, k := range []keyDef{r.t.hash, r.t.rng, r.ix.hash, r.ix.rng} {
		held[k.name] = true
	}
	for _, n := range r.ix.nonKey {
		held[n] = true
	}
	var out []string
	for _, n := range names {
		if !held[n] {
			held[n] = true
			out = append(out, n)
		}
	}
	return out
}

// tops is the top-level attribute of each projected path.
func (p *projection_) tops() []string {
	out := make([]string, 0, len(p.paths))
	for _, path := range p.paths {
		if len(path) > 0 {
			out = append(out, path[0].Name)
		}
	}
	return out
}

// keysOf is the key schema a read addresses: the index's, else the table's.
func (r *read) keysOf() (hash, rng keyDef) {
	if r.ix != nil {
		return r.ix.hash, r.ix.rng
	}
	return r.t.hash, r.t.rng
}

// lekNames are the attributes of a LastEvaluatedKey: the table's key and,
// for an index, the index's.
func (r *read) lekNames() []string {
	names := r.t.keyNames()
	if r.ix != nil {
		for _, k := range []keyDef{r.ix.hash, r.ix.rng} {
			if k.name != "" && k.name != r.t.hash.name && k.name != r.t.rng.name {
				names = append(names, k.name)
			}
		}
	}
	return names
}

// startKey reads an ExclusiveStartKey: exactly the attributes of a
// LastEvaluatedKey, of the key types. It returns them by name, nil when
// none was given.
func (r *read) startKey(esk item) (map[string]types.AttributeValue, error) {
	if esk == nil {
		return nil, nil
	}
	m, err := esk.attrs()
	if err != nil {
		return nil, err
	}
	names := r.lekNames()
	if len(m) != len(names) {
		return nil, validation(msgExclusiveStartKeyHaveSame)
	}
	types := map[string]string{r.t.hash.name: r.t.hash.typ, r.t.rng.name: r.t.rng.typ}
	if r.ix != nil {
		types[r.ix.hash.name], types[r.ix.rng.name] = r.ix.hash.typ, r.ix.rng.typ
	}
	for _, n := range names {
		v, ok := m[n]
		if !ok {
			return nil, validation(msgInvalidStartingKey)
		}
		if typeName(v) != types[n] {
			return nil, validation(msgTypeMismatchAttributeUpdate)
		}
		if kind := emptyKey(v); kind != "" {
			return nil, validation(msgQueryCanReturnAtMost, kind, n)
		}
		if m[n], err = checkValue(v); err != nil {
			return nil, err
		}
	}
	return m, nil
}

// page runs the read over rows from next, in order, and renders the
// answer.
func (r *read) page(next func() (row, bool)) (map[string]any, error) {
	ps, err := r.readPage(next)
	if err != nil {
		return nil, err
	}
	out := map[string]any{}
	if !r.count {
		out["Items"] = ps.items
	}
	out["Count"] = ps.count
	out["ScannedCount"] = ps.scanned
	if lek := r.lastKey(ps, next); lek != nil {
		out["LastEvaluatedKey"] = wireItem(lek)
	}
	if c := r.pageCapacity(ps); c != nil {
		out["ConsumedCapacity"] = c
	}
	return out, nil
}

// pageScan is what reading one page met.
type pageScan struct {
	items                 []outItem // those kept, projected (none for a count)
	count, scanned, bytes int       // rows kept, rows read, their bytes
	fetched               float64   // read units of the table items an index read fetched
	last                  row       // the last row read, if hasLast
	hasLast               bool
	more                  bool // stopped at the limit or the page's size
}

// readPage reads rows from next until none is left, the limit or the
// page's size, keeping those the filter passes.
func (r *read) readPage(next func() (row, bool)) (*pageScan, error) {
	ps := &pageScan{items: []outItem{}}
	for {
		if (r.limit > 0 && ps.scanned >= r.limit) || ps.bytes >= pageBytes {
			ps.more = true // DynamoDB returns a LastEvaluatedKey when it stops, even at the end
			break
		}
		rw, ok := next()
		if !ok {
			break
		}
		ps.scanned++
		ps.bytes += rw.size
		// A table's row comes undecoded: it is decoded for a filter, and
		// rendered from storage unless a projection of paths needs it.
		stored := rw.full == nil
		if stored && r.filter != nil {
			rw.item = rw.en.item()
			rw.full = rw.item
		}
		it := rw.item
		if r.fetch {
			it = rw.full
			if !r.scan {
				ps.fetched += readUnits(rw.en.size(), r.consist)
			}
		}
		ps.last, ps.hasLast = rw, true
		keep, err := r.passes(rw, it)
		if err != nil {
			return nil, err
		}
		if !keep {
			continue
		}
		ps.count++
		switch {
		case r.count:
		case stored:
			ps.items = append(ps.items, storedOut(rw.en.data(), r.proj))
		default:
			ps.items = append(ps.items, outItem{m: r.proj.apply(it)})
		}
	}
	return ps, nil
}

// passes reports whether the row, read as it, passes the read's filter
// (on the table's item where the filter is the table's).
func (r *read) passes(rw row, it map[string]types.AttributeValue) (bool, error) {
	if r.filter == nil {
		return true, nil
	}
	on := it
	if r.filterTable {
		on = rw.full
	}
	return r.x.eval("FilterExpression", r.filter, on)
}

// lastKey is the page's LastEvaluatedKey, nil for none; it may read one
// more row from next to tell whether any follows the range's end.
func (r *read) lastKey(ps *pageScan, next func() (row, bool)) map[string]types.AttributeValue {
	more, last := ps.more, ps.last
	// attr reads an attribute of the last row, from storage for a row
	// not decoded: only the key's attributes are needed.
	attr := func(name string) types.AttributeValue {
		if last.full != nil {
			return last.full[name]
		}
		v, _ := attrOf(last.en.data(), name)
		return v
	}
	if more && ps.hasLast && r.endBound != nil && onBound(attr(r.endKey), r.endBound) {
		// DynamoDB Local returns no LastEvaluatedKey when the table's range
		// key of the last item read equals the inclusive bound where the
		// range ends (on an index too, where that key is not the index's):
		// on a table nothing can follow. On an index whose range key is the
		// table's, items may tie on that bound; the key is kept when one
		// follows, so that no item becomes unreachable.
		if _, ok := next(); !ok {
			more = false
		}
	}
	if !more || !ps.hasLast || r.single {
		return nil
	}
	lek := map[string]types.AttributeValue{}
	for _, n := range r.lekNames() {
		lek[n] = attr(n)
	}
	return copyItem(lek)
}

// pageCapacity is the page's ConsumedCapacity, nil when not asked for: the
// bytes read, and on an index the table items fetched.
func (r *read) pageCapacity(ps *pageScan) map[string]any {
	units := math.Ceil(float64(ps.bytes)/4096) / 2
	if r.consist {
		units *= 2
	}
	if r.ix == nil {
		return consumed(r.capacity, r.t.name, units, nil)
	}
	return consumed(r.capacity, r.t.name, ps.fetched, map[*index]float64{r.ix: units})
}

// onBound reports whether the key value v equals bound (false when their
// types differ, as an index's range key may differ from the table's).
func onBound(v, bound types.AttributeValue) bool {
	return v != nil && typeName(v) == typeName(bound) && compareKeys(v, bound) == 0
}
