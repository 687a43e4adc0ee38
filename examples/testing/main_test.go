package main

import (
	"bytes"
	"context"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/optimist-dynamo/optimist/dynamolocal"
	"github.com/optimist-dynamo/optimist/mapper"
	"github.com/optimist-dynamo/optimist/pessimistic"
)

// TestRun runs the program on an engine of its own, on real time.
func TestRun(t *testing.T) {
	var out bytes.Buffer
	require.NoError(t, Run(context.Background(), dynamolocal.NewEngine(t), &out))
	assert.Equal(t, "Put with its answer lost: err=<nil>, version 1, answers lost 1\n", out.String())
}

// TestSessionExpires runs the program, then lets its session expire, in a
// testing/synctest bubble: the engine made inside it runs on the bubble's
// virtual time, so half an hour passes at once.
func TestSessionExpires(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := t.Context()
		srv := dynamolocal.NewEngine(t, dynamolocal.WithoutListener()) // in memory: no socket in the bubble
		var out bytes.Buffer
		require.NoError(t, Run(ctx, srv, &out)) // puts s1, to expire in 30 minutes
		sessions, err := mapper.NewTable[Session](srv.Client(), "sessions")
		require.NoError(t, err)

		time.Sleep(29 * time.Minute) // virtual time: returns at once
		_, err = sessions.Get(ctx, Session{ID: "s1"})
		require.NoError(t, err)
		time.Sleep(time.Minute)
		_, err = sessions.Get(ctx, Session{ID: "s1"})
		assert.ErrorIs(t, err, mapper.ErrNotFound, "expired")
	})
}

// TestCrashedHolderIsTakenOverInVirtualTime: the library times its leases
// with the time package too, so in a bubble a lock whose holder stopped
// heartbeating is taken over after its lease, with no real waiting.
func TestCrashedHolderIsTakenOverInVirtualTime(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := t.Context()
		client := dynamolocal.NewEngine(t, dynamolocal.WithoutListener()).Client()
		require.NoError(t, pessimistic.CreateTable(ctx, client, "locks"))
		crashed, err := pessimistic.New(client, "locks", pessimistic.LeaseDuration(time.Minute))
		require.NoError(t, err)
		held, err := crashed.Acquire(ctx, "report")
		require.NoError(t, err)
		crashed.Close() // stops its heartbeats, as a crash would; releases nothing

		other, err := pessimistic.New(client, "locks")
		require.NoError(t, err)
		defer other.Close()
		start := time.Now()
		lease, err := other.Acquire(ctx, "report") // waits: taken over after a full lease
		require.NoError(t, err)
		defer lease.Release(ctx)
		assert.GreaterOrEqual(t, time.Since(start), time.Minute)
		assert.Greater(t, lease.Token(), held.Token())
	})
}
