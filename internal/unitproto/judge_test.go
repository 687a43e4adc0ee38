package unitproto_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"testing"
	"testing/synctest"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/require"

	"github.com/optimist-dynamo/optimist/dynamolocal"
	"github.com/optimist-dynamo/optimist/internal/ddbtest"
	"github.com/optimist-dynamo/optimist/internal/unitproto"
)

func TestFate(t *testing.T) {
	for _, tc := range []struct {
		rec  unitproto.Record
		want unitproto.Action
		over bool
	}{
		{unitproto.Record{Found: true, State: unitproto.StateActive}, unitproto.Wait, false},
		{unitproto.Record{Found: true, State: unitproto.StateCommitted}, unitproto.Forward, false},
		{unitproto.Record{Found: true, State: unitproto.StateCommitted, Done: true}, unitproto.Forward, true},
		{unitproto.Record{Found: true, State: unitproto.StateAborted}, unitproto.Back, false},
		{unitproto.Record{Found: true, State: unitproto.StateAborted, Done: true}, unitproto.Back, true},
		{unitproto.Record{}, unitproto.Back, true},
	} {
		v := unitproto.Fate(tc.rec)
		require.Equal(t, tc.want, v.Action, "%+v", tc.rec)
		require.Equal(t, tc.over, v.Over, "%+v", tc.rec)
		require.False(t, v.Revived)
	}
}

func newID(t *testing.T) string {
	t.Helper()
	var b [8]byte
	_, err := rand.Read(b[:])
	require.NoError(t, err)
	return hex.EncodeToString(b[:])
}

// TestJudge holds the one judgement to what the record says: over units
// are rolled forward or back, a unit is dead only after its counter stayed
// the same for a full lease on the judge's clock (one write then, to
// abort it), and a unit that beat in the meantime is left alone. Each case
// runs in a testing/synctest bubble with an engine of its own: the lease
// passes in time.Sleep.
func TestJudge(t *testing.T) {
	const lease = time.Second
	type world struct {
		cc    *ddbtest.CountingClient
		co    unitproto.Coordinator
		begin func() string
		judge func(id string) unitproto.Verdict
	}
	inBubble := func(f func(t *testing.T, ctx context.Context, w world)) func(t *testing.T) {
		return func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				ctx := t.Context()
				c := dynamolocal.NewEngine(t, dynamolocal.WithoutListener()).Client()
				cc := ddbtest.NewCounting(c)
				co := unitproto.NewCoordinator(cc, ddbtest.CreateTable(t, c, unitproto.RecID, types.ScalarAttributeTypeS, "", ""), new(unitproto.Memory))
				f(t, ctx, world{cc: cc, co: co,
					begin: func() string {
						id := newID(t)
						require.NoError(t, co.Create(ctx, id, unitproto.Record{Owner: "test", Lease: lease, Started: 1}))
						return id
					},
					judge: func(id string) unitproto.Verdict {
						t.Helper()
						v, err := co.JudgeUnit(ctx, id)
						require.NoError(t, err)
						return v
					}})
			})
		}
	}

	t.Run("over", inBubble(func(t *testing.T, ctx context.Context, w world) {
		cc, co, begin, judge := w.cc, w.co, w.begin, w.judge
		committed, aborted, finished := begin(), begin(), begin()
		for id, st := range map[string]string{committed: unitproto.StateCommitted, aborted: unitproto.StateAborted, finished: unitproto.StateCommitted} {
			got, err := co.SetState(ctx, id, st, "")
			require.NoError(t, err)
			require.Equal(t, st, got)
		}
		require.NoError(t, co.Finish(ctx, finished, 0))
		cc.Reset()
		v := judge(committed)
		require.Equal(t, unitproto.Forward, v.Action)
		require.False(t, v.Over)
		v = judge(aborted)
		require.Equal(t, unitproto.Back, v.Action)
		require.False(t, v.Over)
		v = judge(finished)
		require.Equal(t, unitproto.Forward, v.Action)
		require.True(t, v.Over)
		v = judge(newID(t)) // no record
		require.Equal(t, unitproto.Back, v.Action)
		require.True(t, v.Over)
		require.Equal(t, int64(4), cc.Count("GetItem"))
		require.Equal(t, int64(4), cc.Total(), "judging a unit that is over writes nothing")
	}))

	t.Run("dead", inBubble(func(t *testing.T, ctx context.Context, w world) {
		cc, co, begin, judge := w.cc, w.co, w.begin, w.judge
		id := begin()
		require.Equal(t, unitproto.Wait, judge(id).Action, "first sighting")
		time.Sleep(lease - time.Millisecond)
		require.Equal(t, unitproto.Wait, judge(id).Action, "not a full lease yet")
		time.Sleep(time.Millisecond)
		cc.Reset()
		v := judge(id)
		require.Equal(t, unitproto.Back, v.Action)
		require.Equal(t, unitproto.StateAborted, v.Rec.State)
		require.False(t, v.Revived)
		require.Equal(t, int64(1), cc.Count("UpdateItem"), "one write aborts it")
		rec, err := co.Read(ctx, id)
		require.NoError(t, err)
		require.Equal(t, unitproto.StateAborted, rec.State)
	}))

	t.Run("beating", inBubble(func(t *testing.T, ctx context.Context, w world) {
		cc, co, begin, judge := w.cc, w.co, w.begin, w.judge
		id := begin()
		require.Equal(t, unitproto.Wait, judge(id).Action)
		alive, _, err := co.Beat(ctx, id)
		require.NoError(t, err)
		require.True(t, alive)
		time.Sleep(lease)
		cc.Reset()
		require.Equal(t, unitproto.Wait, judge(id).Action, "its counter moved: a new sighting")
		require.Zero(t, cc.Count("UpdateItem"))
	}))

	t.Run("revived", inBubble(func(t *testing.T, ctx context.Context, w world) {
		co, begin, judge := w.co, w.begin, w.judge
		// Seen dead on a record read before its last heartbeat landed: the
		// abort, conditional on the counter watched, is refused.
		id := begin()
		stale, err := co.Read(ctx, id)
		require.NoError(t, err)
		require.Equal(t, unitproto.Wait, judge(id).Action)
		time.Sleep(lease)
		alive, _, err := co.Beat(ctx, id)
		require.NoError(t, err)
		require.True(t, alive)
		v, err := co.Judge(ctx, id, stale)
		require.NoError(t, err)
		require.Equal(t, unitproto.Wait, v.Action)
		require.True(t, v.Revived)
		rec, err := co.Read(ctx, id)
		require.NoError(t, err)
		require.Equal(t, unitproto.StateActive, rec.State)
	}))
}
