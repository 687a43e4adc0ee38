package version_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/optimist-dynamo/optimist/version"
)

func TestConflictErrorMatching(t *testing.T) {
	sdkErr := &types.ConditionalCheckFailedException{Message: new(string)}
	ce := &version.ConflictError{Table: "t", Expected: 1, Actual: 2, Err: sdkErr}
	wrapped := fmt.Errorf("saving: %w", ce)

	assert.ErrorIs(t, wrapped, version.ErrConflict)
	assert.True(t, version.IsConflict(wrapped))
	var got *version.ConflictError
	require.ErrorAs(t, wrapped, &got)
	assert.Same(t, ce, got)
	var ccf *types.ConditionalCheckFailedException
	require.ErrorAs(t, wrapped, &ccf, "unwraps to the SDK error")
	assert.Same(t, sdkErr, ccf)

	assert.False(t, version.IsConflict(errors.New("other")))
	assert.False(t, version.IsConflict(nil))
	assert.False(t, errors.Is(ce, errors.New("version: conflict")), "only the sentinel itself matches")
}

// A cancellation error of another package joins the class by answering Is.
type cancellation struct{ conflict bool }

func (c cancellation) Error() string        { return "canceled" }
func (c cancellation) Is(target error) bool { return c.conflict && target == version.ErrConflict }

func TestIsConflictAsksWrappedErrors(t *testing.T) {
	assert.True(t, version.IsConflict(fmt.Errorf("commit: %w", cancellation{conflict: true})))
	assert.False(t, version.IsConflict(cancellation{conflict: false}))
}

func TestConflictErrorMessages(t *testing.T) {
	key := map[string]types.AttributeValue{
		"pk": &types.AttributeValueMemberS{Value: "a"},
		"sk": &types.AttributeValueMemberN{Value: "7"},
	}
	item := map[string]types.AttributeValue{"v": &types.AttributeValueMemberN{Value: "3"}}
	cases := []struct {
		err  version.ConflictError
		want string
	}{
		{version.ConflictError{Table: "t", Key: key, Expected: 2, Actual: 3, Item: item}, `version: conflict on t {pk="a", sk=7}: expected version 2, found 3`},
		{version.ConflictError{Table: "t", Key: key, Expected: 0, Actual: 3, Item: item}, `version: conflict on t {pk="a", sk=7}: expected no item, found version 3`},
		{version.ConflictError{Table: "t", Key: key, Expected: 2}, `version: conflict on t {pk="a", sk=7}: expected version 2, found no item`},
		{version.ConflictError{Expected: 0}, `version: conflict: expected no item`},
		{version.ConflictError{Table: "t", Key: key, Expected: 0, Item: item}, `version: conflict on t {pk="a", sk=7}: expected no item, found version 0`},
		{version.ConflictError{Table: "t", Key: key, Expected: 0, Item: item, ActualMissing: true}, `version: conflict on t {pk="a", sk=7}: expected no item, found an item without a version attribute`},
		{version.ConflictError{Table: "t", Key: key, Expected: 2, Item: item, ActualMissing: true}, `version: conflict on t {pk="a", sk=7}: expected version 2, found an item without a version attribute`},
	}
	for _, tc := range cases {
		assert.Equal(t, tc.want, tc.err.Error())
	}
}

func TestCondition(t *testing.T) {
	for _, tc := range []struct {
		expected int64
		cond     string
		values   map[string]types.AttributeValue
	}{
		{0, "attribute_not_exists (#0)", nil},
		{5, "#0 = :0", map[string]types.AttributeValue{":0": &types.AttributeValueMemberN{Value: "5"}}},
	} {
		expr, err := expression.NewBuilder().WithCondition(version.Condition("ver", tc.expected)).Build()
		require.NoError(t, err)
		assert.Equal(t, tc.cond, *expr.Condition())
		assert.Equal(t, map[string]string{"#0": "ver"}, expr.Names())
		assert.Equal(t, tc.values, expr.Values())
	}
}
