package mapper

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strconv"

	"github.com/aws/aws-sdk-go-v2/aws"
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
	noCheck           check = iota
	checkCreate             // attribute_not_exists(hash key)
	checkVersion            // version = expected
	checkCreateOrZero       // attribute_not_exists(hash key) OR version = 0 (VersionZeroExists)
)

var errAlso = fmt.Errorf("%w: Also is for Save", ErrInvalidOption)

// The two plain version checks, as fixed expressions. They are variables
// so that requests can point at them.
var (
	condCreate       = "attribute_not_exists(#k)"
	condVersion      = "#v = :v AND attribute_not_exists(#lk)"
	condCreateOrZero = "(attribute_not_exists(#k) OR #v = :v) AND attribute_not_exists(#lk)"
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

// guard sets how the SDK may resend the write after an attempt whose
// answer was lost. A write with a version check (create, or replace
// version n) makes its own check false once applied, so a resend cannot
// apply it twice, and the SDK may resend it. Any other write (an Update of
// whatever version is stored, an Unversioned or unversioned-type write, one
// conditioned only on If or Fence) could apply again, so it is never
// resent after such an attempt: failure settles it by reading instead.
func (r *writeReq) guard() {
	r.att.NoResend = r.check == noCheck
}

// conditionBuilder returns the condition of a write as an expression
// builder: the version check, the fence and the caller's own conditions,
// ANDed. ok is false when the write is unconditional.
func (t *Table[T]) conditionBuilder(w *writeConfig, r *writeReq) (cb expression.ConditionBuilder, ok bool) {
	var parts []expression.ConditionBuilder
	switch r.check {
	case checkCreate:
		parts = append(parts, expression.AttributeNotExists(expression.NameNoDotSplit(t.s.hash.name)))
	case checkVersion:
		parts = append(parts, expression.NameNoDotSplit(t.s.version.name).Equal(expression.Value(r.expected)))
	case checkCreateOrZero:
		parts = append(parts, expression.Or(expression.AttributeNotExists(expression.NameNoDotSplit(t.s.hash.name)),
			expression.NameNoDotSplit(t.s.version.name).Equal(expression.Value(0))))
	}
	if r.check != checkCreate { // a locked item exists, so a create is refused anyway
		parts = append(parts, expression.AttributeNotExists(expression.NameNoDotSplit(unitlock.Attr)))
	}
	if w.fence != nil {
		f := expression.NameNoDotSplit(w.fence.attr)
		parts = append(parts, expression.Or(expression.AttributeNotExists(f), f.LessThanEqual(expression.Value(w.fence.token))))
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
		case checkCreateOrZero:
			return &condCreateOrZero, t.namesCreateOrZero, map[string]types.AttributeValue{":v": a.N("0")}, nil
		}
		return &condUnlocked, namesUnlocked, nil, nil
	}
	cb, _ := t.conditionBuilder(w, r)
	e, err := expression.NewBuilder().WithCondition(cb).Build()
	if err != nil {
		return nil, nil, nil, fmt.Errorf("%w: condition given with If: %v", ErrInvalidOption, err)
	}
	if err := attrs.CheckItem(e.Values()); err != nil {
		return nil, nil, nil, fmt.Errorf("%w: condition given with If: %v", ErrInvalidValue, err)
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
	if err := t.usable(); err != nil {
		return err
	}
	if item == nil {
		return errors.New("mapper: Put of a nil item")
	}
	w, err := t.writeOptions(opts, false)
	if err != nil {
		return err
	}
	_, err = t.put(ctx, item, &w)
	return err
}

// put makes a Put, and returns the item as written.
func (t *Table[T]) put(ctx context.Context, item *T, w *writeConfig) (map[string]types.AttributeValue, error) {
	if w.exactlyOnce {
		op, r := t.putOp(item, w.forTxn())
		if err := t.commitOne(ctx, op, r, w); err != nil {
			return nil, err
		}
		return op.Write.Put.Item, nil
	}
	in, r, next, err := t.buildPut(item, w)
	if err != nil {
		return nil, err
	}
	if in.ReturnValues, in.ReturnConsumedCapacity, err = t.asks(w, in.ReturnValues); err != nil {
		return nil, err
	}
	out, err := t.client.PutItem(ctx, in, r.att.Option)
	if err != nil {
		if _, err = t.failure(ctx, err, r); err != nil {
			return nil, err
		}
	}
	if t.s.version != nil {
		setVersion(reflect.ValueOf(item).Elem().FieldByIndex(t.s.version.index), next)
	}
	return in.Item, t.returned(w, out)
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
	}
	if t.opts.TokenAttribute != "" && !w.noToken {
		r.token = newToken()
		av[t.opts.TokenAttribute] = a.S(r.token)
	}
	r.guard()
	if err := t.checkSize(av, r); err != nil {
		return nil, nil, 0, err
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
			r.check = t.createCheck()
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
	if err := t.usable(); err != nil {
		return err
	}
	w, err := t.writeOptions(opts, false)
	if err != nil {
		return err
	}
	if w.exactlyOnce {
		op, r := t.deleteOp(reflect.ValueOf(&item).Elem(), w.forTxn())
		return t.commitOne(ctx, op, r, &w)
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
	r.guard()
	if in.ReturnValues, in.ReturnConsumedCapacity, err = t.asks(&w, in.ReturnValues); err != nil {
		return err
	}
	out, err := t.client.DeleteItem(ctx, in, r.att.Option)
	if err != nil {
		if _, err = t.failure(ctx, err, r); err != nil {
			return err
		}
	}
	return t.returned(&w, out)
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
			if zero == checkCreate {
				r.check = t.createCheck()
			}
		}
	}
	cond, names, values, err = t.condition(w, r, &arena{})
	return r, cond, names, values, err
}

// conflicted tells whether a write whose condition failed on item (as
// stored, nil if none) lost its version check, and the version stored. If
// not, the caller's own condition or fence failed.
func (t *Table[T]) conflicted(r *writeReq, item map[string]types.AttributeValue) (bool, int64) {
	actual, has := t.storedVersion(item)
	switch r.check {
	case checkCreate:
		return item != nil, actual
	case checkCreateOrZero:
		return item != nil && (!has || actual != 0), actual
	case checkVersion:
		return item == nil || actual != r.expected, actual
	}
	return false, actual
}

// failure turns the error of a write into what the caller gets: a conflict,
// a condition error, or an unknown outcome; or, when an unanswered attempt
// turns out to have been ours, no error and the stored item (nil for a
// delete).
//
// Two cases follow an unanswered attempt. A write the SDK resent (one with
// a version check, see guard) whose resend failed its condition was ours if
// the item carries our write token. A write that ended on the unanswered
// attempt (never resent, or the SDK's retries ran out) is settled by one
// consistent read.
func (t *Table[T]) failure(ctx context.Context, err error, r *writeReq) (map[string]types.AttributeValue, error) {
	att := &r.att
	key := r.keyOf(t.s)
	var ccf *types.ConditionalCheckFailedException
	if !errors.As(err, &ccf) {
		if att.Ambiguous {
			return t.settle(ctx, r)
		}
		return nil, fmt.Errorf("mapper: %s on %s %s: %w", r.op, t.name, attrs.FormatKey(key), err)
	}
	item := ccf.Item
	if len(item) == 0 {
		item = nil
	}
	if att.Ambiguous && t.landed(r, item) {
		return item, nil
	}
	out := t.refusal(r, item, err)
	if att.Ambiguous {
		return nil, t.unknown(r, out)
	}
	return nil, out
}

// refusal is the error of a write whose condition failed on item (as
// stored, nil if none): a version conflict or a failed condition.
func (t *Table[T]) refusal(r *writeReq, item map[string]types.AttributeValue, err error) error {
	key := r.keyOf(t.s)
	if le := unitlock.Locked(t.name, key, item, err); le != nil {
		return le // a unit of work holds the item
	}
	if conflict, actual := t.conflicted(r, item); conflict {
		_, has := t.storedVersion(item)
		return &version.ConflictError{Table: t.name, Key: key, Expected: r.expected, Actual: actual, ActualMissing: item != nil && !has, Item: item, Err: err}
	}
	return &ConditionError{Table: t.name, Key: key, Item: item, Err: err}
}

// unknown is the error of a write whose outcome cannot be known; last is
// what it met after the unanswered attempt, if anything.
func (t *Table[T]) unknown(r *writeReq, last error) error {
	return &UnknownOutcomeError{Op: r.op, Table: t.name, Key: r.keyOf(t.s), Err: r.att.Err, Last: last}
}

// landed tells whether item (as stored after an unanswered attempt, nil if
// none) shows that the write was applied: it carries our write token, or,
// for a delete, it is gone.
func (t *Table[T]) landed(r *writeReq, item map[string]types.AttributeValue) bool {
	if r.op == "DeleteItem" {
		return item == nil
	}
	if r.token == "" {
		return false
	}
	tok, ok := item[t.opts.TokenAttribute].(*types.AttributeValueMemberS)
	return ok && tok.Value == r.token
}

// settle learns with one consistent GetItem whether a write that ended on
// an unanswered attempt was applied, and returns the item read if it was.
// Otherwise the outcome is unknown: the write may have landed and been
// overwritten since, or may still be on its way. It reads only while ctx
// lasts, and only when the write can be recognised (a write token, or a
// delete).
func (t *Table[T]) settle(ctx context.Context, r *writeReq) (map[string]types.AttributeValue, error) {
	if ctx.Err() != nil || (r.token == "" && r.op != "DeleteItem") {
		return nil, t.unknown(r, nil)
	}
	out, err := t.client.GetItem(ctx, &dynamodb.GetItemInput{TableName: t.nameP, Key: r.keyOf(t.s), ConsistentRead: aws.Bool(true)})
	if err != nil {
		return nil, t.unknown(r, nil)
	}
	item := out.Item
	if len(item) == 0 {
		item = nil
	}
	if t.landed(r, item) {
		return item, nil
	}
	return nil, t.unknown(r, nil)
}

// createCheck is the check of a write whose struct has version 0.
func (t *Table[T]) createCheck() check {
	if t.opts.VersionZeroExists {
		return checkCreateOrZero
	}
	return checkCreate
}

// storedVersion reads the version of a stored item; has is false when it
// has none (or one that is not an integer).
func (t *Table[T]) storedVersion(item map[string]types.AttributeValue) (v int64, has bool) {
	if t.s.version == nil || item == nil {
		return 0, false
	}
	return attrs.Int64(item[t.s.version.name])
}
