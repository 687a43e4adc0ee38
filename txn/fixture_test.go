package txn_test

// Helpers of the transaction tests against DynamoDB Local.

import (
	"testing"

	"github.com/optimist-dynamo/optimist/dynamolocal"
	"github.com/optimist-dynamo/optimist/internal/ddbtest"
	"github.com/optimist-dynamo/optimist/internal/ddbtest/counters"
	"github.com/optimist-dynamo/optimist/mapper"
)

// Counter is the versioned item of the tests, and fixture its table (see
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
