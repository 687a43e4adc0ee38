package unit_test

import (
	"context"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/optimist-dynamo/optimist/dynamolocal"
	"github.com/optimist-dynamo/optimist/internal/ddbtest"
	"github.com/optimist-dynamo/optimist/mapper"
	"github.com/optimist-dynamo/optimist/unit"
	"github.com/optimist-dynamo/optimist/update"
)

type replicaAccount struct {
	ID      string `dynamo:"id,hash"`
	Balance int64  `dynamo:"balance"`
	Version int64  `dynamo:"v,version"`
}

// TestUnitOnGlobalTables: a unit refuses to write to a global table in
// multi-Region eventual consistency (the coordinator at Begin, an item's
// table before it is logged or locked), unless the one write Region is
// named.
func TestUnitOnGlobalTables(t *testing.T) {
	ctx := context.Background()
	srv := dynamolocal.NewEngine(t)
	raw := srv.Client()
	replicate := func(name string) { ddbtest.MakeGlobal(t, raw, name, "", "eu-west-1") }
	coord := ddbtest.TableName(t)
	require.NoError(t, unit.CreateTable(ctx, raw, coord))
	accounts := ddbtest.CreateTable(t, raw, "id", types.ScalarAttributeTypeS, "", "")
	table, err := mapper.NewTable[replicaAccount](raw, accounts, func(o *mapper.TableOptions) { o.WriteRegion = raw.Options().Region })
	require.NoError(t, err)
	require.NoError(t, table.Put(ctx, &replicaAccount{ID: "a", Balance: 10}))
	replicate(accounts)

	// The item's table is global: nothing of the unit reaches it.
	u, err := unit.Begin(ctx, raw, unit.Coordinator(coord))
	require.NoError(t, err)
	_, err = unit.Get(ctx, u, table, replicaAccount{ID: "a"})
	require.ErrorIs(t, err, unit.ErrGlobalTable)
	require.NoError(t, u.Add(table.UpdateOp(replicaAccount{ID: "a", Version: 1}, update.Add("balance", 1))))
	require.ErrorIs(t, u.Commit(ctx), unit.ErrGlobalTable)
	got, err := table.Get(ctx, replicaAccount{ID: "a"})
	require.NoError(t, err)
	assert.Equal(t, replicaAccount{ID: "a", Balance: 10, Version: 1}, *got, "untouched, and not locked")

	// Named, the unit goes through.
	u, err = unit.Begin(ctx, raw, unit.Coordinator(coord), unit.WriteRegion(raw.Options().Region))
	require.NoError(t, err)
	require.NoError(t, u.Add(table.UpdateOp(replicaAccount{ID: "a", Version: 1}, update.Add("balance", 1))))
	require.NoError(t, u.Commit(ctx))

	// A global coordinator: Begin is refused. (Whether the coordinator is
	// global is learnt by each unit.)
	globalCoord := ddbtest.TableName(t)
	require.NoError(t, unit.CreateTable(ctx, raw, globalCoord))
	replicate(globalCoord)
	_, err = unit.Begin(ctx, raw, unit.Coordinator(globalCoord))
	require.ErrorIs(t, err, unit.ErrGlobalTable)
}
