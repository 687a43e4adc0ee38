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

// TestOrders runs the program: one Query returns the customer, its orders
// and their lines, each in its own type; a stale Put is refused; the line
// moved in the transaction is under o2, whose version and count changed.
func TestOrders(t *testing.T) {
	var out bytes.Buffer
	c := dynamolocal.New(t).Client()
	table := ddbtest.TableName(t)
	ddbtest.DeleteAtCleanup(t, c, table)
	err := Run(context.Background(), c, table, &out)
	t.Logf("\n%s", out.String())
	require.NoError(t, err)
	assert.Equal(t, `customer Ada <ada@example.com>
  order o1: open, 2 lines (v1)
    3 apple
    1 pear
  order o2: open, 1 lines (v1)
    9 fig
a stale Put of o1 is refused: version.IsConflict
after the move, by index gsi1:
  order o2: open, 2 lines (v2)
    9 fig
    1 pear
`, out.String())
}
