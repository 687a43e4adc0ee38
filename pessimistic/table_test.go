package pessimistic_test

import (
	"context"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/optimist-dynamo/optimist/dynamolocal"
	"github.com/optimist-dynamo/optimist/internal/ddbtest"
	"github.com/optimist-dynamo/optimist/pessimistic"
)

// Check checks the table with the comparison CreateTable makes, and names
// each difference.
func TestNewNamesEachSchemaDifference(t *testing.T) {
	c := dynamolocal.New(t).Client()
	numbered := ddbtest.CreateTable(t, c, "pk", types.ScalarAttributeTypeS, "sk", types.ScalarAttributeTypeN)
	l, err := pessimistic.New(c, numbered)
	require.NoError(t, err)
	err = l.Check(context.Background())
	require.ErrorIs(t, err, pessimistic.ErrSchemaMismatch)
	assert.ErrorContains(t, err, "range key: want sk (S), table has sk (N)")
	assert.NotContains(t, err.Error(), "hash key: want", "the hash key matches")

	other := ddbtest.CreateTable(t, c, "id", types.ScalarAttributeTypeB, "", "")
	l, err = pessimistic.New(c, other)
	require.NoError(t, err)
	err = l.Check(context.Background())
	require.ErrorIs(t, err, pessimistic.ErrSchemaMismatch)
	assert.ErrorContains(t, err, "hash key: want pk (S), table has id (B); range key: want sk (S), table has none")
	assert.ErrorContains(t, err, "a lock table needs pk (S) as hash key and sk (S) as range key")
}
