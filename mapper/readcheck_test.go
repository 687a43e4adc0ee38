package mapper_test

import (
	"context"
	"testing"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/optimist-dynamo/optimist/internal/ddbtest"
	"github.com/optimist-dynamo/optimist/mapper"
)

type rcUser struct {
	ID    string `dynamo:"id"`
	Email string `dynamo:"email"`
}

type rcTagged struct {
	ID     string `dynamo:"id,hash"`
	Status string `dynamo:"status" index:"by-status,hash"`
}

// TestIndexReadsRefusedBeforeSending: a strongly consistent read of a
// global index (through a Table, an entity and a collection), a read of
// an index the type or design does not declare, and a key condition on an
// attribute that is not a key of what is read are refused with
// ErrInvalidOption: the counting client sees no call.
func TestIndexReadsRefusedBeforeSending(t *testing.T) {
	ctx := context.Background()
	calls := &ddbtest.CountingClient{}
	d := mapper.Design{Table: ddbtest.TableName(t), PK: "pk", SK: "sk",
		Indexes: []mapper.OverloadedIndex{{Name: "gsi1", PK: "gsi1pk", SK: "gsi1sk"}}}
	users, err := mapper.NewEntity[rcUser](calls, d, mapper.Entity{Type: "User", Key: mapper.Keys{PK: "USER#{ID}", SK: "PROFILE"},
		Indexes: map[string]mapper.Keys{"gsi1": {PK: "EMAIL#{Email}", SK: "USER"}}})
	require.NoError(t, err)
	coll, err := mapper.NewCollection(users)
	require.NoError(t, err)
	tagged, err := mapper.NewTable[rcTagged](calls, ddbtest.TableName(t))
	require.NoError(t, err)
	first := func(seq func(func(any, error) bool)) error {
		var out error
		seq(func(_ any, err error) bool { out = err; return false })
		return out
	}
	gsiKey := expression.Key("gsi1pk").Equal(expression.Value("EMAIL#a"))
	refused := map[string]error{
		"Table consistent GSI": func() error {
			for _, err := range tagged.Query(ctx, expression.Key("status").Equal(expression.Value("x")), mapper.Index("by-status"), mapper.ConsistentRead(true)) {
				return err
			}
			return nil
		}(),
		"Table Scan consistent GSI": func() error {
			for _, err := range tagged.Scan(ctx, mapper.Index("by-status"), mapper.ConsistentRead(true)) {
				return err
			}
			return nil
		}(),
		"Table Count consistent GSI": func() error {
			_, err := tagged.Count(ctx, expression.Key("status").Equal(expression.Value("x")), mapper.Index("by-status"), mapper.ConsistentRead(true))
			return err
		}(),
		"Table undeclared index": func() error {
			for _, err := range tagged.Query(ctx, expression.Key("status").Equal(expression.Value("x")), mapper.Index("nope")) {
				return err
			}
			return nil
		}(),
		"Table key condition off the key": func() error {
			for _, err := range tagged.Query(ctx, expression.Key("status").Equal(expression.Value("x"))) {
				return err
			}
			return nil
		}(),
		"entity consistent GSI": func() error {
			for _, err := range users.Query(ctx, gsiKey, mapper.Index("gsi1"), mapper.ConsistentRead(true)) {
				return err
			}
			return nil
		}(),
		"entity undeclared index": func() error {
			for _, err := range users.Query(ctx, gsiKey, mapper.Index("gsi9", "gsi1pk")) {
				return err
			}
			return nil
		}(),
		"collection consistent GSI": first(func(yield func(any, error) bool) {
			for v, err := range coll.Query(ctx, mapper.InPartition("EMAIL#a"), mapper.Index("gsi1"), mapper.ConsistentRead(true)) {
				if !yield(v, err) {
					return
				}
			}
		}),
	}
	for what, err := range refused {
		assert.ErrorIs(t, err, mapper.ErrInvalidOption, what)
	}
	assert.Zero(t, calls.Total(), "no call was sent")
}
