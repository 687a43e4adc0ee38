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

// TestUnits runs the program: the README's transfer in a unit, then each
// claim of the README's section on units, checked by its output.
func TestUnits(t *testing.T) {
	var out bytes.Buffer
	err := Run(context.Background(), dynamolocal.New(t).Client(), ddbtest.TableName(t), ddbtest.TableName(t), &out)
	t.Logf("\n%s", out.String())
	require.NoError(t, err)
	assert.Equal(t, `during the unit: a plain read sees alice 100; a plain write is refused with unit.ErrLocked: true
after Commit: alice 90, bob 10
Recover found 0 unit(s) to finish
after a unit that emptied alice rolled back: alice 90, bob 10
a unit holding alice died: a plain read sees alice 90; a plain write is refused with unit.ErrLocked: true
Recover undid 1 unit(s), no sooner than the 1s lease: true
alice can be written again: true
after Recover: alice 90, bob 10
`, out.String())
}
