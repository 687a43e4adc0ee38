package mapper

import (
	"context"
	"errors"
	"fmt"
	"reflect"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/optimist-dynamo/optimist/update"
)

// ErrInvalidUpdate is returned, before anything is sent, by [Table.Update]
// for an update it refuses: one whose builder has an error (the error
// wraps the builder's, such as update.ErrOverlap), or one that touches a
// key attribute, the version attribute or the write-token attribute.
var ErrInvalidUpdate = errors.New("mapper: invalid update")

// Update applies the update expression u to the item with the key of key
// (its key fields, and its version field), with one UpdateItem that returns
// the item as written (ALL_NEW). It needs no read first: atomic changes such
// as appending to a list and counting (update.Append("votedBy", v).Add("votes", 1))
// are made on the server, so concurrent updates never lose each other.
//
// For a versioned type, the same request increments the stored version
// (ADD v 1), so a full-item Put made from an older copy still conflicts. If
// key's version is not 0, the update is applied only to that version, and a
// different one is a [*version.ConflictError] carrying the current item; if
// it is 0, the update applies to whatever version is stored. As with
// UpdateItem itself, updating a missing item creates it, unless a condition
// says otherwise (If(expression.AttributeExists(...)), or a non-zero
// version).
//
// Updates that would change a key attribute, the version or the write
// token are refused with [ErrInvalidUpdate], as is a builder with an error;
// nothing is sent then. Options: [If], [Unversioned] (no version check; the
// version is still incremented), [Fence].
//
// Every Update is conditional on its own write token not being stored yet,
// so the SDK's retry of an attempt whose response was lost does not apply
// the change a second time: it fails, finds the token, and Update reports
// the item as written. Only if another writer changed the item between the
// lost attempt and the retry can the change be applied twice (the token is
// then gone); a version check, where there is one, rules that out too.
func (t *Table[T]) Update(ctx context.Context, key T, u *update.Builder, opts ...WriteOption) (*T, error) {
	if err := t.usable(); err != nil {
		return nil, err
	}
	w, err := writeOptions(opts, false)
	if err != nil {
		return nil, err
	}
	in, r, err := t.buildUpdate(reflect.ValueOf(&key).Elem(), u, &w)
	if err != nil {
		return nil, err
	}
	item := map[string]types.AttributeValue(nil)
	out, err := t.client.UpdateItem(ctx, in, r.att.Option)
	if err == nil {
		item = out.Attributes
	} else if item, err = t.failure(err, r); err != nil {
		return nil, err
	}
	return decodeItem[T](t.c, item)
}

// buildUpdate makes the UpdateItem request. It sends nothing.
func (t *Table[T]) buildUpdate(kv reflect.Value, u *update.Builder, w *writeConfig) (*dynamodb.UpdateItemInput, *writeReq, error) {
	key, err := t.c.keyOf(kv)
	if err != nil {
		return nil, nil, err
	}
	ub, err := t.actions(u, key, w)
	if err != nil {
		return nil, nil, err
	}
	r := &writeReq{op: "UpdateItem", key: key}
	if vf := t.s.version; vf != nil {
		if r.expected, err = versionOf(kv.FieldByIndex(vf.index)); err != nil {
			return nil, nil, err
		}
		if r.expected != 0 && !w.unversioned {
			r.check = checkVersion
		}
		ub = ub.Add(expression.NameNoDotSplit(vf.name), expression.Value(1))
	}
	return t.finishUpdate(ub, r, w, types.ReturnValueAllNew)
}

// actions returns the actions of u, refusing those that touch a key, the
// version, the write token or the fence.
func (t *Table[T]) actions(u *update.Builder, key map[string]types.AttributeValue, w *writeConfig) (expression.UpdateBuilder, error) {
	ub, err := u.UpdateBuilder()
	if err != nil {
		return ub, fmt.Errorf("%w: %w", ErrInvalidUpdate, err)
	}
	for _, p := range u.Paths() {
		attr := p.Attribute()
		var what string
		switch {
		case key[attr] != nil:
			what = "a key attribute"
		case t.s.version != nil && attr == t.s.version.name:
			what = "the version attribute (the mapper increments it)"
		case t.opts.TokenAttribute != "" && attr == t.opts.TokenAttribute:
			what = "the write-token attribute"
		case w.fence != nil && attr == w.fence.attr:
			what = "the fence attribute (Fence sets it)"
		default:
			continue
		}
		return ub, fmt.Errorf("%w: %s changes %s", ErrInvalidUpdate, p, what)
	}
	return ub, nil
}

// finishUpdate adds the fence and the write token to ub, and makes the
// request with the write's conditions.
func (t *Table[T]) finishUpdate(ub expression.UpdateBuilder, r *writeReq, w *writeConfig, rv types.ReturnValue) (*dynamodb.UpdateItemInput, *writeReq, error) {
	if w.fence != nil {
		ub = ub.Set(expression.NameNoDotSplit(w.fence.attr), expression.Value(w.fence.token))
	}
	guard := t.opts.TokenAttribute != "" && !w.inTxn
	if guard {
		r.token = newToken()
		ub = ub.Set(expression.NameNoDotSplit(t.opts.TokenAttribute), expression.Value(r.token))
	}
	b := expression.NewBuilder().WithUpdate(ub)
	if cb, ok := t.conditionBuilder(w, r, guard); ok {
		b = b.WithCondition(cb)
	}
	e, err := b.Build()
	if err != nil {
		return nil, nil, fmt.Errorf("%w: %v", ErrInvalidUpdate, err)
	}
	if err := t.checkValues(e.Values(), r); err != nil {
		return nil, nil, err
	}
	in := &dynamodb.UpdateItemInput{
		TableName:                 t.nameP,
		Key:                       r.keyOf(t.s),
		UpdateExpression:          e.Update(),
		ConditionExpression:       e.Condition(),
		ExpressionAttributeNames:  e.Names(),
		ExpressionAttributeValues: e.Values(),
		ReturnValues:              rv,
	}
	if in.ConditionExpression != nil {
		in.ReturnValuesOnConditionCheckFailure = types.ReturnValuesOnConditionCheckFailureAllOld
	}
	return in, r, nil
}
