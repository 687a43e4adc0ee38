package mapper

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strconv"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/optimist-dynamo/optimist/internal/attempt"
	"github.com/optimist-dynamo/optimist/internal/attrs"
	"github.com/optimist-dynamo/optimist/internal/unitlock"
	"github.com/optimist-dynamo/optimist/version"
)

// check is the version condition of a write.
type check uint8

const (
	noCheck      check = iota
	checkCreate        // attribute_not_exists(hash key)
	checkVersion       // version = expected
)

var errAlso = fmt.Errorf("%w: Also is for Save", ErrInvalidOption)

// The two plain version checks, as fixed expressions. They are variables
// so that requests can point at them.
var (
	condCreate  = "attribute_not_exists(#k)"
	condVersion = "#v = :v AND attribute_not_exists(#lk)"
	// condUnlocked is the condition of a write that has no other: no unit
	// of work holds the item (see unitlock.go).
	condUnlocked  = "attribute_not_exists(#lk)"
	namesUnlocked = map[string]string{"#lk": unitlock.Attr}
)

// writeReq is one conditional write being made.
type writeReq struct {
	op       string
	key      map[string]types.AttributeValue // nil until needed; see item
	item     map[string]types.AttributeValue // a Put's item, to find the key in
	check    check
	expected int64
	token    string // our write token, "" if none was stored
	att      attempt.Tracker
}

// conditionBuilder returns the condition of a write as an expression
// builder: the version check, the fence, the token guard and the caller's
// own conditions, ANDed. ok is false when the write is unconditional.
func (t *Table[T]) conditionBuilder(w *writeConfig, r *writeReq, tokenGuard bool) (cb expression.ConditionBuilder, ok bool) {
	var parts []expression.ConditionBuilder
	switch r.check {
	case checkCreate:
		parts = append(parts, expression.AttributeNotExists(expression.NameNoDotSplit(t.s.hash.name)))
	case checkVersion:
		parts = append(parts, expression.NameNoDotSplit(t.s.version.name).Equal(expression.Value(r.expected)))
	}
	if r.check != checkCreate { // a locked item exists, so a create is refused anyway
		parts = append(parts, expression.AttributeNotExists(expression.NameNoDotSplit(unitlock.Attr)))
	}
	if w.fence != nil {
		f := expression.NameNoDotSplit(w.fence.attr)
		parts = append(parts, expression.Or(expression.AttributeNotExists(f), f.LessThanEqual(expression.Value(w.fence.token))))
	}
	if tokenGuard {
		tok := expression.NameNoDotSplit(t.opts.TokenAttribute)
		parts = append(parts, expression.Or(expression.AttributeNotExists(tok), tok.NotEqual(expression.Value(r.token))))
	}
	parts = append(parts, w.conds...)
	switch len(parts) {
	case 0:
		return cb, false
	case 1:
		return parts[0], true
	}
	return expression.And(parts[0], parts[1], parts[2:]...), true
}

// condition returns the condition expression of a Put or Delete. The plain
// version checks, by far the most common conditions, use fixed strings and
// the table's own names maps, shared by every request (they are never
// written to, here or by the SDK); anything else goes through the
// expression builder.
func (t *Table[T]) condition(w *writeConfig, r *writeReq, a *arena) (expr *string, names map[string]string, values map[string]types.AttributeValue, err error) {
	if w.fence == nil && len(w.conds) == 0 {
		switch r.check {
		case checkCreate:
			return &condCreate, t.namesCreate, nil, nil
		case checkVersion:
			return &condVersion, t.namesVersion, map[string]types.AttributeValue{":v": a.N(strconv.FormatInt(r.expected, 10))}, nil
		}
		return &condUnlocked, namesUnlocked, nil, nil
	}
	cb, _ := t.conditionBuilder(w, r, false)
	e, err := expression.NewBuilder().WithCondition(cb).Build()
	if err != nil {
		return nil, nil, nil, fmt.Errorf("%w: condition given with If: %v", ErrInvalidOption, err)
	}
	return e.Condition(), e.Names(), e.Values(), nil
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
	w, err := writeOptions(opts, false)
	if err != nil {
		return err
	}
	return t.put(ctx, item, &w)
}

func (t *Table[T]) put(ctx context.Context, item *T, w *writeConfig) error {
	in, r, next, err := t.buildPut(item, w)
	if err != nil {
		return err
	}
	if _, err = t.client.PutItem(ctx, in, r.att.Option); err != nil {
		if _, err = t.failure(err, r); err != nil {
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
	next, err := t.nextVersion(v, r, w)
	if err != nil {
		return nil, nil, 0, err
	}
	if vf := t.s.version; vf != nil {
		av[vf.name] = a.N(strconv.FormatInt(next, 10))
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
		// A write whose only condition is that no unit holds the item
		// needs no token: its retry, applied again, writes the same item.
		if t.opts.TokenAttribute != "" && !w.inTxn && cond != &condUnlocked {
			r.token = newToken()
			av[t.opts.TokenAttribute] = a.S(r.token)
		}
	}
	return in, r, next, nil
}

// nextVersion reads the version item v carries into r.expected, sets the
// check a whole-item write (Put, Save) makes with it, and returns the
// version the write stores; 0 for an unversioned type.
func (t *Table[T]) nextVersion(v reflect.Value, r *writeReq, w *writeConfig) (int64, error) {
	vf := t.s.version
	if vf == nil {
		return 0, nil
	}
	fv := v.FieldByIndex(vf.index)
	var err error
	if r.expected, err = versionOf(fv); err != nil {
		return 0, err
	}
	next := r.expected + 1
	if overflows(fv, next) {
		return 0, fmt.Errorf("mapper: version %d of %s %s cannot be incremented in a %v", r.expected, t.name, attrs.FormatKey(r.keyOf(t.s)), vf.typ)
	}
	if !w.unversioned {
		r.check = checkVersion
		if r.expected == 0 {
			r.check = checkCreate
		}
	}
	return next, nil
}

// keyOf returns the key of the item written, for errors.
func (r *writeReq) keyOf(s *schema) map[string]types.AttributeValue {
	if r.key == nil {
		r.key = s.keyFrom(r.item)
	}
	return r.key
}

// checkKey checks the key attributes of an encoded item.
func (t *Table[T]) checkKey(av map[string]types.AttributeValue) error {
	for _, f := range t.s.keys {
		if err := checkKeyAttr(f, av[f.name]); err != nil {
			return err
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
	w, err := writeOptions(opts, false)
	if err != nil {
		return err
	}
	r, cond, names, values, err := t.keyedReq(reflect.ValueOf(&item).Elem(), &w, "DeleteItem", noCheck)
	if err != nil {
		return err
	}
	in := &dynamodb.DeleteItemInput{
		TableName:                 t.nameP,
		Key:                       r.key,
		ConditionExpression:       cond,
		ExpressionAttributeNames:  names,
		ExpressionAttributeValues: values,
	}
	if cond != nil {
		in.ReturnValuesOnConditionCheckFailure = types.ReturnValuesOnConditionCheckFailureAllOld
	}
	if _, err := t.client.DeleteItem(ctx, in, r.att.Option); err != nil {
		_, err = t.failure(err, r)
		return err
	}
	return nil
}

// keyedReq prepares a write addressed by key alone (a delete, or a
// transaction's condition check): the key of v, the version check (zero is
// the check to make when v's version is 0) and the condition.
func (t *Table[T]) keyedReq(v reflect.Value, w *writeConfig, op string, zero check) (r *writeReq, cond *string, names map[string]string, values map[string]types.AttributeValue, err error) {
	key, err := t.c.keyOf(v)
	if err != nil {
		return nil, nil, nil, nil, err
	}
	r = &writeReq{op: op, key: key}
	if vf := t.s.version; vf != nil && !w.unversioned {
		if r.expected, err = versionOf(v.FieldByIndex(vf.index)); err != nil {
			return nil, nil, nil, nil, err
		}
		r.check = checkVersion
		if r.expected == 0 {
			r.check = zero
		}
	}
	cond, names, values, err = t.condition(w, r, &arena{})
	return r, cond, names, values, err
}

// conflicted tells whether a write whose condition failed on item (as
// stored, nil if none) lost its version check, and the version stored. If
// not, the caller's own condition or fence failed.
func (t *Table[T]) conflicted(r *writeReq, item map[string]types.AttributeValue) (bool, int64) {
	var actual int64
	if t.s.version != nil {
		actual, _ = attrs.Int64(item[t.s.version.name])
	}
	switch r.check {
	case checkCreate:
		return item != nil, actual
	case checkVersion:
		return item == nil || actual != r.expected, actual
	}
	return false, actual
}

// failure turns the error of a write into what the caller gets: a conflict,
// a condition error, or an unknown outcome; or, when a lost attempt turns
// out to have been ours, no error and the stored item (nil for a delete).
func (t *Table[T]) failure(err error, r *writeReq) (map[string]types.AttributeValue, error) {
	att := &r.att
	key := r.keyOf(t.s)
	var ccf *types.ConditionalCheckFailedException
	if !errors.As(err, &ccf) {
		if att.Ambiguous {
			return nil, &UnknownOutcomeError{Op: r.op, Table: t.name, Key: key, Err: err}
		}
		return nil, fmt.Errorf("mapper: %s on %s %s: %w", r.op, t.name, attrs.FormatKey(key), err)
	}
	item := ccf.Item
	if len(item) == 0 {
		item = nil
	}
	if att.Ambiguous {
		if r.token != "" { // set only when TokenAttribute is
			if tok, ok := item[t.opts.TokenAttribute].(*types.AttributeValueMemberS); ok && tok.Value == r.token {
				return item, nil // our earlier attempt landed; the retry saw our own write
			}
		}
		if r.op == "DeleteItem" && item == nil {
			return nil, nil
		}
	}
	var out error
	if le := unitlock.Locked(t.name, key, item, err); le != nil {
		out = le
	} else if conflict, actual := t.conflicted(r, item); conflict {
		out = &version.ConflictError{Table: t.name, Key: key, Expected: r.expected, Actual: actual, Item: item, Err: err}
	} else {
		out = &ConditionError{Table: t.name, Key: key, Item: item, Err: err}
	}
	if att.Ambiguous {
		return nil, &UnknownOutcomeError{Op: r.op, Table: t.name, Key: key, Err: out}
	}
	return nil, out
}
