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

// TestObserve runs the program: the conflict reaches the observer, and the
// logs hold a write's span and the conflict, with the table and key.
func TestObserve(t *testing.T) {
	c := dynamolocal.New(t).Client()
	table := ddbtest.TableName(t)
	ddbtest.DeleteAtCleanup(t, c, table)
	var out, logs bytes.Buffer
	require.NoError(t, Run(context.Background(), c, table, &out, &logs))
	assert.Equal(t, "conflicts seen by the observer: 1\n", out.String())
	assert.Contains(t, logs.String(), `"msg":"optimist: conflict"`)
	assert.Contains(t, logs.String(), `"msg":"optimist: write end"`)
	assert.Contains(t, logs.String(), `"table":"`+table+`"`)
	assert.Contains(t, logs.String(), `"key":"{id=\"alice\"}"`)
}
