package pessimistic_test

import (
	"context"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/optimist-dynamo/optimist/dynamolocal"
	"github.com/optimist-dynamo/optimist/internal/ddbtest"
	"github.com/optimist-dynamo/optimist/pessimistic"
)

// TestGlobalLockTable: a lock table that is a global table in multi-Region
// eventual consistency is refused by the Locker's first call (two Regions
// could each grant the lock), with no lock written, unless the one write
// Region is named; in strong consistency it is a lock table like any other.
func TestGlobalLockTable(t *testing.T) {
	ctx := context.Background()
	srv := dynamolocal.NewEngine(t)
	raw := srv.Client()
	global := func(consistency types.MultiRegionConsistency, regions ...string) string {
		name := ddbtest.TableName(t)
		require.NoError(t, pessimistic.CreateTable(ctx, raw, name))
		ddbtest.MakeGlobal(t, raw, name, consistency, regions...)
		return name
	}
	eventual := global("", "eu-west-1")
	l, err := pessimistic.New(raw, eventual)
	require.NoError(t, err)
	_, err = l.Acquire(ctx, "job", pessimistic.Wait(0))
	require.ErrorIs(t, err, pessimistic.ErrGlobalTable)
	assert.ErrorIs(t, l.Check(ctx), pessimistic.ErrGlobalTable)
	out, err := raw.Scan(ctx, &dynamodb.ScanInput{TableName: aws.String(eventual)})
	require.NoError(t, err)
	assert.Zero(t, out.Count, "no lock was written")

	home, err := pessimistic.New(raw, eventual, pessimistic.WriteRegion(raw.Options().Region))
	require.NoError(t, err)
	lease, err := home.Acquire(ctx, "job", pessimistic.Wait(0))
	require.NoError(t, err)
	require.NoError(t, lease.Release(ctx))

	strong, err := pessimistic.New(raw, global(types.MultiRegionConsistencyStrong, "us-east-2", "us-west-2"))
	require.NoError(t, err)
	lease, err = strong.Acquire(ctx, "job", pessimistic.Wait(0))
	require.NoError(t, err)
	require.NoError(t, lease.Release(ctx))
}
