package pessimistic_test

import (
	"context"
	"testing"
	"testing/synctest"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/optimist-dynamo/optimist/dynamolocal"
	"github.com/optimist-dynamo/optimist/internal/ddbtest"
	"github.com/optimist-dynamo/optimist/mapper"
	"github.com/optimist-dynamo/optimist/pessimistic"
	"github.com/optimist-dynamo/optimist/version"
)

type Order struct {
	ID      string `dynamo:"id,hash"`
	Status  string `dynamo:"status"`
	Total   int    `dynamo:"total"`
	Version int64  `dynamo:"v,version"`
}

type orders struct {
	ctx   context.Context
	raw   *dynamodb.Client
	calls *ddbtest.CountingClient
	table *mapper.Table[Order]
	name  string
}

func newOrders(t *testing.T) *orders {
	t.Helper()
	o, _ := newOrdersOn(t, dynamolocal.New(t))
	return o
}

// newOrdersOn is newOrders on the server srv (dynamolocal.NewEngine with WithoutListener for a test in
// a testing/synctest bubble).
func newOrdersOn(t *testing.T, srv *dynamolocal.Server) (*orders, *dynamolocal.Server) {
	t.Helper()
	name := ddbtest.CreateTable(t, srv.Client(), "id", types.ScalarAttributeTypeS, "", "")
	calls := ddbtest.NewCounting(srv.Client())
	table, err := mapper.NewTable[Order](calls, name)
	require.NoError(t, err)
	return &orders{ctx: context.Background(), raw: srv.Client(), calls: calls, table: table, name: name}, srv
}

func (o *orders) raw_(t *testing.T, id string) map[string]types.AttributeValue {
	t.Helper()
	out, err := o.raw.GetItem(o.ctx, &dynamodb.GetItemInput{TableName: aws.String(o.name),
		Key: map[string]types.AttributeValue{"id": &types.AttributeValueMemberS{Value: id}}, ConsistentRead: aws.Bool(true)})
	require.NoError(t, err)
	return out.Item
}

func TestLockItemIsALockingRead(t *testing.T) {
	o := newOrders(t)
	require.NoError(t, o.table.Put(o.ctx, &Order{ID: "o1", Status: "new", Total: 10}))
	// An attribute the struct does not know, written by other code.
	_, err := o.raw.UpdateItem(o.ctx, &dynamodb.UpdateItemInput{TableName: aws.String(o.name),
		Key:              map[string]types.AttributeValue{"id": &types.AttributeValueMemberS{Value: "o1"}},
		UpdateExpression: aws.String("SET audit = :a"), ExpressionAttributeValues: map[string]types.AttributeValue{":a": &types.AttributeValueMemberS{Value: "kept"}}})
	require.NoError(t, err)

	o.calls.Reset()
	order, lock, err := pessimistic.LockItem(o.ctx, o.table, Order{ID: "o1"}, pessimistic.Owner("worker-1"))
	require.NoError(t, err)
	assert.Equal(t, int64(1), o.calls.Total(), "one call: lock and read")
	assert.Equal(t, &Order{ID: "o1", Status: "new", Total: 10, Version: 1}, order)
	item := o.raw_(t, "o1")
	assert.Equal(t, &types.AttributeValueMemberS{Value: "worker-1"}, item["lockOwner"])
	assert.Contains(t, item, "lockLease")
	assert.Equal(t, &types.AttributeValueMemberS{Value: "kept"}, item["audit"], "the lock leaves other attributes alone")

	// Held: another LockItem with Wait(0) is refused.
	_, _, err = pessimistic.LockItem(o.ctx, o.table, Order{ID: "o1"}, pessimistic.Wait(0), pessimistic.Owner("worker-2"))
	var le *pessimistic.NotAcquiredError
	require.ErrorAs(t, err, &le)
	assert.ErrorIs(t, err, pessimistic.ErrNotAcquired)
	assert.Equal(t, "worker-1", le.Owner)

	o.calls.Reset()
	order.Status, order.Total = "paid", 12
	require.NoError(t, lock.SaveAndRelease(o.ctx, order))
	assert.Equal(t, int64(1), o.calls.Total(), "one call: save and release")
	assert.Equal(t, int64(2), order.Version)
	item = o.raw_(t, "o1")
	assert.NotContains(t, item, "lockOwner")
	assert.NotContains(t, item, "lockLease")
	assert.Equal(t, &types.AttributeValueMemberS{Value: "kept"}, item["audit"], "other attributes survive the save")
	got, err := o.table.Get(o.ctx, Order{ID: "o1"})
	require.NoError(t, err)
	assert.Equal(t, &Order{ID: "o1", Status: "paid", Total: 12, Version: 2}, got)
	assert.ErrorIs(t, lock.Context().Err(), context.Canceled)
	assert.NoError(t, lock.Err())

	// Free again.
	_, lock2, err := pessimistic.LockItem(o.ctx, o.table, Order{ID: "o1"}, pessimistic.Wait(0))
	require.NoError(t, err)
	o.calls.Reset()
	require.NoError(t, lock2.Release(o.ctx))
	assert.Equal(t, int64(1), o.calls.Total())
	assert.NotContains(t, o.raw_(t, "o1"), "lockOwner")
}

func TestLockItemOfMissingItem(t *testing.T) {
	o := newOrders(t)
	_, _, err := pessimistic.LockItem(o.ctx, o.table, Order{ID: "nope"})
	require.ErrorIs(t, err, mapper.ErrNotFound)
	assert.Empty(t, o.raw_(t, "nope"), "an item lock never creates the item")
}

func TestItemLockRefusesBadAttributes(t *testing.T) {
	o := newOrders(t)
	require.NoError(t, o.table.Put(o.ctx, &Order{ID: "o1"}))
	o.calls.Reset()
	for _, opt := range []pessimistic.Option{
		pessimistic.ItemLockAttributes("status", "lease"), // a field of the struct
		pessimistic.ItemLockAttributes("a.b", "lease"),
		pessimistic.ItemLockAttributes("same", "same"),
	} {
		_, _, err := pessimistic.LockItem(o.ctx, o.table, Order{ID: "o1"}, opt)
		assert.ErrorIs(t, err, pessimistic.ErrInvalidOption)
	}
	assert.Equal(t, int64(0), o.calls.Total())

	_, lock, err := pessimistic.LockItem(o.ctx, o.table, Order{ID: "o1"}, pessimistic.ItemLockAttributes("heldBy", "heldFor"))
	require.NoError(t, err)
	assert.Contains(t, o.raw_(t, "o1"), "heldBy")
	require.NoError(t, lock.Release(o.ctx))
	assert.NotContains(t, o.raw_(t, "o1"), "heldBy")
}

// TestSaveAndReleaseAfterAnUnlockedWrite: a writer that ignored the lock
// moved the version; the holder's save conflicts instead of overwriting,
// and the lock is released all the same.
func TestSaveAndReleaseAfterAnUnlockedWrite(t *testing.T) {
	o := newOrders(t)
	require.NoError(t, o.table.Put(o.ctx, &Order{ID: "o1", Total: 1}))
	order, lock, err := pessimistic.LockItem(o.ctx, o.table, Order{ID: "o1"})
	require.NoError(t, err)
	_, err = o.table.Modify(o.ctx, Order{ID: "o1"}, func(x *Order) error { x.Total = 99; return nil }) // Modify reads, then writes a Put...
	require.NoError(t, err)
	order.Total = 2
	err = lock.SaveAndRelease(o.ctx, order)
	// ...which replaced the item, lock attributes included: the lock is gone.
	require.ErrorIs(t, err, pessimistic.ErrNotHeld)
	got, err := o.table.Get(o.ctx, Order{ID: "o1"})
	require.NoError(t, err)
	assert.Equal(t, 99, got.Total, "nothing overwritten")

	// A writer that changes the item in place (Save) keeps the lock's
	// attributes, and moves the version: the holder gets a conflict.
	order, lock, err = pessimistic.LockItem(o.ctx, o.table, Order{ID: "o1"})
	require.NoError(t, err)
	other := *order
	other.Status = "other"
	require.NoError(t, o.table.Save(o.ctx, &other))
	order.Total = 3
	err = lock.SaveAndRelease(o.ctx, order)
	require.True(t, version.IsConflict(err), "%v", err)
	item := o.raw_(t, "o1")
	assert.NotContains(t, item, "lockOwner", "released all the same")
	got, err = o.table.Get(o.ctx, Order{ID: "o1"})
	require.NoError(t, err)
	assert.Equal(t, "other", got.Status)
	assert.Equal(t, 99, got.Total)
}

// TestAbandonedItemLockIsTakenOver (in a testing/synctest bubble): a
// holder whose heartbeats cannot get through never renews; the waiter
// takes over when the lease it saw ran out on its own clock.
func TestAbandonedItemLockIsTakenOver(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		o, srv := newOrdersOn(t, dynamolocal.NewEngine(t, dynamolocal.WithoutListener()))
		require.NoError(t, o.table.Put(o.ctx, &Order{ID: "o1", Total: 5}))
		const lease = 10 * time.Second
		p := &partition{}
		cut, err := mapper.NewTable[Order](srv.NewClient(p.option), o.name)
		require.NoError(t, err)
		_, stuck, err := pessimistic.LockItem(o.ctx, cut, Order{ID: "o1"}, pessimistic.LeaseDuration(lease))
		require.NoError(t, err)
		p.on.Store(true) // from now on its heartbeats fail

		stamp := &stampingClient{Client: o.raw}
		waiting, err := mapper.NewTable[Order](stamp, o.name)
		require.NoError(t, err)
		t0 := time.Now()
		done := make(chan struct{})
		var got *Order
		var l2 *pessimistic.ItemLock[Order]
		go func() {
			defer close(done)
			got, l2, err = pessimistic.LockItem(o.ctx, waiting, Order{ID: "o1"}, pessimistic.PollInterval(time.Second))
		}()
		advanceUntil(t, done, 2*time.Minute)
		require.NoError(t, err)
		assert.Equal(t, t0.Add(lease), stamp.firstWrite(), "after exactly the lease seen")
		assert.Equal(t, 5, got.Total)
		p.on.Store(false)
		require.ErrorIs(t, stuck.Release(o.ctx), pessimistic.ErrNotHeld, "the old holder cannot release the new one's lock")
		require.NoError(t, l2.Release(o.ctx))
	})
}
