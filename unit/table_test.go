package unit_test

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
	"github.com/optimist-dynamo/optimist/internal/unitproto"
	"github.com/optimist-dynamo/optimist/mapper"
	"github.com/optimist-dynamo/optimist/unit"
)

func ttlOf(t *testing.T, c *dynamodb.Client, table string) (string, types.TimeToLiveStatus) {
	t.Helper()
	out, err := c.DescribeTimeToLive(context.Background(), &dynamodb.DescribeTimeToLiveInput{TableName: aws.String(table)})
	require.NoError(t, err)
	if out.TimeToLiveDescription == nil {
		return "", types.TimeToLiveStatusDisabled
	}
	return aws.ToString(out.TimeToLiveDescription.AttributeName), out.TimeToLiveDescription.TimeToLiveStatus
}

func TestCreateTable(t *testing.T) {
	c := dynamolocal.New(t).Client()
	ctx := context.Background()

	// A new coordinator table: hash key id (S), TTL on ttl; created again,
	// it is accepted.
	name := ddbtest.TableName(t)
	require.NoError(t, unit.CreateTable(ctx, c, name))
	ddbtest.DeleteAtCleanup(t, c, name)
	out, err := c.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(name)})
	require.NoError(t, err)
	require.Len(t, out.Table.KeySchema, 1)
	assert.Equal(t, unitproto.RecID, aws.ToString(out.Table.KeySchema[0].AttributeName))
	assert.Equal(t, types.ScalarAttributeTypeS, out.Table.AttributeDefinitions[0].AttributeType)
	assert.Equal(t, types.BillingModePayPerRequest, out.Table.BillingModeSummary.BillingMode)
	attr, status := ttlOf(t, c, name)
	assert.Equal(t, unitproto.RecTTL, attr)
	assert.Equal(t, types.TimeToLiveStatusEnabled, status)
	require.NoError(t, unit.CreateTable(ctx, c, name), "an existing table is not an error")

	// An existing table with the key but TTL off gets TTL on.
	bare := ddbtest.CreateTable(t, c, unitproto.RecID, types.ScalarAttributeTypeS, "", "")
	_, status = ttlOf(t, c, bare)
	require.Equal(t, types.TimeToLiveStatusDisabled, status)
	require.NoError(t, unit.CreateTable(ctx, c, bare))
	attr, status = ttlOf(t, c, bare)
	assert.Equal(t, unitproto.RecTTL, attr)
	assert.Equal(t, types.TimeToLiveStatusEnabled, status)

	// An existing table with another key is refused, not taken as a
	// coordinator table.
	other := ddbtest.CreateTable(t, c, "pk", types.ScalarAttributeTypeS, "sk", types.ScalarAttributeTypeS)
	err = unit.CreateTable(ctx, c, other)
	require.ErrorIs(t, err, mapper.ErrSchemaMismatch)
	assert.ErrorContains(t, err, "hash key (field ID): want id (S), table has pk (S)")
}
