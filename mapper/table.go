package mapper

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"reflect"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/optimist-dynamo/optimist/internal/attrs"
	"github.com/optimist-dynamo/optimist/version"
)

// Table maps the struct type T to a DynamoDB table. It is safe for
// concurrent use; create one per table and type, and share it.
type Table[T any] struct {
	client Client
	name   string
	nameP  *string
	s      *schema
	c      *codec
	opts   TableOptions

	// Read-only names maps of the two version checks, shared by requests.
	namesCreate, namesVersion map[string]string
}

// NewTable returns a Table for items of type T stored in the table name.
// The struct tags of T are read once per type and cached; a type that cannot
// be mapped is an error matching [ErrInvalidSchema] (a [*SchemaError] names
// the field and the problem). NewTable makes no call to DynamoDB.
func NewTable[T any](c Client, name string, opts ...func(*TableOptions)) (*Table[T], error) {
	s, err := schemaOf(reflect.TypeOf((*T)(nil)).Elem())
	if err != nil {
		return nil, err
	}
	if c == nil {
		return nil, errors.New("mapper: NewTable needs a client")
	}
	if name == "" {
		return nil, errors.New("mapper: NewTable needs a table name")
	}
	o := TableOptions{
		TokenAttribute: defaultToken,
		MaxAttempts:    defaultMaxAttempts,
		BackoffBase:    defaultBackoffBase,
		BackoffMax:     defaultBackoffMax,
	}
	for _, fn := range opts {
		fn(&o)
	}
	if f, clash := s.byName[o.TokenAttribute]; clash && o.TokenAttribute != "" {
		return nil, &SchemaError{Type: s.typ, Field: f.goPath, Problem: fmt.Sprintf(
			"attribute %q is the table's write-token attribute; rename the field or set TableOptions.TokenAttribute", o.TokenAttribute)}
	}
	rc := retryConfig{maxAttempts: o.MaxAttempts, base: o.BackoffBase, max: o.BackoffMax}
	if err := rc.validate(); err != nil {
		return nil, err
	}
	t := &Table[T]{
		client:      c,
		name:        name,
		nameP:       aws.String(name),
		s:           s,
		c:           newCodec(s, len(o.EncoderOptions) > 0, o.EncoderOptions, o.DecoderOptions),
		opts:        o,
		namesCreate: map[string]string{"#k": s.hash.name},
	}
	if s.version != nil {
		t.namesVersion = map[string]string{"#v": s.version.name}
	}
	return t, nil
}

// Name returns the table's name.
func (t *Table[T]) Name() string { return t.name }

// Client returns the client the table calls.
func (t *Table[T]) Client() Client { return t.client }

// Get reads the item with the key of key (only its key fields are used) with
// one GetItem, strongly consistent unless [ConsistentRead](false) is given.
// A missing item is an error matching [ErrNotFound].
func (t *Table[T]) Get(ctx context.Context, key T, opts ...ReadOption) (*T, error) {
	cfg := readConfig{consistent: true}
	for _, o := range opts {
		o(&cfg)
	}
	k, err := t.c.keyOf(reflect.ValueOf(&key).Elem())
	if err != nil {
		return nil, err
	}
	return t.get(ctx, k, cfg.consistent)
}

func (t *Table[T]) get(ctx context.Context, key map[string]types.AttributeValue, consistent bool) (*T, error) {
	out, err := t.client.GetItem(ctx, &dynamodb.GetItemInput{
		TableName:      t.nameP,
		Key:            key,
		ConsistentRead: aws.Bool(consistent),
	})
	if err != nil {
		return nil, fmt.Errorf("mapper: GetItem on %s %s: %w", t.name, attrs.FormatKey(key), err)
	}
	if len(out.Item) == 0 {
		return nil, fmt.Errorf("%w: %s %s", ErrNotFound, t.name, attrs.FormatKey(key))
	}
	return decodeItem[T](t.c, out.Item)
}

// check is the version condition of a write.
type check uint8

const (
	noCheck      check = iota
	checkCreate        // attribute_not_exists(hash key)
	checkVersion       // version = expected
)

// Expression placeholders of our own. The expression builder names the
// caller's placeholders #0, :0, #1, ..., so these never collide with them.
// The strings are variables so that requests can point at them.
var (
	condCreate  = "attribute_not_exists(#k)"
	condVersion = "#v = :v"
	condFence   = "(attribute_not_exists(#f) OR #f <= :f)"
)

// writeReq is one conditional write being made.
type writeReq struct {
	op       string
	key      map[string]types.AttributeValue // nil until needed; see item
	item     map[string]types.AttributeValue // a Put's item, to find the key in
	check    check
	expected int64
	token    string // our write token, "" if none was stored
	deleting bool
	att      attempts
}

// condition assembles the condition expression of a write: the caller's
// conditions, the version check and the fence, ANDed. The names maps of the
// plain version checks are the table's own, shared by every request: they
// are never written to, here or by the SDK.
func (t *Table[T]) condition(w *writeConfig, r *writeReq, a *arena) (expr *string, names map[string]string, values map[string]types.AttributeValue, err error) {
	switch r.check {
	case checkCreate:
		expr, names = &condCreate, t.namesCreate
	case checkVersion:
		expr, names = &condVersion, t.namesVersion
		values = map[string]types.AttributeValue{":v": a.N(strconv.FormatInt(r.expected, 10))}
	}
	if w.fence == nil && len(w.conds) == 0 {
		return expr, names, values, nil
	}
	var cond string
	if expr != nil {
		cond = *expr
	}
	names = maps.Clone(names)
	if names == nil {
		names = map[string]string{}
	}
	if values == nil {
		values = map[string]types.AttributeValue{}
	}
	if w.fence != nil {
		cond = and(cond, condFence)
		names["#f"] = w.fence.attr
		values[":f"] = attrs.N(w.fence.token)
	}
	if len(w.conds) > 0 {
		cb := w.conds[0]
		if len(w.conds) > 1 {
			cb = expression.And(cb, w.conds[1], w.conds[2:]...)
		}
		e, err := expression.NewBuilder().WithCondition(cb).Build()
		if err != nil {
			return nil, nil, nil, fmt.Errorf("%w: condition given with If: %v", ErrInvalidOption, err)
		}
		cond = and("("+*e.Condition()+")", cond)
		maps.Copy(names, e.Names())
		maps.Copy(values, e.Values())
	}
	if len(values) == 0 {
		values = nil
	}
	return &cond, names, values, nil
}

func and(a, b string) string {
	switch {
	case a == "":
		return b
	case b == "":
		return a
	}
	return a + " AND " + b
}

// Put writes item with one PutItem, replacing the whole stored item.
//
// For a versioned type the write is conditional: version 0 in the struct
// means "create" (refused if an item with the key exists), version n means
// "replace version n". The item is written with the next version, and item's
// version field is set to it only when the write succeeds; on any error the
// struct is unchanged. A refused write is a [*version.ConflictError] carrying
// the stored item (ALL_OLD, no extra read). Options: [If], [Unversioned],
// [Fence].
func (t *Table[T]) Put(ctx context.Context, item *T, opts ...WriteOption) error {
	if item == nil {
		return errors.New("mapper: Put of a nil item")
	}
	var w writeConfig
	for _, o := range opts {
		o.applyWrite(&w)
	}
	if w.err != nil {
		return w.err
	}
	return t.put(ctx, item, &w)
}

func (t *Table[T]) put(ctx context.Context, item *T, w *writeConfig) error {
	in, r, next, err := t.buildPut(item, w)
	if err != nil {
		return err
	}
	_, err = t.client.PutItem(ctx, in, r.att.option)
	if err != nil {
		if err = t.failure(err, r); err != nil {
			return err
		}
	}
	if t.s.version != nil {
		setVersion(reflect.ValueOf(item).Elem().FieldByIndex(t.s.version.index), next)
	}
	return nil
}

// buildPut makes the PutItem request for item, and returns the version it
// writes. It sends nothing.
func (t *Table[T]) buildPut(item *T, w *writeConfig) (*dynamodb.PutItemInput, *writeReq, int64, error) {
	v := reflect.ValueOf(item).Elem()
	a := t.c.newArena(1, 3) // token; version, expected version, fence
	av, err := t.c.encodeItem(v, &a, 2, t.s.version)
	if err != nil {
		return nil, nil, 0, err
	}
	if err := t.checkKey(av); err != nil {
		return nil, nil, 0, err
	}
	call := &struct {
		in dynamodb.PutItemInput
		r  writeReq
	}{r: writeReq{op: "PutItem", item: av}} // one allocation for both
	r, in := &call.r, &call.in
	var next int64
	if vf := t.s.version; vf != nil {
		fv := v.FieldByIndex(vf.index)
		if r.expected, err = versionOf(fv); err != nil {
			return nil, nil, 0, err
		}
		next = r.expected + 1
		if overflows(fv, next) {
			return nil, nil, 0, fmt.Errorf("mapper: version %d of %s %s cannot be incremented in a %v", r.expected, t.name, attrs.FormatKey(r.keyOf(t)), vf.typ)
		}
		av[vf.name] = a.N(strconv.FormatInt(next, 10))
		if !w.unversioned {
			r.check = checkVersion
			if r.expected == 0 {
				r.check = checkCreate
			}
		}
	}
	if w.fence != nil {
		av[w.fence.attr] = attrs.N(w.fence.token)
	}
	cond, names, values, err := t.condition(w, r, &a)
	if err != nil {
		return nil, nil, 0, err
	}
	*in = dynamodb.PutItemInput{
		TableName:                 t.nameP,
		Item:                      av,
		ConditionExpression:       cond,
		ExpressionAttributeNames:  names,
		ExpressionAttributeValues: values,
	}
	if cond != nil {
		in.ReturnValuesOnConditionCheckFailure = types.ReturnValuesOnConditionCheckFailureAllOld
		if t.opts.TokenAttribute != "" {
			r.token = newToken()
			av[t.opts.TokenAttribute] = a.S(r.token)
		}
	}
	return in, r, next, nil
}

// keyOf returns the key of the item written, for errors.
func (r *writeReq) keyOf(t interface{ keyAttrs() [2]*field }) map[string]types.AttributeValue {
	if r.key == nil {
		r.key = map[string]types.AttributeValue{}
		for _, f := range t.keyAttrs() {
			if f != nil {
				r.key[f.name] = r.item[f.name]
			}
		}
	}
	return r.key
}

func (t *Table[T]) keyAttrs() [2]*field { return [2]*field{t.s.hash, t.s.rng} }

// checkKey checks the key attributes of an encoded item.
func (t *Table[T]) checkKey(av map[string]types.AttributeValue) error {
	for _, f := range t.keyAttrs() {
		if f != nil {
			if err := checkKeyAttr(f, av[f.name]); err != nil {
				return err
			}
		}
	}
	return nil
}

// Delete deletes the item with the key of item with one DeleteItem. For a
// versioned type whose version field is not 0, only that version is deleted:
// if the stored version differs, or the item is gone, the error is a
// [*version.ConflictError]. With version 0 (or [Unversioned]) the delete is
// unconditional, and deleting a missing item is not an error (DynamoDB's
// rule). Options: [If], [Unversioned], [Fence] (the fence condition only; a
// deleted item keeps no token).
//
// When an attempt's response was lost and the SDK's retry then finds the
// item already gone, Delete reports success: the item it was asked to delete
// no longer exists.
func (t *Table[T]) Delete(ctx context.Context, item T, opts ...WriteOption) error {
	var w writeConfig
	for _, o := range opts {
		o.applyWrite(&w)
	}
	if w.err != nil {
		return w.err
	}
	v := reflect.ValueOf(&item).Elem()
	key, err := t.c.keyOf(v)
	if err != nil {
		return err
	}
	r := &writeReq{op: "DeleteItem", key: key, deleting: true}
	a := &arena{}
	if vf := t.s.version; vf != nil && !w.unversioned {
		if r.expected, err = versionOf(v.FieldByIndex(vf.index)); err != nil {
			return err
		}
		if r.expected != 0 {
			r.check = checkVersion
		}
	}
	cond, names, values, err := t.condition(&w, r, a)
	if err != nil {
		return err
	}
	in := &dynamodb.DeleteItemInput{
		TableName:                 t.nameP,
		Key:                       key,
		ConditionExpression:       cond,
		ExpressionAttributeNames:  names,
		ExpressionAttributeValues: values,
	}
	if cond != nil {
		in.ReturnValuesOnConditionCheckFailure = types.ReturnValuesOnConditionCheckFailureAllOld
	}
	if _, err := t.client.DeleteItem(ctx, in, r.att.option); err != nil {
		return t.failure(err, r)
	}
	return nil
}

// failure turns the error of a write into what the caller gets: nil when a
// lost attempt turns out to have been ours, a conflict, a condition error,
// or an unknown outcome.
func (t *Table[T]) failure(err error, r *writeReq) error {
	att := &r.att
	key := r.keyOf(t)
	var ccf *types.ConditionalCheckFailedException
	if !errors.As(err, &ccf) {
		if att.ambiguous {
			return &UnknownOutcomeError{Op: r.op, Table: t.name, Key: key, Err: err}
		}
		return fmt.Errorf("mapper: %s on %s %s: %w", r.op, t.name, attrs.FormatKey(key), err)
	}
	item := ccf.Item
	if len(item) == 0 {
		item = nil
	}
	if att.ambiguous {
		if r.token != "" && t.opts.TokenAttribute != "" {
			if tok, ok := item[t.opts.TokenAttribute].(*types.AttributeValueMemberS); ok && tok.Value == r.token {
				return nil // our earlier attempt landed; the retry saw our own write
			}
		}
		if r.deleting && item == nil {
			return nil
		}
	}
	var actual int64
	if t.s.version != nil {
		actual, _ = attrs.Int64(item[t.s.version.name])
	}
	var out error
	switch {
	case r.check == checkCreate && item != nil,
		r.check == checkVersion && (item == nil || actual != r.expected):
		out = &version.ConflictError{Table: t.name, Key: key, Expected: r.expected, Actual: actual, Item: item, Err: err}
	default:
		out = &ConditionError{Table: t.name, Key: key, Item: item, Err: err}
	}
	if att.ambiguous {
		return &UnknownOutcomeError{Op: r.op, Table: t.name, Key: key, Err: out}
	}
	return out
}

// Modify applies fn to the item with the key of key and writes the result,
// retrying on version conflicts: the optimistic read-modify-write loop, done
// right. T must have a version field.
//
// It reads the item (one consistent GetItem), calls fn on it and writes it
// with a version-checked [Table.Put]. When the write conflicts, the conflict
// already carries the stored item (ALL_OLD), so fn is called again on that
// item with no second read, after a jittered exponential backoff. A missing
// item reaches fn as a zero value with the key fields set, so Modify can
// create. It returns the item as written.
//
// fn may run several times and must not have other side effects; it must not
// change the key or the version. An error from fn ends Modify and is
// returned as is. Modify gives up after [MaxAttempts] writes, returning the
// last conflict, and stops when ctx ends. It does not retry an
// [ErrUnknownOutcome] (fn's change may already be stored) nor a
// [*ConditionError]. WriteOptions ([If], [Fence]) apply to every write.
func (t *Table[T]) Modify(ctx context.Context, key T, fn func(*T) error, opts ...RetryOption) (*T, error) {
	cfg := retryConfig{maxAttempts: t.opts.MaxAttempts, base: t.opts.BackoffBase, max: t.opts.BackoffMax}
	for _, o := range opts {
		o.applyRetry(&cfg)
	}
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	if t.s.version == nil {
		return nil, fmt.Errorf("%w: Modify needs a versioned type, and %v has no `dynamo:\",version\"` field", ErrInvalidOption, t.s.typ)
	}
	if cfg.write.unversioned {
		return nil, fmt.Errorf("%w: Modify with Unversioned would lose concurrent updates", ErrInvalidOption)
	}
	kv := reflect.ValueOf(&key).Elem()
	k, err := t.c.keyOf(kv)
	if err != nil {
		return nil, err
	}
	cur, err := t.get(ctx, k, true)
	if errors.Is(err, ErrNotFound) {
		cur, err = t.withKey(kv), nil
	}
	if err != nil {
		return nil, err
	}
	for attempt := 1; ; attempt++ {
		cv := reflect.ValueOf(cur).Elem()
		read, err := versionOf(cv.FieldByIndex(t.s.version.index))
		if err != nil {
			return nil, err
		}
		if err := fn(cur); err != nil {
			return nil, err
		}
		if err := t.unchanged(cv, k, read); err != nil {
			return nil, err
		}
		err = t.put(ctx, cur, &cfg.write)
		if err == nil {
			return cur, nil
		}
		var ce *version.ConflictError
		if errors.Is(err, ErrUnknownOutcome) || !errors.As(err, &ce) {
			return nil, err
		}
		if attempt >= cfg.maxAttempts {
			return nil, fmt.Errorf("mapper: Modify gave up after %d attempts: %w", attempt, err)
		}
		if err := sleep(ctx, backoff(attempt, cfg.base, cfg.max)); err != nil {
			return nil, fmt.Errorf("mapper: Modify stopped after %d attempts: %w (last: %v)", attempt, err, ce)
		}
		if ce.Item == nil {
			cur = t.withKey(kv)
		} else if cur, err = decodeItem[T](t.c, ce.Item); err != nil {
			return nil, err
		}
	}
}

// unchanged checks that fn kept the key and the version.
func (t *Table[T]) unchanged(v reflect.Value, key map[string]types.AttributeValue, ver int64) error {
	k, err := t.c.keyOf(v)
	if err != nil {
		return err
	}
	for name, want := range key {
		if !sameKeyAttr(k[name], want) {
			return fmt.Errorf("%w: Modify's fn changed the key attribute %q", ErrInvalidOption, name)
		}
	}
	if got, _ := versionOf(v.FieldByIndex(t.s.version.index)); got != ver {
		return fmt.Errorf("%w: Modify's fn changed the version (from %d to %d); the mapper sets it", ErrInvalidOption, ver, got)
	}
	return nil
}

// sameKeyAttr compares two key attributes (S, N or B).
func sameKeyAttr(a, b types.AttributeValue) bool {
	switch a := a.(type) {
	case *types.AttributeValueMemberS:
		b, ok := b.(*types.AttributeValueMemberS)
		return ok && a.Value == b.Value
	case *types.AttributeValueMemberN:
		b, ok := b.(*types.AttributeValueMemberN)
		return ok && a.Value == b.Value
	case *types.AttributeValueMemberB:
		b, ok := b.(*types.AttributeValueMemberB)
		return ok && string(a.Value) == string(b.Value)
	}
	return false
}

// withKey returns a zero T with the key fields of kv.
func (t *Table[T]) withKey(kv reflect.Value) *T {
	out := new(T)
	ov := reflect.ValueOf(out).Elem()
	for _, f := range [2]*field{t.s.hash, t.s.rng} {
		if f != nil {
			ov.FieldByIndex(f.index).Set(kv.FieldByIndex(f.index))
		}
	}
	return out
}

func backoff(attempt int, base, max time.Duration) time.Duration {
	d := max
	if attempt-1 < 32 && base<<(attempt-1) < max && base<<(attempt-1) > 0 {
		d = base << (attempt - 1)
	}
	if d <= 0 {
		return 0
	}
	return rand.N(d)
}

func sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	tm := time.NewTimer(d)
	defer tm.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-tm.C:
		return nil
	}
}

func isUnsigned(k reflect.Kind) bool {
	switch k {
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return true
	}
	return false
}

func versionOf(v reflect.Value) (int64, error) {
	if isUnsigned(v.Kind()) {
		u := v.Uint()
		if u > math.MaxInt64 {
			return 0, fmt.Errorf("mapper: version %d is out of range", u)
		}
		return int64(u), nil
	}
	n := v.Int()
	if n < 0 {
		return 0, fmt.Errorf("mapper: negative version %d", n)
	}
	return n, nil
}

func overflows(v reflect.Value, n int64) bool {
	if isUnsigned(v.Kind()) {
		return v.OverflowUint(uint64(n))
	}
	return v.OverflowInt(n)
}

func setVersion(v reflect.Value, n int64) {
	if isUnsigned(v.Kind()) {
		v.SetUint(uint64(n))
		return
	}
	v.SetInt(n)
}

// Write tokens: a random prefix per process and a counter, so they are
// unique across processes without a random draw per write.
var (
	tokenPrefix  = strconv.FormatUint(rand.Uint64(), 36) + "."
	tokenCounter atomic.Uint64
)

func newToken() string {
	var buf [32]byte
	b := append(buf[:0], tokenPrefix...)
	return string(strconv.AppendUint(b, tokenCounter.Add(1), 36))
}
