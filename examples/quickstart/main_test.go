package main

import (
	"bytes"
	"context"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/optimist-dynamo/optimist/dynamolocal"
	"github.com/optimist-dynamo/optimist/internal/ddbtest"
)

const want = `alice has 70 at version 2
alice has 30 at version 4, bob 10 at version 1
stale write refused: expected version 2, table has 4
`

// TestQuickStart runs the README's quick start, the whole program but its
// flags, against the test binary's DynamoDB Local (which connect finds
// through DYNAMODB_ENDPOINT, as a reader's program would), twice on the same
// tables: the second run finds the table made and the items deleted.
func TestQuickStart(t *testing.T) {
	srv := dynamolocal.New(t)
	t.Setenv("DYNAMODB_ENDPOINT", srv.Endpoint())
	table = ddbtest.TableName(t)
	ctx := context.Background()
	for run := range 2 {
		client, stop, err := connect(ctx, false)
		require.NoError(t, err)
		var out bytes.Buffer
		err = quickstart(ctx, client, &out)
		stop()
		require.NoError(t, err, "run %d", run+1)
		t.Logf("run %d:\n%s", run+1, out.String())
		assert.Equal(t, want, out.String(), "run %d", run+1)
	}
	ddbtest.DeleteAtCleanup(t, srv.Client(), table)
}

// TestReadmeShowsTheOutput: the README shows what the quick start prints.
func TestReadmeShowsTheOutput(t *testing.T) {
	md, err := os.ReadFile("../../README.md")
	require.NoError(t, err)
	assert.Contains(t, string(md), "It prints:\n\n```\n"+want+"```\n")
}

// TestConnectToAWS builds the client of -aws from the standard AWS
// configuration, here from the environment alone; it makes no call.
func TestConnectToAWS(t *testing.T) {
	t.Setenv("AWS_CONFIG_FILE", t.TempDir()+"/none")
	t.Setenv("AWS_SHARED_CREDENTIALS_FILE", t.TempDir()+"/none")
	t.Setenv("AWS_REGION", "eu-west-3")
	t.Setenv("AWS_ACCESS_KEY_ID", "AKIDEXAMPLE")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "secret")
	client, stop, err := connect(context.Background(), true)
	require.NoError(t, err)
	defer stop()
	assert.Equal(t, "eu-west-3", client.Options().Region)
}
