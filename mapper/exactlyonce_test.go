package mapper_test

// Writes whose answers are lost or refused, with and without ExactlyOnce,
// against DynamoDB Local behind fault-injecting transports.

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/optimist-dynamo/optimist/dynamolocal"
	"github.com/optimist-dynamo/optimist/internal/ddbtest"
	"github.com/optimist-dynamo/optimist/mapper"
	"github.com/optimist-dynamo/optimist/txn"
	"github.com/optimist-dynamo/optimist/update"
	"github.com/optimist-dynamo/optimist/version"
)

// Tally is the item of BenchmarkExactlyOnceCost, as in the root package's
// exactly-once suite: a counter and the ids appended with each increment.
type Tally struct {
	ID      string   `dynamo:"id,hash"`
	N       int      `dynamo:"n"`
	IDs     []string `dynamo:"ids"`
	Version int64    `dynamo:"v,version"`
}

// TestUnknownOutcomeIsNotAConflict: an unknown outcome whose last attempt
// met a conflict does not match version.ErrConflict; the conflict is in
// Last.
func TestUnknownOutcomeIsNotAConflict(t *testing.T) {
	conflict := &version.ConflictError{Table: "t", Expected: 3, Actual: 4}
	err := fmt.Errorf("wrapped: %w", &version.UnknownOutcomeError{Op: "PutItem", Table: "t", Err: errors.New("connection reset"), Last: conflict})
	assert.ErrorIs(t, err, version.ErrUnknownOutcome)
	assert.ErrorIs(t, err, mapper.ErrUnknownOutcome, "mapper's sentinel is the same value")
	assert.NotErrorIs(t, err, version.ErrConflict)
	assert.False(t, version.IsConflict(err))
	var uo *mapper.UnknownOutcomeError
	require.ErrorAs(t, err, &uo)
	var ce *version.ConflictError
	require.ErrorAs(t, uo.Last, &ce)
	assert.Equal(t, int64(4), ce.Actual)
	assert.Contains(t, err.Error(), "connection reset")
}

// TestLostUpdateThenOtherWriter is the case issue 10 measured: an Update's
// answer is lost after it was applied, and another writer changes the item
// before anything else happens. It used to be resent and applied twice; now
// it is not resent, the read finds another writer's token, and the outcome
// is unknown, with the vote counted once.
func TestLostUpdateThenOtherWriter(t *testing.T) {
	srv := dynamolocal.New(t)
	c := newCandidates(t)
	other := c.table
	drop := &ddbtest.DropTransport{Drop: func(op string, call int) bool {
		if op == "GetItem" && call == 1 { // the settling read: another writer first
			_, err := other.Update(context.Background(), Candidate{ID: "a"}, update.Append("votedBy", "them").Add("votes", 1))
			assert.NoError(t, err)
		}
		return op == "UpdateItem" && call == 1
	}}
	lossy, err := mapper.NewTable[Candidate](srv.NewClient(drop.Option()), c.name)
	require.NoError(t, err)

	_, err = lossy.Update(c.ctx, Candidate{ID: "a"}, update.Append("votedBy", "us").Add("votes", 1))
	require.ErrorIs(t, err, mapper.ErrUnknownOutcome)
	assert.False(t, version.IsConflict(err))
	assert.Equal(t, 1, drop.Calls("UpdateItem"), "never resent")
	stored, err := c.table.Get(c.ctx, Candidate{ID: "a"})
	require.NoError(t, err)
	assert.Equal(t, 2, stored.Votes, "ours once, theirs once")
	assert.Equal(t, []string{"us", "them"}, stored.VotedBy)
}

// TestExactlyOnceResendsThroughOtherWriters: with ExactlyOnce, an Update's
// lost answer is resent by the SDK with the same request token after
// another writer changed the item; DynamoDB recognises the token, and the
// vote is counted once.
func TestExactlyOnceResendsThroughOtherWriters(t *testing.T) {
	srv := dynamolocal.New(t)
	c := newCandidates(t)
	other := c.table
	drop := &ddbtest.DropTransport{Drop: func(op string, call int) bool {
		if op == "TransactWriteItems" && call == 2 { // the resend: another writer first
			_, err := other.Update(context.Background(), Candidate{ID: "a"}, update.Append("votedBy", "them").Add("votes", 1))
			assert.NoError(t, err)
		}
		return op == "TransactWriteItems" && call == 1
	}}
	lossy, err := mapper.NewTable[Candidate](srv.NewClient(drop.Option()), c.name)
	require.NoError(t, err)

	got, err := lossy.Update(c.ctx, Candidate{ID: "a"}, update.Append("votedBy", "us").Add("votes", 1), mapper.ExactlyOnce())
	require.NoError(t, err)
	assert.Equal(t, 2, drop.Calls("TransactWriteItems"), "resent once")
	assert.Equal(t, 1, drop.Calls("GetItem"), "the item is read after the write")
	assert.Equal(t, 2, got.Votes, "ours once, theirs once")
	assert.Equal(t, []string{"us", "them"}, got.VotedBy)
}

// TestExactlyOnceWrites: each write API with ExactlyOnce goes out as one
// TransactWriteItems, keeps the version semantics and reports a refusal as
// the plain write does.
func TestExactlyOnceWrites(t *testing.T) {
	f := newFixture(t)
	eo := mapper.ExactlyOnce()
	c := &Counter{ID: "a", N: 1}
	require.NoError(t, f.Table.Put(f.Ctx, c, eo))
	assert.Equal(t, int64(1), c.Version)
	c.N = 2
	require.NoError(t, f.Table.Save(f.Ctx, c, eo))
	assert.Equal(t, int64(2), c.Version)
	got, err := f.Table.Update(f.Ctx, Counter{ID: "a"}, update.Add("n", 10), eo)
	require.NoError(t, err)
	assert.Equal(t, Counter{ID: "a", N: 12, Version: 3}, *got)
	got, err = f.Table.Modify(f.Ctx, Counter{ID: "a"}, func(c *Counter) error { c.N++; return nil }, eo)
	require.NoError(t, err)
	assert.Equal(t, Counter{ID: "a", N: 13, Version: 4}, *got)
	assert.Equal(t, int64(4), f.Calls.Count("TransactWriteItems"))
	assert.Equal(t, int64(0), f.Calls.Count("PutItem")+f.Calls.Count("UpdateItem"))
	_, hasToken := f.Stored(t, "a")["optimist_token"]
	assert.False(t, hasToken, "the request token does the write token's work")

	stale := &Counter{ID: "a", N: 99, Version: 2}
	err = f.Table.Put(f.Ctx, stale, eo)
	var ce *version.ConflictError
	require.ErrorAs(t, err, &ce)
	assert.Equal(t, int64(2), ce.Expected)
	assert.Equal(t, int64(4), ce.Actual)
	assert.NotNil(t, ce.Item, "the current item comes with the conflict")
	var canceled *txn.CanceledError
	assert.ErrorAs(t, err, &canceled, "the transaction's cancellation stays reachable")
	assert.Equal(t, int64(2), stale.Version, "unchanged on failure")

	err = f.Table.Put(f.Ctx, got, eo, mapper.If(expression.Name("n").Equal(expression.Value(0))))
	require.ErrorIs(t, err, mapper.ErrConditionFailed)
	assert.False(t, version.IsConflict(err))

	require.Error(t, f.Table.Delete(f.Ctx, Counter{ID: "a", Version: 3}, eo))
	require.NoError(t, f.Table.Delete(f.Ctx, Counter{ID: "a", Version: 4}, eo))
	assert.Empty(t, f.Stored(t, "a"))

	// Modify may write several times, so one token cannot serve it:
	// Modify with ExactlyOnceToken does not compile (options_compile_test.go).
	require.ErrorIs(t, f.Table.Put(f.Ctx, &Counter{ID: "b"}, mapper.ExactlyOnceToken("")), mapper.ErrInvalidOption)
}

// TestExactlyOnceRetriesRunOut: every answer to the write is lost, so the
// SDK's retries run out; the error is an unknown outcome carrying the
// token, and resending the same write with ExactlyOnceToken(token) applies
// it once (DynamoDB answers the resend from its record of the token).
func TestExactlyOnceRetriesRunOut(t *testing.T) {
	srv := dynamolocal.New(t)
	c := newCandidates(t)
	drop := &ddbtest.DropTransport{DropOps: map[string]int{"TransactWriteItems": 1000}}
	lossy, err := mapper.NewTable[Candidate](srv.NewClient(drop.Option()), c.name)
	require.NoError(t, err)

	vote := update.Append("votedBy", "us").Add("votes", 1)
	_, err = lossy.Update(c.ctx, Candidate{ID: "a"}, vote, mapper.ExactlyOnce())
	require.ErrorIs(t, err, mapper.ErrUnknownOutcome)
	var uo *mapper.UnknownOutcomeError
	require.ErrorAs(t, err, &uo)
	require.NotEmpty(t, uo.Token)
	assert.Contains(t, err.Error(), uo.Token, "the message names the token")
	assert.Equal(t, 3, drop.Calls("TransactWriteItems"), "the SDK's three attempts")

	got, err := c.table.Update(c.ctx, Candidate{ID: "a"}, vote, mapper.ExactlyOnceToken(uo.Token))
	require.NoError(t, err)
	assert.Equal(t, 1, got.Votes, "applied once across four sends")
	assert.Equal(t, []string{"us"}, got.VotedBy)
}

// BenchmarkExactlyOnceCost compares a plain write with the same write made
// with ExactlyOnce, on a clean network, against DynamoDB Local: wall time
// per write and DynamoDB calls per write.
func BenchmarkExactlyOnceCost(b *testing.B) {
	srv := dynamolocal.New(b)
	raw := srv.Client()
	name := ddbtest.CreateTable(b, raw, "id", types.ScalarAttributeTypeS, "", "")
	ctx := context.Background()
	for _, mode := range []struct {
		name string
		opts []mapper.WriteOption
	}{{"default", nil}, {"ExactlyOnce", []mapper.WriteOption{mapper.ExactlyOnce()}}} {
		calls := ddbtest.NewCounting(raw)
		table, err := mapper.NewTable[Tally](calls, name)
		require.NoError(b, err)
		b.Run("Update/"+mode.name, func(b *testing.B) {
			calls.Reset()
			for b.Loop() {
				if _, err := table.Update(ctx, Tally{ID: "u-" + mode.name}, update.Add("n", 1), mode.opts...); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(calls.Total())/float64(b.N), "calls/op")
		})
		b.Run("Put/"+mode.name, func(b *testing.B) {
			item := &Tally{ID: fmt.Sprintf("p-%s-%d", mode.name, time.Now().UnixNano()), IDs: []string{}}
			calls.Reset()
			for b.Loop() {
				item.N++
				if err := table.Put(ctx, item, mode.opts...); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(calls.Total())/float64(b.N), "calls/op")
		})
	}
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// TestUncheckedWriteStillRetriesSafeFailures: an Update with no version
// check is not resent after an unanswered attempt, but the SDK still
// resends it after answers that prove nothing was written: a throttled
// attempt and a refused connection.
func TestUncheckedWriteStillRetriesSafeFailures(t *testing.T) {
	srv := dynamolocal.New(t)
	c := newCandidates(t)
	throttle := &dynamolocal.FaultTransport{Throttle: 1}
	refuse := &dynamolocal.FaultTransport{Refuse: 1}
	var mu sync.Mutex
	updates := 0
	rt := roundTripFunc(func(r *http.Request) (*http.Response, error) {
		if dynamolocal.OpName(r) == "UpdateItem" {
			mu.Lock()
			updates++
			n := updates
			mu.Unlock()
			switch n {
			case 1:
				return throttle.RoundTrip(r)
			case 2:
				return refuse.RoundTrip(r)
			}
		}
		return http.DefaultTransport.RoundTrip(r)
	})
	flaky, err := mapper.NewTable[Candidate](srv.NewClient(func(o *dynamodb.Options) { o.HTTPClient = &http.Client{Transport: rt} }), c.name)
	require.NoError(t, err)
	got, err := flaky.Update(c.ctx, Candidate{ID: "a"}, update.Add("votes", 1))
	require.NoError(t, err)
	assert.Equal(t, 1, got.Votes)
	assert.Equal(t, 3, updates, "throttled, refused, then applied")
	assert.Equal(t, 1, throttle.Count(dynamolocal.FaultThrottled))
	assert.Equal(t, 1, refuse.Count(dynamolocal.FaultRefused))
}
