package unitproto

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/optimist-dynamo/optimist/internal/ddbapi"
	"github.com/optimist-dynamo/optimist/internal/errs"
	"github.com/optimist-dynamo/optimist/internal/plan"
)

// Holder is one unit of work as the protocol sees it: the owner of a
// record in a coordinator table and of the pages of its item list, and
// the holder of the locks it puts in items. Package unit keeps one per
// Unit, for one goroutine (Log and Finish keep the pages' count), and
// meets the record, the pages and the lock's layout through it alone.
type Holder struct {
	ID      string
	Owner   string
	Lease   time.Duration
	Started int64 // unix nanoseconds

	co Coordinator
	// mem is what the unit saw of the units whose locks it met on tables
	// that keep no memory of their own (plan.Table.Units nil: raw ops').
	mem Memory

	page, pageLen, pageBytes int // the page being filled, and its size
}

// NewHolder returns the Holder of unit id, whose record is kept in the
// coordinator table coord reached through c.
func NewHolder(c ddbapi.Items, coord, id, owner string, lease time.Duration, started int64) *Holder {
	h := &Holder{ID: id, Owner: owner, Lease: lease, Started: started}
	h.co = NewCoordinator(c, coord, &h.mem)
	return h
}

// Create writes the unit's record: active, counter 0 (see
// [Coordinator.Create]).
func (h *Holder) Create(ctx context.Context) error {
	return h.co.Create(ctx, h.ID, Record{Owner: h.Owner, Lease: h.Lease, Started: h.Started})
}

// Beat bumps the record's heartbeat counter (see [Coordinator.Beat]).
func (h *Holder) Beat(ctx context.Context) (alive bool, state string, err error) {
	return h.co.Beat(ctx, h.ID)
}

// SetState moves the record from active to state (see
// [Coordinator.SetState]) and returns the state it is in afterwards.
func (h *Holder) SetState(ctx context.Context, state string) (string, error) {
	return h.co.SetState(ctx, h.ID, state, "")
}

// Read reads the record (one consistent GetItem).
func (h *Holder) Read(ctx context.Context) (Record, error) { return h.co.Read(ctx, h.ID) }

// Finish deletes the unit's pages and marks its record finished (see
// [Coordinator.Finish]).
func (h *Holder) Finish(ctx context.Context) error {
	pages := h.page
	if h.pageLen > 0 {
		pages++
	}
	return h.co.Finish(ctx, h.ID, pages)
}

// Log writes the items at(i), for i in [0, n), to the unit's pages, a
// page at a time (one UpdateItem each, made through send), starting a new
// page when the next reference would not fit ([PageItems], [PageBytes]).
// It returns how many of them, from the first, are logged: all, or those
// before the first page that failed.
func (h *Holder) Log(ctx context.Context, n int, at func(i int) (string, map[string]types.AttributeValue),
	send func(ctx context.Context, write func(context.Context) error) error) (int, error) {
	refs := make([]string, n)
	for i := range refs {
		table, key := at(i)
		ref, err := EncodeKey(table, key)
		if err != nil {
			return 0, fmt.Errorf("%w: %w", errs.ErrInvalidOption, err)
		}
		refs[i] = ref
	}
	logged := 0
	for len(refs) > 0 {
		k, size := 0, 0
		for k < len(refs) && h.pageLen+k < PageItems && h.pageBytes+size+len(refs[k]) < PageBytes {
			size += len(refs[k])
			k++
		}
		if k == 0 {
			h.page, h.pageLen, h.pageBytes = h.page+1, 0, 0
			continue
		}
		page, these := h.page, refs[:k]
		if err := send(ctx, func(ctx context.Context) error { return h.co.Log(ctx, h.ID, page, these, h.Lease) }); err != nil {
			return logged, err
		}
		logged += k
		h.pageLen += k
		h.pageBytes += size
		refs = refs[k:]
	}
	return logged, nil
}

// Meet judges the unit whose lock l the holder met on the item with key
// in the table t, and rolls the item forward or back when that unit is
// over or dead (see [Settle]): with t's memory, or the holder's own for a
// table that keeps none.
func (h *Holder) Meet(ctx context.Context, t *plan.Table, key map[string]types.AttributeValue, l *Lock) (Verdict, error) {
	mem := &h.mem
	if t.Units != nil {
		mem = t.Units
	}
	return Settle(ctx, h.co.c, mem, t.Name, key, l)
}

// FinishItem rolls one item of the holder's forward (commit) or back (see
// [Finish]); known is its lock as the unit knows it ([Holder.Known]), nil
// to read the item first.
func (h *Holder) FinishItem(ctx context.Context, table string, key map[string]types.AttributeValue, commit bool, known *Lock) error {
	_, err := Finish(ctx, h.co.c, table, key, h.ID, commit, known)
	return err
}

// lock returns the lock map of the holder (Placeholder: the lock makes
// the item), with the fields of intent.
func (h *Holder) lock(placeholder bool, intent map[string]types.AttributeValue) map[string]types.AttributeValue {
	m := NewLock(h.ID, h.co.Table, h.Owner, placeholder)
	maps.Copy(m, intent)
	return m
}

// Known returns the holder's lock on an item as the unit knows it: made
// by the lock (placeholder), and holding the write op when op is not nil
// (prepared). It is nil when the intent cannot be made.
func (h *Holder) Known(placeholder bool, op *plan.Write) *Lock {
	var in map[string]types.AttributeValue
	if op != nil {
		var err error
		if in, err = h.Intent(op); err != nil {
			return nil
		}
	}
	l, _ := Parse(map[string]types.AttributeValue{Attr: &types.AttributeValueMemberM{Value: h.lock(placeholder, in)}})
	return l
}

// Intent returns the lock fields that store the op's write ([Intent]), or
// for a check op the "checked" mark.
func (h *Holder) Intent(op *plan.Write) (map[string]types.AttributeValue, error) {
	if op.Kind == plan.WriteCheck {
		return map[string]types.AttributeValue{FChecked: avTrue()}, nil
	}
	return Intent(op)
}

// ReadLock is the write of a locking read of the item with key in table:
// the holder's lock set if the item has none, on an existing item that
// holds no lock or the holder's.
func (h *Holder) ReadLock(table string, key map[string]types.AttributeValue) *plan.Write {
	return &plan.Write{Kind: plan.WriteUpdate, T: plan.NewTable(table, "", ""), Key: key,
		Actions: []plan.Action{{Kind: plan.SetIfNotExists, Path: plan.Top(Attr),
			Value: &types.AttributeValueMemberM{Value: h.lock(false, nil)}}},
		Conds: []expression.ConditionBuilder{expression.AttributeExists(anyKeyName(key)).And(
			expression.AttributeNotExists(expression.NameNoDotSplit(Attr)).Or(Mine(h.ID)))}}
}

// Placeholder is the item that locks a missing item with key: its key and
// the holder's lock, with the fields of intent.
func (h *Holder) Placeholder(key, intent map[string]types.AttributeValue) map[string]types.AttributeValue {
	ph := maps.Clone(key)
	if ph == nil {
		ph = map[string]types.AttributeValue{}
	}
	ph[Attr] = &types.AttributeValueMemberM{Value: h.lock(true, intent)}
	return ph
}

// PutPlaceholder is the write that locks the missing item with key in
// table by making it: the [Holder.Placeholder], on no item.
func (h *Holder) PutPlaceholder(table string, key, intent map[string]types.AttributeValue) *plan.Write {
	return &plan.Write{Kind: plan.WritePut, T: plan.NewTable(table, "", ""), Key: key, Item: h.Placeholder(key, intent),
		Conds: []expression.ConditionBuilder{expression.AttributeNotExists(anyKeyName(key))}}
}

// LockAndPrepare turns w (an op's write of an existing item with key)
// into the update that takes the holder's lock with intent in it, on the
// op's own conditions, on the item existing and on no lock.
func (h *Holder) LockAndPrepare(w *plan.Write, key, intent map[string]types.AttributeValue) {
	w.Kind, w.Item, w.Enc = plan.WriteUpdate, nil, nil
	w.Actions = []plan.Action{{Kind: plan.Set, Path: plan.Top(Attr), Value: &types.AttributeValueMemberM{Value: h.lock(false, intent)}}}
	w.Conds = append(w.Conds, expression.AttributeExists(anyKeyName(key)), expression.AttributeNotExists(expression.NameNoDotSplit(Attr)))
}

// PrepareHeld turns w (an op's write of an item the holder has locked)
// into the update that adds intent to the lock, on the op's own
// conditions and on the lock being the holder's, and for a write (not a
// check) on the lock holding no intent yet.
func (h *Holder) PrepareHeld(w *plan.Write, intent map[string]types.AttributeValue, check bool) {
	w.Kind, w.Item, w.Enc = plan.WriteUpdate, nil, nil
	w.Actions = nil
	// In the keys' order, not the map's: the same unit sends the same
	// request (a seeded simulation's history depends on it).
	for _, k := range slices.Sorted(maps.Keys(intent)) {
		w.Actions = append(w.Actions, plan.Action{Kind: plan.Set, Path: plan.Path{{Name: Attr}, {Name: k}}, Value: intent[k]})
	}
	w.Conds = append(w.Conds, Mine(h.ID))
	if !check {
		w.Conds = append(w.Conds, NotPrepared())
	}
}

// CheckOp refuses, before anything is logged, the write of an op a unit
// cannot hold: one that writes or updates the lock attribute, or whose key
// cannot name an item ([CheckKey]).
func CheckOp(w *plan.Write) error {
	if _, ok := w.Item[Attr]; ok {
		return fmt.Errorf("%w: it writes the lock attribute %q", errs.ErrInvalidOption, Attr)
	}
	for _, a := range w.Actions {
		if a.Path.Attribute() == Attr {
			return fmt.Errorf("%w: it updates the lock attribute %q", errs.ErrInvalidOption, Attr)
		}
	}
	if err := CheckKey(w.Key); err != nil {
		return fmt.Errorf("%w: %s: %w", errs.ErrInvalidItem, w.T.Name, err)
	}
	return nil
}

// anyKeyName is the name of one key attribute, for attribute_exists.
func anyKeyName(key map[string]types.AttributeValue) expression.NameBuilder {
	for k := range key {
		return expression.NameNoDotSplit(k)
	}
	return expression.NameNoDotSplit("")
}
