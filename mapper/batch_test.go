package mapper

import (
	"context"
	"errors"
	"reflect"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

type batchItem struct {
	PK string  `dynamo:"pk,hash"`
	SK float64 `dynamo:"sk,range"`
	B  []byte  `dynamo:"b"`
}

func TestKeyString(t *testing.T) {
	s, err := schemaOf(reflect.TypeOf(batchItem{}))
	require.NoError(t, err)
	S := func(v string) types.AttributeValue { return &types.AttributeValueMemberS{Value: v} }
	N := func(v string) types.AttributeValue { return &types.AttributeValueMemberN{Value: v} }
	B := func(v string) types.AttributeValue { return &types.AttributeValueMemberB{Value: []byte(v)} }
	key := func(pk, sk types.AttributeValue) map[string]types.AttributeValue {
		return map[string]types.AttributeValue{"pk": pk, "sk": sk, "other": S("ignored")}
	}
	assert.Equal(t, s.keyString(key(S("a"), N("1"))), s.keyString(key(S("a"), N("1.0"))))
	assert.NotEqual(t, s.keyString(key(S("a"), N("1"))), s.keyString(key(S("a"), N("2"))))
	assert.NotEqual(t, s.keyString(key(S("a"), N("1"))), s.keyString(key(S("a"), S("1"))), "types differ")
	assert.NotEqual(t, s.keyString(key(S("a"), N("1"))), s.keyString(key(B("a"), N("1"))), "types differ")
	// Lengths keep the parts apart: ("ab", "c") is not ("a", "bc").
	assert.NotEqual(t, s.keyString(key(S("ab"), S("c"))), s.keyString(key(S("a"), S("bc"))))
	assert.NotEqual(t, s.keyString(key(S("a1:"), N("1"))), s.keyString(key(S("a"), N("1"))))
}

func TestMissingError(t *testing.T) {
	e := &MissingError{Table: "t", Keys: []int{1, 5}}
	assert.Equal(t, "mapper: no item in t for 2 of the keys (keys[1], keys[5])", e.Error())
	assert.ErrorIs(t, e, ErrNotFound)
	long := &MissingError{Table: "t", Keys: []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}}
	assert.Contains(t, long.Error(), "12 of the keys (keys[0], ")
	assert.Contains(t, long.Error(), "keys[9], ...)")

	be := &BatchError{Op: "BatchWriteItem", Table: "t", Pending: []int{3}, Err: context.Canceled}
	assert.ErrorIs(t, be, context.Canceled)
	assert.Equal(t, "mapper: BatchWriteItem on t stopped with 1 items pending: context canceled", be.Error())
}

// TestBatchLoop drives the retry loop with calls that leave items
// unprocessed, as DynamoDB does under throttling.
func TestBatchLoop(t *testing.T) {
	tb, err := NewTable[batchItem](nopClient{}, "t", func(o *TableOptions) {
		o.MaxAttempts, o.BackoffBase, o.BackoffMax = 3, time.Millisecond, 2*time.Millisecond
	})
	require.NoError(t, err)
	ctx := context.Background()

	t.Run("chunks, and unprocessed items first in the next call", func(t *testing.T) {
		var sent [][]int
		pending, err := tb.batch(ctx, "BatchWriteItem", 7, 3, func(batch []int) ([]int, error) {
			sent = append(sent, append([]int(nil), batch...))
			if len(sent) == 1 {
				return []int{2}, nil // the last of the first call
			}
			return nil, nil
		})
		require.NoError(t, err)
		assert.Nil(t, pending)
		assert.Equal(t, [][]int{{0, 1, 2}, {2, 3, 4}, {5, 6}}, sent)
	})

	t.Run("progress resets the count of stalled calls", func(t *testing.T) {
		calls := 0
		// Every call processes exactly one item: slow, but never stalled.
		_, err := tb.batch(ctx, "BatchWriteItem", 10, 10, func(batch []int) ([]int, error) {
			calls++
			return append([]int(nil), batch[1:]...), nil
		})
		require.NoError(t, err)
		assert.Equal(t, 10, calls)
	})

	t.Run("gives up after MaxAttempts calls that processed nothing", func(t *testing.T) {
		calls := 0
		pending, err := tb.batch(ctx, "BatchWriteItem", 5, 3, func(batch []int) ([]int, error) {
			calls++
			if calls == 1 {
				return nil, nil // 0, 1, 2 done
			}
			return append([]int(nil), batch...), nil
		})
		require.ErrorIs(t, err, ErrUnprocessed)
		assert.Equal(t, 4, calls, "one that worked, then 3 stalled")
		assert.ElementsMatch(t, []int{3, 4}, pending)
	})

	t.Run("a failed call stops it", func(t *testing.T) {
		boom := errors.New("boom")
		pending, err := tb.batch(ctx, "BatchWriteItem", 5, 2, func(batch []int) ([]int, error) {
			if batch[0] == 2 {
				return nil, boom
			}
			return nil, nil
		})
		require.ErrorIs(t, err, boom)
		assert.Equal(t, []int{2, 3, 4}, pending, "the failed call's items are pending")
	})

	t.Run("ctx ends during the backoff", func(t *testing.T) {
		slow, err := NewTable[batchItem](nopClient{}, "t", func(o *TableOptions) {
			o.BackoffBase, o.BackoffMax = time.Hour, time.Hour
		})
		require.NoError(t, err)
		ctx, cancel := context.WithTimeout(ctx, 20*time.Millisecond)
		defer cancel()
		pending, err := slow.batch(ctx, "BatchWriteItem", 2, 2, func(batch []int) ([]int, error) {
			return batch[1:], nil
		})
		require.ErrorIs(t, err, context.DeadlineExceeded)
		assert.Equal(t, []int{1}, pending)
	})
}
