package unit_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"testing/synctest"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awsretry "github.com/aws/aws-sdk-go-v2/aws/retry"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/optimist-dynamo/optimist/dynamolocal"
	"github.com/optimist-dynamo/optimist/internal/ddbtest"
	"github.com/optimist-dynamo/optimist/internal/unitproto"
	"github.com/optimist-dynamo/optimist/mapper"
	"github.com/optimist-dynamo/optimist/txn"
	"github.com/optimist-dynamo/optimist/unit"
	"github.com/optimist-dynamo/optimist/update"
)

var errCrashed = errors.New("test: the process crashed")

// crashClient forwards calls until limit protocol writes (PutItem,
// UpdateItem, DeleteItem other than heartbeats) went through; after that
// every call fails without being sent, as if the process had died. It
// notes the number of the write that was the commit point.
type crashClient struct {
	c      *dynamodb.Client
	limit  int64       // < 0: never crash
	paused atomic.Bool // every call fails while set
	// crashAfterCommit: every call after the commit point's write fails.
	crashAfterCommit atomic.Bool
	writes           atomic.Int64
	commit           atomic.Int64
}

func (cc *crashClient) write(isCommit bool) error {
	if cc.dead() {
		return errCrashed
	}
	n := cc.writes.Add(1)
	if isCommit {
		cc.commit.Store(n)
	}
	return nil
}

func (cc *crashClient) dead() bool {
	return cc.paused.Load() || (cc.limit >= 0 && cc.writes.Load() >= cc.limit) ||
		(cc.crashAfterCommit.Load() && cc.commit.Load() != 0)
}

func (cc *crashClient) GetItem(ctx context.Context, in *dynamodb.GetItemInput, o ...func(*dynamodb.Options)) (*dynamodb.GetItemOutput, error) {
	if cc.dead() {
		return nil, errCrashed
	}
	return cc.c.GetItem(ctx, in, o...)
}

func (cc *crashClient) Scan(ctx context.Context, in *dynamodb.ScanInput, o ...func(*dynamodb.Options)) (*dynamodb.ScanOutput, error) {
	if cc.dead() {
		return nil, errCrashed
	}
	return cc.c.Scan(ctx, in, o...)
}

func (cc *crashClient) PutItem(ctx context.Context, in *dynamodb.PutItemInput, o ...func(*dynamodb.Options)) (*dynamodb.PutItemOutput, error) {
	if err := cc.write(false); err != nil {
		return nil, err
	}
	return cc.c.PutItem(ctx, in, o...)
}

func (cc *crashClient) DeleteItem(ctx context.Context, in *dynamodb.DeleteItemInput, o ...func(*dynamodb.Options)) (*dynamodb.DeleteItemOutput, error) {
	if err := cc.write(false); err != nil {
		return nil, err
	}
	return cc.c.DeleteItem(ctx, in, o...)
}

func (cc *crashClient) UpdateItem(ctx context.Context, in *dynamodb.UpdateItemInput, o ...func(*dynamodb.Options)) (*dynamodb.UpdateItemOutput, error) {
	expr := aws.ToString(in.UpdateExpression)
	if strings.HasPrefix(expr, "ADD #hb") { // a heartbeat: not a step of the protocol
		if cc.dead() {
			return nil, errCrashed
		}
		return cc.c.UpdateItem(ctx, in, o...)
	}
	v, _ := in.ExpressionAttributeValues[":new"].(*types.AttributeValueMemberS)
	if err := cc.write(v != nil && v.Value == "committed"); err != nil {
		return nil, err
	}
	return cc.c.UpdateItem(ctx, in, o...)
}

// crashScenario is one unit over 20 accounts of one run: locking reads
// and writes of 10, updates of 8 it never read, the creation of one and
// the deletion of one. The total balance is the same before and after.
type crashScenario struct {
	e      *env
	prefix string
}

func (s crashScenario) id(i int) string { return fmt.Sprintf("%s-%02d", s.prefix, i) }

const crashAccounts = 20 // ids 0..19 exist; 19 is deleted, 20 is created

func (s crashScenario) seed(t *testing.T) {
	items := make([]*Account, crashAccounts)
	for i := range items {
		items[i] = &Account{ID: s.id(i), Balance: 100}
	}
	require.NoError(t, s.e.accounts.PutAll(context.Background(), items, mapper.Unversioned()))
}

// delta is what the unit adds to account i (0..18), and the created
// account 20 gets 100 - Σ delta so the total stays 2,000.
func delta(i int) int64 { return int64(i%5) - 2 + int64(i%3) }

// run runs the scenario's unit through c. A unit whose client crashed
// heartbeats on (failing) until its Rollback: run registers one at the
// test's end, since a testing/synctest bubble ends only once every
// goroutine in it has.
func (s crashScenario) run(t *testing.T, ctx context.Context, c unit.Client, opts ...unit.Option) error {
	e := s.e
	u, err := unit.Begin(ctx, c, append([]unit.Option{unit.Coordinator(e.coord)}, opts...)...)
	if err != nil {
		return err
	}
	t.Cleanup(func() { _ = u.Rollback(context.Background()) })
	var sum int64
	for i := range 10 {
		a, err := unit.Get(ctx, u, e.accounts, Account{ID: s.id(i)})
		if err != nil {
			return err
		}
		a.Balance += delta(i)
		a.Applied = append(a.Applied, s.prefix)
		sum += delta(i)
		if err := u.Add(e.accounts.PutOp(a)); err != nil {
			return err
		}
	}
	for i := 10; i < 19; i++ {
		sum += delta(i)
		if err := u.Add(e.accounts.UpdateOp(Account{ID: s.id(i)}, update.Add("balance", delta(i)).Append("applied", []string{s.prefix}))); err != nil {
			return err
		}
	}
	if _, err := unit.Get(ctx, u, e.accounts, Account{ID: s.id(20)}); !errors.Is(err, mapper.ErrNotFound) {
		return fmt.Errorf("expected ErrNotFound, got %v", err)
	}
	if err := u.Add(
		e.accounts.DeleteOp(Account{ID: s.id(19)}),
		e.accounts.PutOp(&Account{ID: s.id(20), Balance: 100 - sum, Applied: []string{s.prefix}}),
	); err != nil {
		return err
	}
	return u.Commit(ctx)
}

// state classifies the accounts as read: "before", "after" or a
// description of a partial state. Missing entries (nil) are missing items.
func (s crashScenario) state(accts map[string]*Account) string {
	var before, after []int
	total := int64(0)
	for i := 0; i <= crashAccounts; i++ {
		a := accts[s.id(i)]
		if a != nil {
			total += a.Balance
		}
		switch {
		case i == 20 && a == nil, i == 19 && a != nil && len(a.Applied) == 0 && a.Balance == 100,
			i < 19 && a != nil && len(a.Applied) == 0 && a.Balance == 100:
			before = append(before, i)
		case i == 19 && a == nil, i == 20 && a != nil && slices.Equal(a.Applied, []string{s.prefix}),
			i < 19 && a != nil && slices.Equal(a.Applied, []string{s.prefix}) && a.Balance == 100+delta(i):
			after = append(after, i)
		}
	}
	switch {
	case len(before) == crashAccounts+1 && total == 2000:
		return "before"
	case len(after) == crashAccounts+1 && total == 2000:
		return "after"
	}
	return fmt.Sprintf("partial: before %v, after %v, total %d", before, after, total)
}

func (s crashScenario) readAll(ctx context.Context) (map[string]*Account, error) {
	out := map[string]*Account{}
	ops := make([]txn.GetOp, crashAccounts+1)
	dst := make([]*Account, crashAccounts+1)
	for i := range ops {
		ops[i] = s.e.accounts.GetOp(Account{ID: s.id(i)}, &dst[i])
	}
	if err := txn.Get(ctx, s.e.c, ops...); err != nil {
		return nil, err
	}
	for i, a := range dst {
		out[s.id(i)] = a
	}
	return out, nil
}

// watch polls the accounts until stop is closed, with txn.Get (a
// snapshot: never partial) and with mapper.Get one by one (never back to
// "before" for an item once an item was seen "after"), and reports what
// went wrong. In a testing/synctest bubble, time moves only while every
// goroutine waits: the watcher polls without pause until ran is closed
// (the unit works in no time, and is watched all the while), then with a
// pause between rounds, so that a lease can pass before recovery.
func (s crashScenario) watch(stop, ran <-chan struct{}, pause time.Duration) <-chan watchReport {
	out := make(chan watchReport, 1)
	go func() {
		var rep watchReport
		bad := &rep.bad
		ctx := context.Background()
		sawAfter := false
		for {
			select {
			case <-stop:
				out <- rep
				return
			default:
			}
			snap, err := s.readAll(ctx)
			if err != nil {
				*bad = append(*bad, "txn.Get: "+err.Error())
			} else if st := s.state(snap); st != "before" && st != "after" {
				*bad = append(*bad, "txn.Get saw "+st)
			}
			for i := 0; i <= crashAccounts; i++ {
				a, err := s.e.accounts.Get(ctx, Account{ID: s.id(i)})
				if errors.Is(err, mapper.ErrNotFound) {
					a, err = nil, nil
				}
				if err != nil {
					*bad = append(*bad, "Get: "+err.Error())
					continue
				}
				isAfter := (i == 19 && a == nil) || (i != 19 && a != nil && len(a.Applied) == 1)
				if isAfter {
					sawAfter = true
				} else if sawAfter {
					*bad = append(*bad, fmt.Sprintf("Get of %d went back to its old state after a new state was seen", i))
				}
			}
			select {
			case <-ran:
				rep.after++
				time.Sleep(pause)
			default:
				rep.during++
				runtime.Gosched()
			}
		}
	}()
	return out
}

// watchReport is what a watcher saw: what went wrong, and how many rounds
// it read while the unit ran and after.
type watchReport struct {
	bad           []string
	during, after int
}

// TestCrashAtEveryStep kills a unit after each of a sample of its
// protocol writes (the client fails every call from then on; no rollback
// runs), then runs Recover: the accounts are all applied or all
// unchanged, never partial, no lock remains, and readers polling during
// the run never saw a partial unit. It runs in a testing/synctest bubble:
// Recover waits out each crashed unit's lease in virtual time. The sample
// is every sixth write and every write around the commit point; every
// write with ddbtest.EnvLong set (make test-long).
func TestCrashAtEveryStep(t *testing.T) { synctest.Test(t, testCrashAtEveryStep) }

func testCrashAtEveryStep(t *testing.T) {
	e := newEnvOn(t, dynamolocal.NewEngine(t, dynamolocal.WithoutListener()))
	ctx := ctxT(t, 10*time.Minute)
	const lease = 300 * time.Millisecond
	opts := []unit.Option{unit.LeaseDuration(lease), unit.Heartbeat(50 * time.Millisecond)}

	// A run without a crash: how many writes, and which is the commit point.
	full := &crashClient{c: e.c, limit: -1}
	s := crashScenario{e: e, prefix: "full"}
	s.seed(t)
	require.NoError(t, s.run(t, ctx, full, opts...))
	snap, err := s.readAll(ctx)
	require.NoError(t, err)
	require.Equal(t, "after", s.state(snap))
	total, commit := int(full.writes.Load()), int(full.commit.Load())
	t.Logf("a full run makes %d protocol writes; the commit point is write %d", total, commit)
	require.Greater(t, commit, 20)

	// Sample: every sixth write (every one in the long run), and every
	// write around the commit point.
	step := 6
	if ddbtest.Long() {
		step = 1
	}
	var points []int
	for k := 0; k <= total; k += step {
		points = append(points, k)
	}
	for k := commit - 2; k <= commit+2; k++ {
		points = append(points, k)
	}
	slices.Sort(points)
	points = slices.Compact(points)
	if only := os.Getenv("CRASH_POINTS"); only != "" { // for debugging: CRASH_POINTS=54,55
		points = nil
		for _, f := range strings.Split(only, ",") {
			k, err := strconv.Atoi(f)
			require.NoError(t, err)
			points = append(points, k)
		}
	}

	if os.Getenv("CRASH_POINTS") == "" {
		require.GreaterOrEqual(t, len(points), 15)
	}
	outcomes := map[string]int{}
	var during, after int // the watchers' rounds
	for _, k := range points {
		s := crashScenario{e: e, prefix: fmt.Sprintf("k%03d", k)}
		s.seed(t)
		stop := make(chan struct{})
		ran := make(chan struct{})
		// Once the client crashed, the items stay as they are until Recover
		// acts (the client sends nothing; Recover only reads while it
		// watches the lease, and acts in no virtual time, while the watcher
		// sleeps): a round every half lease reads all that more rounds
		// would.
		watched := s.watch(stop, ran, lease/2)
		cc := &crashClient{c: e.c, limit: int64(k)}
		runErr := s.run(t, ctx, cc, opts...)
		close(ran)
		n, err := unit.Recover(ctx, e.c, e.coord)
		require.NoError(t, err, "k=%d", k)
		if os.Getenv("CRASH_POINTS") != "" {
			t.Logf("k=%d: run: %v; recovered %d", k, runErr, n)
		}
		close(stop)
		rep := <-watched
		for _, p := range rep.bad {
			t.Errorf("k=%d: reader: %s", k, p)
		}
		if k > 0 && k < commit {
			// Recover waited out the active unit's lease: the watcher, which
			// does not sleep in the middle of a round, read once more before
			// the bubble's time could move.
			require.Positive(t, rep.after, "k=%d: the crashed unit's items were read", k)
		}
		during, after = during+rep.during, after+rep.after
		snap, err := s.readAll(ctx)
		require.NoError(t, err)
		st := s.state(snap)
		outcomes[st]++
		switch {
		case k < commit:
			assert.Equal(t, "before", st, "k=%d: crashed before the commit point (run: %v)", k, runErr)
			assert.Error(t, runErr, "k=%d", k)
		default:
			assert.Equal(t, "after", st, "k=%d: crashed after the commit point (run: %v, recovered %d)", k, runErr, n)
		}
		if runErr == nil {
			assert.Equal(t, "after", st, "k=%d: Commit returned nil", k)
		}
		if k > 0 && k < total-1 {
			assert.Equal(t, 1, n, "k=%d: the unit was recovered", k)
		}
		assert.Zero(t, lockedItems(t, e.c, e.accounts.Name()), "k=%d: no lock remains", k)
		var unfinished int
		for _, r := range raw(t, e.c, e.coord) {
			if _, rec := r["st"]; rec {
				if _, fin := r["fin"]; !fin {
					unfinished++
				}
			}
		}
		assert.Zero(t, unfinished, "k=%d: every record finished", k)
	}
	t.Logf("%d crash points: %v; the watchers read %d rounds while units ran, %d after they crashed", len(points), outcomes, during, after)

}

// TestReadersOfAStoppedUnit stops a unit just before and just after its
// commit point, with every item prepared (new state in place, old state in
// the lock), and reads the items with every plain read of the mapper:
// Get, GetAll, Scan, Query (the latter three page through items with
// placeholders and prepared items) and txn.Get.
func TestReadersOfAStoppedUnit(t *testing.T) { synctest.Test(t, testReadersOfAStoppedUnit) }

func testReadersOfAStoppedUnit(t *testing.T) {
	e := newEnvOn(t, dynamolocal.NewEngine(t, dynamolocal.WithoutListener()))
	ctx := ctxT(t, 2*time.Minute)
	full := &crashClient{c: e.c, limit: -1}
	s := crashScenario{e: e, prefix: "full"}
	s.seed(t)
	require.NoError(t, s.run(t, ctx, full))
	commit := int(full.commit.Load())
	for _, tc := range []struct {
		limit int
		want  string
	}{{commit - 1, "before"}, {commit, "after"}} {
		s := crashScenario{e: e, prefix: fmt.Sprintf("k%03d", tc.limit)}
		s.seed(t)
		err := s.run(t, ctx, &crashClient{c: e.c, limit: int64(tc.limit)})
		if tc.want == "before" {
			require.Error(t, err)
		} else {
			require.NoError(t, err, "past the commit point, Commit reports success and leaves the rest to recovery")
		}
		require.Positive(t, lockedItems(t, e.c, e.accounts.Name()))

		var prepared int
		for _, it := range raw(t, e.c, e.accounts.Name()) {
			id, _ := it["id"].(*types.AttributeValueMemberS)
			if l, ok := unitproto.Parse(it); ok && l.Prepared && strings.HasPrefix(id.Value, s.prefix) {
				prepared++
			}
		}
		assert.Equal(t, 21, prepared, "every item is prepared (%s)", tc.want)

		// Readers may apply the items of a committed unit as they meet them
		// (txn.Get does, before it takes its snapshot again): the state they
		// show is the same.
		snap, err := s.readAll(ctx)
		require.NoError(t, err)
		assert.Equal(t, tc.want, s.state(snap), "txn.Get")

		keys := make([]Account, crashAccounts+1)
		for i := range keys {
			keys[i] = Account{ID: s.id(i)}
		}
		all, err := e.accounts.GetAll(ctx, keys)
		// Before, the item the unit creates is held while it does not exist;
		// after, the one it deletes is gone: missing, either way, not a nil
		// item without an error.
		var me *mapper.MissingError
		require.ErrorAs(t, err, &me)
		missing := []int{crashAccounts}
		if tc.want == "after" {
			missing = []int{crashAccounts - 1}
		}
		assert.Equal(t, missing, me.Keys)
		got := map[string]*Account{}
		for i, a := range all {
			got[s.id(i)] = a
		}
		assert.Equal(t, tc.want, s.state(got), "GetAll")

		got = map[string]*Account{}
		for a, err := range e.accounts.Scan(ctx, mapper.ConsistentRead(true), mapper.PageSize(3)) {
			require.NoError(t, err)
			if strings.HasPrefix(a.ID, s.prefix) {
				got[a.ID] = a
			}
		}
		assert.Equal(t, tc.want, s.state(got), "Scan")

		got = map[string]*Account{}
		for i := 0; i <= crashAccounts; i++ {
			a, err := e.accounts.Get(ctx, Account{ID: s.id(i)})
			if !errors.Is(err, mapper.ErrNotFound) {
				require.NoError(t, err)
				got[a.ID] = a
			}
		}
		assert.Equal(t, tc.want, s.state(got), "Get")

		got = map[string]*Account{}
		for i := 0; i <= crashAccounts; i++ {
			for a, err := range e.accounts.Query(ctx, expression.Key("id").Equal(expression.Value(s.id(i))), mapper.ConsistentRead(true)) {
				require.NoError(t, err)
				got[a.ID] = a
			}
		}
		assert.Equal(t, tc.want, s.state(got), "Query")
	}
}

// TestEveryWriteResponseLostOnce loses the response of the first attempt
// of every write the protocol makes (the server applied it; the SDK sends
// it again): each retry meets its own first attempt and must take it for
// success, never apply twice, never report a conflict with itself.
func TestEveryWriteResponseLostOnce(t *testing.T) { synctest.Test(t, testEveryWriteResponseLostOnce) }

func testEveryWriteResponseLostOnce(t *testing.T) {
	srv := dynamolocal.NewEngine(t, dynamolocal.WithoutListener())
	e := newEnvOn(t, srv)
	ctx := ctxT(t, 2*time.Minute)
	drop := &firstAttemptLost{base: srv.Transport()}
	lossy := srv.NewClient(func(o *dynamodb.Options) {
		o.HTTPClient = &http.Client{Transport: drop}
		o.Retryer = awsretry.AddWithMaxBackoffDelay(awsretry.NewStandard(), 5*time.Millisecond)
	})

	s := crashScenario{e: e, prefix: "commit"}
	s.seed(t)
	require.NoError(t, s.run(t, ctx, lossy))
	snap, err := s.readAll(ctx)
	require.NoError(t, err)
	assert.Equal(t, "after", s.state(snap))
	assert.Zero(t, lockedItems(t, e.c, e.accounts.Name()))
	t.Logf("%d responses lost", drop.dropped.Load())
	assert.GreaterOrEqual(t, drop.dropped.Load(), int64(70))

	// Rollback through the same client.
	before := raw(t, e.c, e.accounts.Name())
	u := begin(t, e, lossy)
	for i := range 5 {
		a, err := unit.Get(ctx, u, e.accounts, Account{ID: s.id(i)})
		require.NoError(t, err)
		a.Balance = 0
		require.NoError(t, u.Add(e.accounts.PutOp(a)))
	}
	_, err = unit.Get(ctx, u, e.accounts, Account{ID: "rollback-new"})
	require.ErrorIs(t, err, mapper.ErrNotFound)
	require.NoError(t, u.Add(e.accounts.PutOp(&Account{ID: "rollback-new"}), e.accounts.DeleteOp(Account{ID: s.id(6)})))
	require.NoError(t, u.Rollback(ctx))
	assert.ElementsMatch(t, before, raw(t, e.c, e.accounts.Name()))
}

// firstAttemptLost loses the response of the first attempt of every
// PutItem, UpdateItem and DeleteItem after the server applied it (the
// SDK's amz-sdk-request header numbers the attempts of one call).
type firstAttemptLost struct {
	base    http.RoundTripper
	dropped atomic.Int64
}

func (d *firstAttemptLost) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := d.base.RoundTrip(req)
	switch dynamolocal.OpName(req) {
	case "PutItem", "UpdateItem", "DeleteItem":
	default:
		return resp, err
	}
	if err != nil || !strings.Contains(req.Header.Get("Amz-Sdk-Request"), "attempt=1;") {
		return resp, err
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	d.dropped.Add(1)
	return nil, &net.OpError{Op: "read", Net: "tcp", Err: os.NewSyscallError("read", syscall.ECONNRESET)}
}
