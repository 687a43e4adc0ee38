package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/optimist-dynamo/optimist/dynamolocal"
	"github.com/optimist-dynamo/optimist/internal/ddbtest"
	"github.com/optimist-dynamo/optimist/mapper"
	"github.com/optimist-dynamo/optimist/pessimistic"
	"github.com/optimist-dynamo/optimist/unit"
)

// awsEnv gives the command the standard AWS configuration of the test
// server's clients (DynamoDB Local keeps tables apart by access key and
// region), and nothing from the machine's ~/.aws.
func awsEnv(t *testing.T) *dynamolocal.Server {
	t.Helper()
	srv := dynamolocal.New(t)
	none := filepath.Join(t.TempDir(), "none")
	for k, v := range map[string]string{
		"AWS_ACCESS_KEY_ID":           dynamolocal.AccessKeyID,
		"AWS_SECRET_ACCESS_KEY":       dynamolocal.SecretAccessKey,
		"AWS_REGION":                  dynamolocal.Region,
		"AWS_CONFIG_FILE":             none,
		"AWS_SHARED_CREDENTIALS_FILE": none,
		"AWS_PROFILE":                 "",
		"AWS_SESSION_TOKEN":           "",
		"AWS_EC2_METADATA_DISABLED":   "true",
		"DYNAMODB_ENDPOINT":           "",
	} {
		t.Setenv(k, v)
	}
	return srv
}

// cmd runs the command in-process and returns its exit status and output.
func cmd(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	code = run(ctx, args, &out, &errOut)
	return code, out.String(), errOut.String()
}

func lockTable(t *testing.T, srv *dynamolocal.Server) string {
	t.Helper()
	name := ddbtest.TableName(t)
	require.NoError(t, pessimistic.CreateTable(context.Background(), srv.Client(), name))
	ddbtest.DeleteAtCleanup(t, srv.Client(), name)
	return name
}

func TestLocks(t *testing.T) {
	srv := awsEnv(t)
	table := lockTable(t, srv)
	ctx := context.Background()
	worker, err := pessimistic.New(srv.Client(), table, pessimistic.Owner("worker-1"), pessimistic.Heartbeat(300*time.Millisecond))
	require.NoError(t, err)
	t.Cleanup(worker.Close)
	held, err := worker.Acquire(ctx, "order-42", pessimistic.Data([]byte("invoice 7")))
	require.NoError(t, err)
	free, err := worker.Acquire(ctx, "order-7")
	require.NoError(t, err)
	require.NoError(t, free.Release(ctx))
	head, err := worker.Acquire(ctx, "queue", pessimistic.FIFO())
	require.NoError(t, err)
	other, err := pessimistic.New(srv.Client(), table, pessimistic.Owner("worker-2"), pessimistic.FIFO())
	require.NoError(t, err)
	t.Cleanup(other.Close)
	waiting := make(chan *pessimistic.Lease, 1)
	go func() {
		lease, err := other.Acquire(ctx, "queue")
		assert.NoError(t, err)
		waiting <- lease
	}()
	// Polls on the wall clock here: the command reaches the server through
	// its endpoint, a socket, so this test cannot run in a synctest bubble.
	require.Eventually(t, func() bool {
		info, err := worker.Inspect(ctx, "queue")
		require.NoError(t, err)
		return len(info.Queue) == 2
	}, 10*time.Second, 10*time.Millisecond)

	ep := srv.Endpoint()
	code, out, errOut := cmd(t, "-endpoint", ep, "locks", "ls", table)
	require.Equal(t, 0, code, errOut)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	require.Len(t, lines, 4, out)
	assert.Regexp(t, `^NAME +HELD +OWNER +TOKEN +LEASE +WAITING +DATA$`, lines[0])
	assert.Regexp(t, `^order-42 +yes +worker-1 +\d+ +20s +- +invoice 7$`, lines[1])
	assert.Regexp(t, `^order-7 +no +- +- +- +- +-$`, lines[2])
	assert.Regexp(t, `^queue +yes +worker-1 +\d+ +20s +1 +-$`, lines[3])
	assert.Equal(t, strings.Index(lines[0], "HELD"), strings.Index(lines[1], "yes"), "aligned columns")
	t.Logf("locks ls:\n%s", out)

	// Flags may follow the command, and DYNAMODB_ENDPOINT stands for -endpoint.
	t.Setenv("DYNAMODB_ENDPOINT", ep)
	code, out, errOut = cmd(t, "locks", "ls", table, "-json")
	require.Equal(t, 0, code, errOut)
	var locks []map[string]any
	require.NoError(t, json.Unmarshal([]byte(out), &locks), out)
	require.Len(t, locks, 3)
	assert.Equal(t, "order-42", locks[0]["name"])
	assert.Equal(t, "worker-1", locks[0]["owner"])
	assert.Equal(t, float64(held.Token()), locks[0]["token"])
	assert.Equal(t, float64(20000), locks[0]["leaseMs"])
	assert.Equal(t, "aW52b2ljZSA3", locks[0]["data"], "base64 of the bytes")
	assert.Equal(t, false, locks[1]["held"])
	assert.Equal(t, true, locks[2]["fifo"])
	assert.Len(t, locks[2]["queue"], 2)

	code, out, errOut = cmd(t, "locks", "show", table, "queue")
	require.Equal(t, 0, code, errOut)
	t.Logf("locks show:\n%s", out)
	assert.Contains(t, out, "kind:     FIFO lock\n")
	assert.Contains(t, out, "owner:    worker-1\n")
	assert.Regexp(t, `(?m)^  TICKET +OWNER +LEASE +VERSION +DATA$`, out)
	assert.Regexp(t, `(?m)^  \d+ +worker-1 +20s +\w+ +-$`, out)
	assert.Regexp(t, `(?m)^  \d+ +worker-2 +20s +\w+ +-$`, out)

	code, out, errOut = cmd(t, "-json", "locks", "show", table, "order-42")
	require.Equal(t, 0, code, errOut)
	var one map[string]any
	require.NoError(t, json.Unmarshal([]byte(out), &one), out)
	assert.Equal(t, "worker-1", one["owner"])

	// Release: the holder is removed and the fence bumped.
	code, out, errOut = cmd(t, "locks", "release", table, "order-42")
	require.Equal(t, 0, code, errOut)
	t.Logf("locks release:\n%s", out)
	assert.Contains(t, out, "released order-42: removed worker-1 (token ")
	info, err := worker.Inspect(ctx, "order-42")
	require.NoError(t, err)
	assert.False(t, info.Held)
	assert.Equal(t, held.Token()+1, info.Fence)
	assert.Contains(t, out, "fence counter now "+jsonNumber(info.Fence))
	require.Eventually(t, func() bool { return errors.Is(held.Err(), pessimistic.ErrLeaseLost) }, 10*time.Second, 50*time.Millisecond,
		"the old holder finds out at its next heartbeat")

	code, _, errOut = cmd(t, "locks", "release", table, "order-42")
	assert.Equal(t, 1, code)
	assert.Contains(t, errOut, "not held by anyone")

	// A FIFO lock: the head goes, the next waiter holds.
	code, out, errOut = cmd(t, "-json", "locks", "release", table, "queue")
	require.Equal(t, 0, code, errOut)
	var rel struct {
		Removed struct{ Owner string }
		Now     struct {
			Owner string
			Token int64
		}
	}
	require.NoError(t, json.Unmarshal([]byte(out), &rel), out)
	assert.Equal(t, "worker-1", rel.Removed.Owner)
	next := <-waiting
	assert.Equal(t, "worker-2", rel.Now.Owner)
	assert.Equal(t, next.Token(), rel.Now.Token)
	require.NoError(t, next.Release(ctx))
	_ = head.Release(ctx)
}

func jsonNumber(n int64) string {
	b, _ := json.Marshal(n)
	return string(b)
}

// crashable fails every UpdateItem once crashed is set: the unit's owner
// stops heartbeating, as a dead process does.
type crashable struct {
	*dynamodb.Client
	crashed atomic.Bool
}

func (c *crashable) UpdateItem(ctx context.Context, in *dynamodb.UpdateItemInput, optFns ...func(*dynamodb.Options)) (*dynamodb.UpdateItemOutput, error) {
	if c.crashed.Load() {
		return nil, errors.New("crashed")
	}
	return c.Client.UpdateItem(ctx, in, optFns...)
}

type account struct {
	ID      string `dynamo:"id,hash"`
	Balance int64  `dynamo:"balance"`
	Version int64  `dynamo:"v,version"`
}

func TestUnits(t *testing.T) {
	srv := awsEnv(t)
	c := srv.Client()
	ctx := context.Background()
	coord := ddbtest.TableName(t)
	require.NoError(t, unit.CreateTable(ctx, c, coord))
	ddbtest.DeleteAtCleanup(t, c, coord)
	accounts, err := mapper.NewTable[account](c, ddbtest.CreateTable(t, c, "id", types.ScalarAttributeTypeS, "", ""))
	require.NoError(t, err)
	require.NoError(t, accounts.Put(ctx, &account{ID: "a", Balance: 10}))

	done, err := unit.Begin(ctx, c, unit.Coordinator(coord), unit.Owner("finisher"))
	require.NoError(t, err)
	require.NoError(t, done.Add(accounts.PutOp(&account{ID: "b", Balance: 5})))
	require.NoError(t, done.Commit(ctx))
	dying := &crashable{Client: c}
	dead, err := unit.Begin(ctx, dying, unit.Coordinator(coord), unit.Owner("crasher"),
		unit.LeaseDuration(300*time.Millisecond), unit.Heartbeat(50*time.Millisecond))
	require.NoError(t, err)
	_, err = unit.Get(ctx, dead, accounts, account{ID: "a"})
	require.NoError(t, err)
	dying.crashed.Store(true)

	ep := srv.Endpoint()
	code, out, errOut := cmd(t, "-endpoint", ep, "units", "ls", coord)
	require.Equal(t, 0, code, errOut)
	t.Logf("units ls:\n%s", out)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	require.Len(t, lines, 3, out)
	assert.Regexp(t, `^ID +STATE +FINISHED +OWNER +STARTED +LEASE +BEAT$`, lines[0])
	assert.Regexp(t, `^`+done.ID()+` +committed +yes +finisher +\d{4}-\d\d-\d\dT\S+Z +20s +\d+$`, lines[1])
	assert.Regexp(t, `^`+dead.ID()+` +active +no +crasher +\S+ +300ms +\d+$`, lines[2])

	code, out, errOut = cmd(t, "-endpoint", ep, "units", "recover", coord)
	require.Equal(t, 0, code, errOut)
	assert.Equal(t, "recovered 1 unit(s) in "+coord+"\n", out)

	code, out, errOut = cmd(t, "-endpoint", ep, "-json", "units", "ls", coord)
	require.Equal(t, 0, code, errOut)
	var units []map[string]any
	require.NoError(t, json.Unmarshal([]byte(out), &units), out)
	require.Len(t, units, 2)
	assert.Equal(t, dead.ID(), units[1]["id"])
	assert.Equal(t, "aborted", units[1]["state"])
	assert.Equal(t, true, units[1]["finished"])
	got, err := accounts.Get(ctx, account{ID: "a"})
	require.NoError(t, err, "the dead unit's lock is gone")
	assert.Equal(t, int64(10), got.Balance)

	code, out, errOut = cmd(t, "-endpoint", ep, "-json", "units", "recover", coord)
	require.Equal(t, 0, code, errOut)
	assert.JSONEq(t, `{"recovered": 0}`, out)
}

func TestUsageAndFailures(t *testing.T) {
	srv := awsEnv(t)
	ep := srv.Endpoint()
	for _, args := range [][]string{
		{},
		{"locks"},
		{"locks", "rm", "t"},
		{"nodes", "ls"},
		{"locks", "ls"},
		{"locks", "show", "t"},
		{"locks", "ls", "t", "extra"},
		{"units", "recover"},
		{"-nosuchflag", "locks", "ls", "t"},
		{"-endpoint", "not a url", "locks", "ls", "t"},
		{"-endpoint", "ftp://host", "units", "ls", "t"},
	} {
		code, out, errOut := cmd(t, args...)
		assert.Equal(t, 2, code, "%q", args)
		assert.Empty(t, out)
		assert.Contains(t, errOut, "usage: optimist", "%q", args)
	}
	_, _, errOut := cmd(t, "locks", "rm", "t")
	assert.True(t, strings.HasPrefix(errOut, `optimist: usage: unknown command "locks" "rm" (ls, show, release)`), errOut)

	for _, args := range [][]string{{"-h"}, {"help"}} {
		code, out, _ := cmd(t, args...)
		assert.Equal(t, 0, code)
		assert.Contains(t, out, "locks release TABLE NAME")
	}

	// Failures of the operation: exit status 1, the reason on stderr.
	code, out, errOut := cmd(t, "-endpoint", ep, "locks", "ls", "no-such-table")
	assert.Equal(t, 1, code)
	assert.Empty(t, out)
	assert.Contains(t, errOut, "ResourceNotFoundException")
	notLocks := ddbtest.CreateTable(t, srv.Client(), "id", types.ScalarAttributeTypeS, "", "")
	code, _, errOut = cmd(t, "-endpoint", ep, "locks", "show", notLocks, "x")
	assert.Equal(t, 1, code)
	assert.Contains(t, errOut, "a lock table needs pk (S) as hash key")
	t.Setenv("AWS_REGION", "")
	code, _, errOut = cmd(t, "units", "ls", "t")
	assert.Equal(t, 1, code)
	assert.Contains(t, errOut, "no AWS region")
}
