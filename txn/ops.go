package txn

import (
	"errors"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/optimist-dynamo/optimist/internal/attrs"
	"github.com/optimist-dynamo/optimist/update"
)

// OpOption changes an op made by [Put], [Update] or [Delete].
type OpOption func(*opConfig)

type opConfig struct {
	conds []expression.ConditionBuilder
}

// If makes the op conditional (several If conditions are ANDed). A false
// condition cancels the whole transaction; the op's [Reason] then has Code
// "ConditionalCheckFailed" and the stored item.
func If(cond expression.ConditionBuilder) OpOption {
	return func(c *opConfig) { c.conds = append(c.conds, cond) }
}

// build returns the op's expressions: an update (may be unset) and the
// conditions of opts, ANDed. With neither, it is the zero Expression, whose
// parts are all nil.
func build(ub *expression.UpdateBuilder, opts []OpOption) (expression.Expression, error) {
	var c opConfig
	for _, o := range opts {
		o(&c)
	}
	b := expression.NewBuilder()
	if ub != nil {
		b = b.WithUpdate(*ub)
	}
	switch len(c.conds) {
	case 0:
		if ub == nil {
			return expression.Expression{}, nil
		}
	case 1:
		b = b.WithCondition(c.conds[0])
	default:
		b = b.WithCondition(expression.And(c.conds[0], c.conds[1], c.conds[2:]...))
	}
	return b.Build()
}

// Put returns an op that writes item (which must hold the key attributes of
// key) to table, replacing any item with that key.
func Put(table string, key, item map[string]types.AttributeValue, opts ...OpOption) Op {
	op := Op{Key: key, Write: types.TransactWriteItem{Put: &types.Put{TableName: aws.String(table), Item: item}}}
	for k, v := range key {
		if item[k] == nil || attrs.ItemID("", map[string]types.AttributeValue{k: item[k]}) != attrs.ItemID("", map[string]types.AttributeValue{k: v}) {
			op.Err = fmt.Errorf("txn: Put on %s: the item's %q is not the key's", table, k)
			return op
		}
	}
	e, err := build(nil, opts)
	if op.Err = err; err == nil {
		op.Write.Put.ConditionExpression, op.Write.Put.ExpressionAttributeNames, op.Write.Put.ExpressionAttributeValues = e.Condition(), e.Names(), e.Values()
	}
	return op
}

// Update returns an op that applies the update expression u to the item
// with key in table (creating it if it is missing, as UpdateItem does,
// unless a condition says otherwise).
func Update(table string, key map[string]types.AttributeValue, u *update.Builder, opts ...OpOption) Op {
	op := Op{Key: key, Write: types.TransactWriteItem{Update: &types.Update{TableName: aws.String(table), Key: key}}}
	ub, err := u.UpdateBuilder()
	if err != nil {
		op.Err = err
		return op
	}
	e, err := build(&ub, opts)
	if op.Err = err; err == nil {
		w := op.Write.Update
		w.UpdateExpression, w.ConditionExpression, w.ExpressionAttributeNames, w.ExpressionAttributeValues = e.Update(), e.Condition(), e.Names(), e.Values()
	}
	return op
}

// Delete returns an op that deletes the item with key from table.
func Delete(table string, key map[string]types.AttributeValue, opts ...OpOption) Op {
	op := Op{Key: key, Write: types.TransactWriteItem{Delete: &types.Delete{TableName: aws.String(table), Key: key}}}
	e, err := build(nil, opts)
	if op.Err = err; err == nil {
		op.Write.Delete.ConditionExpression, op.Write.Delete.ExpressionAttributeNames, op.Write.Delete.ExpressionAttributeValues = e.Condition(), e.Names(), e.Values()
	}
	return op
}

// Check returns an op that writes nothing but cancels the transaction
// unless cond holds for the item with key in table: the way to make a
// transaction depend on an item it does not change.
func Check(table string, key map[string]types.AttributeValue, cond expression.ConditionBuilder, opts ...OpOption) Op {
	op := Op{Key: key, Write: types.TransactWriteItem{ConditionCheck: &types.ConditionCheck{TableName: aws.String(table), Key: key}}}
	e, err := build(nil, append([]OpOption{If(cond)}, opts...))
	if err != nil {
		op.Err = errors.Join(fmt.Errorf("txn: Check on %s needs a valid condition", table), err)
		return op
	}
	c := op.Write.ConditionCheck
	c.ConditionExpression, c.ExpressionAttributeNames, c.ExpressionAttributeValues = e.Condition(), e.Names(), e.Values()
	return op
}
