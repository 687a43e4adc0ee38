package txn

import (
	"context"
	"errors"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/optimist-dynamo/optimist/internal/attrs"
	"github.com/optimist-dynamo/optimist/internal/ddbapi"
	"github.com/optimist-dynamo/optimist/internal/unitproto"
)

// GetOp is one read of a [Get]: which item, and what to do with it. Make
// it with [GetItem] for attribute maps or with mapper.Table's GetOp for
// structs.
type GetOp struct {
	// Get names the item (TableName, Key, optional projection).
	Get types.Get
	// Found receives the item read, or nil if there is none.
	Found func(item map[string]types.AttributeValue) error
	// Err is an error found while building the read; Get reports it and
	// sends nothing.
	Err error
}

// GetItem returns a read of the item with key in table into *dst (nil if
// the item does not exist).
func GetItem(table string, key map[string]types.AttributeValue, dst *map[string]types.AttributeValue) GetOp {
	return GetOp{
		Get:   types.Get{TableName: aws.String(table), Key: key},
		Found: func(item map[string]types.AttributeValue) error { *dst = item; return nil },
	}
}

// Get reads up to 100 items with one TransactGetItems: a strongly
// consistent snapshot, all read at the same point between transactions
// (two separate consistent GetItems may straddle another transaction). It
// refuses, before sending, no reads ([ErrEmpty]), more than 100
// ([ErrTooManyItems]) and one item twice ([ErrDuplicateItem]). A read
// canceled by a concurrent transaction (TransactionConflict) or by
// throttling is retried up to 5 times with backoff. Each op's Found is
// called in order once all items are in.
func Get(ctx context.Context, c Client, ops ...GetOp) error {
	switch {
	case ddbapi.IsNil(c):
		return fmt.Errorf("%w: Get was given a nil client", ErrInvalidOption)
	case len(ops) == 0:
		return ErrEmpty
	case len(ops) > DefaultMaxItems:
		return fmt.Errorf("%w: %d reads, the limit is %d", ErrTooManyItems, len(ops), DefaultMaxItems)
	}
	in := &dynamodb.TransactGetItemsInput{TransactItems: make([]types.TransactGetItem, len(ops))}
	seen := map[string]int{}
	for i, op := range ops {
		if op.Err != nil {
			return fmt.Errorf("txn: read %d: %w", i, op.Err)
		}
		id := attrs.ItemID(aws.ToString(op.Get.TableName), op.Get.Key)
		if j, dup := seen[id]; dup {
			return fmt.Errorf("%w: reads %d and %d", ErrDuplicateItem, j, i)
		}
		seen[id] = i
		g := op.Get
		in.TransactItems[i] = types.TransactGetItem{Get: &g}
	}
	get := func(ctx context.Context) ([]map[string]types.AttributeValue, error) {
		for attempt := 1; ; attempt++ {
			out, err := c.TransactGetItems(ctx, in)
			if err == nil {
				items := make([]map[string]types.AttributeValue, len(ops))
				for i := range ops {
					if i < len(out.Responses) && len(out.Responses[i].Item) > 0 {
						items[i] = out.Responses[i].Item
					}
				}
				return items, nil
			}
			var tce *types.TransactionCanceledException
			if !errors.As(err, &tce) || !retryable(tce) || !defaultPolicy.More(attempt) {
				return nil, err
			}
			if err := defaultPolicy.Wait(ctx, attempt); err != nil {
				return nil, fmt.Errorf("%w (last: %v)", err, tce)
			}
		}
	}
	// Items held by units of work (package unit) are shown in their last
	// committed state, and the snapshot is one the database held.
	items, err := unitproto.Snapshot(ctx, get, unitproto.TransactReader(c), unitproto.ViaTransactions(c),
		func(i int) (string, map[string]types.AttributeValue) {
			return aws.ToString(ops[i].Get.TableName), ops[i].Get.Key
		})
	if err != nil {
		return fmt.Errorf("txn: TransactGetItems: %w", err)
	}
	for i, op := range ops {
		if err := op.Found(items[i]); err != nil {
			return fmt.Errorf("txn: read %d: %w", i, err)
		}
	}
	return nil
}
