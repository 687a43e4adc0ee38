package pessimistic_test

import (
	"context"
	"errors"
	"net"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go/middleware"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/optimist-dynamo/optimist/dynamolocal"
	"github.com/optimist-dynamo/optimist/internal/ddbtest"
	"github.com/optimist-dynamo/optimist/mapper"
	"github.com/optimist-dynamo/optimist/pessimistic"
)

// lockTable creates a lock table for the test and returns the server and
// the table's name.
func lockTable(t *testing.T) (*dynamolocal.Server, string) {
	t.Helper()
	return lockTableOn(t, dynamolocal.New(t))
}

// bubbleLockTable is lockTable on an engine of the test's own, for a test
// in a testing/synctest bubble: the engine and the Lockers then run on
// the bubble's virtual time (see dynamolocal.NewEngine).
func bubbleLockTable(t *testing.T) (*dynamolocal.Server, string) {
	t.Helper()
	return lockTableOn(t, dynamolocal.NewEngine(t, dynamolocal.WithoutListener()))
}

func lockTableOn(t *testing.T, srv *dynamolocal.Server) (*dynamolocal.Server, string) {
	t.Helper()
	name := ddbtest.TableName(t)
	require.NoError(t, pessimistic.CreateTable(context.Background(), srv.Client(), name))
	t.Cleanup(func() {
		_, err := srv.Client().DeleteTable(context.Background(), &dynamodb.DeleteTableInput{TableName: aws.String(name)})
		assert.NoError(t, err)
	})
	return srv, name
}

// Doc is the resource of the fencing tests: a document written with the
// lock's fencing token.
type Doc struct {
	ID   string `dynamo:"id,hash"`
	Body string `dynamo:"body"`
}

// docsTable makes a table of Docs of its own on srv.
func docsTable(t *testing.T, srv *dynamolocal.Server) *mapper.Table[Doc] {
	t.Helper()
	name := ddbtest.CreateTable(t, srv.Client(), "id", types.ScalarAttributeTypeS, "", "")
	docs, err := mapper.NewTable[Doc](srv.Client(), name)
	require.NoError(t, err)
	return docs
}

func newLocker(t *testing.T, c pessimistic.Client, table string, opts ...pessimistic.Option) *pessimistic.Locker {
	t.Helper()
	l, err := pessimistic.New(c, table, opts...)
	require.NoError(t, err)
	t.Cleanup(l.Close)
	// New makes no call; check now, so that the tests that count calls
	// count the lock's calls only.
	require.NoError(t, l.Check(context.Background()))
	return l
}

func lockItem(t *testing.T, c *dynamodb.Client, table, name string) map[string]types.AttributeValue {
	t.Helper()
	out, err := c.GetItem(context.Background(), &dynamodb.GetItemInput{
		TableName:      aws.String(table),
		Key:            map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: name}, "sk": &types.AttributeValueMemberS{Value: "lock"}},
		ConsistentRead: aws.Bool(true),
	})
	require.NoError(t, err)
	return out.Item
}

// stampingClient records the (bubble's) time when its first UpdateItem
// succeeds: the moment a lock was taken. Reading the clock after Acquire
// returns would be too late, since the new lease's heartbeat goroutine
// already sleeps and the bubble's time may have moved on.
type stampingClient struct {
	*dynamodb.Client
	mu    sync.Mutex
	first time.Time
}

func (s *stampingClient) UpdateItem(ctx context.Context, in *dynamodb.UpdateItemInput, optFns ...func(*dynamodb.Options)) (*dynamodb.UpdateItemOutput, error) {
	out, err := s.Client.UpdateItem(ctx, in, optFns...)
	if err == nil {
		s.mu.Lock()
		if s.first.IsZero() {
			s.first = time.Now() // the bubble's time does not move while this call runs
		}
		s.mu.Unlock()
	}
	return out, err
}

// firstWrite returns the time of the first successful UpdateItem.
func (s *stampingClient) firstWrite() time.Time {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.first
}

// advanceUntil waits, in a testing/synctest bubble, until done is closed,
// and returns the time then; the bubble's time moves on by itself while
// every goroutine sleeps. It fails the test if that takes longer than
// limit of the bubble's time.
func advanceUntil(t *testing.T, done <-chan struct{}, limit time.Duration) time.Time {
	t.Helper()
	select {
	case <-done:
		return time.Now()
	case <-time.After(limit):
		require.FailNow(t, "nothing happened", "within %v of the bubble's time", limit)
		return time.Time{}
	}
}

func TestUncontendedCycleCostsTwoCalls(t *testing.T) {
	srv, table := lockTable(t)
	calls := ddbtest.NewCounting(srv.Client())
	l := newLocker(t, calls, table)
	calls.Reset()
	ctx := context.Background()

	var tokens []int64
	for range 3 {
		lease, err := l.Acquire(ctx, "order-42")
		require.NoError(t, err)
		assert.NoError(t, lease.Context().Err())
		tokens = append(tokens, lease.Token())
		require.NoError(t, lease.Release(ctx))
		assert.ErrorIs(t, lease.Context().Err(), context.Canceled, "released: its context ends")
		assert.NoError(t, lease.Err(), "a release is not a loss")
		assert.NoError(t, lease.Release(ctx), "a second Release is a no-op")
	}
	assert.Equal(t, int64(6), calls.Total(), "one UpdateItem to acquire, one to release")
	assert.Equal(t, int64(6), calls.Count("UpdateItem"))
	assert.Less(t, tokens[0], tokens[1])
	assert.Less(t, tokens[1], tokens[2])

	item := lockItem(t, srv.Client(), table, "order-42")
	assert.NotContains(t, item, "owner", "release removes the owner")
	assert.Contains(t, item, "fence", "and keeps the fence counter")
	assert.Contains(t, item, "ttl")
}

func TestNoWaitOnHeldLock(t *testing.T) { synctest.Test(t, testNoWaitOnHeldLock) }

func testNoWaitOnHeldLock(t *testing.T) {
	srv, table := bubbleLockTable(t)
	holder := newLocker(t, srv.Client(), table, pessimistic.Owner("alice"))
	other := newLocker(t, srv.Client(), table, pessimistic.Owner("bob"))
	ctx := context.Background()
	lease, err := holder.Acquire(ctx, "job")
	require.NoError(t, err)

	start := time.Now()
	_, err = other.Acquire(ctx, "job", pessimistic.Wait(0))
	assert.Less(t, time.Since(start), time.Second)
	require.ErrorIs(t, err, pessimistic.ErrNotAcquired)
	var le *pessimistic.NotAcquiredError
	require.ErrorAs(t, err, &le)
	assert.Equal(t, "alice", le.Owner)
	assert.Equal(t, lease.Token(), le.Token)
	assert.Equal(t, "job", le.Name)

	// A bounded wait ends with the holder too.
	start = time.Now()
	_, err = other.Acquire(ctx, "job", pessimistic.Wait(300*time.Millisecond), pessimistic.PollInterval(50*time.Millisecond))
	require.ErrorIs(t, err, pessimistic.ErrNotAcquired)
	assert.GreaterOrEqual(t, time.Since(start), 300*time.Millisecond)
	assert.Less(t, time.Since(start), 2*time.Second)

	// A canceled ctx ends a waiting Acquire promptly.
	cctx, cancel := context.WithCancel(ctx)
	go func() { time.Sleep(150 * time.Millisecond); cancel() }()
	start = time.Now()
	_, err = other.Acquire(cctx, "job")
	require.ErrorIs(t, err, context.Canceled)
	assert.Less(t, time.Since(start), time.Second)

	// The same owner does not get it twice.
	_, err = holder.Acquire(ctx, "job", pessimistic.Wait(0))
	require.ErrorIs(t, err, pessimistic.ErrNotAcquired)

	require.NoError(t, lease.Release(ctx))
	got, err := other.Acquire(ctx, "job", pessimistic.Wait(0))
	require.NoError(t, err)
	assert.Greater(t, got.Token(), lease.Token())
	require.NoError(t, got.Release(ctx))
}

// exclusion is what a mutual-exclusion run measured.
type exclusion struct {
	wall, maxWait time.Duration
	callsPerAcq   float64
	updateItems   int64
	changes       int // how often the holder changed from one grant to the next
}

// runMutualExclusion runs lockers Lockers (each with opts) × goroutines ×
// rounds on one lock, each round a non-atomic read-sleep-write of a
// counter, and asserts that at most one was ever inside, that no increment
// was lost, and that tokens strictly increase in grant order.
func runMutualExclusion(t *testing.T, lockers, goroutines, rounds int, opts ...pessimistic.Option) exclusion {
	t.Helper()
	srv, table := bubbleLockTable(t)
	calls := ddbtest.NewCounting(srv.Client())
	ctx := context.Background()

	var inside, maxInside atomic.Int32
	counter := 0
	var mu sync.Mutex // guards grants, not counter
	var grants []int64
	var holders []int
	var maxWait time.Duration
	var wg sync.WaitGroup
	start := time.Now()
	for i := range lockers {
		l := newLocker(t, calls, table, append([]pessimistic.Option{pessimistic.Owner("locker-" + string(rune('A'+i)))}, opts...)...)
		for g := range goroutines {
			who := i*goroutines + g
			wg.Add(1)
			go func() {
				defer wg.Done()
				for range rounds {
					asked := time.Now()
					err := l.Do(ctx, "counter", func(ctx context.Context, lease *pessimistic.Lease) error {
						waited := time.Since(asked)
						n := inside.Add(1)
						defer inside.Add(-1)
						for m := maxInside.Load(); n > m && !maxInside.CompareAndSwap(m, n); m = maxInside.Load() {
						}
						mu.Lock()
						grants = append(grants, lease.Token())
						holders = append(holders, who)
						maxWait = max(maxWait, waited)
						mu.Unlock()
						v := counter // read
						time.Sleep(2 * time.Millisecond)
						counter = v + 1 // write
						return ctx.Err()
					})
					assert.NoError(t, err)
				}
			}()
		}
	}
	wg.Wait()
	wall := time.Since(start)
	total := lockers * goroutines * rounds
	assert.Equal(t, int32(1), maxInside.Load(), "at most one inside at any moment")
	assert.Equal(t, total, counter, "no increment lost")
	require.Len(t, grants, total)
	for i := 1; i < len(grants); i++ {
		assert.Greater(t, grants[i], grants[i-1], "tokens strictly increase in grant order")
	}
	changes := 0
	for i := 1; i < len(holders); i++ {
		if holders[i] != holders[i-1] {
			changes++
		}
	}
	return exclusion{
		wall: wall, maxWait: maxWait, changes: changes,
		callsPerAcq: float64(calls.Total()-int64(lockers)) / float64(total), // less each New's DescribeTable
		updateItems: calls.Count("UpdateItem"),
	}
}

// TestMutualExclusion (in a testing/synctest bubble): 4 Lockers × 3
// goroutines × 8 rounds on one lock.
func TestMutualExclusion(t *testing.T) { synctest.Test(t, testMutualExclusion) }

func testMutualExclusion(t *testing.T) {
	const lockers, goroutines, rounds = 4, 3, 8
	m := runMutualExclusion(t, lockers, goroutines, rounds)
	t.Logf("mutual exclusion, %d×%d×%d: wall %v, %.2f calls per acquisition (%d UpdateItem), max wait %v, holder changed %d times",
		lockers, goroutines, rounds, m.wall.Round(time.Millisecond), m.callsPerAcq,
		m.updateItems, m.maxWait.Round(time.Millisecond), m.changes)
}

// TestCrashedHolderIsTakenOver (in a testing/synctest bubble): a holder
// that stops its heartbeats without releasing is taken over after one
// lease, not before, and at the first poll after it.
func TestCrashedHolderIsTakenOver(t *testing.T) { synctest.Test(t, testCrashedHolderIsTakenOver) }

func testCrashedHolderIsTakenOver(t *testing.T) {
	srv, table := bubbleLockTable(t)
	const lease, hb = time.Second, 200 * time.Millisecond
	crashing := newLocker(t, srv.Client(), table, pessimistic.LeaseDuration(lease), pessimistic.Heartbeat(hb), pessimistic.Owner("crasher"))
	waiting := newLocker(t, srv.Client(), table, pessimistic.PollInterval(50*time.Millisecond), pessimistic.Owner("waiter"))
	ctx := context.Background()
	old, err := crashing.Acquire(ctx, "job")
	require.NoError(t, err)
	crashing.Close() // no heartbeats, no release
	assert.ErrorIs(t, old.Err(), pessimistic.ErrClosed)

	start := time.Now()
	got, err := waiting.Acquire(ctx, "job")
	elapsed := time.Since(start)
	require.NoError(t, err)
	t.Logf("taken over after %v (lease %v)", elapsed.Round(time.Millisecond), lease)
	assert.GreaterOrEqual(t, elapsed, lease, "not before a full lease")
	assert.LessOrEqual(t, elapsed, lease+50*time.Millisecond, "at the first poll after the lease")
	assert.Greater(t, got.Token(), old.Token())
	require.NoError(t, got.Release(ctx))
	_, err = crashing.Acquire(ctx, "other")
	assert.ErrorIs(t, err, pessimistic.ErrClosed)
}

// TestTakeoverByObservation (in a testing/synctest bubble): the waiter takes over exactly when
// the record it saw has stayed unchanged for a full lease on its own clock.
func TestTakeoverByObservation(t *testing.T) { synctest.Test(t, testTakeoverByObservation) }

func testTakeoverByObservation(t *testing.T) {
	srv, table := bubbleLockTable(t)
	const lease = 10 * time.Second
	crashing := newLocker(t, srv.Client(), table, pessimistic.LeaseDuration(lease))
	stamp := &stampingClient{Client: srv.Client()}
	waiting := newLocker(t, stamp, table, pessimistic.PollInterval(time.Second))
	ctx := context.Background()
	old, err := crashing.Acquire(ctx, "job")
	require.NoError(t, err)
	crashing.Close()

	t0 := time.Now()
	done := make(chan struct{})
	var got *pessimistic.Lease
	go func() {
		defer close(done)
		got, err = waiting.Acquire(ctx, "job")
	}()
	advanceUntil(t, done, time.Minute)
	require.NoError(t, err)
	assert.Equal(t, t0.Add(lease), stamp.firstWrite(), "taken over when the lease seen ran out, not before, not later")
	assert.Greater(t, got.Token(), old.Token())
	require.NoError(t, got.Release(ctx))
}

// TestHeartbeatsKeepTheLease (in a testing/synctest bubble): a holder that heartbeats is not
// taken over, however long it holds.
func TestHeartbeatsKeepTheLease(t *testing.T) { synctest.Test(t, testHeartbeatsKeepTheLease) }

func testHeartbeatsKeepTheLease(t *testing.T) {
	srv, table := bubbleLockTable(t)
	const lease = 10 * time.Second
	holding := newLocker(t, srv.Client(), table, pessimistic.LeaseDuration(lease))
	waiting := newLocker(t, srv.Client(), table, pessimistic.PollInterval(time.Second))
	ctx := context.Background()
	held, err := holding.Acquire(ctx, "job")
	require.NoError(t, err)

	wctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		_, err = waiting.Acquire(wctx, "job")
	}()
	time.Sleep(5 * lease) // the holder heartbeats, the waiter polls
	cancel()
	<-done
	require.ErrorIs(t, err, context.Canceled, "the waiter never got it")
	assert.NoError(t, held.Err())
	assert.NoError(t, held.Context().Err())
	require.NoError(t, held.Release(ctx))
}

// TestStolenLockCancelsTheHolder (in a testing/synctest bubble): overwriting the lock record
// by hand ends the holder's context at its next heartbeat.
func TestStolenLockCancelsTheHolder(t *testing.T) { synctest.Test(t, testStolenLockCancelsTheHolder) }

func testStolenLockCancelsTheHolder(t *testing.T) {
	srv, table := bubbleLockTable(t)
	l := newLocker(t, srv.Client(), table, pessimistic.LeaseDuration(8*time.Second))
	ctx := context.Background()
	lease, err := l.Acquire(ctx, "job")
	require.NoError(t, err)

	_, err = srv.Client().PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(table), Item: map[string]types.AttributeValue{
		"pk": &types.AttributeValueMemberS{Value: "job"}, "sk": &types.AttributeValueMemberS{Value: "lock"},
		"owner": &types.AttributeValueMemberS{Value: "thief"}, "rvn": &types.AttributeValueMemberS{Value: "x"},
		"fence": &types.AttributeValueMemberN{Value: "999999999999999"},
	}})
	require.NoError(t, err)
	t0 := time.Now()
	at := advanceUntil(t, lease.Context().Done(), time.Minute)
	assert.Equal(t, t0.Add(2*time.Second), at, "at the first heartbeat")
	assert.ErrorIs(t, lease.Err(), pessimistic.ErrLeaseLost)
	assert.ErrorIs(t, context.Cause(lease.Context()), pessimistic.ErrLeaseLost)

	require.ErrorIs(t, lease.Release(ctx), pessimistic.ErrNotHeld)
	assert.Equal(t, &types.AttributeValueMemberS{Value: "thief"}, lockItem(t, srv.Client(), table, "job")["owner"], "Release never removes another owner's lock")
}

// partition makes the client's UpdateItem and GetItem calls fail, as if
// DynamoDB could not be reached, while on is set.
type partition struct{ on atomic.Bool }

func (p *partition) ID() string { return "partition" }

func (p *partition) HandleInitialize(ctx context.Context, in middleware.InitializeInput, next middleware.InitializeHandler) (middleware.InitializeOutput, middleware.Metadata, error) {
	if p.on.Load() {
		return middleware.InitializeOutput{}, middleware.Metadata{}, &net.OpError{Op: "dial", Net: "tcp", Err: errors.New("network is unreachable")}
	}
	return next.HandleInitialize(ctx, in)
}

func (p *partition) option(o *dynamodb.Options) {
	o.APIOptions = append(o.APIOptions, func(s *middleware.Stack) error { return s.Initialize.Add(p, middleware.Before) })
}

// TestPartitionCancelsBeforeExpiry (in a testing/synctest bubble): when heartbeats cannot get
// through, the lease context is canceled before the lease would expire.
func TestPartitionCancelsBeforeExpiry(t *testing.T) {
	synctest.Test(t, testPartitionCancelsBeforeExpiry)
}

func testPartitionCancelsBeforeExpiry(t *testing.T) {
	srv, table := bubbleLockTable(t)
	p := &partition{}
	const lease = 10 * time.Second
	l := newLocker(t, srv.NewClient(p.option), table, pessimistic.LeaseDuration(lease))
	ctx := context.Background()
	held, err := l.Acquire(ctx, "job")
	require.NoError(t, err)
	t0 := time.Now()
	p.on.Store(true)

	at := advanceUntil(t, held.Context().Done(), time.Minute)
	assert.ErrorIs(t, held.Err(), pessimistic.ErrUnreachable)
	assert.Less(t, at.Sub(t0), lease, "given up before the lease ran out")
	assert.GreaterOrEqual(t, at.Sub(t0), lease/2, "not at the first failure")
	t.Logf("canceled %v after the last renewal, lease %v", at.Sub(t0), lease)
}

// TestLostHeartbeatResponseKeepsTheLease (in a testing/synctest bubble): a
// heartbeat that lands but whose response is lost, so that the SDK's retry
// fails its condition, does not lose the lease.
func TestLostHeartbeatResponseKeepsTheLease(t *testing.T) {
	synctest.Test(t, testLostHeartbeatResponseKeepsTheLease)
}

func testLostHeartbeatResponseKeepsTheLease(t *testing.T) {
	srv, table := bubbleLockTable(t)
	drop := &ddbtest.DropTransport{Base: srv.Transport(), Drop: func(op string, call int) bool { return op == "UpdateItem" && call == 2 }} // 1 is the acquire
	l := newLocker(t, srv.NewClient(drop.Option()), table, pessimistic.LeaseDuration(8*time.Second))
	ctx := context.Background()
	held, err := l.Acquire(ctx, "job")
	require.NoError(t, err)
	before := lockItem(t, srv.Client(), table, "job")["rvn"]
	t0 := time.Now()

	time.Sleep(2 * time.Second)        // the first heartbeat
	for drop.Calls("UpdateItem") < 3 { // the heartbeat and the SDK's retry (after its backoff)
		require.Less(t, time.Since(t0), 10*time.Second, "the heartbeat and the SDK's retry")
		time.Sleep(time.Millisecond)
	}
	synctest.Wait() // the heartbeat loop goes on: it sleeps again
	assert.Equal(t, 1, drop.Dropped())
	assert.NoError(t, held.Err())
	assert.NoError(t, held.Context().Err())
	assert.NotEqual(t, before, lockItem(t, srv.Client(), table, "job")["rvn"], "the heartbeat landed")
	require.NoError(t, held.Release(ctx), "the lease still knows its record")
}

// TestFencing (in a testing/synctest bubble): a holder paused past its
// lease cannot write once the lock was taken over; the new holder's write
// stands.
func TestFencing(t *testing.T) { synctest.Test(t, testFencing) }

func testFencing(t *testing.T) {
	srv, table := bubbleLockTable(t)
	docs := docsTable(t, srv)
	ctx := context.Background()
	const lease = 500 * time.Millisecond

	paused := newLocker(t, srv.Client(), table, pessimistic.LeaseDuration(lease), pessimistic.Heartbeat(100*time.Millisecond))
	a, err := paused.Acquire(ctx, "doc-1")
	require.NoError(t, err)
	require.NoError(t, docs.Put(ctx, &Doc{ID: "doc-1", Body: "a1"}, mapper.Fence("fence", a.Token())))
	paused.Close() // a long GC pause: no heartbeats

	next := newLocker(t, srv.Client(), table, pessimistic.PollInterval(20*time.Millisecond))
	b, err := next.Acquire(ctx, "doc-1")
	require.NoError(t, err)
	require.Greater(t, b.Token(), a.Token())
	require.NoError(t, docs.Put(ctx, &Doc{ID: "doc-1", Body: "b1"}, mapper.Fence("fence", b.Token())))

	// The paused holder wakes up and writes with its old token.
	err = docs.Put(ctx, &Doc{ID: "doc-1", Body: "a2"}, mapper.Fence("fence", a.Token()))
	require.ErrorIs(t, err, mapper.ErrConditionFailed)
	got, err := docs.Get(ctx, Doc{ID: "doc-1"})
	require.NoError(t, err)
	assert.Equal(t, "b1", got.Body, "the new holder's write stands")
	require.NoError(t, b.Release(ctx))
}

func TestOptionsAreChecked(t *testing.T) {
	srv, table := lockTable(t)
	for name, opts := range map[string][]pessimistic.Option{
		"heartbeat of half the lease": {pessimistic.LeaseDuration(time.Second), pessimistic.Heartbeat(500 * time.Millisecond)},
		"zero lease":                  {pessimistic.LeaseDuration(0)},
		"negative heartbeat":          {pessimistic.Heartbeat(-time.Second)},
		"negative poll":               {pessimistic.PollInterval(-1)},
		"negative wait":               {pessimistic.Wait(-1)},
		"empty owner":                 {pessimistic.Owner("")},
	} {
		_, err := pessimistic.New(srv.Client(), table, opts...)
		assert.ErrorIs(t, err, pessimistic.ErrInvalidOption, name)
	}
	calls := ddbtest.NewCounting(srv.Client())
	l := newLocker(t, calls, table)
	calls.Reset()
	_, err := l.Acquire(context.Background(), "x", pessimistic.LeaseDuration(time.Second), pessimistic.Heartbeat(time.Second))
	assert.ErrorIs(t, err, pessimistic.ErrInvalidOption, "per call too")
	_, err = l.Acquire(context.Background(), "")
	assert.ErrorIs(t, err, pessimistic.ErrInvalidOption)
	assert.Equal(t, int64(0), calls.Total(), "nothing sent")
}

func TestCheckChecksTheTableSchema(t *testing.T) {
	srv := dynamolocal.New(t)
	ctx := context.Background()
	wrong := ddbtest.CreateTable(t, srv.Client(), "id", types.ScalarAttributeTypeS, "", "")
	l, err := pessimistic.New(srv.Client(), wrong)
	require.NoError(t, err, "New makes no call")
	err = l.Check(ctx)
	require.ErrorIs(t, err, pessimistic.ErrSchemaMismatch)
	assert.Contains(t, err.Error(), "needs pk (S) as hash key and sk (S) as range key")
	_, err = l.Acquire(ctx, "x", pessimistic.Wait(0))
	require.ErrorIs(t, err, pessimistic.ErrSchemaMismatch, "the first call checks too")
	_, err = l.Inspect(ctx, "x")
	require.ErrorIs(t, err, pessimistic.ErrSchemaMismatch)
	missing, err := pessimistic.New(srv.Client(), "no-such-table")
	require.NoError(t, err)
	var nf *types.ResourceNotFoundException
	assert.ErrorAs(t, missing.Check(ctx), &nf)

	_, table := lockTable(t)
	require.NoError(t, pessimistic.CreateTable(context.Background(), srv.Client(), table), "an existing lock table is accepted")
	err = pessimistic.CreateTable(context.Background(), srv.Client(), wrong)
	assert.ErrorIs(t, err, pessimistic.ErrSchemaMismatch)
	assert.ErrorIs(t, err, mapper.ErrSchemaMismatch, "the differences are mapper's")
	assert.ErrorContains(t, err, "hash key (field PK): want pk (S), table has id (S)")
	ttl, err := srv.Client().DescribeTimeToLive(context.Background(), &dynamodb.DescribeTimeToLiveInput{TableName: aws.String(table)})
	require.NoError(t, err)
	assert.Equal(t, "ttl", aws.ToString(ttl.TimeToLiveDescription.AttributeName))
}

func TestDoReleasesAndReportsLoss(t *testing.T) {
	srv, table := lockTable(t)
	l := newLocker(t, srv.Client(), table)
	ctx := context.Background()
	boom := errors.New("boom")
	err := l.Do(ctx, "job", func(ctx context.Context, lease *pessimistic.Lease) error {
		assert.NoError(t, ctx.Err())
		return boom
	})
	assert.ErrorIs(t, err, boom)
	assert.NotContains(t, lockItem(t, srv.Client(), table, "job"), "owner", "released after fn, even when fn failed")

	// fn's context ends with Do's.
	dctx, cancel := context.WithCancel(ctx)
	err = l.Do(dctx, "job", func(ctx context.Context, lease *pessimistic.Lease) error {
		cancel()
		<-ctx.Done()
		return ctx.Err()
	})
	assert.ErrorIs(t, err, context.Canceled)
	assert.NotContains(t, lockItem(t, srv.Client(), table, "job"), "owner")
}
