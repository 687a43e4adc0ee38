package main

import (
	"bytes"
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/optimist-dynamo/optimist/dynamolocal"
	"github.com/optimist-dynamo/optimist/internal/ddbtest"
)

// TestBank runs the example with 8 concurrent workers: the total balance
// never changes and no balance goes negative.
func TestBank(t *testing.T) {
	cfg := Config{Accounts: 6, Opening: 100, Workers: 8, Transfers: 20}
	rep, err := Run(context.Background(), dynamolocal.New(t).Client(), ddbtest.TableName(t), cfg)
	require.NoError(t, err)
	var out bytes.Buffer
	Print(&out, rep)
	t.Logf("\n%s", out.String())

	assert.Equal(t, int64(600), rep.TotalBefore)
	assert.Equal(t, rep.TotalBefore, rep.TotalAfter, "the invariant holds")
	assert.GreaterOrEqual(t, rep.MinBalance, int64(0))
	assert.Equal(t, int64(cfg.Workers*cfg.Transfers), rep.Committed+rep.Refused, "every transfer ended")
	assert.Equal(t, rep.Committed+rep.Conflicts, rep.Transactions, "one commit per attempt")
	assert.Contains(t, out.String(), "invariant: total balance 600 before, 600 after")
	assert.Contains(t, out.String(), "holds")
}
