package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/optimist-dynamo/optimist/dynamolocal"
	"github.com/optimist-dynamo/optimist/examples/internal/readme"
	"github.com/optimist-dynamo/optimist/internal/ddbtest"
	"github.com/optimist-dynamo/optimist/mapper"
)

// TestVoting runs the example: the two safe strategies lose no vote, and
// the atomic one makes one call per vote.
func TestVoting(t *testing.T) {
	const voters = 25
	client := dynamolocal.New(t).Client()
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
	assert.Contains(t, out.String(), fmt.Sprintf("each of the %d voters is a Table of its own", voters))

	// The README's sample is what the demo prints, but for the figures.
	md, err := os.ReadFile("../../README.md")
	require.NoError(t, err)
	sample := readmeSample(t, string(md))
	assert.Equal(t, figuresOut(sample), figuresOut(out.String()),
		"README.md's sample of make demo's output must be what Print writes (run make demo and paste its output)")
}

// readmeSample returns the code block that follows "`make demo` prints" in
// the README.
func readmeSample(t *testing.T, md string) string {
	_, after, ok := strings.Cut(md, "`make demo` prints")
	require.True(t, ok, "README.md shows what make demo prints")
	blocks := readme.Blocks(after)
	require.NotEmpty(t, blocks)
	return blocks[0].Code
}

var figure = regexp.MustCompile(`\d+(\.\d+)?(ns|µs|ms|s)?`)

// figuresOut replaces every number and duration of s with '#', and every
// run of spaces with one space: what is left is the same whatever the
// figures of a run and however many voters voted.
func figuresOut(s string) string {
	s = figure.ReplaceAllString(s, "#")
	return regexp.MustCompile(` +`).ReplaceAllString(s, " ")
}

// TestModifyOnOneTableDoesNotConflict: what the demo's output says of
// Modify within one process. Voters sharing one Table take turns and never
// conflict; every vote is recorded.
func TestModifyOnOneTableDoesNotConflict(t *testing.T) {
	const voters = 25
	ctx := context.Background()
	client := dynamolocal.New(t).Client()
	name := ddbtest.TableName(t)
	require.NoError(t, mapper.CreateTable[Candidate](ctx, client, name))
	ddbtest.DeleteAtCleanup(t, client, name)
	table, err := mapper.NewTable[Candidate](client, name)
	require.NoError(t, err)
	require.NoError(t, table.Put(ctx, &Candidate{ID: "c"}))
	var conflicts, gaveUp atomic.Int64
	errs := make(chan error, voters)
	for v := range voters {
		go func() { errs <- voteModify(ctx, table, "c", fmt.Sprintf("voter-%d", v), &conflicts, &gaveUp) }()
	}
	for range voters {
		require.NoError(t, <-errs)
	}
	final, err := table.Get(ctx, Candidate{ID: "c"})
	require.NoError(t, err)
	assert.Equal(t, voters, final.Votes)
	assert.Zero(t, conflicts.Load(), "fn ran once per vote")
	assert.Zero(t, gaveUp.Load())
}
