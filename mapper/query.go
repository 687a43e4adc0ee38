package mapper

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"iter"
	"math"
	"reflect"
	"sync"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// Query returns an iterator over the items whose key matches key, following
// every page: one Query call per page, a page ending after [PageSize] items
// evaluated or at 1 MB. The key condition is built with the SDK's
// expression package: expression.Key("pk").Equal(expression.Value(v)),
// and optionally .And() a condition on the sort key (Equal, LessThan,
// LessThanEqual, GreaterThan, GreaterThanEqual, Between, BeginsWith).
// Items come in sort key order ([Descending] for the reverse).
//
// Reads are eventually consistent unless [ConsistentRead](true) is given
// (not possible on a global secondary index). Each call is charged for the
// total size of the items it evaluates, rounded up to 4 KB, whatever a
// [Filter] then drops; eventually consistent reads cost half. Options:
// [Index], [Filter], [Project], [Descending], [Limit], [PageSize],
// [StartAfter], [ConsistentRead]; invalid options are the iterator's first
// and only error, before any call. To serve results a page at a time, use
// [Limit], and take the cursor after the last item returned with
// [Table.CursorAfter].
//
// Each range over the iterator runs the query anew. After an error the
// iteration ends; breaking out of the loop makes no further call.
func (t *Table[T]) Query(ctx context.Context, key expression.KeyConditionBuilder, opts ...ReadOption) iter.Seq2[*T, error] {
	return func(yield func(*T, error) bool) {
		if err := t.usable(); err != nil {
			yield(nil, err)
			return
		}
		c, err := newReadConfig(callQuery, opts)
		var in *dynamodb.QueryInput
		if err == nil {
			in, err = t.buildQuery(&c, key)
		}
		if err != nil {
			yield(nil, err)
			return
		}
		t.iterate(&c, t.queryPages(ctx, &c, in), yield)
	}
}

// queryPages returns the fetchFunc of a Query: one call per page.
func (t *Table[T]) queryPages(ctx context.Context, c *readConfig, in *dynamodb.QueryInput) fetchFunc {
	return func(limit *int32) ([]map[string]types.AttributeValue, bool, error) {
		in.Limit = limit
		out, err := t.client.Query(ctx, in)
		if err != nil {
			return nil, false, fmt.Errorf("mapper: Query on %s: %w", describe(t.name, c.index), err)
		}
		c.capacity.add(out.ConsumedCapacity, false)
		in.ExclusiveStartKey = out.LastEvaluatedKey
		items, err := t.visibleAll(ctx, out.Items, c.filterCheck, c.keyCheck)
		return items, len(out.LastEvaluatedKey) > 0, err
	}
}

func (t *Table[T]) buildQuery(c *readConfig, key expression.KeyConditionBuilder) (*dynamodb.QueryInput, error) {
	if !key.IsSet() {
		return nil, fmt.Errorf("%w: Query needs a key condition, such as expression.Key(%q).Equal(expression.Value(v))", ErrInvalidOption, t.s.hash.name)
	}
	t.s.ent.typed(c)
	start, err := t.startKey(c)
	if err != nil {
		return nil, err
	}
	e, _, err := t.readExpression(c, &key)
	if err != nil {
		return nil, err
	}
	in := &dynamodb.QueryInput{
		ReturnConsumedCapacity:    c.capacity.returnCapacity(),
		TableName:                 t.nameP,
		KeyConditionExpression:    e.KeyCondition(),
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
	if c.descending {
		in.ScanIndexForward = aws.Bool(false)
	}
	return in, nil
}

// Scan returns an iterator over every item of the table (or of the index
// given with [Index]), following every page: one Scan call per page, a page
// ending after [PageSize] items or at 1 MB. Items come in no useful order.
// With [Segments](n) the scan is parallel: n goroutines read a segment each.
//
// A Scan reads, and is charged for, the whole table (the total size of the
// items evaluated, rounded up to 4 KB per call), whatever a [Filter] then
// drops; reads are eventually consistent, at half the cost, unless
// [ConsistentRead](true) is given. Options: [Index], [Filter], [Project], [Limit], [PageSize],
// [StartAfter], [Segments], [ConsistentRead]; invalid options are the
// iterator's first and only error, before any call.
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
	type page struct {
		items []*T
		err   error
	}
	ctx, cancel := context.WithCancel(ctx)
	stop := make(chan struct{})
	pages := make(chan page)
	var wg sync.WaitGroup
	for seg := range c.segments {
		wg.Add(1)
		go func() {
			defer wg.Done()
			in := *base
			in.Segment, in.TotalSegments = aws.Int32(int32(seg)), aws.Int32(int32(c.segments))
			got := 0
			for {
				in.Limit = pageLimit(c, got)
				var p page
				out, err := t.client.Scan(ctx, &in)
				if err == nil {
					out.Items, err = t.visibleAll(ctx, out.Items, c.filterCheck, c.keyCheck)
				}
				if err != nil {
					p.err = fmt.Errorf("mapper: Scan on %s, segment %d of %d: %w", describe(t.name, c.index), seg, c.segments, err)
				} else {
					c.capacity.add(out.ConsumedCapacity, false)
					p.items = make([]*T, 0, len(out.Items))
					for _, it := range out.Items {
						v, err := decodeItem[T](t.c, it)
						if err != nil {
							p.err = err
							break
						}
						p.items = append(p.items, v)
					}
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
		}()
	}
	go func() {
		wg.Wait()
		close(pages)
	}()
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

// fetchFunc reads the next page: its items, and whether there are more.
type fetchFunc func(limit *int32) (items []map[string]types.AttributeValue, more bool, err error)

// iterate yields the items of fetch's pages, one page at a time, until the
// last page, c.limit items, an error (yielded, then the end) or yield
// returning false (no call is made after that).
func (t *Table[T]) iterate(c *readConfig, fetch fetchFunc, yield func(*T, error) bool) {
	n := 0
	for {
		items, more, err := fetch(pageLimit(c, n))
		if err != nil {
			yield(nil, err)
			return
		}
		for _, it := range items {
			v, err := decodeItem[T](t.c, it)
			if err != nil {
				yield(nil, err)
				return
			}
			if !yield(v, nil) {
				return
			}
			if n++; c.limit > 0 && n >= c.limit {
				return
			}
		}
		if !more {
			return
		}
	}
}

// pageLimit returns DynamoDB's Limit for the next page, when n items have
// been returned: PageSize, capped without a filter at the items still
// wanted.
func pageLimit(c *readConfig, n int) *int32 {
	l := c.pageSize
	if c.limit > 0 && len(c.filters) == 0 {
		if rest := c.limit - n; l == 0 || rest < l {
			l = rest
		}
	}
	if l <= 0 {
		return nil
	}
	return aws.Int32(int32(min(l, math.MaxInt32)))
}

func describe(name, index string) string {
	if index == "" {
		return name
	}
	return name + " index " + index
}

// A Cursor marks a place in the results of a [Table.Query] or [Table.Scan]:
// resuming with [StartAfter](c) returns the items after the one it was
// taken at, so an API can serve page N+1 in a later request, from another
// process. Take one with [Table.CursorAfter].
//
// A cursor is an opaque, URL-safe string: base64url (unpadded) of a small
// JSON document holding the table name, the index name and the item's key
// attributes with their types (S, N or B), the ExclusiveStartKey that
// DynamoDB needs to resume. It holds no state of the process that made it
// and stays valid as long as the table and index do; if the item it was
// taken at is deleted meanwhile, the read still resumes after its key. It is neither
// encrypted nor signed: it shows the key values to whoever holds it, and a
// client can forge one, which can at most make the read resume elsewhere in
// the same table or index (the names are checked).
type Cursor string

type cursorDoc struct {
	Table string                 `json:"t"`
	Index string                 `json:"i,omitempty"`
	Key   map[string]cursorValue `json:"k"`
}

// cursorValue is a key attribute, in DynamoDB's JSON style.
type cursorValue struct {
	S string `json:"S,omitempty"`
	N string `json:"N,omitempty"`
	B []byte `json:"B,omitempty"`
}

// CursorAfter returns the cursor for resuming a Query or Scan after item,
// an item it returned: its key attributes are taken from the struct. It
// makes no call.
//
// For a read of an index, give the same [Index] option, with the index's key
// attributes (Index(name, hash, range)): DynamoDB resumes an index read from
// the index key and the table key together. Without them the error matches
// [ErrInvalidOption]. CursorAfter reads only the Index option, so the
// options of the Query can be passed as they are. Keys (the table's and the
// index's) that are empty are an error matching [ErrInvalidItem].
func (t *Table[T]) CursorAfter(item *T, opts ...ReadOption) (Cursor, error) {
	if err := t.usable(); err != nil {
		return "", err
	}
	if item == nil {
		return "", fmt.Errorf("%w: CursorAfter of a nil item", ErrInvalidOption)
	}
	c, err := newReadConfig(callCursor, opts)
	if err != nil {
		return "", err
	}
	t.s.ent.indexKeys(&c)
	if c.index != "" && len(c.indexKeys) == 0 {
		return "", fmt.Errorf("%w: CursorAfter on index %q needs the index's key attributes: Index(%q, hashKey, rangeKey)", ErrInvalidOption, c.index, c.index)
	}
	v := reflect.ValueOf(item).Elem()
	key, err := t.c.keyOf(v)
	if err == nil {
		err = t.s.ent.cursorKeys(t.s, v, c.indexKeys, key)
	}
	if err != nil {
		return "", err
	}
	for _, name := range c.indexKeys {
		if key[name] != nil {
			continue
		}
		f := t.s.byName[name]
		if f == nil {
			return "", fmt.Errorf("%w: the key attribute %q of index %q is not a field of %v", ErrInvalidOption, name, c.index, t.s.typ)
		}
		fv, ok := fieldByIndex(v, f.index)
		if !ok {
			return "", fmt.Errorf("%w: index key attribute %q (%s) is not set", ErrInvalidItem, name, f.goPath)
		}
		if key[name], err = t.c.keyAttr(f, fv); err != nil {
			return "", err
		}
	}
	doc := cursorDoc{Table: t.name, Index: c.index, Key: make(map[string]cursorValue, len(key))}
	for name, av := range key {
		var cv cursorValue
		switch av := av.(type) {
		case *types.AttributeValueMemberS:
			cv.S = av.Value
		case *types.AttributeValueMemberN:
			cv.N = av.Value
		case *types.AttributeValueMemberB:
			cv.B = av.Value
		}
		doc.Key[name] = cv
	}
	b, err := json.Marshal(doc)
	if err != nil {
		return "", fmt.Errorf("mapper: CursorAfter: %w", err)
	}
	return Cursor(base64.RawURLEncoding.EncodeToString(b)), nil
}

// startKey decodes the StartAfter cursor, checked against the table and
// index of the call; nil when there is none.
func (t *Table[T]) startKey(c *readConfig) (map[string]types.AttributeValue, error) {
	if c.start == "" {
		return nil, nil
	}
	cd, err := c.start.decode()
	if err != nil {
		return nil, err
	}
	switch {
	case cd.Table != t.name:
		return nil, fmt.Errorf("%w: StartAfter: the cursor was taken on table %q, not %q", ErrInvalidOption, cd.Table, t.name)
	case cd.Index != c.index && cd.Index == "":
		return nil, fmt.Errorf("%w: StartAfter: the cursor was taken on table %q itself, not on its index %q", ErrInvalidOption, t.name, c.index)
	case cd.Index != c.index && c.index == "":
		return nil, fmt.Errorf("%w: StartAfter: the cursor was taken on index %q; give Index(%q)", ErrInvalidOption, cd.Index, cd.Index)
	case cd.Index != c.index:
		return nil, fmt.Errorf("%w: StartAfter: the cursor was taken on index %q, not %q", ErrInvalidOption, cd.Index, c.index)
	}
	key, err := cd.key()
	if err != nil {
		return nil, err
	}
	need := make([]string, 0, 4)
	for _, f := range t.s.keys {
		need = append(need, f.name)
	}
	for _, k := range append(need, c.indexKeys...) {
		if key[k] == nil {
			return nil, fmt.Errorf("%w: StartAfter: the cursor lacks key attribute %q", ErrInvalidOption, k)
		}
	}
	return key, nil
}

func (c Cursor) decode() (*cursorDoc, error) {
	b, err := base64.RawURLEncoding.DecodeString(string(c))
	if err != nil {
		return nil, fmt.Errorf("%w: StartAfter: malformed cursor (%v)", ErrInvalidOption, err)
	}
	var d cursorDoc
	if err := json.Unmarshal(b, &d); err != nil {
		return nil, fmt.Errorf("%w: StartAfter: malformed cursor (%v)", ErrInvalidOption, err)
	}
	if d.Table == "" || len(d.Key) == 0 {
		return nil, fmt.Errorf("%w: StartAfter: malformed cursor (no table or key)", ErrInvalidOption)
	}
	return &d, nil
}

// key returns the cursor's key as attribute values.
func (d *cursorDoc) key() (map[string]types.AttributeValue, error) {
	key := make(map[string]types.AttributeValue, len(d.Key))
	for name, v := range d.Key {
		var av types.AttributeValue
		n := 0
		if v.S != "" {
			av, n = &types.AttributeValueMemberS{Value: v.S}, n+1
		}
		if v.N != "" {
			av, n = &types.AttributeValueMemberN{Value: v.N}, n+1
		}
		if len(v.B) > 0 {
			av, n = &types.AttributeValueMemberB{Value: v.B}, n+1
		}
		if n != 1 {
			return nil, fmt.Errorf("%w: StartAfter: malformed cursor (attribute %q needs one of S, N, B)", ErrInvalidOption, name)
		}
		key[name] = av
	}
	return key, nil
}
