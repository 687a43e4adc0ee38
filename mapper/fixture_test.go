package mapper_test

// Helpers shared by the tests of Table against DynamoDB Local.

import (
	"context"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/optimist-dynamo/optimist/dynamolocal"
	"github.com/optimist-dynamo/optimist/internal/ddbtest"
	"github.com/optimist-dynamo/optimist/internal/ddbtest/counters"
	"github.com/optimist-dynamo/optimist/mapper"
	"github.com/optimist-dynamo/optimist/version"
)

// Counter is the versioned item of most tests, and fixture its table (see
// package counters).
type (
	Counter = counters.Counter
	fixture = counters.Fixture[*mapper.Table[Counter]]
)

func newFixture(t *testing.T) *fixture {
	return counters.New(t, dynamolocal.New(t), func(c *ddbtest.CountingClient, name string) (*mapper.Table[Counter], error) {
		return mapper.NewTable[Counter](c, name)
	})
}

// newBubbleFixture is newFixture on an engine of the test's own, for a
// test in a testing/synctest bubble (see dynamolocal.NewEngine).
func newBubbleFixture(t *testing.T) *fixture {
	return counters.New(t, dynamolocal.NewEngine(t, dynamolocal.WithoutListener()), func(c *ddbtest.CountingClient, name string) (*mapper.Table[Counter], error) {
		return mapper.NewTable[Counter](c, name)
	})
}

func requireConflict(t *testing.T, err error, expected, actual int64) *version.ConflictError {
	t.Helper()
	require.Error(t, err)
	require.ErrorIs(t, err, version.ErrConflict)
	require.True(t, version.IsConflict(err))
	var ce *version.ConflictError
	require.ErrorAs(t, err, &ce)
	assert.Equal(t, expected, ce.Expected, "Expected")
	assert.Equal(t, actual, ce.Actual, "Actual")
	var ccf *types.ConditionalCheckFailedException
	assert.ErrorAs(t, err, &ccf, "the SDK error stays reachable")
	return ce
}

// Plain is an item without a version, with a range key.
type Plain struct {
	PK   string `dynamo:"pk,hash"`
	SK   int    `dynamo:"sk,range"`
	Text string `dynamo:"text"`
}

// Slot and Candidate are the items of the Update tests: lists, a set and
// nested maps of lists, under a version.
type Slot struct {
	Label string   `dynamo:"label"`
	Names []string `dynamo:"names"`
}

type Candidate struct {
	ID      string            `dynamo:"id,hash"`
	Name    string            `dynamo:"name"`
	Status  string            `dynamo:"status"`
	Votes   int               `dynamo:"votes"`
	VotedBy []string          `dynamo:"votedBy"`
	Tags    []string          `dynamo:"tags,stringset"`
	Data    map[string][]Slot `dynamo:"data"`
	Version int64             `dynamo:"version,version"`
}

// candidates is a table of Candidates on the shared server, written through
// a call-counting client.
type candidates struct {
	ctx   context.Context
	calls *ddbtest.CountingClient
	table *mapper.Table[Candidate]
	srv   interface {
		Endpoint() string
	}
	name string
}

func newCandidates(t *testing.T) *candidates {
	t.Helper()
	srv := dynamolocal.New(t)
	name := ddbtest.CreateTable(t, srv.Client(), "id", types.ScalarAttributeTypeS, "", "")
	calls := ddbtest.NewCounting(srv.Client())
	table, err := mapper.NewTable[Candidate](calls, name)
	require.NoError(t, err)
	return &candidates{ctx: context.Background(), calls: calls, table: table, srv: srv, name: name}
}
