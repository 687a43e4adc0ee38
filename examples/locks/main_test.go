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

// TestLocks runs the program: the README's sendInvoice, then each claim of
// the README's section on locks, checked by its output. It runs in a
// testing/synctest bubble on an engine of its own: the crashed holder's
// lease passes in virtual time.
func TestLocks(t *testing.T) { synctest.Test(t, testLocks) }

func testLocks(t *testing.T) {
	var out bytes.Buffer
	err := Run(context.Background(), dynamolocal.NewEngine(t, dynamolocal.WithoutListener()).Client(), ddbtest.TableName(t), ddbtest.TableName(t), &out)
	t.Logf("\n%s", out.String())
	require.NoError(t, err)
	assert.Equal(t, `invoice-7 sent under the lock: true
after sendInvoice returned (deferred Release): held false
after a panic in Do's fn: held false
Acquire's ctx canceled, no Release: held true, lease error <nil>
Acquire's ctx canceled, with ReleaseOnDone: held false, lease error context canceled
a holder crashed; the lock was taken over no sooner than its 1s lease: true, with a higher token: true
the crashed holder's late fenced write is refused: true
`, out.String())
}
