package mapper

import (
	"errors"
	"fmt"
	"reflect"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/optimist-dynamo/optimist/txn"
	"github.com/optimist-dynamo/optimist/update"
)

// Transaction ops: the table's writes as actions of a txn.Tx, with the same
// version semantics as Put, Update and Delete, for changes to several
// items that must happen together. An op that cannot be built carries its
// error (txn.Op.Err), which Tx.Add and Tx.Commit report before sending
// anything. Transaction ops store no write token: the transaction's client
// request token makes its retries safe.

func (t *Table[T]) txnWrite(opts []WriteOption) writeConfig {
	w, _ := writeOptions(opts, false) // an error stays in w.err
	if w.err == nil {
		w.err = w.errReturns("a transaction op")
	}
	w.noToken = true
	return w
}

func (t *Table[T]) conflictFunc(r *writeReq) func(map[string]types.AttributeValue) bool {
	return func(item map[string]types.AttributeValue) bool {
		c, _ := t.conflicted(r, item)
		return c
	}
}

// PutOp returns a transaction op that writes item as [Table.Put] does: for
// a versioned type, create if its version is 0, else replace that version,
// writing the next one. When the transaction commits, item's version field
// is set to the version written; if it fails, item is unchanged. The item
// is encoded when PutOp is called.
func (t *Table[T]) PutOp(item *T, opts ...WriteOption) txn.Op {
	if err := t.usable(); err != nil {
		return txn.Op{Err: err}
	}
	w := t.txnWrite(opts)
	if w.err != nil {
		return txn.Op{Err: w.err}
	}
	if item == nil {
		return txn.Op{Err: errors.New("mapper: PutOp of a nil item")}
	}
	op, _ := t.putOp(item, &w)
	return op
}

// putOp is PutOp with its options applied; it also returns the write.
func (t *Table[T]) putOp(item *T, w *writeConfig) (txn.Op, *writeReq) {
	in, r, next, err := t.buildPut(item, w)
	if err != nil {
		return txn.Op{Err: err}, nil
	}
	return txn.Op{
		Write: types.TransactWriteItem{Put: &types.Put{
			TableName: in.TableName, Item: in.Item, ConditionExpression: in.ConditionExpression,
			ExpressionAttributeNames: in.ExpressionAttributeNames, ExpressionAttributeValues: in.ExpressionAttributeValues,
		}},
		Key:      r.keyOf(t.s),
		Conflict: t.conflictFunc(r),
		Committed: func() {
			if t.s.version != nil {
				setVersion(reflect.ValueOf(item).Elem().FieldByIndex(t.s.version.index), next)
			}
		},
	}, r
}

// UpdateOp returns a transaction op that applies u as [Table.Update] does:
// it increments the version, and checks it when key carries one. Updates
// that change a key, the version or the token are refused
// ([ErrInvalidUpdate]).
func (t *Table[T]) UpdateOp(key T, u *update.Builder, opts ...WriteOption) txn.Op {
	if err := t.usable(); err != nil {
		return txn.Op{Err: err}
	}
	w := t.txnWrite(opts)
	if w.err != nil {
		return txn.Op{Err: w.err}
	}
	op, _ := t.updateOp(reflect.ValueOf(&key).Elem(), u, &w)
	return op
}

// updateOp is UpdateOp with its options applied; it also returns the write.
func (t *Table[T]) updateOp(kv reflect.Value, u *update.Builder, w *writeConfig) (txn.Op, *writeReq) {
	in, r, err := t.buildUpdate(kv, u, w)
	if err != nil {
		return txn.Op{Err: err}, nil
	}
	return txn.Op{Write: types.TransactWriteItem{Update: updateAction(in)}, Key: r.key, Conflict: t.conflictFunc(r)}, r
}

// saveOp is Save as a transaction op (for ExactlyOnce).
func (t *Table[T]) saveOp(item *T, w *writeConfig) (txn.Op, *writeReq) {
	in, r, next, err := t.buildSave(item, w)
	if err != nil {
		return txn.Op{Err: err}, nil
	}
	return txn.Op{
		Write:    types.TransactWriteItem{Update: updateAction(in)},
		Key:      r.keyOf(t.s),
		Conflict: t.conflictFunc(r),
		Committed: func() {
			if t.s.version != nil {
				setVersion(reflect.ValueOf(item).Elem().FieldByIndex(t.s.version.index), next)
			}
		},
	}, r
}

// updateAction is the transaction action of an UpdateItem request.
func updateAction(in *dynamodb.UpdateItemInput) *types.Update {
	return &types.Update{
		TableName: in.TableName, Key: in.Key, UpdateExpression: in.UpdateExpression, ConditionExpression: in.ConditionExpression,
		ExpressionAttributeNames: in.ExpressionAttributeNames, ExpressionAttributeValues: in.ExpressionAttributeValues,
	}
}

// DeleteOp returns a transaction op that deletes item as [Table.Delete]
// does: only its version, when that is not 0.
func (t *Table[T]) DeleteOp(item T, opts ...WriteOption) txn.Op {
	if err := t.usable(); err != nil {
		return txn.Op{Err: err}
	}
	w := t.txnWrite(opts)
	if w.err != nil {
		return txn.Op{Err: w.err}
	}
	op, _ := t.deleteOp(reflect.ValueOf(&item).Elem(), &w)
	return op
}

// deleteOp is DeleteOp with its options applied; it also returns the write.
func (t *Table[T]) deleteOp(kv reflect.Value, w *writeConfig) (txn.Op, *writeReq) {
	r, cond, names, values, err := t.keyedReq(kv, w, "DeleteItem", noCheck)
	if err != nil {
		return txn.Op{Err: err}, nil
	}
	return txn.Op{
		Write: types.TransactWriteItem{Delete: &types.Delete{
			TableName: t.nameP, Key: r.key, ConditionExpression: cond,
			ExpressionAttributeNames: names, ExpressionAttributeValues: values,
		}},
		Key:      r.key,
		Conflict: t.conflictFunc(r),
	}, r
}

// CheckOp returns a transaction op that writes nothing but makes the
// transaction depend on item: it still has the version item has (or, with
// version 0, it still does not exist). It is how a transaction that writes
// some items stays correct when it read others: if any of them changed in
// the meantime, the transaction is canceled with a version conflict on this
// op. Conditions given with [If] are ANDed; an unversioned type needs one.
func (t *Table[T]) CheckOp(item T, opts ...WriteOption) txn.Op {
	if err := t.usable(); err != nil {
		return txn.Op{Err: err}
	}
	w := t.txnWrite(opts)
	if w.err != nil {
		return txn.Op{Err: w.err}
	}
	r, cond, names, values, err := t.keyedReq(reflect.ValueOf(&item).Elem(), &w, "ConditionCheck", checkCreate)
	if err != nil {
		return txn.Op{Err: err}
	}
	if r.check == noCheck && len(w.conds) == 0 && w.fence == nil { // cond is then only the lock guard
		return txn.Op{Err: fmt.Errorf("%w: CheckOp of an unversioned item needs a condition (If)", ErrInvalidOption)}
	}
	return txn.Op{
		Write: types.TransactWriteItem{ConditionCheck: &types.ConditionCheck{
			TableName: t.nameP, Key: r.key, ConditionExpression: cond,
			ExpressionAttributeNames: names, ExpressionAttributeValues: values,
		}},
		Key:      r.key,
		Conflict: t.conflictFunc(r),
	}
}

// GetOp returns a read for txn.Get: the item with the key of key, decoded
// into *dst, or nil in *dst if there is none. txn.Get reads all its items
// in one strongly consistent TransactGetItems.
func (t *Table[T]) GetOp(key T, dst **T) txn.GetOp {
	if err := t.usable(); err != nil {
		return txn.GetOp{Err: err}
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
