package mapper

import (
	"fmt"
	"reflect"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/optimist-dynamo/optimist/internal/plan"
	"github.com/optimist-dynamo/optimist/txn"
	"github.com/optimist-dynamo/optimist/update"
)

// Transaction ops: the table's writes as actions of a txn.Tx (or of a unit
// of work, package unit), with the same version semantics as Put, Update
// and Delete, for changes to several items that must happen together. An
// op that cannot be built carries its error (txn.Op.Err), which Tx.Add and
// Tx.Commit report before sending anything. Transaction ops store no write
// token: the transaction's client request token makes its retries safe.

// op wraps a rendered write (or the error of building it) as a txn.Op: a
// txn.Op is a plan.Op, and carries the request as rendered.
func op(r *plan.Request, err error) txn.Op {
	return txn.Op(plan.NewOp(r, err))
}

// renderedOp renders w (once) into an op, or wraps err.
func (t *Table[T]) renderedOp(w *plan.Write, err error) txn.Op {
	if err != nil {
		return op(nil, err)
	}
	return op(t.render(w))
}

// opOptions applies the options of a transaction op: call, with apply
// the option type's method.
func opOptions[T any, O any](t *Table[T], call string, opts []O, apply func(O, *WriteOptions)) (*WriteOptions, error) {
	if err := t.usable(); err != nil {
		return nil, err
	}
	return gather(call, opts, apply)
}

// PutOp returns a transaction op that writes item as [Table.Put] does: for
// a versioned type, create if its version is 0, else replace that version,
// writing the next one. When the transaction commits, item's version field
// is set to the version written; if it fails, item is unchanged. The item
// is encoded when PutOp is called. Options: [If], [Unversioned], [Fence].
func (t *Table[T]) PutOp(item *T, opts ...OpOption) txn.Op {
	o, err := opOptions(t, "PutOp", opts, OpOption.applyOp)
	if err != nil {
		return op(nil, err)
	}
	if item == nil {
		return op(nil, fmt.Errorf("%w: PutOp of a nil item", ErrInvalidOption))
	}
	v := reflect.ValueOf(item).Elem()
	w, next, err := t.planPut(v, o, toTxn)
	if err != nil {
		return op(nil, err)
	}
	t.setOnCommit(w, v, next)
	return t.renderedOp(w, nil)
}

// setOnCommit makes a committed write set the version field of v to next.
func (t *Table[T]) setOnCommit(w *plan.Write, v reflect.Value, next int64) {
	if vf := t.s.version; vf != nil {
		w.OnCommit = func() { setVersion(v.FieldByIndex(vf.index), next) }
	}
}

// UpdateOp returns a transaction op that applies u as [Table.Update] does:
// it increments the version, and checks it when key carries one. Updates
// that change a key, the version or the token are refused
// ([ErrInvalidOption]). Options: [If], [Unversioned], [Fence].
func (t *Table[T]) UpdateOp(key T, u *update.Builder, opts ...UpdateOpOption) txn.Op {
	o, err := opOptions(t, "UpdateOp", opts, UpdateOpOption.applyUpdateOp)
	if err != nil {
		return op(nil, err)
	}
	return op(t.planUpdate(reflect.ValueOf(&key).Elem(), u, o, toTxn))
}

// DeleteOp returns a transaction op that deletes item as [Table.Delete]
// does: only its version, when that is not 0. Options: [If],
// [Unversioned], [Fence] (its condition).
func (t *Table[T]) DeleteOp(item T, opts ...OpOption) txn.Op {
	o, err := opOptions(t, "DeleteOp", opts, OpOption.applyOp)
	if err != nil {
		return op(nil, err)
	}
	return t.renderedOp(t.planKeyed(plan.WriteDelete, reflect.ValueOf(&item).Elem(), o, plan.NoCheck))
}

// CheckOp returns a transaction op that writes nothing but makes the
// transaction depend on item: it still has the version item has (or, with
// version 0, it still does not exist). It is how a transaction that writes
// some items stays correct when it read others: if any of them changed in
// the meantime, the transaction is canceled with a version conflict on this
// op. Conditions given with [If] are ANDed; an unversioned type needs one.
func (t *Table[T]) CheckOp(item T, opts ...OpOption) txn.Op {
	o, err := opOptions(t, "CheckOp", opts, OpOption.applyOp)
	if err != nil {
		return op(nil, err)
	}
	w, err := t.planKeyed(plan.WriteCheck, reflect.ValueOf(&item).Elem(), o, plan.MustNotExist)
	if err != nil {
		return op(nil, err)
	}
	if w.Check == plan.NoCheck && len(w.Conds) == 0 && w.Fence == nil { // the condition is then only the guard
		return op(nil, fmt.Errorf("%w: CheckOp of an unversioned item needs a condition (If)", ErrInvalidOption))
	}
	return t.renderedOp(w, nil)
}

// GetOp returns a read for txn.Get: the item with the key of key, decoded
// into *dst, or nil in *dst if there is none. txn.Get reads all its items
// in one strongly consistent TransactGetItems.
func (t *Table[T]) GetOp(key T, dst **T) txn.GetOp {
	if err := t.usable(); err != nil {
		return txn.GetOp{Err: err}
	}
	if dst == nil {
		return txn.GetOp{Err: fmt.Errorf("%w: GetOp needs a destination (dst is nil)", ErrInvalidOption)}
	}
	k, err := t.c.keyOf(reflect.ValueOf(&key).Elem())
	if err != nil {
		return txn.GetOp{Err: err}
	}
	return txn.GetOp{
		Get: types.Get{TableName: t.nameP, Key: k},
		Found: func(item map[string]types.AttributeValue) error {
			if item == nil {
				*dst = nil
				return nil
			}
			v, err := decodeItem[T](t.c, item)
			*dst = v
			return err
		},
	}
}
