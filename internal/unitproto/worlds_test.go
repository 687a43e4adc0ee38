package unitproto_test

import (
	"testing"
	"testing/synctest"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/stretchr/testify/require"

	"github.com/optimist-dynamo/optimist/dynamolocal"
	"github.com/optimist-dynamo/optimist/internal/unitproto"
	"github.com/optimist-dynamo/optimist/unit"
)

// TestTwoWorlds runs two independent worlds in one process: two engines,
// each with a coordinator table of the same name and a unit of the same id
// (as two simulations with one seed draw), each judging with a memory of
// its own. What a judge in one world saw must not count in the other: the unit that world A watched for a full
// lease is dead there, and world B, which first sees its own unit now,
// leaves it alone.
func TestTwoWorlds(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const lease = time.Second
		ctx := t.Context()
		var clientB *dynamodb.Client
		world := func() unitproto.Coordinator {
			c := dynamolocal.NewEngine(t, dynamolocal.WithoutListener()).Client()
			clientB = c
			require.NoError(t, unit.CreateTable(ctx, c, "coord"))
			co := unitproto.NewCoordinator(c, "coord", new(unitproto.Memory))
			require.NoError(t, co.Create(ctx, "same-id", unitproto.Record{Owner: "o", Lease: lease, Started: 1}))
			return co
		}
		judge := func(co unitproto.Coordinator) unitproto.Verdict {
			t.Helper()
			v, err := co.JudgeUnit(ctx, "same-id")
			require.NoError(t, err)
			return v
		}
		a, b := world(), world()
		require.Equal(t, unitproto.Wait, judge(a).Action, "A's first sighting")
		time.Sleep(lease)
		require.Equal(t, unitproto.Wait, judge(b).Action, "B's first sighting of its own unit")
		v := judge(a)
		require.Equal(t, unitproto.Back, v.Action, "dead in A after a full lease")
		require.Equal(t, unitproto.StateAborted, v.Rec.State)
		rec, err := b.Read(ctx, "same-id")
		require.NoError(t, err)
		require.Equal(t, unitproto.StateActive, rec.State, "B's unit untouched")

		// Within a world, each party judges with its memory: one party's
		// copies share it, another party starts afresh.
		var m unitproto.Memory
		shared := unitproto.NewCoordinator(clientB, "coord", &m)
		require.Equal(t, unitproto.Wait, judge(shared).Action)
		time.Sleep(lease)
		require.Equal(t, unitproto.Wait, judge(unitproto.NewCoordinator(clientB, "coord", new(unitproto.Memory))).Action, "another party's first sighting")
		require.Equal(t, unitproto.Wait, judge(unitproto.NewCoordinator(clientB, "coord", nil)).Action, "no memory: never dead")
		v = judge(unitproto.NewCoordinator(clientB, "coord", &m))
		require.Equal(t, unitproto.Back, v.Action, "a copy with the same memory saw it for a lease")
	})
}

// TestJudgeAlive holds the liveness rule that Recover uses: a unit whose
// counter a judge saw change twice is alive; once is not enough (a
// heartbeat sent before its owner died may land late).
func TestJudgeAlive(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := t.Context()
		c := dynamolocal.NewEngine(t, dynamolocal.WithoutListener()).Client()
		require.NoError(t, unit.CreateTable(ctx, c, "coord"))
		co := unitproto.NewCoordinator(c, "coord", new(unitproto.Memory))
		require.NoError(t, co.Create(ctx, "u", unitproto.Record{Owner: "o", Lease: time.Second, Started: 1}))
		var first unitproto.Verdict
		step := func(beat bool) bool {
			t.Helper()
			if beat {
				alive, _, err := co.Beat(ctx, "u")
				require.NoError(t, err)
				require.True(t, alive)
			}
			v, err := co.JudgeUnit(ctx, "u")
			require.NoError(t, err)
			require.Equal(t, unitproto.Wait, v.Action)
			if first.Rec.Owner == "" {
				first = v
			}
			return v.AliveSince(first)
		}
		require.False(t, step(false), "first sighting")
		require.False(t, step(true), "one change")
		require.False(t, step(false), "no change since")
		require.True(t, step(true), "a second change")
	})
}
