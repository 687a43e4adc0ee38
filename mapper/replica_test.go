package mapper_test

import (
	"context"
	"errors"
	"math"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/optimist-dynamo/optimist/dynamolocal"
	"github.com/optimist-dynamo/optimist/internal/ddbtest"
	"github.com/optimist-dynamo/optimist/mapper"
	"github.com/optimist-dynamo/optimist/update"
	"github.com/optimist-dynamo/optimist/version"
)

// TestGlobalTableGuard: on an eventually consistent global table a
// versioned write is refused before anything is sent, once DescribeTable
// (asked once) says so; naming the one write Region lets the writes of a
// client in it through, and refuses a client elsewhere; a strongly
// consistent global table and a single-Region table pass; a write with no
// condition passes everywhere.
func TestGlobalTableGuard(t *testing.T) {
	ctx := context.Background()
	srv := dynamolocal.NewEngine(t)
	raw := srv.Client()
	region := raw.Options().Region
	eventual := ddbtest.CreateTable(t, raw, "id", types.ScalarAttributeTypeS, "", "")
	ddbtest.MakeGlobal(t, raw, eventual, "", "eu-west-1")
	strong := ddbtest.CreateTable(t, raw, "id", types.ScalarAttributeTypeS, "", "")
	ddbtest.MakeGlobal(t, raw, strong, types.MultiRegionConsistencyStrong, "us-east-2", "us-west-2")
	single := ddbtest.CreateTable(t, raw, "id", types.ScalarAttributeTypeS, "", "")

	counted := ddbtest.NewCounting(raw)
	counters, err := mapper.NewTable[Counter](counted, eventual)
	require.NoError(t, err)
	for range 3 {
		err = counters.Put(ctx, &Counter{ID: "a", N: 1})
		require.ErrorIs(t, err, mapper.ErrGlobalTable)
		assert.False(t, version.IsConflict(err))
	}
	assert.Contains(t, err.Error(), "last writer wins")
	assert.Contains(t, err.Error(), "WriteRegion")
	_, err = counters.Modify(ctx, Counter{ID: "a"}, func(c *Counter) error { c.N++; return nil })
	assert.ErrorIs(t, err, mapper.ErrGlobalTable)
	_, err = counters.Update(ctx, Counter{ID: "a"}, update.Add("n", 1))
	assert.ErrorIs(t, err, mapper.ErrGlobalTable)
	assert.ErrorIs(t, counters.Delete(ctx, Counter{ID: "a", Version: 1}), mapper.ErrGlobalTable)
	assert.EqualValues(t, 1, counted.Count("DescribeTable"), "learnt once")
	assert.Zero(t, counted.Count("PutItem")+counted.Count("UpdateItem")+counted.Count("DeleteItem"), "no write was sent")

	// A write that relies on no condition is not refused.
	plain, err := mapper.NewTable[Plain](raw, eventual+"p")
	require.NoError(t, err)
	_ = plain // its table does not exist: what matters is that no check stands in the way
	unversioned, err := mapper.NewTable[struct {
		ID string `dynamo:"id,hash"`
		N  int    `dynamo:"n"`
	}](raw, eventual)
	require.NoError(t, err)
	require.NoError(t, unversioned.Put(ctx, &struct {
		ID string `dynamo:"id,hash"`
		N  int    `dynamo:"n"`
	}{ID: "u", N: 1}))

	// Every write goes to this client's Region: allowed, with no call.
	home, err := mapper.NewTable[Counter](raw, eventual, func(o *mapper.TableOptions) { o.WriteRegion = region })
	require.NoError(t, err)
	require.NoError(t, home.Put(ctx, &Counter{ID: "a", N: 1}))
	away, err := mapper.NewTable[Counter](raw, eventual, func(o *mapper.TableOptions) { o.WriteRegion = "ap-south-1" })
	require.NoError(t, err)
	err = away.Put(ctx, &Counter{ID: "b", N: 1})
	assert.ErrorIs(t, err, mapper.ErrGlobalTable)
	assert.Contains(t, err.Error(), "declared to go to ap-south-1")

	for _, name := range []string{strong, single} {
		tb, err := mapper.NewTable[Counter](raw, name)
		require.NoError(t, err)
		require.NoError(t, tb.Put(ctx, &Counter{ID: "a", N: 1}), name)
		_, err = tb.Modify(ctx, Counter{ID: "a"}, func(c *Counter) error { c.N++; return nil })
		require.NoError(t, err, name)
	}
}

// TestReplicatedWriteConflict: on a strongly consistent global table,
// DynamoDB refuses a write that conflicts with one in another Region with
// ReplicatedWriteConflictException (injected here by the engine): a
// versioned write reports it as a conflict, and Modify retries it.
func TestReplicatedWriteConflict(t *testing.T) {
	ctx := context.Background()
	srv := dynamolocal.NewEngine(t)
	raw := srv.Client()
	name := ddbtest.CreateTable(t, raw, "id", types.ScalarAttributeTypeS, "", "")
	ddbtest.MakeGlobal(t, raw, name, types.MultiRegionConsistencyStrong, "us-east-2", "us-west-2")
	tb, err := mapper.NewTable[Counter](raw, name)
	require.NoError(t, err)
	require.NoError(t, tb.Put(ctx, &Counter{ID: "a", N: 1}))

	remove, err := srv.Inject(dynamolocal.Rule{Op: "PutItem", Table: name, Fault: dynamolocal.FaultReplicatedWriteConflict, Times: 1})
	require.NoError(t, err)
	defer remove()
	err = tb.Put(ctx, &Counter{ID: "a", N: 5, Version: 1})
	require.True(t, version.IsConflict(err), "got %v", err)
	var rw *types.ReplicatedWriteConflictException
	assert.True(t, errors.As(err, &rw), "the SDK error stays reachable")

	_, err = srv.Inject(dynamolocal.Rule{Op: "PutItem", Table: name, Fault: dynamolocal.FaultReplicatedWriteConflict, Times: 2})
	require.NoError(t, err)
	runs := 0
	got, err := tb.Modify(ctx, Counter{ID: "a"}, func(c *Counter) error { runs++; c.N++; return nil })
	require.NoError(t, err)
	assert.Equal(t, 2, got.N)
	assert.Equal(t, 3, runs, "two refusals, then the write")
	assert.Equal(t, 3, srv.Injected(dynamolocal.FaultReplicatedWriteConflict))
}

// Narrow is a versioned item whose version is an int32.
type Narrow struct {
	ID      string `dynamo:"id,hash"`
	N       int    `dynamo:"n"`
	Version int32  `dynamo:"v,version"`
}

// TestVersionOverflow: a version that cannot be incremented in its field's
// type is refused with an error matching ErrInvalidItem, never wrapped,
// and nothing is written.
func TestVersionOverflow(t *testing.T) {
	ctx := context.Background()
	srv := dynamolocal.New(t)
	raw := srv.Client()
	name := ddbtest.CreateTable(t, raw, "id", types.ScalarAttributeTypeS, "", "")
	narrow, err := mapper.NewTable[Narrow](raw, name)
	require.NoError(t, err)
	wide, err := mapper.NewTable[Counter](raw, name)
	require.NoError(t, err)

	// Store the largest versions the types hold.
	_, err = raw.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(name), Item: map[string]types.AttributeValue{
		"id": &types.AttributeValueMemberS{Value: "n"}, "n": &types.AttributeValueMemberN{Value: "1"},
		"v": &types.AttributeValueMemberN{Value: "2147483647"},
	}})
	require.NoError(t, err)

	err = narrow.Put(ctx, &Narrow{ID: "n", N: 2, Version: math.MaxInt32})
	require.ErrorIs(t, err, mapper.ErrInvalidItem)
	assert.Contains(t, err.Error(), "refused rather than wrapped")
	_, err = narrow.Update(ctx, Narrow{ID: "n", Version: math.MaxInt32}, update.Add("n", 1))
	require.ErrorIs(t, err, mapper.ErrInvalidItem)
	_, err = narrow.Modify(ctx, Narrow{ID: "n"}, func(n *Narrow) error { n.N++; return nil })
	require.ErrorIs(t, err, mapper.ErrInvalidItem)
	// An Update with no version check adds 1 only below the ceiling.
	_, err = narrow.Update(ctx, Narrow{ID: "n"}, update.Add("n", 1))
	require.ErrorIs(t, err, mapper.ErrInvalidItem)
	got, err := narrow.Get(ctx, Narrow{ID: "n"})
	require.NoError(t, err)
	assert.Equal(t, Narrow{ID: "n", N: 1, Version: math.MaxInt32}, *got, "nothing was written")

	err = wide.Put(ctx, &Counter{ID: "w", N: 1, Version: math.MaxInt64})
	require.ErrorIs(t, err, mapper.ErrInvalidItem, "int64 does not wrap to a negative version")
	_, err = wide.Update(ctx, Counter{ID: "w", Version: math.MaxInt64}, update.Add("n", 1))
	require.ErrorIs(t, err, mapper.ErrInvalidItem)
}
