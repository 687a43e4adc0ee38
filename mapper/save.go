package mapper

import (
	"context"
	"fmt"
	"reflect"

	"github.com/optimist-dynamo/optimist/internal/plan"
)

// Save writes item like [Table.Put] (the same version check, the next
// version, the struct updated only on success), but with one UpdateItem
// that leaves the item's other attributes alone: it sets the struct's
// attributes and removes those the struct does not store now (a nil
// pointer, an omitempty field), and touches nothing else. Use it when other
// code keeps attributes of its own in the same items; Put replaces the
// whole item. [Also] adds update actions on attributes outside the struct to
// the same request. Options: [If], [Unversioned], [Fence], [Also],
// [ExactlyOnce], [ExactlyOnceToken], [Old], [WriteCapacity].
func (t *Table[T]) Save(ctx context.Context, item *T, opts ...SaveOption) error {
	if err := t.usable(); err != nil {
		return err
	}
	if item == nil {
		return fmt.Errorf("%w: Save of a nil item", ErrInvalidOption)
	}
	o, err := t.saveOptions(opts)
	if err != nil {
		return err
	}
	_, err = t.writeItem(ctx, reflect.ValueOf(item).Elem(), o, t.planSave)
	return err
}

// planSave builds Save's UpdateItem: a SET of every attribute the struct v
// stores now and a REMOVE of every one it does not, the next version, the
// actions of Also, the fence and the write token. It returns the version
// it writes.
func (t *Table[T]) planSave(v reflect.Value, o *WriteOptions, to dest) (*plan.Write, int64, error) {
	a := t.c.newArena(0, 1)
	av, err := t.c.encodeItem(v, &a, 0, t.s.version)
	if err != nil {
		return nil, 0, err
	}
	if err := t.checkKey(av); err != nil {
		return nil, 0, err
	}
	w := &plan.Write{Kind: plan.WriteUpdate, T: t.pt, Key: t.s.keyFrom(av), Guard: true, Conds: o.Conditions, Fence: o.fence(), Enc: t.c.upd}
	if err := t.checkSize(av, w); err != nil {
		return nil, 0, err
	}
	if o.Also != nil {
		also, err := t.actions(o.Also, w.Key, o)
		if err != nil {
			return nil, 0, err
		}
		for _, act := range also {
			if t.Stores(act.Path.Attribute()) {
				return nil, 0, fmt.Errorf("%w: Also changes %s, which the struct stores", ErrInvalidOption, act.Path)
			}
		}
		w.Actions = append(w.Actions, also...)
	}
	for _, f := range t.s.fields {
		if w.Key[f.name] != nil || f == t.s.version {
			continue
		}
		if val, ok := av[f.name]; ok {
			w.Actions = append(w.Actions, plan.TopAction(plan.Set, f.name, val))
		} else {
			w.Actions = append(w.Actions, plan.TopAction(plan.Remove, f.name, nil))
		}
	}
	w.Actions = append(w.Actions, t.s.ent.saveActions(av)...)
	next, err := t.nextVersion(v, w, o)
	if err != nil {
		return nil, 0, err
	}
	if vf := t.s.version; vf != nil {
		w.Actions = append(w.Actions, plan.TopAction(plan.Set, vf.name, a.N(plan.FormatN(next))))
	}
	t.finishActions(w, o, to)
	return w, next, nil
}
