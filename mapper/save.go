package mapper

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strconv"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
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
	w, err := writeOptions(opts, true)
	if err != nil {
		return err
	}
	v := reflect.ValueOf(item).Elem()
	a := t.c.newArena(0, 1)
	av, err := t.c.encodeItem(v, &a, 0, t.s.version)
	if err != nil {
		return err
	}
	if err := t.checkKey(av); err != nil {
		return err
	}
	r := &writeReq{op: "UpdateItem", item: av}
	key := r.keyOf(t.s)
	if err := t.checkSize(av, r); err != nil {
		return err
	}
	var ub expression.UpdateBuilder
	if w.also != nil {
		if ub, err = t.actions(w.also, key, &w); err != nil {
			return err
		}
		for _, p := range w.also.Paths() {
			if t.Stores(p.Attribute()) {
				return fmt.Errorf("%w: Also changes %s, which the struct stores", ErrInvalidUpdate, p)
			}
		}
	}
	for _, f := range t.s.fields {
		if key[f.name] != nil || f == t.s.version {
			continue
		}
		if val, ok := av[f.name]; ok {
			ub = ub.Set(expression.NameNoDotSplit(f.name), expression.Value(val))
		} else {
			ub = ub.Remove(expression.NameNoDotSplit(f.name))
		}
	}
	next, err := t.nextVersion(v, r, &w)
	if err != nil {
		return err
	}
	if vf := t.s.version; vf != nil {
		ub = ub.Set(expression.NameNoDotSplit(vf.name), expression.Value(a.N(strconv.FormatInt(next, 10))))
	}
	in, r, err := t.finishUpdate(ub, r, &w, types.ReturnValueNone)
	if err != nil {
		return err
	}
	if _, err := t.client.UpdateItem(ctx, in, r.att.Option); err != nil {
		if _, err = t.failure(err, r); err != nil {
			return err
		}
	}
	if vf := t.s.version; vf != nil {
		setVersion(v.FieldByIndex(vf.index), next)
	}
	return nil
}
