package txn_test

// Helpers of the transaction tests against DynamoDB Local.

import (
	"testing"

	"github.com/optimist-dynamo/optimist/internal/ddbtest/counters"
)

// Counter is the versioned item of the tests, and fixture its table (see
// package counters).
type (
	Counter = counters.Counter
	fixture = counters.Fixture
)

func newFixture(t *testing.T) *fixture { return counters.New(t) }
