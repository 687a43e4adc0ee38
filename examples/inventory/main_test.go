package main

import (
	"bytes"
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/optimist-dynamo/optimist/dynamolocal"
	"github.com/optimist-dynamo/optimist/internal/ddbtest"
)

// TestInventory runs the example both ways: more buyers than units, and
// every unit is sold exactly once.
func TestInventory(t *testing.T) {
	client := dynamolocal.New(t).Client()
	for _, fifo := range []bool{false, true} {
		cfg := Config{Stock: 5, Buyers: 8, Payment: 5 * time.Millisecond, FIFO: fifo}
		rep, err := Run(context.Background(), client, ddbtest.TableName(t), ddbtest.TableName(t), cfg)
		require.NoError(t, err)
		var out bytes.Buffer
		Print(&out, rep)
		t.Logf("\n%s", out.String())
		assert.Equal(t, 5, rep.Sold)
		assert.Equal(t, 0, rep.FinalStock)
		assert.Equal(t, 3, rep.SoldOut)
		assert.Equal(t, 8, rep.Grants)
		assert.Contains(t, out.String(), "none oversold")
	}
}
