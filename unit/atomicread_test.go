package unit_test

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/optimist-dynamo/optimist/internal/unitproto"
	"github.com/optimist-dynamo/optimist/mapper"
	"github.com/optimist-dynamo/optimist/unit"
	"github.com/optimist-dynamo/optimist/update"
)

// holdPrepare holds the unit's first UpdateItem of one item once armed (the
// write that adds its intent at Commit) until release is closed.
type holdPrepare struct {
	unit.Client
	table, id string
	armed     atomic.Bool
	once      sync.Once
	release   chan struct{}
}

func (h *holdPrepare) UpdateItem(ctx context.Context, in *dynamodb.UpdateItemInput, optFns ...func(*dynamodb.Options)) (*dynamodb.UpdateItemOutput, error) {
	if h.armed.Load() && aws.ToString(in.TableName) == h.table && keyIs(in.Key, h.id) {
		h.once.Do(func() { <-h.release })
	}
	return h.Client.UpdateItem(ctx, in, optFns...)
}

// keyIs reports whether item (or key) has the id id.
func keyIs(item map[string]types.AttributeValue, id string) bool {
	s, ok := item["id"].(*types.AttributeValueMemberS)
	return ok && s.Value == id
}

// afterScan runs hook after each Scan returned, before the reader sees it.
type afterScan struct {
	*dynamodb.Client
	hook func()
}

func (a *afterScan) Scan(ctx context.Context, in *dynamodb.ScanInput, optFns ...func(*dynamodb.Options)) (*dynamodb.ScanOutput, error) {
	out, err := a.Client.Scan(ctx, in, optFns...)
	if a.hook != nil {
		a.hook()
	}
	return out, err
}

// A Scan page that read item B while it held only a unit's read lock (its
// intent was added after), then item A with the unit's intent, and whose
// unit's record, read after the page, says committed, must not show A new
// and B old: B carries the unit's lock, so the reader reads again.
func TestScanNeverShowsAUnitHalfApplied(t *testing.T) {
	e := newEnv(t)
	ctx := ctxT(t, time.Minute)
	e.seed(t, 2, 100)
	a, b := accountID(0), accountID(1)
	h := &holdPrepare{Client: e.c, table: e.accounts.Name(), id: b, release: make(chan struct{})}
	u := begin(t, e, h)
	got, err := unit.GetAll(ctx, u, e.accounts, []Account{{ID: a}, {ID: b}})
	require.NoError(t, err)
	got[0].Balance -= 10
	got[1].Balance += 10
	require.NoError(t, u.Add(e.accounts.PutOp(got[0]), e.accounts.PutOp(got[1])))
	h.armed.Store(true)
	committed := make(chan error, 1)
	go func() { committed <- u.Commit(ctx) }()

	// A holds its intent, B only the read lock (its prepare is held).
	require.Eventually(t, func() bool {
		for _, it := range raw(t, e.c, e.accounts.Name()) {
			if l, ok := unitproto.Parse(it); ok && keyIs(it, a) && l.Prepared {
				return true
			}
		}
		return false
	}, 10*time.Second, 5*time.Millisecond)

	// The reader's page is read now; before the reader reads the unit's
	// record, the unit prepares B and passes its commit point.
	var once sync.Once
	reader := &afterScan{Client: e.c}
	reader.hook = func() {
		once.Do(func() {
			close(h.release)
			require.Eventually(t, func() bool {
				rec, err := unitproto.ReadRecord(ctx, e.c, e.coord, u.ID())
				return err == nil && rec.State == unitproto.StateCommitted
			}, 10*time.Second, 5*time.Millisecond)
		})
	}
	accounts, err := mapper.NewTable[Account](reader, e.accounts.Name())
	require.NoError(t, err)
	var sum int64
	seen := map[string]int64{}
	for acct, err := range accounts.Scan(ctx) {
		require.NoError(t, err)
		sum += acct.Balance
		seen[acct.ID] = acct.Balance
	}
	require.NoError(t, <-committed)
	assert.Equal(t, int64(200), sum, "the page showed the unit half applied: %v", seen)
	assert.Equal(t, map[string]int64{a: 90, b: 110}, seen)
}

// afterRead runs hook after each Scan, Query or BatchGetItem returned,
// before the reader sees what it read.
type afterRead struct {
	*dynamodb.Client
	hook func()
}

func (a *afterRead) Scan(ctx context.Context, in *dynamodb.ScanInput, optFns ...func(*dynamodb.Options)) (*dynamodb.ScanOutput, error) {
	out, err := a.Client.Scan(ctx, in, optFns...)
	a.hook()
	return out, err
}

func (a *afterRead) Query(ctx context.Context, in *dynamodb.QueryInput, optFns ...func(*dynamodb.Options)) (*dynamodb.QueryOutput, error) {
	out, err := a.Client.Query(ctx, in, optFns...)
	a.hook()
	return out, err
}

func (a *afterRead) BatchGetItem(ctx context.Context, in *dynamodb.BatchGetItemInput, optFns ...func(*dynamodb.Options)) (*dynamodb.BatchGetItemOutput, error) {
	out, err := a.Client.BatchGetItem(ctx, in, optFns...)
	a.hook()
	return out, err
}

// holdLock holds the unit's first write to one item (its lock and prepare
// at Commit, or its locking read) until release is closed.
type holdLock struct {
	unit.Client
	table   string
	is      func(key map[string]types.AttributeValue) bool // the item held
	once    sync.Once
	release chan struct{}
}

func (h *holdLock) hold(table *string, key map[string]types.AttributeValue) {
	if aws.ToString(table) == h.table && h.is(key) {
		h.once.Do(func() { <-h.release })
	}
}

func (h *holdLock) UpdateItem(ctx context.Context, in *dynamodb.UpdateItemInput, optFns ...func(*dynamodb.Options)) (*dynamodb.UpdateItemOutput, error) {
	h.hold(in.TableName, in.Key)
	return h.Client.UpdateItem(ctx, in, optFns...)
}

func (h *holdLock) PutItem(ctx context.Context, in *dynamodb.PutItemInput, optFns ...func(*dynamodb.Options)) (*dynamodb.PutItemOutput, error) {
	h.hold(in.TableName, in.Item)
	return h.Client.PutItem(ctx, in, optFns...)
}

// A page read after a unit prepared item A and before it locked item B
// (which carries no trace of the unit then), whose unit's record, read
// after the page, says committed, must not show A new and B old: the
// reader learns B is one of the unit's items from its log and reads the
// page again. Deterministic: the unit's write to B is held until the page
// was read; then the unit prepares B and passes its commit point before
// the reader resolves. For each reader, and for a unit that writes both
// with Add only, or that read A with a locking Get first.
func TestPageReadBeforeTheUnitLockedAnItem(t *testing.T) {
	for _, read := range []string{"Scan", "GetAll", "Query"} {
		for _, via := range []string{"Add", "Get+Add"} {
			t.Run(read+"/"+via, func(t *testing.T) {
				testPageReadBeforeLock(t, read, via)
			})
		}
	}
	// GetAll knows the keys it asked for: an item the unit creates, which
	// did not exist when the batch was read, counts as an item of the
	// batch too. (A Scan or Query cannot know of an item it did not find;
	// see unitproto.Resolve.)
	t.Run("GetAll/Add+create", func(t *testing.T) { testPageReadBeforeLock(t, "GetAll", "Add+create") })
}

func testPageReadBeforeLock(t *testing.T, read, via string) {
	e := newEnv(t)
	ctx := ctxT(t, time.Minute)
	e.seed(t, 2, 100)
	a, b := accountID(0), accountID(1)
	if via == "Add+create" {
		b = "acct-new"
	}
	for _, o := range []*Order{{Customer: "c", N: 1, Amount: 100}, {Customer: "c", N: 2, Amount: 100}} {
		require.NoError(t, e.orders.Put(ctx, o))
	}
	table := e.accounts.Name()
	if read == "Query" {
		table = e.orders.Name()
	}
	h := &holdLock{Client: e.c, table: table, release: make(chan struct{}), is: func(k map[string]types.AttributeValue) bool { return keyIs(k, b) }}
	if read == "Query" {
		h.is = func(k map[string]types.AttributeValue) bool {
			n, ok := k["n"].(*types.AttributeValueMemberN)
			return ok && n.Value == "2"
		}
	}
	u := begin(t, e, h)
	switch read {
	case "Query":
		if via == "Get+Add" {
			o, err := unit.Get(ctx, u, e.orders, Order{Customer: "c", N: 1})
			require.NoError(t, err)
			o.Amount -= 10
			require.NoError(t, u.Add(e.orders.PutOp(o)))
		} else {
			require.NoError(t, u.Add(e.orders.UpdateOp(Order{Customer: "c", N: 1}, update.Add("amount", -10))))
		}
		require.NoError(t, u.Add(e.orders.UpdateOp(Order{Customer: "c", N: 2}, update.Add("amount", 10))))
	default:
		if via == "Get+Add" {
			acct, err := unit.Get(ctx, u, e.accounts, Account{ID: a})
			require.NoError(t, err)
			acct.Balance -= 10
			require.NoError(t, u.Add(e.accounts.PutOp(acct)))
		} else {
			require.NoError(t, u.Add(e.accounts.UpdateOp(Account{ID: a}, update.Add("balance", -10))))
		}
		if via == "Add+create" {
			require.NoError(t, u.Add(e.accounts.PutOp(&Account{ID: b, Balance: 110})))
		} else {
			require.NoError(t, u.Add(e.accounts.UpdateOp(Account{ID: b}, update.Add("balance", 10))))
		}
	}
	committed := make(chan error, 1)
	go func() { committed <- u.Commit(ctx) }()

	// A holds the unit's intent; B carries nothing of the unit (its lock
	// write is held).
	require.Eventually(t, func() bool {
		for _, it := range raw(t, e.c, table) {
			if l, ok := unitproto.Parse(it); ok && l.Prepared && l.Unit == u.ID() {
				return true
			}
		}
		return false
	}, 10*time.Second, 5*time.Millisecond)
	for _, it := range raw(t, e.c, table) {
		l, ok := unitproto.Parse(it)
		require.True(t, !ok || l.Prepared, "one item prepared, the other untouched")
		require.False(t, keyIs(it, "acct-new"), "the created item not there yet")
	}

	// The page is read now; before the reader resolves it, the unit locks
	// and prepares B and passes its commit point.
	var once sync.Once
	reader := &afterRead{Client: e.c}
	reader.hook = func() {
		once.Do(func() {
			close(h.release)
			require.Eventually(t, func() bool {
				rec, err := unitproto.ReadRecord(ctx, e.c, e.coord, u.ID())
				return err == nil && rec.State == unitproto.StateCommitted
			}, 10*time.Second, 5*time.Millisecond)
		})
	}
	seen := map[string]int64{}
	switch read {
	case "Scan":
		accounts, err := mapper.NewTable[Account](reader, e.accounts.Name())
		require.NoError(t, err)
		for acct, err := range accounts.Scan(ctx) {
			require.NoError(t, err)
			seen[acct.ID] = acct.Balance
		}
	case "GetAll":
		accounts, err := mapper.NewTable[Account](reader, e.accounts.Name())
		require.NoError(t, err)
		all, err := accounts.GetAll(ctx, []Account{{ID: a}, {ID: b}})
		if err != nil {
			require.ErrorIs(t, err, mapper.ErrNotFound)
		}
		for _, acct := range all {
			if acct != nil {
				seen[acct.ID] = acct.Balance
			}
		}
	case "Query":
		orders, err := mapper.NewTable[Order](reader, e.orders.Name())
		require.NoError(t, err)
		for o, err := range orders.Query(ctx, expression.Key("customer").Equal(expression.Value("c"))) {
			require.NoError(t, err)
			seen[fmt.Sprint(o.N)] = o.Amount
		}
		a, b = "1", "2"
	}
	require.NoError(t, <-committed)
	assert.Equal(t, map[string]int64{a: 90, b: 110}, seen, "the page showed the unit half applied")
}
