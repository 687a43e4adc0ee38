package mapper

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strconv"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/optimist-dynamo/optimist/update"
)

// Save writes item like [Table.Put] (the same version check, the next
// version, the struct updated only on success), but with one UpdateItem
// that leaves the item's other attributes alone: it sets the struct's
// attributes and removes those the struct does not store now (a nil
// pointer, an omitempty field), and touches nothing else. Use it when other
// code keeps attributes of its own in the same items; Put replaces the
// whole item. [Also] adds update actions on attributes outside the struct to
// the same request. Options: [If], [Unversioned], [Fence], [Also].
func (t *Table[T]) Save(ctx context.Context, item *T, opts ...WriteOption) error {
	if err := t.usable(); err != nil {
		return err
	}
	if item == nil {
		return errors.New("mapper: Save of a nil item")
	}
	w, err := t.writeOptions(opts, true)
	if err != nil {
		return err
	}
	if w.exactlyOnce {
		op, r := t.saveOp(item, w.forTxn())
		return t.commitOne(ctx, op, r, &w)
	}
	in, r, next, err := t.buildSave(item, &w)
	if err != nil {
		return err
	}
	if in.ReturnValues, in.ReturnConsumedCapacity, err = t.asks(&w, in.ReturnValues); err != nil {
		return err
	}
	out, err := t.client.UpdateItem(ctx, in, r.att.Option)
	if err != nil {
		if _, err = t.failure(ctx, err, r); err != nil {
			return err
		}
	}
	if vf := t.s.version; vf != nil {
		setVersion(reflect.ValueOf(item).Elem().FieldByIndex(vf.index), next)
	}
	return t.returned(&w, out)
}

// buildSave makes Save's UpdateItem request, and returns the version it
// writes. It sends nothing.
func (t *Table[T]) buildSave(item *T, w *writeConfig) (*dynamodb.UpdateItemInput, *writeReq, int64, error) {
	v := reflect.ValueOf(item).Elem()
	a := t.c.newArena(0, 1)
	av, err := t.c.encodeItem(v, &a, 0, t.s.version)
	if err != nil {
		return nil, nil, 0, err
	}
	if err := t.checkKey(av); err != nil {
		return nil, nil, 0, err
	}
	r := &writeReq{op: "UpdateItem", item: av}
	key := r.keyOf(t.s)
	if err := t.checkSize(av, r); err != nil {
		return nil, nil, 0, err
	}
	if w.also != nil {
		if err := t.actions(w.also, key, w); err != nil {
			return nil, nil, 0, err
		}
		for _, p := range w.also.Paths() {
			if t.Stores(p.Attribute()) {
				return nil, nil, 0, fmt.Errorf("%w: Also changes %s, which the struct stores", ErrInvalidUpdate, p)
			}
		}
	}
	extra := make([]update.TopAction, 0, len(t.s.fields)+2)
	for _, f := range t.s.fields {
		if key[f.name] != nil || f == t.s.version {
			continue
		}
		if val, ok := av[f.name]; ok {
			extra = append(extra, update.TopAction{Op: "SET", Name: f.name, Value: val})
		} else {
			extra = append(extra, update.TopAction{Op: "REMOVE", Name: f.name})
		}
	}
	next, err := t.nextVersion(v, r, w)
	if err != nil {
		return nil, nil, 0, err
	}
	if vf := t.s.version; vf != nil {
		extra = append(extra, update.TopAction{Op: "SET", Name: vf.name, Value: a.N(strconv.FormatInt(next, 10))})
	}
	in, r, err := t.finishUpdate(w.also, extra, r, w, types.ReturnValueNone)
	return in, r, next, err
}
