package txn

import (
	"errors"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/optimist-dynamo/optimist/internal/attrs"
	"github.com/optimist-dynamo/optimist/internal/plan"
	"github.com/optimist-dynamo/optimist/update"
)

// OpOptions configure an op made by [Put], [Update], [Delete] or [Check].
type OpOptions struct {
	// Conditions are ANDed into the op's condition (see [If]).
	Conditions []expression.ConditionBuilder
}

// An OpOption changes the [OpOptions] of one op.
type OpOption = func(*OpOptions)

// If makes the op conditional (several If conditions are ANDed). A false
// condition cancels the whole transaction; the op's [Reason] then has Code
// "ConditionalCheckFailed" and the stored item.
func If(cond expression.ConditionBuilder) OpOption {
	return func(o *OpOptions) { o.Conditions = append(o.Conditions, cond) }
}

// rawWrite is the write of a raw op: guarded, like every write optimist
// sends, against items a unit of work (package unit) holds, with the
// caller's conditions.
func rawWrite(kind plan.Kind, table string, key map[string]types.AttributeValue, opts []OpOption) (*plan.Write, error) {
	var o OpOptions
	for _, fn := range opts {
		if fn == nil {
			return nil, fmt.Errorf("%w: a nil OpOption", ErrInvalidOption)
		}
		fn(&o)
	}
	for _, c := range o.Conditions {
		if !c.IsSet() {
			return nil, fmt.Errorf("%w: If of an empty condition", ErrInvalidOption)
		}
	}
	if table == "" {
		return nil, fmt.Errorf("%w: an op needs a table name", ErrInvalidOption)
	}
	return &plan.Write{Kind: kind, T: plan.NewTable(table, "", ""), Key: key, Guard: true, Conds: o.Conditions}, nil
}

// Put returns an op that writes item (which must hold the key attributes of
// key) to table, replacing any item with that key.
func Put(table string, key, item map[string]types.AttributeValue, opts ...OpOption) Op {
	w, err := rawWrite(plan.WritePut, table, key, opts)
	if err != nil {
		return failedOp(err)
	}
	for k, v := range key {
		if item[k] == nil || attrs.ItemID("", map[string]types.AttributeValue{k: item[k]}) != attrs.ItemID("", map[string]types.AttributeValue{k: v}) {
			return failedOp(fmt.Errorf("txn: Put on %s: the item's %q is not the key's", table, k))
		}
	}
	w.Item = item
	return newOp(w, nil)
}

// Update returns an op that applies the update expression u to the item
// with key in table (creating it if it is missing, as UpdateItem does,
// unless a condition says otherwise).
func Update(table string, key map[string]types.AttributeValue, u *update.Builder, opts ...OpOption) Op {
	w, err := rawWrite(plan.WriteUpdate, table, key, opts)
	if err != nil {
		return failedOp(err)
	}
	if w.Actions, err = plan.BuilderActions(u); err == nil && len(w.Actions) == 0 {
		err = update.ErrNoActions
	}
	if err != nil {
		return failedOp(fmt.Errorf("txn: Update on %s: %w", table, err))
	}
	return newOp(w, nil)
}

// Delete returns an op that deletes the item with key from table.
func Delete(table string, key map[string]types.AttributeValue, opts ...OpOption) Op {
	w, err := rawWrite(plan.WriteDelete, table, key, opts)
	if err != nil {
		return failedOp(err)
	}
	return newOp(w, nil)
}

// Check returns an op that writes nothing but cancels the transaction
// unless cond holds for the item with key in table: the way to make a
// transaction depend on an item it does not change.
func Check(table string, key map[string]types.AttributeValue, cond expression.ConditionBuilder, opts ...OpOption) Op {
	if !cond.IsSet() {
		return failedOp(fmt.Errorf("%w: Check on %s needs a condition", ErrInvalidOption, table))
	}
	w, err := rawWrite(plan.WriteCheck, table, key, append([]OpOption{If(cond)}, opts...))
	if err != nil {
		return failedOp(errors.Join(fmt.Errorf("txn: Check on %s needs a valid condition", table), err))
	}
	return newOp(w, nil)
}
