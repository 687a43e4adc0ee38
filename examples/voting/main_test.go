package main

import (
	"bytes"
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/optimist-dynamo/optimist/internal/ddbtest"
)

// TestVoting runs the example: the two safe strategies lose no vote, and
// the atomic one makes one call per vote.
func TestVoting(t *testing.T) {
	const voters = 25
	client := ddbtest.Server(t).Client()
	results, err := Run(context.Background(), client, ddbtest.TableName(t), voters)
	require.NoError(t, err)
	require.Len(t, results, 3)

	naive, modify, atomic := results[0], results[1], results[2]
	assert.Equal(t, voters, naive.Cast)
	assert.LessOrEqual(t, naive.Recorded, voters)
	assert.Equal(t, int64(2*voters), naive.Calls, "a read and a write per vote")

	assert.Equal(t, int64(0), modify.GaveUp, "25 voters stay within Modify's attempts")
	assert.Equal(t, voters, modify.Recorded, "Modify loses nothing")
	assert.Equal(t, 0, modify.Lost())
	// Each voter is a process of its own (its own Table): a read per vote, a
	// write per attempt, and a read again after each backoff sleep (every
	// conflict but a vote's first).
	assert.GreaterOrEqual(t, modify.Calls, int64(2*voters)+modify.Conflicts, "a read per vote, a write per attempt")
	assert.LessOrEqual(t, modify.Calls, int64(2*voters)+2*modify.Conflicts, "at most one read again per conflict")

	assert.Equal(t, voters, atomic.Recorded, "Update loses nothing")
	assert.Equal(t, int64(voters), atomic.Calls, "one call per vote")
	assert.Equal(t, int64(0), atomic.Conflicts)

	var out bytes.Buffer
	Print(&out, voters, results)
	t.Logf("\n%s", out.String())
	assert.Contains(t, out.String(), "votes recorded")
	assert.Contains(t, out.String(), "atomic: Update (Append + Add)")
}
