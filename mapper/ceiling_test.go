package mapper_test

import (
	"context"
	"fmt"
	"math"
	"strconv"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/optimist-dynamo/optimist/dynamolocal"
	"github.com/optimist-dynamo/optimist/internal/ddbtest"
	"github.com/optimist-dynamo/optimist/mapper"
	"github.com/optimist-dynamo/optimist/txn"
	"github.com/optimist-dynamo/optimist/update"
	"github.com/optimist-dynamo/optimist/version"
)

type verItem[V int8 | int16 | int32 | int64 | int | uint8 | uint16 | uint32 | uint64 | uint] struct {
	ID      string `dynamo:"id,hash"`
	N       int    `dynamo:"n"`
	Version V      `dynamo:"v,version"`
}

// TestVersionCeilings: for every integer type a version field may have, no
// write stores a version beyond the field's range (int64's maximum for
// the 64-bit unsigned types too): at the ceiling an Update, checked or
// not, a Put, Save, Modify and an unchecked UpdateOp are refused with
// ErrInvalidItem and nothing is written; one below, the write stores the
// ceiling, which reads back.
func TestVersionCeilings(t *testing.T) {
	srv := dynamolocal.New(t)
	raw := srv.Client()
	name := ddbtest.CreateTable(t, raw, "id", types.ScalarAttributeTypeS, "", "")
	ceilings(t, raw, name, int8(math.MaxInt8))
	ceilings(t, raw, name, int16(math.MaxInt16))
	ceilings(t, raw, name, int32(math.MaxInt32))
	ceilings(t, raw, name, int64(math.MaxInt64))
	ceilings(t, raw, name, int(math.MaxInt))
	ceilings(t, raw, name, uint8(math.MaxUint8))
	ceilings(t, raw, name, uint16(math.MaxUint16))
	ceilings(t, raw, name, uint32(math.MaxUint32))
	ceilings(t, raw, name, uint64(math.MaxInt64))
	ceilings(t, raw, name, uint(math.MaxInt64))

	// A uint64 version beyond int64's maximum is refused before sending.
	tb, err := mapper.NewTable[verItem[uint64]](raw, name)
	require.NoError(t, err)
	err = tb.Put(context.Background(), &verItem[uint64]{ID: "big", Version: math.MaxInt64 + 1})
	require.ErrorIs(t, err, mapper.ErrInvalidItem)
	assert.Contains(t, err.Error(), "out of range")
}

func ceilings[V int8 | int16 | int32 | int64 | int | uint8 | uint16 | uint32 | uint64 | uint](t *testing.T, raw *dynamodb.Client, name string, ceiling V) {
	ctx := context.Background()
	id := fmt.Sprintf("%T", ceiling)
	tb, err := mapper.NewTable[verItem[V]](raw, name)
	require.NoError(t, err)
	store := func(v V) {
		_, err := raw.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(name), Item: map[string]types.AttributeValue{
			"id": &types.AttributeValueMemberS{Value: id}, "n": &types.AttributeValueMemberN{Value: "1"},
			"v": &types.AttributeValueMemberN{Value: strconv.FormatUint(uint64(v), 10)},
		}})
		require.NoError(t, err)
	}
	key := verItem[V]{ID: id}
	store(ceiling)
	refusals := map[string]error{
		"unchecked Update": func() error { _, err := tb.Update(ctx, key, update.Add("n", 1)); return err }(),
		"checked Update": func() error {
			_, err := tb.Update(ctx, verItem[V]{ID: id, Version: ceiling}, update.Add("n", 1))
			return err
		}(),
		"Put":  tb.Put(ctx, &verItem[V]{ID: id, Version: ceiling}),
		"Save": tb.Save(ctx, &verItem[V]{ID: id, Version: ceiling}),
		"Modify": func() error {
			_, err := tb.Modify(ctx, key, func(v *verItem[V]) error { v.N++; return nil })
			return err
		}(),
		"unchecked UpdateOp": func() error {
			tx := txn.New(raw)
			require.NoError(t, tx.Add(tb.UpdateOp(key, update.Add("n", 1))))
			err := tx.Commit(ctx)
			var ce *txn.CanceledError
			if assert.ErrorAs(t, err, &ce, id) {
				assert.True(t, ce.Reasons[0].AtCeiling, id)
			}
			return err
		}(),
	}
	for what, err := range refusals {
		assert.ErrorIs(t, err, mapper.ErrInvalidItem, "%s %s", id, what)
		assert.False(t, version.IsConflict(err), "%s %s", id, what)
	}
	got, err := tb.Get(ctx, key)
	require.NoError(t, err, id)
	assert.Equal(t, verItem[V]{ID: id, N: 1, Version: ceiling}, *got, "%s: nothing was written", id)

	store(ceiling - 1)
	got, err = tb.Update(ctx, key, update.Add("n", 1))
	require.NoError(t, err, id)
	assert.Equal(t, ceiling, got.Version, id)
}
