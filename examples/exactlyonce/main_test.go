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

// TestExactlyOnce runs the program: each write whose answers were lost is
// applied once, and the ExactlyOnce write that ended in an unknown outcome
// is applied once by its resend with the token.
func TestExactlyOnce(t *testing.T) {
	var out bytes.Buffer
	err := Run(context.Background(), dynamolocal.New(t), ddbtest.TableName(t), &out)
	t.Logf("\n%s", out.String())
	require.NoError(t, err)
	assert.Equal(t, `Update, its answer lost: 1 UpdateItem sent, balance 105, applied once: true
Update with ExactlyOnce, 3 answers lost, then resent with its token: 4 TransactWriteItems sent, balance 110, applied once: true
`, out.String())
}
