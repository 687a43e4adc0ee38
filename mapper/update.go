package mapper

import (
	"context"
	"errors"
	"fmt"
	"reflect"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/optimist-dynamo/optimist/internal/attrs"
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
// An Update is never sent twice once an attempt may have been applied,
// unless a version check stops a second application: the SDK resends it
// only after answers that prove nothing was written (throttling, refused
// connections). When an attempt goes unanswered, one consistent GetItem
// settles it: the item carries this Update's write token, and Update
// returns the item as read; or it does not, and the error matches
// [ErrUnknownOutcome] (the change may have landed and been overwritten
// since). With [ExactlyOnce] a lost answer is resent safely instead; the
// item returned is then read after the write, with one consistent GetItem,
// and is nil (with no error: the write stands) if that read fails or finds
// the item deleted already.
func (t *Table[T]) Update(ctx context.Context, key T, u *update.Builder, opts ...WriteOption) (*T, error) {
	if err := t.usable(); err != nil {
		return nil, err
	}
	w, err := t.writeOptions(opts, false)
	if err != nil {
		return nil, err
	}
	kv := reflect.ValueOf(&key).Elem()
	if w.exactlyOnce {
		op, r := t.updateOp(kv, u, w.forTxn())
		if err := t.commitOne(ctx, op, r, &w); err != nil {
			return nil, err
		}
		// TransactWriteItems returns no item: read it. The write stands
		// whatever the read gives, so a failed read is not an error.
		item, err := t.get(ctx, r.key, true, nil)
		if err != nil {
			return nil, nil
		}
		return item, nil
	}
	in, r, err := t.buildUpdate(kv, u, &w)
	if err != nil {
		return nil, err
	}
	if in.ReturnValues, in.ReturnConsumedCapacity, err = t.asks(&w, in.ReturnValues); err != nil {
		return nil, err
	}
	item := map[string]types.AttributeValue(nil)
	out, err := t.client.UpdateItem(ctx, in, r.att.Option)
	if err == nil {
		item = out.Attributes
	} else if item, err = t.failure(ctx, err, r); err != nil {
		return nil, err
	}
	if w.ret != nil {
		return t.updated(&w, out, item)
	}
	return decodeItem[T](t.c, item)
}

// buildUpdate makes the UpdateItem request. It sends nothing.
func (t *Table[T]) buildUpdate(kv reflect.Value, u *update.Builder, w *writeConfig) (*dynamodb.UpdateItemInput, *writeReq, error) {
	key, err := t.c.keyOf(kv)
	if err != nil {
		return nil, nil, err
	}
	if err := t.actions(u, key, w); err != nil {
		return nil, nil, err
	}
	r := &writeReq{op: "UpdateItem", key: key}
	var extra []update.TopAction
	if vf := t.s.version; vf != nil {
		if r.expected, err = versionOf(kv.FieldByIndex(vf.index)); err != nil {
			return nil, nil, err
		}
		if r.expected != 0 && !w.unversioned {
			r.check = checkVersion
		}
		extra = append(extra, update.TopAction{Op: "ADD", Name: vf.name, Value: numberOne})
	}
	return t.finishUpdate(u, extra, r, w, types.ReturnValueAllNew)
}

var numberOne = &types.AttributeValueMemberN{Value: "1"}

// actions checks the actions of u, refusing those that touch a key, the
// version, the write token or the fence.
func (t *Table[T]) actions(u *update.Builder, key map[string]types.AttributeValue, w *writeConfig) error {
	if err := u.Err(); err != nil {
		return fmt.Errorf("%w: %w", ErrInvalidUpdate, err)
	}
	paths := u.Paths()
	if len(paths) == 0 {
		return fmt.Errorf("%w: %w", ErrInvalidUpdate, update.ErrNoActions)
	}
	for _, p := range paths {
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
		return fmt.Errorf("%w: %s changes %s", ErrInvalidUpdate, p, what)
	}
	return nil
}

// finishUpdate makes the UpdateItem request of u's actions (u may be nil),
// then extra, the fence and the write token, with the write's conditions.
// The update expression is compiled by update.Compile and the condition by
// t.condition (fixed strings for the plain version checks), whose
// placeholders never collide.
func (t *Table[T]) finishUpdate(u *update.Builder, extra []update.TopAction, r *writeReq, w *writeConfig, rv types.ReturnValue) (*dynamodb.UpdateItemInput, *writeReq, error) {
	if w.fence != nil {
		extra = append(extra, update.TopAction{Op: "SET", Name: w.fence.attr, Value: attrs.N(w.fence.token)})
	}
	if t.opts.TokenAttribute != "" && !w.noToken {
		r.token = newToken()
		extra = append(extra, update.TopAction{Op: "SET", Name: t.opts.TokenAttribute, Value: &types.AttributeValueMemberS{Value: r.token}})
	}
	r.guard()
	e, err := u.Compile(extra...)
	if err != nil {
		return nil, nil, fmt.Errorf("%w: %w", ErrInvalidUpdate, err)
	}
	cond, names, values, err := t.condition(w, r, &arena{})
	if err != nil {
		return nil, nil, err
	}
	for k, v := range names {
		e.Names[k] = v
	}
	for k, v := range values {
		e.Values[k] = v
	}
	if len(e.Values) == 0 {
		e.Values = nil // REMOVE alone has no values, and DynamoDB refuses an empty map
	}
	if err := t.checkValues(e.Values, r); err != nil {
		return nil, nil, err
	}
	in := &dynamodb.UpdateItemInput{
		TableName:                 t.nameP,
		Key:                       r.keyOf(t.s),
		UpdateExpression:          &e.Expression,
		ConditionExpression:       cond,
		ExpressionAttributeNames:  e.Names,
		ExpressionAttributeValues: e.Values,
		ReturnValues:              rv,
	}
	if cond != nil {
		in.ReturnValuesOnConditionCheckFailure = types.ReturnValuesOnConditionCheckFailureAllOld
	}
	return in, r, nil
}
