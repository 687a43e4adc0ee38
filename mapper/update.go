package mapper

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"

	"github.com/optimist-dynamo/optimist/internal/attrs"
	"github.com/optimist-dynamo/optimist/internal/plan"
	"github.com/optimist-dynamo/optimist/update"
)

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
// token are refused with [ErrInvalidOption], as is a builder with an error;
// nothing is sent then. Values are encoded with the table's encoder (its
// [TableOptions].EncoderOptions apply), as the struct's fields are, and
// checked against the struct: an action on a field (or below it: a nested
// field, a list element, a set) whose value the field could not be read
// back from, such as a list appended to an int64 or Add of a number on a
// string, is refused with [ErrInvalidItem], naming the field, and nothing
// is sent; an item it reached would fail every later read. Attributes
// outside the struct take any value. An update that would take the stored
// item past 400 KB, which only DynamoDB can tell, is refused by it with an
// error matching [ErrItemTooLarge]. If the item returned after an applied
// update does not decode (another program stored a value its field cannot
// hold), the error says that the update was applied, and names the table,
// key and attribute.
// Options: [If], [Unversioned] (no version check; the version is still
// incremented), [Fence], [ExactlyOnce], [ExactlyOnceToken], [Old],
// [WriteCapacity].
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
	o, err := t.writeOptions("Update", opts)
	if err != nil {
		return nil, err
	}
	r, err := t.planUpdate(reflect.ValueOf(&key).Elem(), u, o, toSingle)
	if err != nil {
		return nil, err
	}
	s, err := t.send(ctx, r, o, types.ReturnValueAllNew)
	if err != nil {
		return nil, t.tooLargeUpdate(err, r.W)
	}
	if o.ExactlyOnce {
		// TransactWriteItems returns no item: read it. The write stands
		// whatever the read gives, so a failed read is not an error.
		item, err := t.get(ctx, r.W.Key, true, nil)
		if df := (*decodeFailure)(nil); errors.As(err, &df) {
			return nil, appliedButUndecodable(err)
		}
		if err != nil {
			return nil, nil
		}
		return item, nil
	}
	if o.old != nil || o.Capacity != nil {
		if err := t.returned(o, s.out); err != nil || o.old != nil {
			return nil, err
		}
	}
	item, err := decodeItem[T](t.c, s.item)
	if err != nil {
		return nil, appliedButUndecodable(err)
	}
	return item, nil
}

// appliedButUndecodable says that an Update was applied although the item
// it left does not decode (err, a decodeFailure, names the table, key and
// attribute): the caller must not take the error for a refusal and repeat
// the write.
func appliedButUndecodable(err error) error {
	return fmt.Errorf("mapper: the update was applied (do not repeat it), but the item it left does not decode, and reads of it will fail until the attribute is repaired: %w", err)
}

// planUpdate builds the UpdateItem of u's actions on the item with the key
// of kv, with the version's increment (and its check when kv carries a
// version), the fence and the write token, and renders it (once: the
// request is what is sent, or what a transaction op carries).
func (t *Table[T]) planUpdate(kv reflect.Value, u *update.Builder, o *WriteOptions, to dest) (*plan.Request, error) {
	key, err := t.c.keyOf(kv)
	if err != nil {
		return nil, err
	}
	w := &plan.Write{Kind: plan.WriteUpdate, T: t.pt, Key: key, Guard: true, Conds: o.Conditions, Fence: o.fence(), Enc: t.c.upd}
	if w.Actions, err = t.actions(u, key, o); err != nil {
		return nil, err
	}
	if err := t.c.checkUpdate(w.Actions, w.Enc, func() string { return "update of " + t.name + " " + attrs.FormatKey(key) }); err != nil {
		return nil, err
	}
	ea, err := t.s.ent.updateActions(t.c, kv)
	if err != nil {
		return nil, err
	}
	w.Actions = append(w.Actions, ea...)
	if vf := t.s.version; vf != nil {
		if w.Expected, err = versionOf(kv.FieldByIndex(vf.index)); err != nil {
			return nil, err
		}
		if w.Expected != 0 && !o.Unversioned {
			w.Check = plan.MustBeVersion
			if overflows(kv.FieldByIndex(vf.index), w.Expected+1) {
				return nil, versionOverflow(t.name, key, vf, w.Expected)
			}
		} else {
			// The stored version is unknown: add to it only below the
			// field's ceiling (a refusal there is a versionOverflow).
			w.Ceiling = versionCeiling(vf.typ)
			v := plan.Top(vf.name).Name()
			w.Conds = append(w.Conds[:len(w.Conds):len(w.Conds)], expression.AttributeNotExists(v).Or(v.LessThan(expression.Value(w.Ceiling))))
		}
		w.Actions = append(w.Actions, plan.TopAction(plan.Add, vf.name, numberOne))
	}
	t.finishActions(w, o, to)
	r, err := t.render(w)
	if err != nil {
		return nil, err
	}
	if err := t.checkValues(r.Values(), w); err != nil {
		return nil, err
	}
	return r, nil
}

var numberOne = &types.AttributeValueMemberN{Value: "1"}

// actions returns the actions of u (a copy the write may extend), refusing
// a builder with an error and actions that touch a key, the version, the
// write token or the fence. An empty string or binary set on the key of a
// secondary index is made a REMOVE: DynamoDB refuses an empty index key,
// and an item without the attribute is left out of the index.
func (t *Table[T]) actions(u *update.Builder, key map[string]types.AttributeValue, o *WriteOptions) ([]plan.Action, error) {
	acts, err := plan.BuilderActions(u)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalidOption, err)
	}
	if len(acts) == 0 {
		return nil, fmt.Errorf("%w: %w", ErrInvalidOption, update.ErrNoActions)
	}
	out := make([]plan.Action, 0, len(acts)+3)
	for _, a := range acts {
		attr := a.Path.Attribute()
		var what string
		switch {
		case key[attr] != nil:
			what = "a key attribute"
		case t.s.version != nil && attr == t.s.version.name:
			what = "the version attribute (the mapper increments it)"
		case t.opts.TokenAttribute != "" && attr == t.opts.TokenAttribute:
			what = "the write-token attribute"
		case o.FenceAttr != "" && attr == o.FenceAttr:
			what = "the fence attribute (Fence sets it)"
		default:
			what = t.s.ent.refuseUpdate(attr)
		}
		if f := t.s.goNamed(attr); what == "" && f != nil && !slices.Contains(o.Outside, attr) {
			return nil, fmt.Errorf("%w: %w: %s: %q is the Go name of field %s, which is stored as %q: write the path with %q, or, to write an attribute %q outside the struct on purpose, pass Outside(%q)",
				ErrInvalidOption, update.ErrInvalidPath, a.Path, attr, f.goPath, f.name, f.name, attr, attr)
		}
		if what != "" {
			return nil, fmt.Errorf("%w: %s changes %s", ErrInvalidOption, a.Path, what)
		}
		if a.Kind == plan.Set && len(a.Path) == 1 && t.s.isIndexKey(attr) && emptyKeyValue(a.Value) {
			a = plan.TopAction(plan.Remove, attr, nil)
		}
		out = append(out, a)
	}
	return out, nil
}

// finishActions adds the fence and the write token to the actions of w.
func (t *Table[T]) finishActions(w *plan.Write, o *WriteOptions, to dest) {
	if w.Fence != nil {
		w.Actions = append(w.Actions, plan.TopAction(plan.Set, w.Fence.Attr, attrs.N(w.Fence.Token)))
	}
	if t.opts.TokenAttribute != "" && to == toSingle && !o.ExactlyOnce {
		w.Token = t.newToken()
		w.Actions = append(w.Actions, plan.TopAction(plan.Set, t.opts.TokenAttribute, &types.AttributeValueMemberS{Value: w.Token}))
	}
}

// emptyKeyValue reports an empty string or binary: a value DynamoDB refuses
// for a key attribute of an index.
func emptyKeyValue(av types.AttributeValue) bool {
	switch v := av.(type) {
	case *types.AttributeValueMemberS:
		return v.Value == ""
	case *types.AttributeValueMemberB:
		return len(v.Value) == 0
	}
	return false
}

// tooLargeUpdate classifies DynamoDB's refusal of an update that would take
// the item past 400 KB as [ErrItemTooLarge]; other errors are returned as
// they are. The size of the stored item is unknown before sending (only
// the update's values are checked then), so this is the server's
// refusal: nothing was written. The message names the update's largest
// value, the part of the item the caller controls. DynamoDB gives the
// refusal no code of its own (a ValidationException), so its message is
// matched: "Item size to update has exceeded the maximum allowed size"
// (and "Item size has exceeded ..." for the whole-item form).
func (t *Table[T]) tooLargeUpdate(err error, w *plan.Write) error {
	var api smithy.APIError
	if !errors.As(err, &api) || api.ErrorCode() != "ValidationException" ||
		!strings.Contains(api.ErrorMessage(), "exceeded the maximum allowed size") {
		return err
	}
	values := map[string]types.AttributeValue{}
	for _, a := range w.Actions {
		if a.Value != nil {
			values[a.Path.String()] = a.Value
		}
	}
	largest := ""
	if name, size := attrs.Largest(values); name != "" {
		largest = fmt.Sprintf("; the update's largest value is for %q (%d bytes)", name, size)
	}
	return fmt.Errorf("%w: %s %s: DynamoDB refused the update, which would take the item past %d bytes; nothing was written%s: %w",
		ErrItemTooLarge, t.name, attrs.FormatKey(t.keyOfWrite(w)), attrs.MaxItemSize, largest, err)
}
