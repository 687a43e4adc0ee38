package bench

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// modelLocker is a model, written for this benchmark, of the protocol of
// cirello-io/dynamolock/v2, the lease lock most Go projects on DynamoDB
// use. The module itself cannot be added to go.mod: the Go module proxy
// available here refuses every version of it (403). The model follows
// the protocol of v2.2.0's source, call for call, with its defaults
// (checked against v2/client.go and v2/client_heartbeat.go; the names
// below are dynamolock's functions):
//
//   - a lock is one item: ownerName, leaseDuration (a Go duration string)
//     and a recordVersionNumber that every write replaces; a released lock
//     keeps its item, marked isReleased = "1" (the default: releaseLock
//     calls updateLock; only WithDeleteLockOnRelease deletes it);
//   - Acquire (acquireLock, storeLock) reads the item with a consistent
//     GetItem before every try. A missing or released item is taken with a
//     PutItem conditioned on it being missing or released
//     (upsertAndMonitorNewOrReleasedLock); a held one is watched: the
//     waiter reads it again every refresh period (1 s), and takes it over
//     with a PutItem conditioned on the record version it saw
//     (upsertAndMonitorExpiredLock), once that version has stayed the same
//     for the lease (20 s) on its own clock. A refused PutItem is one more
//     refresh period of waiting (storeLock returns no lock and no error,
//     without looking at the time). A waiter gives up after the lease of
//     the first holder it saw plus 1 s (additionalTimeToWaitForLock's
//     default), counted from the start of Acquire (the bench then asks
//     again);
//   - one heartbeat loop per client renews every lock it holds every 5 s
//     (heartbeat, SendHeartbeatWithContext): an UpdateItem that sets a new
//     record version and the lease duration, conditioned on the key
//     existing, the record version and the owner;
//   - Release (releaseLock, updateLock) is an UpdateItem that sets
//     isReleased, on the same condition.
type modelLocker struct {
	client  lockModelClient
	table   string
	owner   string
	lease   time.Duration
	refresh time.Duration
	wait    time.Duration // the extra wait beyond the lease of the first holder seen

	mu    sync.Mutex
	held  map[*modelLock]bool
	stop  chan struct{}
	done  chan struct{}
	beatD time.Duration
}

// lockModelClient is the part of the DynamoDB client the model calls.
type lockModelClient interface {
	GetItem(context.Context, *dynamodb.GetItemInput, ...func(*dynamodb.Options)) (*dynamodb.GetItemOutput, error)
	PutItem(context.Context, *dynamodb.PutItemInput, ...func(*dynamodb.Options)) (*dynamodb.PutItemOutput, error)
	UpdateItem(context.Context, *dynamodb.UpdateItemInput, ...func(*dynamodb.Options)) (*dynamodb.UpdateItemOutput, error)
}

// modelLock is a lock the model holds.
type modelLock struct {
	name string
	mu   sync.Mutex
	rvn  string
}

// errModelTimeout is the model's LockNotGranted after its wait.
var errModelTimeout = errors.New("dynamolock model: lock not granted after waiting")

func newModelLocker(c lockModelClient, table, owner string, refresh time.Duration) *modelLocker {
	m := &modelLocker{client: c, table: table, owner: owner, lease: 20 * time.Second,
		refresh: refresh, wait: time.Second, held: map[*modelLock]bool{},
		stop: make(chan struct{}), done: make(chan struct{}), beatD: 5 * time.Second}
	go m.heartbeats()
	return m
}

func (m *modelLocker) key(name string) map[string]types.AttributeValue {
	return map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: name}, "sk": &types.AttributeValueMemberS{Value: "lock"}}
}

func newModelRVN() string {
	return fmt.Sprintf("%d:%s", time.Now().UnixNano(), rand.Text())
}

// seen is the model's record of a held lock it is waiting for.
type seen struct {
	rvn    string
	lookup time.Time
	lease  time.Duration
}

// acquire takes the lock; tries counts its reads (one per try), so that
// the bench can tell a wait from a first-try grant.
func (m *modelLocker) acquire(ctx context.Context, name string) (lk *modelLock, tries int, err error) {
	start, wait := time.Now(), m.wait
	var watching *seen
	for {
		tries++
		out, err := m.client.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(m.table), Key: m.key(name), ConsistentRead: aws.Bool(true)})
		if err != nil {
			return nil, tries, err
		}
		rvn := newModelRVN()
		item := m.key(name)
		item["ownerName"] = &types.AttributeValueMemberS{Value: m.owner}
		item["leaseDuration"] = &types.AttributeValueMemberS{Value: m.lease.String()}
		item["recordVersionNumber"] = &types.AttributeValueMemberS{Value: rvn}
		put := &dynamodb.PutItemInput{TableName: aws.String(m.table), Item: item}
		_, released := out.Item["isReleased"]
		cur, _ := out.Item["recordVersionNumber"].(*types.AttributeValueMemberS)
		switch {
		case out.Item == nil || released:
			put.ConditionExpression = aws.String("attribute_not_exists(pk) OR (attribute_exists(pk) AND isReleased = :t)")
			put.ExpressionAttributeValues = map[string]types.AttributeValue{":t": &types.AttributeValueMemberS{Value: "1"}}
		case watching == nil:
			lease := m.lease
			if s, ok := out.Item["leaseDuration"].(*types.AttributeValueMemberS); ok {
				if d, err := time.ParseDuration(s.Value); err == nil {
					lease = d
				}
			}
			watching = &seen{rvn: cur.Value, lookup: time.Now(), lease: lease}
			wait += lease
			put = nil
		case watching.rvn == cur.Value && time.Since(watching.lookup) > watching.lease:
			put.ConditionExpression = aws.String("attribute_exists(pk) AND recordVersionNumber = :r")
			put.ExpressionAttributeValues = map[string]types.AttributeValue{":r": &types.AttributeValueMemberS{Value: watching.rvn}}
		default:
			if watching.rvn != cur.Value {
				watching.rvn, watching.lookup = cur.Value, time.Now()
			}
			put = nil
		}
		if put != nil {
			_, err := m.client.PutItem(ctx, put)
			var ccf *types.ConditionalCheckFailedException
			switch {
			case err == nil:
				lk := &modelLock{name: name, rvn: rvn}
				m.mu.Lock()
				m.held[lk] = true
				m.mu.Unlock()
				return lk, tries, nil
			case !errors.As(err, &ccf):
				return nil, tries, err
			}
		}
		if put == nil && time.Since(start) > wait { // (a refused PutItem waits a refresh period, whatever the time)
			return nil, tries, errModelTimeout
		}
		select {
		case <-ctx.Done():
			return nil, tries, ctx.Err()
		case <-time.After(m.refresh):
		}
	}
}

// ownedBy is the condition of the holder's writes.
func (m *modelLocker) ownedBy(rvn string) (*string, map[string]types.AttributeValue) {
	return aws.String("attribute_exists(pk) AND recordVersionNumber = :r AND #o = :o"), map[string]types.AttributeValue{
		":r": &types.AttributeValueMemberS{Value: rvn}, ":o": &types.AttributeValueMemberS{Value: m.owner}}
}

// release marks the lock released.
func (m *modelLocker) release(ctx context.Context, lk *modelLock) error {
	m.mu.Lock()
	delete(m.held, lk)
	m.mu.Unlock()
	lk.mu.Lock()
	defer lk.mu.Unlock()
	cond, vals := m.ownedBy(lk.rvn)
	vals[":t"] = &types.AttributeValueMemberS{Value: "1"}
	_, err := m.client.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String(m.table), Key: m.key(lk.name),
		UpdateExpression: aws.String("SET isReleased = :t"), ConditionExpression: cond,
		ExpressionAttributeNames: map[string]string{"#o": "ownerName"}, ExpressionAttributeValues: vals})
	return err
}

// heartbeats renews every held lock every beat period.
func (m *modelLocker) heartbeats() {
	defer close(m.done)
	t := time.NewTicker(m.beatD)
	defer t.Stop()
	for {
		select {
		case <-m.stop:
			return
		case <-t.C:
		}
		m.mu.Lock()
		var locks []*modelLock
		for lk := range m.held {
			locks = append(locks, lk)
		}
		m.mu.Unlock()
		for _, lk := range locks {
			lk.mu.Lock()
			rvn := newModelRVN()
			cond, vals := m.ownedBy(lk.rvn)
			vals[":n"] = &types.AttributeValueMemberS{Value: rvn}
			vals[":l"] = &types.AttributeValueMemberS{Value: m.lease.String()}
			_, err := m.client.UpdateItem(context.Background(), &dynamodb.UpdateItemInput{TableName: aws.String(m.table), Key: m.key(lk.name),
				UpdateExpression: aws.String("SET recordVersionNumber = :n, leaseDuration = :l"), ConditionExpression: cond,
				ExpressionAttributeNames: map[string]string{"#o": "ownerName"}, ExpressionAttributeValues: vals})
			if err == nil {
				lk.rvn = rvn
			}
			lk.mu.Unlock()
		}
	}
}

func (m *modelLocker) close() {
	close(m.stop)
	<-m.done
}
