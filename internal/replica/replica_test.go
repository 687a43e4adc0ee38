package replica_test

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/optimist-dynamo/optimist/dynamolocal"
	"github.com/optimist-dynamo/optimist/internal/ddbtest"
	"github.com/optimist-dynamo/optimist/internal/replica"
)

// counting counts DescribeTable calls.
type counting struct {
	*dynamodb.Client
	n atomic.Int64
}

func (c *counting) DescribeTable(ctx context.Context, in *dynamodb.DescribeTableInput, o ...func(*dynamodb.Options)) (*dynamodb.DescribeTableOutput, error) {
	c.n.Add(1)
	return c.Client.DescribeTable(ctx, in, o...)
}

// TestGuard: on tables the engine describes as DynamoDB does, the guard
// passes a single-Region table and a strongly consistent global table,
// and refuses an eventually consistent one, unless a home Region is named
// and the client is in it. It asks DescribeTable once.
func TestGuard(t *testing.T) {
	ctx := context.Background()
	srv := dynamolocal.NewEngine(t)
	raw := srv.Client()
	region := raw.Options().Region
	single := ddbtest.CreateTable(t, raw, "pk", types.ScalarAttributeTypeS, "", "")
	eventual := ddbtest.CreateTable(t, raw, "pk", types.ScalarAttributeTypeS, "", "")
	ddbtest.MakeGlobal(t, raw, eventual, "", "eu-west-1")
	strong := ddbtest.CreateTable(t, raw, "pk", types.ScalarAttributeTypeS, "", "")
	ddbtest.MakeGlobal(t, raw, strong, types.MultiRegionConsistencyStrong, "us-east-2", "us-west-2")

	for _, c := range []struct {
		table, home string
		mode        replica.Mode
		refused     bool
	}{
		{single, "", replica.Single, false},
		{strong, "", replica.Strong, false},
		{eventual, "", replica.Eventual, true},
	} {
		cc := &counting{Client: raw}
		g := replica.NewGuard(c.table, c.home)
		var wg sync.WaitGroup
		var refused atomic.Int64
		for range 8 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if err := g.Check(ctx, cc); err != nil {
					assert.ErrorIs(t, err, replica.ErrUnsafe)
					refused.Add(1)
				}
			}()
		}
		wg.Wait()
		assert.EqualValues(t, 1, cc.n.Load(), "%s: one DescribeTable", c.table)
		if c.refused {
			assert.EqualValues(t, 8, refused.Load(), c.table)
		} else {
			assert.Zero(t, refused.Load(), c.table)
		}
		info, learned := g.Info()
		assert.True(t, learned)
		assert.Equal(t, c.mode, info.Mode, c.table)
	}

	err := replica.NewGuard(eventual, "").Check(ctx, raw)
	var re *replica.Error
	require.ErrorAs(t, err, &re)
	assert.Equal(t, []string{"eu-west-1"}, re.Info.Regions)
	assert.Contains(t, err.Error(), "last writer wins")
	assert.Contains(t, err.Error(), "WriteRegion")

	// A home Region: no call; a client in another Region is refused.
	cc := &counting{Client: raw}
	assert.NoError(t, replica.NewGuard(eventual, region).Check(ctx, cc))
	err = replica.NewGuard(eventual, "ap-south-1").Check(ctx, cc)
	assert.ErrorIs(t, err, replica.ErrUnsafe)
	assert.Contains(t, err.Error(), "declared to go to ap-south-1")
	assert.Zero(t, cc.n.Load())
}

// denied answers DescribeTable as IAM does without the permission (a
// fake: it proves only how the guard words the refusal).
type denied struct{ n int }

func (d *denied) DescribeTable(context.Context, *dynamodb.DescribeTableInput, ...func(*dynamodb.Options)) (*dynamodb.DescribeTableOutput, error) {
	d.n++
	return nil, &smithy.GenericAPIError{Code: "AccessDeniedException", Message: "not authorized"}
}

func TestGuardWithoutDescribeTable(t *testing.T) {
	ctx := context.Background()
	d := &denied{}
	g := replica.NewGuard("t1", "")
	err := g.Check(ctx, d)
	assert.ErrorIs(t, err, replica.ErrUnsafe)
	assert.Contains(t, err.Error(), "grant dynamodb:DescribeTable")
	var ae smithy.APIError
	assert.True(t, errors.As(err, &ae), "DescribeTable's error is wrapped")
	assert.Error(t, g.Check(ctx, d))
	assert.Equal(t, 2, d.n, "a failure is asked again")
	// A missing table passes: the write itself will say so.
	srv := dynamolocal.NewEngine(t)
	assert.NoError(t, replica.NewGuard("no-such-table", "").Check(ctx, srv.Client()))
	// A client with no DescribeTable at all cannot be checked and passes.
	assert.NoError(t, replica.NewGuard("t1", "").Check(ctx, struct{}{}))
}

func TestIsReplicatedWriteConflict(t *testing.T) {
	assert.True(t, replica.IsReplicatedWriteConflict(&types.ReplicatedWriteConflictException{}))
	assert.True(t, replica.IsReplicatedWriteConflict(&smithy.GenericAPIError{Code: "ReplicatedWriteConflictException"}))
	assert.False(t, replica.IsReplicatedWriteConflict(&types.ConditionalCheckFailedException{}))
	assert.False(t, replica.IsReplicatedWriteConflict(nil))
}
