package mapper

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/optimist-dynamo/optimist/internal/attrs"
	"github.com/optimist-dynamo/optimist/internal/obs"
	"github.com/optimist-dynamo/optimist/observe"
)

// DynamoDB's limits on one batch call.
const (
	maxBatchGet   = 100 // keys per BatchGetItem
	maxBatchWrite = 25  // requests per BatchWriteItem
)

// MissingError is returned by [Table.GetAll], together with the items it
// found, when some keys have no item. It matches [ErrNotFound].
type MissingError struct {
	Table string
	// Keys are the indexes, in the keys given to GetAll, of the keys with no
	// item, in ascending order.
	Keys []int
}

func (e *MissingError) Error() string {
	if e == nil {
		return "<nil MissingError>"
	}
	const show = 10
	var b strings.Builder
	fmt.Fprintf(&b, "mapper: no item in %s for %d of the keys (", e.Table, len(e.Keys))
	for i, k := range e.Keys[:min(show, len(e.Keys))] {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "keys[%d]", k)
	}
	if len(e.Keys) > show {
		b.WriteString(", ...")
	}
	b.WriteByte(')')
	return b.String()
}

// Is reports whether target is [ErrNotFound].
func (e *MissingError) Is(target error) bool { return target == ErrNotFound }

// BatchError reports a [Table.GetAll], [Table.PutAll] or [Table.DeleteAll]
// that stopped before every item was processed: a call failed, ctx ended,
// or DynamoDB kept leaving items unprocessed ([ErrUnprocessed]). The items
// not in Pending were read or written. Items of a call that failed may or
// may not have been written; batch writes carry no conditions, so writing
// them again is safe.
type BatchError struct {
	Op    string // "BatchGetItem" or "BatchWriteItem"
	Table string
	// Pending are the indexes, in the slice given to the method, of the
	// items not read or not written, in ascending order.
	Pending []int
	Err     error // why it stopped
}

func (e *BatchError) Error() string {
	if e == nil {
		return "<nil BatchError>"
	}
	return fmt.Sprintf("mapper: %s on %s stopped with %d items pending: %v", e.Op, e.Table, len(e.Pending), e.Err)
}

// Unwrap returns why the batch stopped.
func (e *BatchError) Unwrap() error {
	if e == nil {
		return nil
	}
	return e.Err
}

// GetAll reads the items with the keys of keys (only their key fields are
// used) with BatchGetItem, 100 distinct keys per call, and returns them in
// the order of keys: result[i] is the item for keys[i], nil if there is
// none. When some are missing, the error is a [*MissingError] listing them
// (it matches [ErrNotFound]), returned together with the items found. A key
// given more than once is read once (DynamoDB refuses duplicates in a
// batch) and decoded into a separate struct for each of its positions.
//
// Reads are strongly consistent unless [ConsistentRead](false) is given, as
// with [Table.Get], and cost what as many GetItem calls would. DynamoDB
// returns at most 16 MB per call and leaves the other keys unprocessed
// (UnprocessedKeys; also under throttling): those are sent again with the
// next call, after a short jittered backoff that grows, within the table's
// BackoffBase and BackoffMax ([TableOptions]), while calls make no progress.
// After the table's MaxAttempts calls in a row that processed none of their
// keys ([ErrUnprocessed]), when ctx ends, or when a call fails, GetAll stops
// with a [*BatchError] listing the keys not read, returned with the items
// read so far. Options: [ConsistentRead], [Project]. Invalid keys and
// options are refused before any call.
func (t *Table[T]) GetAll(ctx context.Context, keys []T, opts ...ReadOption) ([]*T, error) {
	if err := t.usable(); err != nil {
		return nil, err
	}
	c, err := newReadConfig(callGetAll, opts)
	if err != nil {
		return nil, err
	}
	e, projected, err := t.readExpression(&c, nil)
	if err != nil {
		return nil, err
	}
	g := &getAll[T]{t: t, out: make([]*T, len(keys)), byKey: make(map[string]int, len(keys))}
	if err := g.want(keys); err != nil {
		return nil, err
	}
	g.ka = types.KeysAndAttributes{ConsistentRead: aws.Bool(c.consistent)}
	if projected {
		g.ka.ProjectionExpression, g.ka.ExpressionAttributeNames = e.Projection(), e.Names()
	}
	pending, err := t.batch(ctx, "BatchGetItem", len(g.wants), maxBatchGet, func(batch []int) ([]int, error) {
		return g.call(ctx, batch)
	})
	if err != nil {
		return g.out, g.stopped(pending, err)
	}
	return g.out, g.missing()
}

// getAll is the state of one GetAll: the distinct keys wanted, and the
// items found so far.
type getAll[T any] struct {
	t     *Table[T]
	ka    types.KeysAndAttributes // what every call asks for, but the keys
	wants []wanted
	byKey map[string]int // keyString -> index in wants
	out   []*T
}

// wanted is a distinct key of GetAll, with the positions in keys that want
// it.
type wanted struct {
	key   map[string]types.AttributeValue
	at    []int
	found bool
}

// want encodes keys, one entry per distinct key.
func (g *getAll[T]) want(keys []T) error {
	for i := range keys {
		k, err := g.t.c.keyOf(reflect.ValueOf(&keys[i]).Elem())
		if err != nil {
			return fmt.Errorf("%w (GetAll keys[%d])", err, i)
		}
		ks := g.t.s.keyString(k)
		if u, dup := g.byKey[ks]; dup {
			g.wants[u].at = append(g.wants[u].at, i)
			continue
		}
		g.byKey[ks] = len(g.wants)
		g.wants = append(g.wants, wanted{key: k, at: []int{i}})
	}
	return nil
}

// call sends one BatchGetItem for the wanted keys at the indexes batch,
// decodes what it returns, and returns the indexes left unprocessed.
func (g *getAll[T]) call(ctx context.Context, batch []int) ([]int, error) {
	t := g.t
	req := g.ka
	req.Keys = make([]map[string]types.AttributeValue, len(batch))
	for j, u := range batch {
		req.Keys[j] = g.wants[u].key
	}
	res, err := t.client.BatchGetItem(ctx, &dynamodb.BatchGetItemInput{
		RequestItems: map[string]types.KeysAndAttributes{t.name: req},
	})
	if err != nil {
		return nil, err
	}
	var unprocessed []int
	for _, k := range res.UnprocessedKeys[t.name].Keys {
		if u, ok := g.byKey[t.s.keyString(k)]; ok {
			unprocessed = append(unprocessed, u)
		}
	}
	// The batch's items are resolved together, so that no unit is shown
	// half applied among them (see unitproto.Resolve), and with them the
	// keys read and not found (nil, by key: a unit may be creating them).
	read := res.Responses[t.name]
	shown := append([]map[string]types.AttributeValue(nil), read...)
	at := make([]int, len(read), len(batch))
	for j, item := range read {
		at[j] = -1
		if u, ok := g.byKey[t.s.keyString(item)]; ok {
			at[j] = u
		}
	}
	for _, u := range batch {
		if !slices.Contains(at, u) && !slices.Contains(unprocessed, u) {
			shown, at = append(shown, nil), append(at, u)
		}
	}
	if _, err := t.resolve(ctx, shown, func(j int) map[string]types.AttributeValue { return g.wants[at[j]].key }); err != nil {
		return nil, err
	}
	for j, item := range shown {
		u := at[j]
		if u < 0 || g.wants[u].found || item == nil { // nil: none, or held by a unit while it does not exist
			continue
		}
		for _, i := range g.wants[u].at {
			if g.out[i], err = decodeItem[T](t.c, item); err != nil {
				return nil, err
			}
		}
		g.wants[u].found = true
	}
	return unprocessed, nil
}

// stopped is the error of a GetAll that stopped with the wanted keys at
// pending not processed.
func (g *getAll[T]) stopped(pending []int, err error) error {
	be := &BatchError{Op: "BatchGetItem", Table: g.t.name, Err: err}
	for _, u := range pending {
		if !g.wants[u].found {
			be.Pending = append(be.Pending, g.wants[u].at...)
		}
	}
	slices.Sort(be.Pending)
	return be
}

// missing is the error of a GetAll that read every key: a *MissingError
// if some have no item, else nil.
func (g *getAll[T]) missing() error {
	var missing []int
	for _, w := range g.wants {
		if !w.found {
			missing = append(missing, w.at...)
		}
	}
	if len(missing) == 0 {
		return nil
	}
	slices.Sort(missing)
	return &MissingError{Table: g.t.name, Keys: missing}
}

// PutAll writes items with BatchWriteItem, 25 per call, each replacing the
// whole stored item with no condition. Batch writes cannot carry
// conditions, so for a type with a version field PutAll refuses with
// [ErrInvalidOption] unless [Unversioned] is given; it then writes each
// item as Put(ctx, item, Unversioned()) would (version field + 1, whatever
// is stored) and sets the item's version field once its write is
// confirmed. For checked writes of many items use a transaction (package
// txn, with [Table.PutOp]). Its only option is [Unversioned] ([If] and
// [Fence] do not compile); two items with the same key ([ErrInvalidItem])
// and nil items are refused, and nothing is sent then.
//
// Calls: one per 25 items, sequentially, plus one per round of items
// DynamoDB leaves unprocessed (UnprocessedItems, under throttling), which
// are sent again after a jittered backoff as in [Table.GetAll]. When it
// stops early, the error is a [*BatchError] listing the items not written.
// Each item costs what a PutItem would; a batch saves round trips, not
// capacity.
//
// Batch writes (PutAll, DeleteAll) do not honour the locks of units of
// work (see [LockedError]), and are outside the rule on lost answers (see
// [ExactlyOnce]): use them for data no one else is writing.
func (t *Table[T]) PutAll(ctx context.Context, items []*T, opts ...BatchOption) error {
	if err := t.usable(); err != nil {
		return err
	}
	o, err := t.batchWriteOptions("PutAll", opts)
	if err != nil {
		return err
	}
	reqs := make([]types.WriteRequest, len(items))
	next := make([]int64, len(items))
	byKey := make(map[string]int, len(items))
	for i, item := range items {
		if item == nil {
			return fmt.Errorf("%w: PutAll of a nil item (items[%d])", ErrInvalidOption, i)
		}
		w, v, err := t.planPut(reflect.ValueOf(item).Elem(), o, toBatch)
		if err != nil {
			return fmt.Errorf("%w (PutAll items[%d])", err, i)
		}
		if err := t.addBatchKey("PutAll", byKey, w.Item, i); err != nil {
			return err
		}
		reqs[i] = types.WriteRequest{PutRequest: &types.PutRequest{Item: w.Item}}
		next[i] = v
	}
	var written func(int)
	if vf := t.s.version; vf != nil {
		written = func(i int) { setVersion(reflect.ValueOf(items[i]).Elem().FieldByIndex(vf.index), next[i]) }
	}
	return t.batchWrite(ctx, reqs, byKey, written)
}

// DeleteAll deletes the items with the keys of items with BatchWriteItem,
// 25 per call, with no condition; deleting a missing item is not an error.
// For a type with a version field it refuses with [ErrInvalidOption]
// unless [Unversioned] is given (the versions are then ignored); for
// checked deletes use a transaction (package txn, with [Table.DeleteOp]).
// Its only option is [Unversioned]; two items with the same key are
// refused ([ErrInvalidItem]), and nothing is sent then. Calls, retries of
// unprocessed items and errors are as for [Table.PutAll], as is what batch
// writes do not honour (units' locks, the rule on lost answers).
func (t *Table[T]) DeleteAll(ctx context.Context, items []T, opts ...BatchOption) error {
	if err := t.usable(); err != nil {
		return err
	}
	if _, err := t.batchWriteOptions("DeleteAll", opts); err != nil {
		return err
	}
	reqs := make([]types.WriteRequest, len(items))
	byKey := make(map[string]int, len(items))
	for i := range items {
		k, err := t.c.keyOf(reflect.ValueOf(&items[i]).Elem())
		if err != nil {
			return fmt.Errorf("%w (DeleteAll items[%d])", err, i)
		}
		if err := t.addBatchKey("DeleteAll", byKey, k, i); err != nil {
			return err
		}
		reqs[i] = types.WriteRequest{DeleteRequest: &types.DeleteRequest{Key: k}}
	}
	return t.batchWrite(ctx, reqs, byKey, nil)
}

// batchWriteOptions applies the options of PutAll or DeleteAll: only
// Unversioned applies, and a versioned type needs it.
func (t *Table[T]) batchWriteOptions(call string, opts []BatchOption) (*WriteOptions, error) {
	o, err := gather(call, opts, BatchOption.applyBatch)
	if err != nil {
		return nil, err
	}
	if t.s.version != nil && !o.Unversioned {
		return nil, fmt.Errorf("%w: %v has a version field; write the items in a transaction (package txn, with Table.PutOp and Table.DeleteOp), which checks every version, or pass mapper.Unversioned() to %s without the checks",
			ErrInvalidOption, t.s.typ, call)
	}
	return o, nil
}

// addBatchKey records that item i of a batch write has the key of av, and
// refuses a key seen before.
func (t *Table[T]) addBatchKey(op string, byKey map[string]int, av map[string]types.AttributeValue, i int) error {
	ks := t.s.keyString(av)
	if j, dup := byKey[ks]; dup {
		return fmt.Errorf("%w: %s items[%d] and items[%d] both have the key %s", ErrInvalidItem, op, j, i, attrs.FormatKey(t.s.keyFrom(av)))
	}
	byKey[ks] = i
	return nil
}

// batchWrite sends reqs with BatchWriteItem; written, if not nil, is called
// with the index of each request once DynamoDB has processed it.
func (t *Table[T]) batchWrite(ctx context.Context, reqs []types.WriteRequest, byKey map[string]int, written func(int)) error {
	pending, err := t.batch(ctx, "BatchWriteItem", len(reqs), maxBatchWrite, func(batch []int) ([]int, error) {
		wr := make([]types.WriteRequest, len(batch))
		for j, i := range batch {
			wr[j] = reqs[i]
		}
		res, err := t.client.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{
			RequestItems: map[string][]types.WriteRequest{t.name: wr},
		})
		if err != nil {
			return nil, err
		}
		var unprocessed []int
		for _, r := range res.UnprocessedItems[t.name] {
			var k map[string]types.AttributeValue
			switch {
			case r.PutRequest != nil:
				k = r.PutRequest.Item
			case r.DeleteRequest != nil:
				k = r.DeleteRequest.Key
			}
			if i, ok := byKey[t.s.keyString(k)]; ok {
				unprocessed = append(unprocessed, i)
			}
		}
		if written != nil {
			for _, i := range batch {
				if !slices.Contains(unprocessed, i) {
					written(i)
				}
			}
		}
		return unprocessed, nil
	})
	if err != nil {
		slices.Sort(pending)
		return &BatchError{Op: "BatchWriteItem", Table: t.name, Pending: pending, Err: err}
	}
	return nil
}

// batch processes the n items 0..n-1 in calls (op) of at most size items: call
// sends the items at the given indexes and returns those DynamoDB left
// unprocessed, which go back to the front of the queue. Before a call that
// resends unprocessed items it sleeps a jittered backoff within the table's
// bounds; the exponent counts the calls in a row that processed nothing, so
// calls cut short by the 16 MB response limit, which do progress, wait only
// a little. After MaxAttempts such calls in a row it gives up. When it
// stops early it returns the indexes not processed and the reason.
//
// AWS asks for backoff on unprocessed items since they usually mean
// throttling; the growth is kept for calls that made no progress, because
// only those say that the table is saturated.
func (t *Table[T]) batch(ctx context.Context, op string, n, size int, call func(batch []int) (unprocessed []int, err error)) ([]int, error) {
	queue := make([]int, n)
	for i := range queue {
		queue[i] = i
	}
	policy := t.opts.policy()
	stalled := 0
	for calls := 1; len(queue) > 0; calls++ {
		k := min(size, len(queue))
		unprocessed, err := call(queue[:k])
		if err != nil {
			return queue, err
		}
		queue = append(unprocessed, queue[k:]...)
		if len(unprocessed) == 0 {
			stalled = 0
			continue
		}
		if len(unprocessed) < k {
			stalled = 0
		} else {
			stalled++
		}
		if !policy.More(stalled) {
			return queue, fmt.Errorf("%w: %d calls in a row processed none of their %d items", ErrUnprocessed, stalled, len(unprocessed))
		}
		wait := policy.Backoff(stalled + 1)
		if ob := t.opts.Observer; ob != nil {
			obs.Point(ctx, ob, observe.Event{Kind: observe.Retry, Op: op, Table: t.name, Attempt: calls + 1, Wait: wait})
		}
		if err := t.sleep(ctx, wait); err != nil {
			return queue, err
		}
	}
	return nil, nil
}
