package main

import (
	"bytes"
	"context"
	"testing"
	"testing/synctest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/optimist-dynamo/optimist/dynamolocal"
	"github.com/optimist-dynamo/optimist/internal/ddbtest"
)

// TestLedger closes a month of 300 postings atomically, in a
// testing/synctest bubble on an engine of its own: the unit's waits and
// heartbeats pass in virtual time.
func TestLedger(t *testing.T) { synctest.Test(t, testLedger) }

func testLedger(t *testing.T) {
	cfg := Config{Month: "2026-10", Postings: 300, Accounts: 12}
	rep, err := Run(context.Background(), dynamolocal.NewEngine(t, dynamolocal.WithoutListener()).Client(), ddbtest.TableName(t), cfg)
	require.NoError(t, err)
	var out bytes.Buffer
	Print(&out, rep)
	t.Logf("\n%s", out.String())
	assert.Equal(t, cfg.Postings, rep.Closed)
	assert.Equal(t, rep.Net, rep.BalanceChange)
	assert.True(t, rep.SummaryCreated)
	assert.True(t, rep.EditRefused)
	assert.True(t, rep.OpenDuring)
}
