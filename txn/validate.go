package txn

import (
	"errors"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/optimist-dynamo/optimist/internal/attrs"
	"github.com/optimist-dynamo/optimist/internal/errs"
)

// validate is what Commit checks before sending.
func (tx *Tx) validate() error {
	switch {
	case tx.err != nil:
		return tx.err
	case len(tx.ops) == 0:
		return ErrEmpty
	case len(tx.ops) > tx.cfg.MaxItems:
		return fmt.Errorf("%w: %d ops, the limit is %d", ErrTooManyItems, len(tx.ops), tx.cfg.MaxItems)
	}
	total := 0
	for _, op := range tx.ops {
		total += opSize(op)
	}
	if total > MaxBytes {
		return fmt.Errorf("%w: about %d bytes, the limit is %d", ErrTooLarge, total, MaxBytes)
	}
	return nil
}

// opSize estimates an op's share of the request, by DynamoDB's rules for
// item sizes (names plus values), expressions included.
func opSize(op Op) int {
	w := op.request().TransactItem()
	n := attrs.ItemSize(op.Key())
	exprs := func(cond, update *string, values map[string]types.AttributeValue, names map[string]string) {
		n += len(aws.ToString(cond)) + len(aws.ToString(update)) + attrs.ItemSize(values)
		for k, v := range names {
			n += len(k) + len(v)
		}
	}
	switch {
	case w.Put != nil:
		n = attrs.ItemSize(w.Put.Item)
		exprs(w.Put.ConditionExpression, nil, w.Put.ExpressionAttributeValues, w.Put.ExpressionAttributeNames)
	case w.Update != nil:
		exprs(w.Update.ConditionExpression, w.Update.UpdateExpression, w.Update.ExpressionAttributeValues, w.Update.ExpressionAttributeNames)
	case w.Delete != nil:
		exprs(w.Delete.ConditionExpression, nil, w.Delete.ExpressionAttributeValues, w.Delete.ExpressionAttributeNames)
	case w.ConditionCheck != nil:
		exprs(w.ConditionCheck.ConditionExpression, nil, w.ConditionCheck.ExpressionAttributeValues, w.ConditionCheck.ExpressionAttributeNames)
	}
	return n
}

// checkOp finds what DynamoDB would refuse in an op's key, item and values.
func checkOp(op Op) error {
	if len(op.Key()) == 0 {
		return errors.New("no key")
	}
	for k, v := range op.Key() {
		switch v := v.(type) {
		case *types.AttributeValueMemberS:
			if n := len(v.Value); n == 0 || n > attrs.MaxHashKeySize {
				return fmt.Errorf("key attribute %q is %d bytes; a key is 1 to %d", k, n, attrs.MaxHashKeySize)
			}
		case *types.AttributeValueMemberB:
			if n := len(v.Value); n == 0 || n > attrs.MaxHashKeySize {
				return fmt.Errorf("key attribute %q is %d bytes; a key is 1 to %d", k, n, attrs.MaxHashKeySize)
			}
		case *types.AttributeValueMemberN:
			if err := attrs.CheckNumber(v.Value); err != nil {
				return fmt.Errorf("key attribute %q: %v", k, err)
			}
		default:
			return fmt.Errorf("key attribute %q is a %T; keys are S, N or B", k, v)
		}
	}
	w := op.request().TransactItem()
	var values map[string]types.AttributeValue
	switch {
	case w.Put != nil:
		if err := attrs.CheckItem(w.Put.Item); err != nil {
			return err
		}
		if n := attrs.ItemSize(w.Put.Item); n > attrs.MaxItemSize {
			name, size := attrs.Largest(w.Put.Item)
			return fmt.Errorf("%w: the item is %d bytes by DynamoDB's rules, over %d; its largest attribute is %q (%d bytes)", errs.ErrItemTooLarge, n, attrs.MaxItemSize, name, size)
		}
		values = w.Put.ExpressionAttributeValues
	case w.Update != nil:
		values = w.Update.ExpressionAttributeValues
	case w.Delete != nil:
		values = w.Delete.ExpressionAttributeValues
	case w.ConditionCheck != nil:
		values = w.ConditionCheck.ExpressionAttributeValues
	}
	if err := attrs.CheckItem(values); err != nil {
		return fmt.Errorf("value %v", err)
	}
	return nil
}
