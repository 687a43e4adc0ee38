package main

import (
	"context"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/optimist-dynamo/optimist/dynamolocal"
	"github.com/optimist-dynamo/optimist/pessimistic"
)

// silentEndpoint listens on a loopback port, accepts every connection and
// never answers. It returns the address as host:port.
func silentEndpoint(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	var mu sync.Mutex
	var conns []net.Conn
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c) // held open, never read or answered
			mu.Unlock()
		}
	}()
	t.Cleanup(func() {
		ln.Close()
		mu.Lock()
		defer mu.Unlock()
		for _, c := range conns {
			c.Close()
		}
	})
	return ln.Addr().String()
}

// TestEveryVerbFailsInTimeOnASilentEndpoint: an endpoint that accepts
// connections and never answers fails every verb within -timeout (and the
// SDK's retries), naming the call and the timeout. The endpoint is given
// without a scheme, in DYNAMODB_ENDPOINT, as package dynamolocal accepts
// it.
func TestEveryVerbFailsInTimeOnASilentEndpoint(t *testing.T) {
	awsEnv(t)
	t.Setenv("DYNAMODB_ENDPOINT", silentEndpoint(t))
	for _, args := range [][]string{
		{"locks", "ls", "t"},
		{"locks", "show", "t", "x"},
		{"locks", "release", "t", "x"},
		{"locks", "release", "-force", "t", "x"},
		{"units", "ls", "t"},
		{"units", "recover", "t"},
	} {
		start := time.Now()
		code, out, errOut := cmd(t, append([]string{"-timeout", "300ms"}, args...)...)
		took := time.Since(start)
		assert.Equal(t, 1, code, "%q: %s", args, errOut)
		assert.Empty(t, out, "%q", args)
		assert.Contains(t, errOut, "no answer within 300ms (-timeout)", "%q", args)
		assert.Less(t, took, 5*time.Second, "%q", args)
		t.Logf("%q: %v: %s", args, took.Round(time.Millisecond), strings.TrimSpace(errOut))
	}
	code, _, errOut := cmd(t, "-timeout", "0s", "locks", "ls", "t")
	assert.Equal(t, 2, code)
	assert.Contains(t, errOut, "-timeout 0s: must be positive")
}

// TestEndpointSourceAndHints: a bad endpoint is reported with where it came
// from; missing credentials and a table not found at a local endpoint come
// with what to set.
func TestEndpointSourceAndHints(t *testing.T) {
	srv := awsEnv(t)
	code, _, errOut := cmd(t, "-endpoint", "ftp://host", "locks", "ls", "t")
	assert.Equal(t, 2, code, "a flag: a usage error")
	assert.Contains(t, errOut, `-endpoint "ftp://host": scheme "ftp"`)

	t.Setenv("DYNAMODB_ENDPOINT", "ftp://host")
	code, out, errOut := cmd(t, "locks", "ls", "t")
	assert.Equal(t, 1, code)
	assert.Empty(t, out)
	assert.Contains(t, errOut, `DYNAMODB_ENDPOINT "ftp://host": scheme "ftp"`)
	assert.NotContains(t, errOut, "-endpoint", "the value did not come from the flag")
	assert.NotContains(t, errOut, "usage:")

	// host:port, as dynamolocal accepts it: works.
	table := lockTable(t, srv)
	hostPort := strings.TrimPrefix(srv.Endpoint(), "http://")
	t.Setenv("DYNAMODB_ENDPOINT", hostPort)
	code, _, errOut = cmd(t, "locks", "ls", table)
	assert.Equal(t, 0, code, errOut)

	// A table not found at a local endpoint: the scoping of DynamoDB Local.
	t.Setenv("AWS_ACCESS_KEY_ID", "someoneelse")
	code, _, errOut = cmd(t, "locks", "ls", table)
	assert.Equal(t, 1, code)
	assert.Contains(t, errOut, "ResourceNotFoundException")
	assert.Contains(t, errOut, `DynamoDB Local keeps tables apart by access key and region: this command used access key "someoneelse" and region "us-east-1"`)
	assert.Contains(t, errOut, "from DYNAMODB_ENDPOINT")

	// No credentials at all.
	t.Setenv("AWS_ACCESS_KEY_ID", "")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "")
	code, _, errOut = cmd(t, "units", "ls", "t")
	assert.Equal(t, 1, code)
	assert.Contains(t, errOut, "no AWS credentials found: DynamoDB Local takes any credentials, but needs some: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY")
	t.Setenv("DYNAMODB_ENDPOINT", "")
	code, _, errOut = cmd(t, "-region", "eu-west-1", "units", "ls", "t")
	assert.Equal(t, 1, code)
	assert.Contains(t, errOut, "no AWS credentials found: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or AWS_PROFILE")

	assert.Equal(t, dynamolocal.AccessKeyID, localAccessKey)
	assert.Equal(t, dynamolocal.SecretAccessKey, localSecretKey)
	assert.Equal(t, dynamolocal.Region, localRegion)
}

// TestReleaseIsFencedOnTheHolderShown: between the command's read and its
// release, the dead holder is replaced by a live one. The release removes
// nothing and names the live holder; -force removes the live holder and
// says so.
func TestReleaseIsFencedOnTheHolderShown(t *testing.T) {
	srv := awsEnv(t)
	table := lockTable(t, srv)
	ctx := context.Background()
	dead, err := pessimistic.New(srv.Client(), table, pessimistic.Owner("dead"))
	require.NoError(t, err)
	old, err := dead.Acquire(ctx, "job")
	require.NoError(t, err)
	dead.Close()
	// A short heartbeat: the holder removed by -force below finds out at
	// its next one, waited on the wall clock (the command reaches the
	// server through its endpoint, a socket, so no testing/synctest bubble).
	live, err := pessimistic.New(srv.Client(), table, pessimistic.Owner("live"), pessimistic.Heartbeat(100*time.Millisecond))
	require.NoError(t, err)
	t.Cleanup(live.Close)
	var lease *pessimistic.Lease
	afterShow = func() { // the dead holder's lease runs out, and a waiter takes over
		op, err := pessimistic.New(srv.Client(), table)
		require.NoError(t, err)
		require.NoError(t, op.ForceRelease(ctx, "job"))
		lease, err = live.Acquire(ctx, "job")
		require.NoError(t, err)
	}
	t.Cleanup(func() { afterShow = func() {} })

	code, out, errOut := cmd(t, "-endpoint", srv.Endpoint(), "locks", "release", table, "job")
	assert.Equal(t, 1, code, out)
	assert.Empty(t, out)
	assert.Contains(t, errOut, "dead (token "+jsonNumber(old.Token())+"), shown just before, does not hold it any more; it is held by live (token "+jsonNumber(lease.Token())+") now")
	assert.Contains(t, errOut, "Nothing released")
	info, err := live.Inspect(ctx, "job")
	require.NoError(t, err)
	assert.Equal(t, "live", info.Owner, "the live holder was not removed")
	assert.NoError(t, lease.Context().Err())

	// -force: whoever holds it at the write goes, and the output says who.
	require.NoError(t, lease.Release(ctx))
	dead2, err := pessimistic.New(srv.Client(), table, pessimistic.Owner("dead"))
	require.NoError(t, err)
	old, err = dead2.Acquire(ctx, "job")
	require.NoError(t, err)
	dead2.Close()
	code, out, errOut = cmd(t, "-endpoint", srv.Endpoint(), "-force", "locks", "release", table, "job")
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, out, "released job: removed live (token "+jsonNumber(lease.Token())+")")
	assert.Contains(t, out, "-force: dead (token "+jsonNumber(old.Token())+") held it when it was shown, live (token "+jsonNumber(lease.Token())+") when it was removed")
	require.Eventually(t, func() bool { return lease.Context().Err() != nil }, 10*time.Second, 20*time.Millisecond)

	// Without a change in between, the holder shown is the one removed.
	afterShow = func() {}
	lease, err = live.Acquire(ctx, "job")
	require.NoError(t, err)
	code, out, errOut = cmd(t, "-endpoint", srv.Endpoint(), "locks", "release", table, "job")
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, out, "released job: removed live (token "+jsonNumber(lease.Token())+")")
	assert.NotContains(t, out, "-force")
}
