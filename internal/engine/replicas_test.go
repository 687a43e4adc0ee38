package engine_test

import (
	"context"
	"errors"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/optimist-dynamo/optimist/internal/engine"
)

// TestReplicas: UpdateTable's ReplicaUpdates make a table global, as on
// DynamoDB (version 2019.11.21): DescribeTable then shows the other
// Regions, the global table version and the consistency mode, which can be
// chosen only with the first replicas.
func TestReplicas(t *testing.T) {
	ctx := context.Background()
	c := client(engine.New())
	name := aws.String("global1")
	_, err := c.CreateTable(ctx, &dynamodb.CreateTableInput{
		TableName:            name,
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS}},
		KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}},
		BillingMode:          types.BillingModePayPerRequest,
	})
	require.NoError(t, err)
	describe := func() *types.TableDescription {
		out, err := c.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: name})
		require.NoError(t, err)
		return out.Table
	}
	d := describe()
	assert.Empty(t, d.Replicas)
	assert.Nil(t, d.GlobalTableVersion)
	assert.Empty(t, d.MultiRegionConsistency)

	update := func(consistency types.MultiRegionConsistency, ups ...types.ReplicationGroupUpdate) error {
		_, err := c.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: name, ReplicaUpdates: ups, MultiRegionConsistency: consistency})
		return err
	}
	create := func(r string) types.ReplicationGroupUpdate {
		return types.ReplicationGroupUpdate{Create: &types.CreateReplicationGroupMemberAction{RegionName: aws.String(r)}}
	}
	del := func(r string) types.ReplicationGroupUpdate {
		return types.ReplicationGroupUpdate{Delete: &types.DeleteReplicationGroupMemberAction{RegionName: aws.String(r)}}
	}
	var ve interface{ ErrorCode() string }
	for _, bad := range []struct {
		name        string
		consistency types.MultiRegionConsistency
		ups         []types.ReplicationGroupUpdate
	}{
		{"own region", "", []types.ReplicationGroupUpdate{create("us-east-1")}},
		{"twice", "", []types.ReplicationGroupUpdate{create("us-west-2"), create("us-west-2")}},
		{"delete a stranger", "", []types.ReplicationGroupUpdate{del("eu-west-1")}},
		{"consistency alone", types.MultiRegionConsistencyStrong, nil},
		{"unknown consistency", "SOMETIMES", []types.ReplicationGroupUpdate{create("us-west-2")}},
	} {
		err := update(bad.consistency, bad.ups...)
		if assert.ErrorAs(t, err, &ve, bad.name) {
			assert.Equal(t, "ValidationException", ve.ErrorCode(), bad.name)
		}
	}
	assert.Empty(t, describe().Replicas, "a refused update changes nothing")

	require.NoError(t, update(types.MultiRegionConsistencyStrong, create("us-east-2"), create("us-west-2")))
	d = describe()
	assert.Equal(t, "2019.11.21", aws.ToString(d.GlobalTableVersion))
	assert.Equal(t, types.MultiRegionConsistencyStrong, d.MultiRegionConsistency)
	var regions []string
	for _, r := range d.Replicas {
		regions = append(regions, aws.ToString(r.RegionName))
		assert.Equal(t, types.ReplicaStatusActive, r.ReplicaStatus)
	}
	assert.Equal(t, []string{"us-east-2", "us-west-2"}, regions)
	assert.Error(t, update(types.MultiRegionConsistencyEventual, create("eu-west-1")), "the mode is chosen once")

	require.NoError(t, update("", del("us-east-2"), del("us-west-2")))
	d = describe()
	assert.Empty(t, d.Replicas)
	assert.Empty(t, d.MultiRegionConsistency)

	require.NoError(t, update("", create("eu-west-1")))
	assert.Equal(t, types.MultiRegionConsistencyEventual, describe().MultiRegionConsistency, "EVENTUAL by default")
}

// TestReplicatedWriteConflictFault: the fault answers the SDK's
// ReplicatedWriteConflictException and changes nothing.
func TestReplicatedWriteConflictFault(t *testing.T) {
	ctx := context.Background()
	faults := &engine.Faults{}
	e := engine.New(func(o *engine.Options) { o.Faults = faults })
	c := client(e)
	name := aws.String("global2")
	_, err := c.CreateTable(ctx, &dynamodb.CreateTableInput{
		TableName:            name,
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS}},
		KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}},
		BillingMode:          types.BillingModePayPerRequest,
	})
	require.NoError(t, err)
	faults.Add(engine.Rule{Op: "PutItem", Fault: engine.FaultReplicatedWriteConflict, Times: 1})
	item := map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: "a"}}
	_, err = c.PutItem(ctx, &dynamodb.PutItemInput{TableName: name, Item: item})
	var rw *types.ReplicatedWriteConflictException
	require.True(t, errors.As(err, &rw), "got %v", err)
	out, err := c.GetItem(ctx, &dynamodb.GetItemInput{TableName: name, Key: item})
	require.NoError(t, err)
	assert.Nil(t, out.Item, "nothing changed")
	assert.Equal(t, 1, faults.Count(engine.FaultReplicatedWriteConflict))
}
