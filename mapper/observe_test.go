package mapper_test

// The events a Table reports to its observer (package observe), against
// DynamoDB Local.

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/optimist-dynamo/optimist/dynamolocal"
	"github.com/optimist-dynamo/optimist/internal/ddbtest"
	"github.com/optimist-dynamo/optimist/mapper"
	"github.com/optimist-dynamo/optimist/observe"
	"github.com/optimist-dynamo/optimist/txn"
	"github.com/optimist-dynamo/optimist/update"
	"github.com/optimist-dynamo/optimist/version"
)

func observed(o observe.Observer) func(*mapper.TableOptions) {
	return func(opts *mapper.TableOptions) { opts.Observer = o }
}

// capacityAsked records what each PutItem asked for.
type capacityAsked struct {
	mapper.Client
	asked []types.ReturnConsumedCapacity
}

func (c *capacityAsked) PutItem(ctx context.Context, in *dynamodb.PutItemInput, o ...func(*dynamodb.Options)) (*dynamodb.PutItemOutput, error) {
	c.asked = append(c.asked, in.ReturnConsumedCapacity)
	return c.Client.PutItem(ctx, in, o...)
}

// TestObserveConflict: a Put of a stale copy is a Write span with a
// Conflict inside it, carrying the *version.ConflictError; the spans carry
// the table, the key, the write token and, when the observer asks, the
// capacity consumed.
func TestObserveConflict(t *testing.T) {
	f := newFixture(t)
	rec := &ddbtest.Recorder{Capacity: true}
	table, err := mapper.NewTable[Counter](f.Calls, f.Name, observed(rec))
	require.NoError(t, err)

	c := &Counter{ID: "a", N: 1}
	require.NoError(t, table.Put(f.Ctx, c))
	stale := *c
	c.N = 2
	require.NoError(t, table.Put(f.Ctx, c))
	stale.N = 9
	err = table.Put(f.Ctx, &stale)
	requireConflict(t, err, 1, 2)

	assert.Equal(t, []string{"write start", "write end", "write start", "write end", "write start", "conflict", "write end"}, rec.Names())
	ev := rec.Events()
	key := map[string]types.AttributeValue{"id": &types.AttributeValueMemberS{Value: "a"}}
	for i, e := range ev {
		assert.Equal(t, "PutItem", e.Op, "event %d", i)
		assert.Equal(t, f.Name, e.Table, "event %d", i)
		assert.Equal(t, key, e.Key, "event %d", i)
		assert.Equal(t, 1, e.Attempt, "event %d", i)
		assert.NotEmpty(t, e.Token, "event %d: the write token", i)
		assert.Equal(t, ev[i/2*2].Span, e.Span, "event %d: in its span's context", i)
	}
	assert.NotEqual(t, ev[0].Token, ev[2].Token, "a token per write")
	assert.Equal(t, []int{1, 2, 3}, []int{ev[0].Span, ev[2].Span, ev[4].Span})
	first := ev[1]
	assert.NoError(t, first.Err)
	assert.Positive(t, first.Duration)
	assert.Equal(t, 1.0, first.Capacity, "DynamoDB's consumed capacity, asked for by the observer")
	conflict := ev[5]
	assert.Equal(t, ev[4].Token, conflict.Token)
	var ce *version.ConflictError
	require.ErrorAs(t, conflict.Err, &ce)
	assert.Equal(t, int64(1), ce.Expected)
	assert.Equal(t, int64(2), ce.Actual)
	assert.ErrorIs(t, ev[6].Err, version.ErrConflict, "the span ends with the conflict")
	assert.Zero(t, ev[6].Capacity, "DynamoDB reports none for a refused write")

	// An observer that does not ask for capacity: none is asked of DynamoDB.
	asked := &capacityAsked{Client: f.Calls}
	quiet := &ddbtest.Recorder{}
	table, err = mapper.NewTable[Counter](asked, f.Name, observed(quiet))
	require.NoError(t, err)
	require.NoError(t, table.Put(f.Ctx, &Counter{ID: "b"}))
	assert.Equal(t, []types.ReturnConsumedCapacity{""}, asked.asked)
	assert.Zero(t, quiet.Of(observe.Write)[1].Capacity)
	asked.asked = nil
	table, err = mapper.NewTable[Counter](asked, f.Name, observed(observe.Multi(quiet, rec)))
	require.NoError(t, err)
	require.NoError(t, table.Put(f.Ctx, &Counter{ID: "c"}))
	assert.Equal(t, []types.ReturnConsumedCapacity{types.ReturnConsumedCapacityTotal}, asked.asked, "one observer of Multi asks")
}

// TestObserveSettledLostAnswer: a write whose response is lost after the
// server applied it is settled without writing twice, and reported so: a
// Put by the item its resend's failed condition returns, an Update (never
// resent) by a consistent read.
func TestObserveSettledLostAnswer(t *testing.T) {
	srv := dynamolocal.New(t)
	c := newCandidates(t)
	rec := &ddbtest.Recorder{}
	drop := &ddbtest.DropTransport{DropOps: map[string]int{"PutItem": 1, "UpdateItem": 1}}
	lossy, err := mapper.NewTable[Candidate](srv.NewClient(drop.Option()), c.name, observed(rec))
	require.NoError(t, err)

	cand := &Candidate{ID: "a", Name: "Ada"}
	require.NoError(t, lossy.Put(c.ctx, cand))
	assert.Equal(t, 2, drop.Calls("PutItem"), "the SDK resent it, and the resend met our own write")
	assert.Equal(t, []string{"write start", "settled", "write end"}, rec.Names())
	s := rec.Of(observe.Settled)[0]
	assert.Equal(t, "landed", s.Outcome)
	assert.Equal(t, "PutItem", s.Op)
	assert.NotEmpty(t, s.Token)
	assert.Equal(t, rec.Events()[0].Token, s.Token)
	assert.Equal(t, 1, s.Span, "inside the write's span")
	assert.NoError(t, rec.Events()[2].Err)

	rec.Reset()
	got, err := lossy.Update(c.ctx, Candidate{ID: "a"}, update.Add("votes", 1))
	require.NoError(t, err)
	assert.Equal(t, 1, got.Votes, "applied once")
	assert.Equal(t, 1, drop.Calls("UpdateItem"), "never resent")
	assert.Equal(t, 1, drop.Calls("GetItem"), "settled by one read")
	assert.Equal(t, []string{"write start", "settled", "write end"}, rec.Names())
	s = rec.Of(observe.Settled)[0]
	assert.Equal(t, "landed", s.Outcome)
	assert.Equal(t, "UpdateItem", s.Op)
}

// TestObserveUnknownOutcome: an Update's answer is lost and another writer
// changes the item before the settling read: the read does not see our
// token (Settled, "not_seen") and the outcome is unknown.
func TestObserveUnknownOutcome(t *testing.T) {
	srv := dynamolocal.New(t)
	c := newCandidates(t)
	other := c.table
	drop := &ddbtest.DropTransport{Drop: func(op string, call int) bool {
		if op == "GetItem" && call == 1 {
			_, err := other.Update(context.Background(), Candidate{ID: "a"}, update.Add("votes", 1))
			assert.NoError(t, err)
		}
		return op == "UpdateItem" && call == 1
	}}
	rec := &ddbtest.Recorder{}
	lossy, err := mapper.NewTable[Candidate](srv.NewClient(drop.Option()), c.name, observed(rec))
	require.NoError(t, err)
	_, err = lossy.Update(c.ctx, Candidate{ID: "a"}, update.Add("votes", 1))
	require.ErrorIs(t, err, mapper.ErrUnknownOutcome)

	assert.Equal(t, []string{"write start", "settled", "unknown_outcome", "write end"}, rec.Names())
	assert.Equal(t, "not_seen", rec.Of(observe.Settled)[0].Outcome)
	u := rec.Of(observe.UnknownOutcome)[0]
	assert.ErrorIs(t, u.Err, mapper.ErrUnknownOutcome)
	assert.Equal(t, "UpdateItem", u.Op)
	assert.Equal(t, c.name, u.Table)
	assert.NotEmpty(t, u.Token)
	assert.Empty(t, rec.Of(observe.Conflict), "an unknown outcome is not a conflict")
}

// TestObserveModifyRetry: Modify's write conflicts with another writer's;
// the retry is reported with its attempt and backoff (none for the first,
// which writes on the conflict's item at once).
func TestObserveModifyRetry(t *testing.T) {
	f := newFixture(t)
	rec := &ddbtest.Recorder{}
	mine, err := mapper.NewTable[Counter](f.Calls, f.Name, observed(rec))
	require.NoError(t, err)
	require.NoError(t, f.Table.Put(f.Ctx, &Counter{ID: "a"}))
	calls := 0
	got, err := mine.Modify(f.Ctx, Counter{ID: "a"}, func(c *Counter) error {
		if calls++; calls == 1 { // another process writes meanwhile
			_, err := f.Table.Update(f.Ctx, Counter{ID: "a"}, update.Add("n", 10))
			require.NoError(t, err)
		}
		c.N++
		return nil
	})
	require.NoError(t, err)
	assert.Equal(t, 11, got.N)
	assert.Equal(t, []string{"write start", "conflict", "write end", "retry", "write start", "write end"}, rec.Names())
	r := rec.Of(observe.Retry)[0]
	assert.Equal(t, "Modify", r.Op)
	assert.Equal(t, 2, r.Attempt)
	assert.Zero(t, r.Wait)
	assert.ErrorIs(t, r.Err, version.ErrConflict)
	assert.Equal(t, f.Name, r.Table)
	assert.Zero(t, r.Span, "Modify's own event, outside the writes' spans")
}

// TestObserveExactlyOnce: an ExactlyOnce write is one transaction: its
// span is txn.Commit's, with the client request token, and a refusal is a
// Conflict carrying the cancellation.
func TestObserveExactlyOnce(t *testing.T) {
	f := newFixture(t)
	rec := &ddbtest.Recorder{Capacity: true}
	table, err := mapper.NewTable[Counter](f.Calls, f.Name, observed(rec))
	require.NoError(t, err)
	// Unique per run: a token reused within ten minutes must come with the
	// same request, and a rerun against one server makes another table.
	tok := fmt.Sprintf("tok-%d", time.Now().UnixNano())
	require.NoError(t, table.Put(f.Ctx, &Counter{ID: "a"}, mapper.ExactlyOnceToken(tok)))
	err = table.Put(f.Ctx, &Counter{ID: "a"}, mapper.ExactlyOnce())
	require.ErrorIs(t, err, version.ErrConflict)

	assert.Equal(t, []string{"write start", "write end", "write start", "conflict", "write end"}, rec.Names())
	ev := rec.Events()
	for _, e := range ev {
		assert.Equal(t, "TransactWriteItems", e.Op)
		assert.Equal(t, f.Name, e.Table)
		assert.Equal(t, map[string]types.AttributeValue{"id": &types.AttributeValueMemberS{Value: "a"}}, e.Key)
	}
	assert.Equal(t, tok, ev[0].Token, "the client request token")
	assert.Equal(t, 1, ev[1].Attempt)
	assert.Positive(t, ev[1].Capacity, "as DynamoDB reports it (DynamoDB Local: 4 units for a small item)")
	var canceled *txn.CanceledError
	assert.ErrorAs(t, ev[3].Err, &canceled)
	assert.Equal(t, ev[2].Token, ev[3].Token)
	assert.NotEqual(t, tok, ev[2].Token)
}

// TestObserveSlog: the Slog observer writes one JSON record per event, with
// the event's fields as attributes, at the documented levels.
func TestObserveSlog(t *testing.T) {
	f := newFixture(t)
	var buf bytes.Buffer
	l := slog.New(slog.NewJSONHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug}))
	table, err := mapper.NewTable[Counter](f.Calls, f.Name, observed(observe.Slog(l)))
	require.NoError(t, err)
	require.NoError(t, table.Put(f.Ctx, &Counter{ID: "a"}))
	requireConflict(t, table.Put(f.Ctx, &Counter{ID: "a"}), 0, 1)

	var lines []map[string]any
	for _, line := range bytes.Split(bytes.TrimSpace(buf.Bytes()), []byte("\n")) {
		var m map[string]any
		require.NoError(t, json.Unmarshal(line, &m), "%s", line)
		lines = append(lines, m)
	}
	require.Len(t, lines, 5)
	var msgs []string
	for _, m := range lines {
		msgs = append(msgs, m["msg"].(string))
	}
	assert.Equal(t, []string{"optimist: write start", "optimist: write end", "optimist: write start", "optimist: conflict", "optimist: write end"}, msgs)
	c := lines[3]
	assert.Equal(t, "DEBUG", c["level"])
	assert.Equal(t, "conflict", c["kind"])
	assert.Equal(t, "PutItem", c["op"])
	assert.Equal(t, f.Name, c["table"])
	assert.Equal(t, `{id="a"}`, c["key"])
	assert.EqualValues(t, 1, c["attempt"])
	assert.NotEmpty(t, c["token"])
	assert.Contains(t, c["err"], "version: conflict")
	assert.NotContains(t, c, "phase")
	end := lines[4]
	assert.Equal(t, "end", end["phase"])
	assert.Contains(t, end, "duration")
	assert.Contains(t, end["err"], "version: conflict")
}
