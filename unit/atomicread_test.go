package unit_test

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/optimist-dynamo/optimist/internal/unitlock"
	"github.com/optimist-dynamo/optimist/mapper"
	"github.com/optimist-dynamo/optimist/unit"
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
			if l, ok := unitlock.Parse(it); ok && keyIs(it, a) && l.Prepared {
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
				rec, err := unitlock.ReadRecord(ctx, e.c, e.coord, u.ID())
				return err == nil && rec.State == unitlock.StateCommitted
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
