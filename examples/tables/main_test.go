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

// TestTables runs the program: the table made from Order's tags matches
// it, CreateTable accepts it again, and its index holds the orders with a
// status, in order of Placed.
func TestTables(t *testing.T) {
	var out bytes.Buffer
	err := Run(context.Background(), dynamolocal.New(t).Client(), ddbtest.TableName(t), &out)
	t.Logf("\n%s", out.String())
	require.NoError(t, err)
	assert.Equal(t, `created, and the table matches Order
CreateTable again on the table as it is: no error
open orders by index by-status, in order of Placed: o-3 o-1
4 orders in the table, 3 in the index: an empty status leaves the order out of it
written with WriteRegion set to the client's Region
`, out.String())
}
