package txn_test

// Transactions of mapper's ops and raw ops against DynamoDB Local.

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go/middleware"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/optimist-dynamo/optimist/internal/ddbtest"
	"github.com/optimist-dynamo/optimist/mapper"
	"github.com/optimist-dynamo/optimist/txn"
	"github.com/optimist-dynamo/optimist/update"
	"github.com/optimist-dynamo/optimist/version"
)

func TestCommitUpToTheLimit(t *testing.T) {
	f := newFixture(t)
	counters := func(n int) []*Counter {
		out := make([]*Counter, n)
		for i := range out {
			out[i] = &Counter{ID: "c" + strings.Repeat("x", i%3) + string(rune('A'+i/26)) + string(rune('a'+i%26)), N: i}
		}
		return out
	}

	items := counters(100)
	tx := txn.New(f.Calls)
	for _, c := range items {
		require.NoError(t, tx.Add(f.Table.PutOp(c)))
	}
	require.NoError(t, tx.Commit(f.Ctx))
	assert.Equal(t, int64(1), f.Calls.Count("TransactWriteItems"))
	for _, c := range items {
		assert.Equal(t, int64(1), c.Version, "each op's struct gets its new version")
	}
	assert.Equal(t, Counter{ID: items[99].ID, N: 99, Version: 1}, *f.StoredCounter(t, items[99].ID))
	assert.ErrorIs(t, tx.Commit(f.Ctx), txn.ErrDone)
	assert.ErrorIs(t, tx.Add(f.Table.PutOp(&Counter{ID: "late"})), txn.ErrDone)

	refused := []struct {
		name string
		tx   func() *txn.Tx
		want error
	}{
		{"101 ops", func() *txn.Tx {
			tx := txn.New(f.Calls)
			for _, c := range counters(101) {
				c.ID += "-101"
				tx.Add(f.Table.PutOp(c))
			}
			return tx
		}, txn.ErrTooManyItems},
		{"26 ops with MaxItems(25)", func() *txn.Tx {
			tx := txn.New(f.Calls, txn.MaxItems(25))
			for _, c := range counters(26) {
				c.ID += "-26"
				tx.Add(f.Table.PutOp(c))
			}
			return tx
		}, txn.ErrTooManyItems},
		{"two ops on one item", func() *txn.Tx {
			tx := txn.New(f.Calls)
			tx.Add(f.Table.PutOp(&Counter{ID: "dup"}), f.Table.UpdateOp(Counter{ID: "other"}, update.Add("n", 1)))
			tx.Add(f.Table.DeleteOp(Counter{ID: "dup"}))
			return tx
		}, txn.ErrDuplicateItem},
		{"empty", func() *txn.Tx { return txn.New(f.Calls) }, txn.ErrEmpty},
		{"over 4 MB", func() *txn.Tx {
			tx := txn.New(f.Calls)
			big := strings.Repeat("x", 390_000)
			for i := range 11 {
				tx.Add(f.Table.PutOp(&Counter{ID: "big" + string(rune('a'+i)), Status: big}))
			}
			return tx
		}, txn.ErrTooLarge},
		{"op with a bad key", func() *txn.Tx {
			tx := txn.New(f.Calls)
			tx.Add(f.Table.PutOp(&Counter{}))
			return tx
		}, mapper.ErrInvalidItem},
		{"op with a bad update", func() *txn.Tx {
			tx := txn.New(f.Calls)
			tx.Add(f.Table.UpdateOp(Counter{ID: "a"}, update.Add("version", 1)))
			return tx
		}, mapper.ErrInvalidOption},
	}
	for _, tc := range refused {
		t.Run(tc.name, func(t *testing.T) {
			f.Calls.Reset()
			tx := tc.tx()
			require.ErrorIs(t, tx.Commit(f.Ctx), tc.want)
			assert.Equal(t, int64(0), f.Calls.Total(), "nothing sent")
			assert.ErrorIs(t, tx.Commit(f.Ctx), txn.ErrDone)
		})
	}
	_, err := f.Table.Get(f.Ctx, Counter{ID: "dup"})
	assert.ErrorIs(t, err, mapper.ErrNotFound)
}

// TestStaleCheckOpCancels: a transaction whose third op asserts a version
// that is no longer stored is canceled with one reason per op, op 2 being
// the conflict, with the current item.
func TestStaleCheckOpCancels(t *testing.T) {
	f := newFixture(t)
	a, b, c := &Counter{ID: "a", N: 1}, &Counter{ID: "b", N: 2}, &Counter{ID: "c", N: 3}
	for _, x := range []*Counter{a, b, c} {
		require.NoError(t, f.Table.Put(f.Ctx, x))
	}
	readC := *c
	c.N = 30
	require.NoError(t, f.Table.Put(f.Ctx, c)) // c moves to version 2 behind our back

	a.N, b.N = 10, 20
	newItem := &Counter{ID: "d", N: 4}
	tx := txn.New(f.Table.Client())
	require.NoError(t, tx.Add(
		f.Table.PutOp(a),
		f.Table.UpdateOp(Counter{ID: "b", Version: 1}, update.Set("n", 20)),
		f.Table.CheckOp(readC),
		f.Table.PutOp(newItem),
	))
	err := tx.Commit(f.Ctx)
	require.Error(t, err)
	assert.ErrorIs(t, err, version.ErrConflict)
	assert.True(t, version.IsConflict(err))
	var ce *txn.CanceledError
	require.ErrorAs(t, err, &ce)
	require.Len(t, ce.Reasons, 4)
	for i, r := range ce.Reasons {
		assert.Equal(t, i, r.Index)
		assert.Equal(t, f.Name, r.Table)
		if i == 2 {
			assert.True(t, r.Conflict)
			assert.Equal(t, txn.CodeConditionalCheckFailed, r.Code)
			require.NotNil(t, r.Item, "the current item comes with the reason")
			assert.Equal(t, &types.AttributeValueMemberN{Value: "30"}, r.Item["n"])
			assert.Equal(t, map[string]types.AttributeValue{"id": &types.AttributeValueMemberS{Value: "c"}}, r.Key)
			continue
		}
		assert.False(t, r.Conflict, "op %d", i)
		assert.Equal(t, txn.CodeNone, r.Code, "op %d", i)
	}
	require.Len(t, ce.Conflicts(), 1)
	assert.Contains(t, err.Error(), `op 2 (`+f.Name+` {id="c"}) ConditionalCheckFailed (version conflict)`)
	var tce *types.TransactionCanceledException
	assert.ErrorAs(t, err, &tce)

	// Nothing written, no struct changed.
	assert.Equal(t, Counter{ID: "a", N: 1, Version: 1}, *f.StoredCounter(t, "a"))
	assert.Equal(t, Counter{ID: "b", N: 2, Version: 1}, *f.StoredCounter(t, "b"))
	assert.Empty(t, f.Stored(t, "d"))
	assert.Equal(t, int64(1), a.Version)
	assert.Equal(t, int64(0), newItem.Version)
}

func TestTransactionOpsKeepVersionSemantics(t *testing.T) {
	f := newFixture(t)
	a := &Counter{ID: "a", N: 1}
	require.NoError(t, f.Table.Put(f.Ctx, a))
	stale := *a
	require.NoError(t, f.Table.Put(f.Ctx, a)) // version 2

	commit := func(ops ...txn.Op) error {
		tx := txn.New(f.Table.Client())
		require.NoError(t, tx.Add(ops...))
		return tx.Commit(f.Ctx)
	}
	// A stale PutOp, a create over an existing item, a stale DeleteOp and a
	// stale UpdateOp each conflict.
	for name, op := range map[string]txn.Op{
		"stale put":    f.Table.PutOp(&stale),
		"dup create":   f.Table.PutOp(&Counter{ID: "a"}),
		"stale delete": f.Table.DeleteOp(stale),
		"stale update": f.Table.UpdateOp(stale, update.Add("n", 1)),
	} {
		err := commit(op)
		assert.True(t, version.IsConflict(err), "%s: %v", name, err)
	}
	// A raw op's failed condition is not a version conflict.
	err := commit(txn.Check(f.Name, map[string]types.AttributeValue{"id": &types.AttributeValueMemberS{Value: "a"}},
		expression.Name("n").Equal(expression.Value(99))))
	var ce *txn.CanceledError
	require.ErrorAs(t, err, &ce)
	assert.False(t, version.IsConflict(err))
	assert.Equal(t, txn.CodeConditionalCheckFailed, ce.Reasons[0].Code)

	// Current versions commit: delete a, create b, update c.
	require.NoError(t, f.Table.Put(f.Ctx, &Counter{ID: "c"}))
	b := &Counter{ID: "b", N: 5}
	require.NoError(t, commit(f.Table.DeleteOp(*a), f.Table.PutOp(b), f.Table.UpdateOp(Counter{ID: "c", Version: 1}, update.Add("n", 7))))
	assert.Empty(t, f.Stored(t, "a"))
	assert.Equal(t, int64(1), b.Version)
	assert.Equal(t, Counter{ID: "c", N: 7, Version: 2}, *f.StoredCounter(t, "c"))

	// Raw ops, and a consistent multi-item read.
	key := func(id string) map[string]types.AttributeValue {
		return map[string]types.AttributeValue{"id": &types.AttributeValueMemberS{Value: id}}
	}
	require.NoError(t, commit(
		txn.Put(f.Name, key("r"), map[string]types.AttributeValue{"id": key("r")["id"], "n": &types.AttributeValueMemberN{Value: "1"}}),
		txn.Update(f.Name, key("b"), update.Add("n", 1), txn.If(expression.AttributeExists(expression.Name("id")))),
		txn.Delete(f.Name, key("c")),
	))
	var gotB, gotMissing *Counter
	var rawR map[string]types.AttributeValue
	require.NoError(t, txn.Get(f.Ctx, f.Table.Client(), f.Table.GetOp(Counter{ID: "b"}, &gotB), f.Table.GetOp(Counter{ID: "c"}, &gotMissing), txn.GetItem(f.Name, key("r"), &rawR)))
	assert.Equal(t, &Counter{ID: "b", N: 6, Version: 1}, gotB)
	assert.Nil(t, gotMissing)
	assert.Equal(t, &types.AttributeValueMemberN{Value: "1"}, rawR["n"])
	assert.ErrorIs(t, txn.Get(f.Ctx, f.Table.Client()), txn.ErrEmpty)
	assert.ErrorIs(t, txn.Get(f.Ctx, f.Table.Client(), f.Table.GetOp(Counter{ID: "b"}, &gotB), f.Table.GetOp(Counter{ID: "b"}, &gotB)), txn.ErrDuplicateItem)

	// A raw Put whose item lacks the key is refused.
	assert.Error(t, txn.Put(f.Name, key("x"), map[string]types.AttributeValue{"n": &types.AttributeValueMemberN{Value: "1"}}).Err())
}

// TestLostCommitResponseAppliesOnce: DynamoDB Local applies a transaction,
// its response is lost, and the SDK retries with the same client request
// token: the transaction is applied once.
func TestLostCommitResponseAppliesOnce(t *testing.T) {
	f := newFixture(t)
	drop := &ddbtest.DropTransport{DropOps: map[string]int{"TransactWriteItems": 1}}
	lossy := f.Client(drop.Option())
	tx := txn.New(lossy)
	require.NoError(t, tx.Add(txn.Update(f.Name, map[string]types.AttributeValue{"id": &types.AttributeValueMemberS{Value: "n"}}, update.Add("n", 1))))
	require.NoError(t, tx.Commit(f.Ctx))
	assert.Equal(t, 1, drop.Dropped())
	assert.Equal(t, 2, drop.Calls("TransactWriteItems"), "the SDK retried")
	assert.Equal(t, "1", f.Stored(t, "n")["n"].(*types.AttributeValueMemberN).Value, "+1, not +2")
}

// conflictInjector makes the first k TransactWriteItems calls fail with a
// TransactionConflict cancellation (DynamoDB Local never raises one) and
// records the client request token of every call.
type conflictInjector struct {
	mu     sync.Mutex
	k      int
	tokens []string
}

func (c *conflictInjector) ID() string { return "injectTransactionConflict" }

func (c *conflictInjector) HandleInitialize(ctx context.Context, in middleware.InitializeInput, next middleware.InitializeHandler) (middleware.InitializeOutput, middleware.Metadata, error) {
	p, ok := in.Parameters.(*dynamodb.TransactWriteItemsInput)
	if !ok {
		return next.HandleInitialize(ctx, in)
	}
	c.mu.Lock()
	c.tokens = append(c.tokens, aws.ToString(p.ClientRequestToken))
	inject := len(c.tokens) <= c.k
	c.mu.Unlock()
	if !inject {
		return next.HandleInitialize(ctx, in)
	}
	reasons := make([]types.CancellationReason, len(p.TransactItems))
	for i := range reasons {
		reasons[i].Code = aws.String(txn.CodeNone)
	}
	reasons[0].Code = aws.String(txn.CodeTransactionConflict)
	reasons[0].Message = aws.String("Transaction is ongoing for the item")
	return middleware.InitializeOutput{}, middleware.Metadata{}, &types.TransactionCanceledException{
		Message: aws.String("Transaction cancelled"), CancellationReasons: reasons,
	}
}

func (c *conflictInjector) option(o *dynamodb.Options) {
	o.APIOptions = append(o.APIOptions, func(s *middleware.Stack) error { return s.Initialize.Add(c, middleware.Before) })
}

func TestTransactionConflictIsRetried(t *testing.T) {
	f := newFixture(t)
	inj := &conflictInjector{k: 2}
	a := &Counter{ID: "a", N: 1}
	tx := txn.New(f.Client(inj.option), txn.Backoff(time.Millisecond, 5*time.Millisecond))
	require.NoError(t, tx.Add(f.Table.PutOp(a), txn.Update(f.Name, map[string]types.AttributeValue{"id": &types.AttributeValueMemberS{Value: "b"}}, update.Add("n", 1))))
	require.NoError(t, tx.Commit(f.Ctx))
	require.Len(t, inj.tokens, 3, "two conflicts, then the commit")
	assert.Equal(t, tx.Token(), inj.tokens[0])
	assert.Equal(t, []string{tx.Token(), tx.Token(), tx.Token()}, inj.tokens, "the same token on every attempt")
	assert.Equal(t, int64(1), a.Version)
	assert.Equal(t, "1", f.Stored(t, "b")["n"].(*types.AttributeValueMemberN).Value)
}

func TestPersistentTransactionConflictGivesUp(t *testing.T) {
	f := newFixture(t)
	inj := &conflictInjector{k: 1000}
	tx := txn.New(f.Client(inj.option), txn.MaxAttempts(4), txn.Backoff(time.Millisecond, 5*time.Millisecond))
	require.NoError(t, tx.Add(f.Table.PutOp(&Counter{ID: "a"})))
	err := tx.Commit(f.Ctx)
	var ce *txn.CanceledError
	require.ErrorAs(t, err, &ce)
	assert.Equal(t, 4, ce.Attempts)
	assert.Len(t, inj.tokens, 4)
	assert.Equal(t, txn.CodeTransactionConflict, ce.Reasons[0].Code)
	assert.False(t, version.IsConflict(err), "another transaction in the way is not a version conflict")
	assert.EqualError(t, err, `txn: transaction canceled: op 0 (`+f.Name+` {id="a"}) TransactionConflict: Transaction is ongoing for the item (after 4 attempts)`)
	assert.Empty(t, f.Stored(t, "a"))
}

func TestConditionFailuresAreNotRetried(t *testing.T) {
	f := newFixture(t)
	require.NoError(t, f.Table.Put(f.Ctx, &Counter{ID: "a"}))
	tx := txn.New(f.Calls)
	require.NoError(t, tx.Add(f.Table.PutOp(&Counter{ID: "a"})))
	err := tx.Commit(f.Ctx)
	require.True(t, version.IsConflict(err))
	assert.Equal(t, int64(1), f.Calls.Count("TransactWriteItems"))
}

func TestCommitWithTheSameTokenAppliesOnce(t *testing.T) {
	f := newFixture(t)
	key := map[string]types.AttributeValue{"id": &types.AttributeValueMemberS{Value: "n"}}
	// DynamoDB remembers a token for 10 minutes: a fresh one per run keeps
	// repeated runs (-count) from reusing it on a different table.
	token := fmt.Sprintf("transfer-42-%x", rand.Uint64())
	for range 2 {
		tx := txn.New(f.Calls, txn.Token(token))
		require.NoError(t, tx.Add(txn.Update(f.Name, key, update.Add("n", 1))))
		require.NoError(t, tx.Commit(f.Ctx))
	}
	assert.Equal(t, "1", f.Stored(t, "n")["n"].(*types.AttributeValueMemberN).Value, "the second commit with the token was a no-op")
	assert.Error(t, txn.New(f.Calls, txn.Token("")).Commit(f.Ctx))
}

// TestCommitUnknownOutcomeNamesToken: a transaction whose answers are all
// lost ends in an unknown outcome that names its token; committing the same
// ops again with txn.Token(token) applies them once.
func TestCommitUnknownOutcomeNamesToken(t *testing.T) {
	f := newFixture(t)
	drop := &ddbtest.DropTransport{DropOps: map[string]int{"TransactWriteItems": 1000}}
	lossy, err := mapper.NewTable[Counter](f.Client(drop.Option()), f.Name)
	require.NoError(t, err)

	tx := txn.New(lossy.Client())
	require.NoError(t, tx.Add(lossy.UpdateOp(Counter{ID: "a"}, update.Add("n", 1)), lossy.UpdateOp(Counter{ID: "b"}, update.Add("n", 1))))
	err = tx.Commit(f.Ctx)
	require.ErrorIs(t, err, version.ErrUnknownOutcome)
	assert.False(t, version.IsConflict(err))
	var uo *version.UnknownOutcomeError
	require.ErrorAs(t, err, &uo)
	assert.Equal(t, tx.Token(), uo.Token)
	assert.Equal(t, "TransactWriteItems", uo.Op)
	assert.Contains(t, err.Error(), tx.Token())

	again := txn.New(f.Table.Client(), txn.Token(uo.Token))
	require.NoError(t, again.Add(f.Table.UpdateOp(Counter{ID: "a"}, update.Add("n", 1)), f.Table.UpdateOp(Counter{ID: "b"}, update.Add("n", 1))))
	require.NoError(t, again.Commit(f.Ctx))
	assert.Equal(t, 1, f.StoredCounter(t, "a").N, "applied once")
	assert.Equal(t, 1, f.StoredCounter(t, "b").N, "applied once")
}
