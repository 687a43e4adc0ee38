package unit

import (
	"fmt"

	"github.com/optimist-dynamo/optimist/internal/attrs"
	"github.com/optimist-dynamo/optimist/internal/plan"
	"github.com/optimist-dynamo/optimist/internal/unitproto"
	"github.com/optimist-dynamo/optimist/mapper"
	"github.com/optimist-dynamo/optimist/txn"
)

// Add adds writes to the unit: ops made by a mapper.Table's PutOp,
// UpdateOp, DeleteOp or CheckOp (or txn.Put, Update, Delete, Check), with
// their version checks and conditions. Nothing is sent: items not yet
// locked are locked by Commit, and every op is checked and applied there.
// At most one op per item; an op that cannot be built, one that writes the
// lock attribute, or a second op on one item is an error and the unit is
// unchanged.
func (u *Unit) Add(ops ...txn.Op) error {
	if err := u.check(); err != nil {
		return err
	}
	seen := map[string]bool{}
	writes := make([]*plan.Write, len(ops))
	for i, op := range ops {
		w, err := plan.OpWrite(op)
		if err != nil {
			return fmt.Errorf("unit: Add: op %d: %w", i, err)
		}
		if err := usableKey(w); err != nil {
			return fmt.Errorf("unit: Add: op %d: %w", i, err)
		}
		id := attrs.ItemID(w.T.Name, w.Key)
		if seen[id] || (u.items[id] != nil && u.items[id].w != nil) {
			return fmt.Errorf("%w: %s %s in unit %s", txn.ErrDuplicateItem, w.T.Name, attrs.FormatKey(w.Key), u.id)
		}
		seen[id] = true
		writes[i] = w
	}
	for _, w := range writes {
		u.itemFor(w.T, w.Key).w = w
	}
	return nil
}

// usableKey refuses, before anything is logged, an op that writes the
// lock attribute, or whose key cannot name an item: no key attribute,
// more than two, or one that is not a non-empty S, N or B; and a put whose
// item lacks an attribute of its key. (A raw op does not know its table's key schema: a key of the wrong
// attributes is refused by DynamoDB at the lock write, before the commit
// point, and recovery goes past it.) Logged, such a key would make every
// recovery of the unit fail.
func usableKey(w *plan.Write) error {
	if err := unitproto.CheckOp(w); err != nil {
		return err
	}
	if w.Kind == plan.WritePut {
		for k := range w.Key {
			if w.Item[k] == nil {
				return fmt.Errorf("%w: %s %s: the item lacks the key attribute %q", mapper.ErrInvalidItem, w.T.Name, attrs.FormatKey(w.Key), k)
			}
		}
	}
	return nil
}
