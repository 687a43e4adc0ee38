package unit_test

import (
	"context"
	"testing"
	"testing/synctest"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/optimist-dynamo/optimist/dynamolocal"
	"github.com/optimist-dynamo/optimist/internal/ddbtest"
	"github.com/optimist-dynamo/optimist/mapper"
	"github.com/optimist-dynamo/optimist/unit"
)

type listed struct {
	ID      string `dynamo:"id,hash"`
	N       int64  `dynamo:"n"`
	Version int64  `dynamo:"v,version"`
}

func listInfos(t *testing.T, c unit.Client, coord string) map[string]*unit.Info {
	t.Helper()
	got := map[string]*unit.Info{}
	for info, err := range unit.List(context.Background(), c, coord) {
		require.NoError(t, err)
		got[info.ID] = info
	}
	return got
}

// TestList runs in a testing/synctest bubble on an engine of its own: the
// live unit's heartbeats come in virtual time.
func TestList(t *testing.T) { synctest.Test(t, testList) }

func testList(t *testing.T) {
	srv := dynamolocal.NewEngine(t, dynamolocal.WithoutListener())
	c := srv.Client()
	ctx := context.Background()
	coord := ddbtest.TableName(t) + "-coord"
	require.NoError(t, unit.CreateTable(ctx, c, coord))
	ddbtest.DeleteAtCleanup(t, c, coord)
	items, err := mapper.NewTable[listed](c, ddbtest.CreateTable(t, c, "id", types.ScalarAttributeTypeS, "", ""))
	require.NoError(t, err)

	before := time.Now()
	active, err := unit.Begin(ctx, c, unit.Coordinator(coord), unit.Owner("alive"), unit.LeaseDuration(time.Second), unit.Heartbeat(100*time.Millisecond))
	require.NoError(t, err)
	t.Cleanup(func() { _ = active.Rollback(context.Background()) }) // its heartbeats end before the bubble can
	committed, err := unit.Begin(ctx, c, unit.Coordinator(coord), unit.Owner("done"))
	require.NoError(t, err)
	require.NoError(t, committed.Add(items.PutOp(&listed{ID: "a", N: 1}), items.PutOp(&listed{ID: "b", N: 2})))
	require.NoError(t, committed.Commit(ctx))
	_, err = unit.Get(ctx, active, items, listed{ID: "b"}) // a locking read: a page of its item list
	require.NoError(t, err)
	aborted, err := unit.Begin(ctx, c, unit.Coordinator(coord), unit.Owner("undone"))
	require.NoError(t, err)
	_, err = unit.Get(ctx, aborted, items, listed{ID: "a"})
	require.NoError(t, err)
	require.NoError(t, aborted.Rollback(ctx))
	after := time.Now()

	out, err := c.Scan(ctx, &dynamodb.ScanInput{TableName: aws.String(coord), ConsistentRead: aws.Bool(true)})
	require.NoError(t, err)
	require.Greater(t, len(out.Items), 3, "the active unit's item-list page is in the table too")

	calls := ddbtest.NewCounting(c)
	got := listInfos(t, calls, coord)
	assert.Equal(t, calls.Count("Scan")+calls.Count("DescribeTable"), calls.Total(), "a DescribeTable and Scans only: read-only")
	assert.Equal(t, int64(1), calls.Count("DescribeTable"), "the table is checked to be a coordinator table")
	require.Len(t, got, 3, "the units, not their pages")
	a, d, u := got[active.ID()], got[committed.ID()], got[aborted.ID()]
	require.NotNil(t, a)
	require.NotNil(t, d)
	require.NotNil(t, u)
	assert.Equal(t, "alive", a.Owner)
	assert.Equal(t, unit.StateActive, a.State)
	assert.False(t, a.Finished)
	assert.Equal(t, time.Second, a.Lease)
	assert.False(t, a.Started.Before(before.Truncate(time.Millisecond)) || a.Started.After(after), "started %v, between %v and %v", a.Started, before, after)
	assert.Equal(t, "done", d.Owner)
	assert.Equal(t, unit.StateCommitted, d.State)
	assert.True(t, d.Finished)
	assert.Equal(t, unit.DefaultLeaseDuration, d.Lease)
	assert.Equal(t, "undone", u.Owner)
	assert.Equal(t, unit.StateAborted, u.State)
	assert.True(t, u.Finished)

	// A live unit's heartbeat counter moves.
	time.Sleep(250 * time.Millisecond) // two heartbeats
	assert.Greater(t, listInfos(t, c, coord)[active.ID()].Beat, a.Beat)
	require.NoError(t, active.Rollback(ctx))
	assert.Equal(t, unit.StateAborted, listInfos(t, c, coord)[active.ID()].State)

	for _, err := range unit.List(ctx, c, "") {
		assert.ErrorIs(t, err, unit.ErrInvalidOption)
	}
	for _, err := range unit.List(ctx, c, "no-such-table") {
		var nf *types.ResourceNotFoundException
		assert.ErrorAs(t, err, &nf)
	}
}

func TestOptionsStruct(t *testing.T) {
	ctx := context.Background()
	// An option of the caller's own sets the exported fields; they are
	// checked all the same, before anything is sent.
	calls := &ddbtest.CountingClient{}
	_, err := unit.Begin(ctx, calls, unit.Coordinator("c"), func(o *unit.Options) { o.LeaseDuration = -time.Second })
	assert.ErrorIs(t, err, unit.ErrInvalidOption)
	_, err = unit.Begin(ctx, calls, func(o *unit.Options) { o.Coordinator = "" })
	assert.ErrorIs(t, err, unit.ErrInvalidOption)
	_, err = unit.Begin(ctx, calls, unit.Coordinator("c"), nil)
	assert.ErrorIs(t, err, unit.ErrInvalidOption)
	assert.Zero(t, calls.Total())
}
