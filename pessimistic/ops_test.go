package pessimistic_test

import (
	"bytes"
	"context"
	"fmt"
	"sort"
	"testing"
	"testing/synctest"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/optimist-dynamo/optimist/internal/ddbtest"
	"github.com/optimist-dynamo/optimist/mapper"
	"github.com/optimist-dynamo/optimist/pessimistic"
	"github.com/optimist-dynamo/optimist/update"
)

func TestInspectHeldAndFree(t *testing.T) {
	srv, table := lockTable(t)
	calls := ddbtest.NewCounting(srv.Client())
	l := newLocker(t, calls, table, pessimistic.Owner("worker-1"), pessimistic.LeaseDuration(3*time.Second))
	ctx := context.Background()

	calls.Reset()
	info, err := l.Inspect(ctx, "never-used")
	require.NoError(t, err, "a lock with no record is not an error")
	assert.Equal(t, &pessimistic.Info{Name: "never-used"}, info)
	assert.Equal(t, int64(1), calls.Total(), "one GetItem")
	assert.Equal(t, int64(1), calls.Count("GetItem"))

	lease, err := l.Acquire(ctx, "job", pessimistic.Data([]byte("invoice 7")))
	require.NoError(t, err)
	assert.Equal(t, []byte("invoice 7"), lease.Data())
	info, err = l.Inspect(ctx, "job")
	require.NoError(t, err)
	assert.True(t, info.Held)
	assert.Equal(t, "worker-1", info.Owner)
	assert.Equal(t, lease.Token(), info.Token)
	assert.Equal(t, lease.Token(), info.Fence)
	assert.Equal(t, 3*time.Second, info.Lease)
	assert.NotEmpty(t, info.Version)
	assert.Equal(t, []byte("invoice 7"), info.Data)
	assert.False(t, info.FIFO)
	assert.Empty(t, info.Queue)

	require.NoError(t, lease.Release(ctx))
	info, err = l.Inspect(ctx, "job")
	require.NoError(t, err)
	assert.Equal(t, &pessimistic.Info{Name: "job", Fence: lease.Token()}, info, "free: the counter stays, the rest is gone")

	_, err = l.Inspect(ctx, "")
	assert.ErrorIs(t, err, pessimistic.ErrInvalidOption)
	l.Close()
	_, err = l.Inspect(ctx, "job")
	assert.ErrorIs(t, err, pessimistic.ErrClosed)
}

// TestDataOfAPreviousHolderIsRemoved (in a testing/synctest bubble): a
// holder that crashed with data is taken over by one without: its data does
// not linger as the new holder's.
func TestDataOfAPreviousHolderIsRemoved(t *testing.T) {
	synctest.Test(t, testDataOfAPreviousHolderIsRemoved)
}

func testDataOfAPreviousHolderIsRemoved(t *testing.T) {
	srv, table := bubbleLockTable(t)
	ctx := context.Background()
	crashing := newLocker(t, srv.Client(), table, pessimistic.LeaseDuration(300*time.Millisecond), pessimistic.Data([]byte("old")))
	_, err := crashing.Acquire(ctx, "job")
	require.NoError(t, err)
	crashing.Close()
	next := newLocker(t, srv.Client(), table, pessimistic.PollInterval(20*time.Millisecond), pessimistic.Owner("next"))
	lease, err := next.Acquire(ctx, "job")
	require.NoError(t, err)
	assert.Nil(t, lease.Data())
	info, err := next.Inspect(ctx, "job")
	require.NoError(t, err)
	assert.Equal(t, "next", info.Owner)
	assert.Nil(t, info.Data)
	require.NoError(t, lease.Release(ctx))
}

func TestInspectFIFOQueue(t *testing.T) { synctest.Test(t, testInspectFIFOQueue) }

func testInspectFIFOQueue(t *testing.T) {
	srv, table := bubbleLockTable(t)
	ctx := context.Background()
	lockers := make([]*pessimistic.Locker, 3)
	for i := range lockers {
		lockers[i] = newLocker(t, srv.Client(), table, pessimistic.FIFO(), pessimistic.Owner(fmt.Sprintf("w%d", i)),
			pessimistic.PollInterval(20*time.Millisecond), pessimistic.Data([]byte(fmt.Sprintf("d%d", i))))
	}
	head, err := lockers[0].Acquire(ctx, "job")
	require.NoError(t, err)
	got := make(chan *pessimistic.Lease, 2)
	for _, l := range lockers[1:] {
		go func() {
			lease, err := l.Acquire(ctx, "job")
			assert.NoError(t, err)
			got <- lease
		}()
	}
	var info *pessimistic.Info
	require.Eventually(t, func() bool {
		info, err = lockers[0].Inspect(ctx, "job")
		require.NoError(t, err)
		return len(info.Queue) == 3
	}, 10*time.Second, 10*time.Millisecond)
	assert.True(t, info.FIFO)
	assert.True(t, info.Held)
	assert.Equal(t, "w0", info.Owner)
	assert.Equal(t, head.Token(), info.Token)
	assert.Equal(t, []byte("d0"), info.Data)
	assert.Equal(t, info.Queue[2].Ticket, info.Fence, "the last ticket handed out")
	assert.Equal(t, head.Token(), info.Queue[0].Ticket)
	assert.True(t, info.Queue[0].Ticket < info.Queue[1].Ticket && info.Queue[1].Ticket < info.Queue[2].Ticket, "ticket order")
	for _, e := range info.Queue {
		assert.Equal(t, "d"+e.Owner[1:], string(e.Data), "each entry carries its waiter's data")
		assert.Equal(t, pessimistic.DefaultLeaseDuration, e.Lease)
		assert.NotEmpty(t, e.Version)
	}

	require.NoError(t, head.Release(ctx))
	for range 2 {
		lease := <-got
		assert.Equal(t, "d"+lease.Owner()[1:], string(lease.Data()))
		require.NoError(t, lease.Release(ctx))
	}
	info, err = lockers[0].Inspect(ctx, "job")
	require.NoError(t, err)
	assert.False(t, info.Held)
	assert.True(t, info.FIFO, "an empty queue is still a FIFO lock's")
	assert.Empty(t, info.Queue)
}

// pagingClient makes every Scan return at most two items, so that List
// must follow pages.
type pagingClient struct {
	*ddbtest.CountingClient
}

func (p pagingClient) Scan(ctx context.Context, in *dynamodb.ScanInput, optFns ...func(*dynamodb.Options)) (*dynamodb.ScanOutput, error) {
	in.Limit = aws.Int32(2)
	return p.CountingClient.Scan(ctx, in, optFns...)
}

func TestList(t *testing.T) {
	srv, table := lockTable(t)
	ctx := context.Background()
	calls := ddbtest.NewCounting(srv.Client())
	l := newLocker(t, pagingClient{calls}, table, pessimistic.Owner("lister"))
	held, err := l.Acquire(ctx, "held")
	require.NoError(t, err)
	defer held.Release(ctx)
	free, err := l.Acquire(ctx, "free")
	require.NoError(t, err)
	require.NoError(t, free.Release(ctx))
	queued, err := l.Acquire(ctx, "queued", pessimistic.FIFO())
	require.NoError(t, err)
	defer queued.Release(ctx)
	for i := range 3 {
		lease, err := l.Acquire(ctx, fmt.Sprintf("more-%d", i))
		require.NoError(t, err)
		defer lease.Release(ctx)
	}
	// Not a lock record: List skips it.
	_, err = srv.Client().PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(table), Item: map[string]types.AttributeValue{
		"pk": &types.AttributeValueMemberS{Value: "held"}, "sk": &types.AttributeValueMemberS{Value: "other"},
	}})
	require.NoError(t, err)

	calls.Reset()
	byName := map[string]*pessimistic.Info{}
	for info, err := range l.List(ctx) {
		require.NoError(t, err)
		assert.NotContains(t, byName, info.Name, "each lock once")
		byName[info.Name] = info
	}
	names := make([]string, 0, len(byName))
	for n := range byName {
		names = append(names, n)
	}
	sort.Strings(names)
	assert.Equal(t, []string{"free", "held", "more-0", "more-1", "more-2", "queued"}, names)
	assert.GreaterOrEqual(t, calls.Count("Scan"), int64(4), "7 items, 2 a page: List followed the pages")
	assert.Equal(t, calls.Count("Scan"), calls.Total(), "Scans only")
	assert.True(t, byName["held"].Held)
	assert.Equal(t, held.Token(), byName["held"].Token)
	assert.False(t, byName["free"].Held)
	assert.True(t, byName["queued"].FIFO)
	assert.Equal(t, queued.Token(), byName["queued"].Token)
	require.Len(t, byName["queued"].Queue, 1)

	n := 0
	for range l.List(ctx) {
		n++
		break
	}
	assert.Equal(t, 1, n, "breaking out of the loop stops the Scan")
}

// TestForceRelease (in a testing/synctest bubble): an operator removes a
// holder that is alive after all (paused, say). Its heartbeat finds the
// lease lost; once the counter the operator then reads is written to the
// resource, its fenced writes fail; the next holder gets a higher token and
// writes.
func TestForceRelease(t *testing.T) { synctest.Test(t, testForceRelease) }

func testForceRelease(t *testing.T) {
	srv, table := bubbleLockTable(t)
	docs := docsTable(t, srv)
	ctx := context.Background()

	holder := newLocker(t, srv.Client(), table, pessimistic.LeaseDuration(10*time.Second), pessimistic.Heartbeat(100*time.Millisecond))
	old, err := holder.Acquire(ctx, "doc-1", pessimistic.Data([]byte("x")))
	require.NoError(t, err)
	require.NoError(t, docs.Put(ctx, &Doc{ID: "doc-1", Body: "old 1"}, mapper.Fence("fence", old.Token())))

	operator := newLocker(t, srv.Client(), table)
	require.NoError(t, operator.ForceRelease(ctx, "doc-1"))
	select {
	case <-old.Context().Done():
	case <-time.After(5 * time.Second):
		t.Fatal("the old lease's context did not end at its next heartbeat")
	}
	assert.ErrorIs(t, old.Err(), pessimistic.ErrLeaseLost)
	assert.ErrorIs(t, context.Cause(old.Context()), pessimistic.ErrLeaseLost)

	info, err := operator.Inspect(ctx, "doc-1")
	require.NoError(t, err)
	assert.False(t, info.Held)
	assert.Nil(t, info.Data)
	assert.Equal(t, old.Token()+1, info.Fence, "bumped: a token nobody holds")
	// The operator cuts the old holder off the resource with it.
	_, err = docs.Update(ctx, Doc{ID: "doc-1"}, update.Set("body", "fenced by the operator"), mapper.Fence("fence", info.Fence))
	require.NoError(t, err)

	err = docs.Put(ctx, &Doc{ID: "doc-1", Body: "old 2"}, mapper.Fence("fence", old.Token()))
	require.ErrorIs(t, err, mapper.ErrConditionFailed, "the old holder's next fenced write is refused")
	var ce *mapper.ConditionError
	require.ErrorAs(t, err, &ce)

	next := newLocker(t, srv.Client(), table)
	lease, err := next.Acquire(ctx, "doc-1", pessimistic.Wait(0))
	require.NoError(t, err, "free at once: no lease to wait out")
	assert.Greater(t, lease.Token(), info.Fence)
	require.NoError(t, docs.Put(ctx, &Doc{ID: "doc-1", Body: "new 1"}, mapper.Fence("fence", lease.Token())))
	assert.ErrorIs(t, old.Release(ctx), pessimistic.ErrNotHeld, "Release never removes another's lock")
	got, err := docs.Get(ctx, Doc{ID: "doc-1"})
	require.NoError(t, err)
	assert.Equal(t, "new 1", got.Body)
	require.NoError(t, lease.Release(ctx))

	assert.ErrorIs(t, operator.ForceRelease(ctx, "doc-1"), pessimistic.ErrNotHeld, "a free lock")
	assert.ErrorIs(t, operator.ForceRelease(ctx, "no-such-lock"), pessimistic.ErrNotHeld)
	info, err = operator.Inspect(ctx, "doc-1")
	require.NoError(t, err)
	assert.Equal(t, lease.Token(), info.Fence, "refused: nothing changed")
}

// TestForceReleaseWithoutOperatorFence: without the operator's write, the
// next holder's first fenced write is what refuses the old holder's.
func TestForceReleaseWithoutOperatorFence(t *testing.T) {
	srv, table := lockTable(t)
	docs := docsTable(t, srv)
	ctx := context.Background()
	holder := newLocker(t, srv.Client(), table)
	old, err := holder.Acquire(ctx, "doc-1")
	require.NoError(t, err)
	require.NoError(t, docs.Put(ctx, &Doc{ID: "doc-1", Body: "old 1"}, mapper.Fence("fence", old.Token())))
	require.NoError(t, holder.ForceRelease(ctx, "doc-1"))
	lease, err := holder.Acquire(ctx, "doc-1", pessimistic.Wait(0))
	require.NoError(t, err)
	assert.Equal(t, old.Token()+2, lease.Token(), "one for the bump, one for the acquisition")
	require.NoError(t, docs.Put(ctx, &Doc{ID: "doc-1", Body: "new 1"}, mapper.Fence("fence", lease.Token())))
	require.ErrorIs(t, docs.Put(ctx, &Doc{ID: "doc-1", Body: "old 2"}, mapper.Fence("fence", old.Token())), mapper.ErrConditionFailed)
	require.NoError(t, lease.Release(ctx))
}

// TestForceReleaseFIFO (in a testing/synctest bubble): the head of the
// queue is removed, the next waiter holds with its ticket, and the removed
// head's lease is lost.
func TestForceReleaseFIFO(t *testing.T) { synctest.Test(t, testForceReleaseFIFO) }

func testForceReleaseFIFO(t *testing.T) {
	srv, table := bubbleLockTable(t)
	ctx := context.Background()
	quick := []pessimistic.Option{pessimistic.FIFO(), pessimistic.LeaseDuration(10 * time.Second),
		pessimistic.Heartbeat(100 * time.Millisecond), pessimistic.PollInterval(20 * time.Millisecond)}
	a := newLocker(t, srv.Client(), table, append(quick, pessimistic.Owner("a"))...)
	b := newLocker(t, srv.Client(), table, append(quick, pessimistic.Owner("b"))...)
	head, err := a.Acquire(ctx, "job")
	require.NoError(t, err)
	got := make(chan *pessimistic.Lease, 1)
	go func() {
		lease, err := b.Acquire(ctx, "job")
		assert.NoError(t, err)
		got <- lease
	}()
	require.Eventually(t, func() bool {
		info, err := a.Inspect(ctx, "job")
		require.NoError(t, err)
		return len(info.Queue) == 2
	}, 10*time.Second, 10*time.Millisecond)

	require.NoError(t, a.ForceRelease(ctx, "job"))
	var next *pessimistic.Lease
	select {
	case next = <-got:
	case <-time.After(10 * time.Second):
		t.Fatal("the next waiter did not get the lock")
	}
	assert.Equal(t, "b", next.Owner())
	assert.Greater(t, next.Token(), head.Token())
	select {
	case <-head.Context().Done():
	case <-time.After(5 * time.Second):
		t.Fatal("the removed head's lease did not end")
	}
	assert.ErrorIs(t, head.Err(), pessimistic.ErrLeaseLost)
	info, err := a.Inspect(ctx, "job")
	require.NoError(t, err)
	assert.Equal(t, "b", info.Owner)
	assert.Equal(t, next.Token(), info.Token)
	assert.Equal(t, next.Token()+1, info.Fence, "bumped")
	require.NoError(t, next.Release(ctx))
	assert.ErrorIs(t, a.ForceRelease(ctx, "job"), pessimistic.ErrNotHeld, "an empty queue")
}

// TestCanceledAcquireContextKeepsTheLease is the trap ReleaseOnDone is
// for: by default, the context given to Acquire bounds the acquiring only.
func TestCanceledAcquireContextKeepsTheLease(t *testing.T) {
	synctest.Test(t, testCanceledAcquireContextKeepsTheLease)
}

func testCanceledAcquireContextKeepsTheLease(t *testing.T) {
	srv, table := bubbleLockTable(t)
	l := newLocker(t, srv.Client(), table, pessimistic.LeaseDuration(10*time.Second), pessimistic.Heartbeat(100*time.Millisecond))
	ctx, cancel := context.WithCancel(context.Background())
	lease, err := l.Acquire(ctx, "job")
	require.NoError(t, err)
	before := lockItem(t, srv.Client(), table, "job")["rvn"]
	cancel()
	time.Sleep(300 * time.Millisecond)
	assert.NoError(t, lease.Context().Err())
	item := lockItem(t, srv.Client(), table, "job")
	assert.Contains(t, item, "owner", "still held")
	assert.NotEqual(t, before, item["rvn"], "and still renewed")
	require.NoError(t, lease.Release(context.Background()))
}

// TestReleaseOnDone (in testing/synctest bubbles): with ReleaseOnDone, the
// end of Acquire's context releases the lock, and stops the heartbeats.
func TestReleaseOnDone(t *testing.T) {
	for _, mode := range []string{"lease", "fifo"} {
		t.Run(mode, func(t *testing.T) { synctest.Test(t, func(t *testing.T) { releaseOnDone(t, mode) }) })
	}
}

func releaseOnDone(t *testing.T, mode string) {
	srv, table := bubbleLockTable(t)
	opts := []pessimistic.Option{pessimistic.LeaseDuration(10 * time.Second), pessimistic.Heartbeat(100 * time.Millisecond)}
	if mode == "fifo" {
		opts = append(opts, pessimistic.FIFO())
	}
	calls := ddbtest.NewCounting(srv.Client())
	l := newLocker(t, calls, table, opts...)
	ctx, cancel := context.WithCancel(context.Background())
	lease, err := l.Acquire(ctx, "job", pessimistic.ReleaseOnDone())
	require.NoError(t, err)
	time.Sleep(250 * time.Millisecond) // heartbeats run
	assert.NoError(t, lease.Err())
	cancel()
	select {
	case <-lease.Context().Done():
	case <-time.After(5 * time.Second):
		t.Fatal("the lease's context did not end with Acquire's")
	}
	require.Eventually(t, func() bool {
		info, err := l.Inspect(context.Background(), "job")
		require.NoError(t, err)
		return !info.Held
	}, 5*time.Second, 10*time.Millisecond, "released")
	assert.ErrorIs(t, lease.Err(), context.Canceled)
	calls.Reset()
	time.Sleep(300 * time.Millisecond)
	assert.Zero(t, calls.Count("UpdateItem"), "no heartbeats after")
	assert.NoError(t, lease.Release(context.Background()), "released already: no call, no error")
	assert.Zero(t, calls.Count("UpdateItem"))

	// Released before its context ends: nothing more happens then.
	ctx, cancel = context.WithCancel(context.Background())
	lease, err = l.Acquire(ctx, "job", pessimistic.ReleaseOnDone())
	require.NoError(t, err)
	require.NoError(t, lease.Release(context.Background()))
	calls.Reset()
	cancel()
	time.Sleep(100 * time.Millisecond)
	assert.Zero(t, calls.Total())
	assert.NoError(t, lease.Err())
}

func TestDataAndOptionsAreChecked(t *testing.T) {
	srv, table := lockTable(t)
	calls := ddbtest.NewCounting(srv.Client())
	l := newLocker(t, calls, table)
	calls.Reset()
	ctx := context.Background()
	_, err := l.Acquire(ctx, "job", pessimistic.Data(bytes.Repeat([]byte("x"), pessimistic.MaxDataSize+1)))
	assert.ErrorIs(t, err, pessimistic.ErrInvalidOption)
	_, err = l.Acquire(ctx, "job", pessimistic.FIFO(), pessimistic.Data(bytes.Repeat([]byte("x"), pessimistic.MaxDataSize+1)))
	assert.ErrorIs(t, err, pessimistic.ErrInvalidOption)
	// An option of the caller's own sets the exported fields; they are
	// checked all the same.
	_, err = l.Acquire(ctx, "job", func(o *pessimistic.Options) { o.LeaseDuration = 0 })
	assert.ErrorIs(t, err, pessimistic.ErrInvalidOption)
	_, err = l.Acquire(ctx, "job", nil)
	assert.ErrorIs(t, err, pessimistic.ErrInvalidOption)
	assert.ErrorIs(t, l.ForceRelease(ctx, ""), pessimistic.ErrInvalidOption)
	assert.Zero(t, calls.Total(), "nothing sent")

	lease, err := l.Acquire(ctx, "job", pessimistic.Data(bytes.Repeat([]byte("x"), pessimistic.MaxDataSize)),
		func(o *pessimistic.Options) { o.Owner = "custom" })
	require.NoError(t, err, "MaxDataSize itself is fine")
	assert.Equal(t, "custom", lease.Owner())
	require.NoError(t, lease.Release(ctx))
}
