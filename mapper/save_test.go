package mapper_test

import (
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/optimist-dynamo/optimist/internal/ddbtest"
	"github.com/optimist-dynamo/optimist/mapper"
	"github.com/optimist-dynamo/optimist/update"
)

// TestSaveKeepsForeignAttributes: Save writes the struct's attributes in
// place, with Put's version semantics, and leaves the others alone.
func TestSaveKeepsForeignAttributes(t *testing.T) {
	f := newFixture(t)
	c := &Counter{ID: "a", N: 1, Status: "open"}
	require.NoError(t, f.Table.Save(f.Ctx, c))
	assert.Equal(t, int64(1), c.Version, "version 0 creates")
	_, err := f.Raw.UpdateItem(f.Ctx, &dynamodb.UpdateItemInput{TableName: aws.String(f.Name),
		Key:              map[string]types.AttributeValue{"id": &types.AttributeValueMemberS{Value: "a"}},
		UpdateExpression: aws.String("SET audit = :o"), ExpressionAttributeValues: map[string]types.AttributeValue{":o": &types.AttributeValueMemberS{Value: "theirs"}}})
	require.NoError(t, err)

	c.N, c.Status = 2, "" // Status is omitempty: Save removes it
	require.NoError(t, f.Table.Save(f.Ctx, c, mapper.Also(update.Add("saves", 1))))
	assert.Equal(t, int64(2), c.Version)
	item := f.Stored(t, "a")
	assert.Equal(t, &types.AttributeValueMemberS{Value: "theirs"}, item["audit"], "an attribute outside the struct survives")
	assert.NotContains(t, item, "status")
	assert.Equal(t, &types.AttributeValueMemberN{Value: "1"}, item["saves"], "Also's action in the same write")
	assert.Equal(t, Counter{ID: "a", N: 2, Version: 2}, *f.StoredCounter(t, "a"))

	stale := Counter{ID: "a", N: 100, Version: 1}
	requireConflict(t, f.Table.Save(f.Ctx, &stale), 1, 2)
	requireConflict(t, f.Table.Save(f.Ctx, &Counter{ID: "a"}), 0, 2)
	assert.Equal(t, 2, f.StoredCounter(t, "a").N)

	f.Calls.Reset()
	for name, err := range map[string]error{
		"Also on a struct attribute": f.Table.Save(f.Ctx, c, mapper.Also(update.Set("n", 5))),
		"Also on the version":        f.Table.Save(f.Ctx, c, mapper.Also(update.Set("version", 5))),
	} {
		assert.Error(t, err, name)
	}
	// Also with any other call does not compile (options_compile_test.go).
	assert.Equal(t, int64(0), f.Calls.Total(), "nothing sent")
}

// TestSaveLostResponse: a Save that lands but whose response is lost is
// recognised as ours by its write token.
func TestSaveLostResponse(t *testing.T) {
	f := newFixture(t)
	c := &Counter{ID: "a", N: 1}
	require.NoError(t, f.Table.Save(f.Ctx, c))
	drop := &ddbtest.DropTransport{DropOps: map[string]int{"UpdateItem": 1}}
	lossy, err := mapper.NewTable[Counter](f.Client(drop.Option()), f.Name)
	require.NoError(t, err)
	c.N = 2
	require.NoError(t, lossy.Save(f.Ctx, c))
	assert.Equal(t, 1, drop.Dropped())
	assert.Equal(t, int64(2), c.Version)
	assert.Equal(t, Counter{ID: "a", N: 2, Version: 2}, *f.StoredCounter(t, "a"))
}
