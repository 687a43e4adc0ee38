package unitlock_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/require"

	"github.com/optimist-dynamo/optimist/internal/ddbtest"
	"github.com/optimist-dynamo/optimist/internal/fakeclock"
	"github.com/optimist-dynamo/optimist/internal/unitlock"
)

func TestFate(t *testing.T) {
	for _, tc := range []struct {
		rec  unitlock.Record
		want unitlock.Action
		over bool
	}{
		{unitlock.Record{Found: true, State: unitlock.StateActive}, unitlock.Wait, false},
		{unitlock.Record{Found: true, State: unitlock.StateCommitted}, unitlock.Forward, false},
		{unitlock.Record{Found: true, State: unitlock.StateCommitted, Done: true}, unitlock.Forward, true},
		{unitlock.Record{Found: true, State: unitlock.StateAborted}, unitlock.Back, false},
		{unitlock.Record{Found: true, State: unitlock.StateAborted, Done: true}, unitlock.Back, true},
		{unitlock.Record{}, unitlock.Back, true},
	} {
		v := unitlock.Fate(tc.rec)
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
// abort it), and a unit that beat in the meantime is left alone.
func TestJudge(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	c := ddbtest.Server(t).Client()
	cc := ddbtest.NewCounting(c)
	co := unitlock.NewCoordinator(cc, ddbtest.CreateTable(t, c, unitlock.RecID, types.ScalarAttributeTypeS, "", ""))
	clock := fakeclock.New(time.Unix(1_000_000, 0))
	const lease = time.Second
	begin := func() string {
		id := newID(t)
		require.NoError(t, co.Create(ctx, id, unitlock.Record{Owner: "test", Lease: lease, Started: 1}))
		return id
	}
	judge := func(id string) unitlock.Verdict {
		t.Helper()
		v, err := co.JudgeUnit(ctx, id, clock)
		require.NoError(t, err)
		return v
	}

	t.Run("over", func(t *testing.T) {
		committed, aborted, finished := begin(), begin(), begin()
		for id, st := range map[string]string{committed: unitlock.StateCommitted, aborted: unitlock.StateAborted, finished: unitlock.StateCommitted} {
			got, err := co.SetState(ctx, id, st, "")
			require.NoError(t, err)
			require.Equal(t, st, got)
		}
		require.NoError(t, co.Finish(ctx, finished, 0))
		cc.Reset()
		v := judge(committed)
		require.Equal(t, unitlock.Forward, v.Action)
		require.False(t, v.Over)
		v = judge(aborted)
		require.Equal(t, unitlock.Back, v.Action)
		require.False(t, v.Over)
		v = judge(finished)
		require.Equal(t, unitlock.Forward, v.Action)
		require.True(t, v.Over)
		v = judge(newID(t)) // no record
		require.Equal(t, unitlock.Back, v.Action)
		require.True(t, v.Over)
		require.Equal(t, int64(4), cc.Count("GetItem"))
		require.Equal(t, int64(4), cc.Total(), "judging a unit that is over writes nothing")
	})

	t.Run("dead", func(t *testing.T) {
		id := begin()
		require.Equal(t, unitlock.Wait, judge(id).Action, "first sighting")
		clock.Advance(lease - time.Millisecond)
		require.Equal(t, unitlock.Wait, judge(id).Action, "not a full lease yet")
		clock.Advance(time.Millisecond)
		cc.Reset()
		v := judge(id)
		require.Equal(t, unitlock.Back, v.Action)
		require.Equal(t, unitlock.StateAborted, v.Rec.State)
		require.False(t, v.Revived)
		require.Equal(t, int64(1), cc.Count("UpdateItem"), "one write aborts it")
		rec, err := co.Read(ctx, id)
		require.NoError(t, err)
		require.Equal(t, unitlock.StateAborted, rec.State)
	})

	t.Run("beating", func(t *testing.T) {
		id := begin()
		require.Equal(t, unitlock.Wait, judge(id).Action)
		alive, _, err := co.Beat(ctx, id)
		require.NoError(t, err)
		require.True(t, alive)
		clock.Advance(lease)
		cc.Reset()
		require.Equal(t, unitlock.Wait, judge(id).Action, "its counter moved: a new sighting")
		require.Zero(t, cc.Count("UpdateItem"))
	})

	t.Run("revived", func(t *testing.T) {
		// Seen dead on a record read before its last heartbeat landed: the
		// abort, conditional on the counter watched, is refused.
		id := begin()
		stale, err := co.Read(ctx, id)
		require.NoError(t, err)
		require.Equal(t, unitlock.Wait, judge(id).Action)
		clock.Advance(lease)
		alive, _, err := co.Beat(ctx, id)
		require.NoError(t, err)
		require.True(t, alive)
		v, err := co.Judge(ctx, id, stale, clock)
		require.NoError(t, err)
		require.Equal(t, unitlock.Wait, v.Action)
		require.True(t, v.Revived)
		rec, err := co.Read(ctx, id)
		require.NoError(t, err)
		require.Equal(t, unitlock.StateActive, rec.State)
	})
}
