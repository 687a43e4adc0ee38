package mapper_test

import (
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/optimist-dynamo/optimist/mapper"
	"github.com/optimist-dynamo/optimist/txn"
	"github.com/optimist-dynamo/optimist/update"
)

// TestUpdateOfAGoName: an update path that begins with the Go name of a
// field stored under another attribute (N, stored as "n") is refused before
// sending with update.ErrInvalidPath, naming the attribute; Outside writes
// such an attribute on purpose.
func TestUpdateOfAGoName(t *testing.T) {
	f := newFixture(t)
	ctx, tb := f.Ctx, f.Table
	require.NoError(t, tb.Put(ctx, &Counter{ID: "a", N: 1}))
	f.Calls.Reset()
	_, err := tb.Update(ctx, Counter{ID: "a"}, update.Add("N", 1))
	require.ErrorIs(t, err, update.ErrInvalidPath)
	require.ErrorIs(t, err, mapper.ErrInvalidOption)
	assert.Contains(t, err.Error(), `stored as "n"`)
	assert.Contains(t, err.Error(), "Outside")
	err = txn.New(f.Calls).Add(tb.UpdateOp(Counter{ID: "a"}, update.Set("Status", "x")))
	require.ErrorIs(t, err, update.ErrInvalidPath)
	assert.Zero(t, f.Calls.Total(), "nothing was sent")

	got, err := tb.Update(ctx, Counter{ID: "a"}, update.Add("n", 1))
	require.NoError(t, err)
	assert.Equal(t, 2, got.N)
	_, err = tb.Update(ctx, Counter{ID: "a"}, update.Add("N", 5), mapper.Outside("N"))
	require.NoError(t, err)
	item := f.Stored(t, "a")
	assert.Equal(t, &types.AttributeValueMemberN{Value: "5"}, item["N"], "the attribute N, outside the struct")
	assert.Equal(t, &types.AttributeValueMemberN{Value: "2"}, item["n"])
}
