package unit_test

import (
	"testing"
	"testing/cryptotest"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/optimist-dynamo/optimist/dynamolocal"
	"github.com/optimist-dynamo/optimist/internal/ddbtest"
	"github.com/optimist-dynamo/optimist/mapper"
	"github.com/optimist-dynamo/optimist/unit"
)

// TestTwoWorldsShareNothing runs two independent worlds in one process:
// two engines with tables of the same names, each with a unit of the same
// id (the ids are drawn from one seed) that dies holding an item. What a
// party of one world learnt must not count in the other: world A's Table
// watched its dead unit for a full lease and settles it; world B's Table,
// which sees its own unit (same coordinator, same id, same counter) for
// the first time, leaves it locked until it has watched it a lease
// itself. And a unit of one world does not judge another world's
// coordinator by what it learnt: a global coordinator table in A refuses
// A's units, not B's.
func TestTwoWorldsShareNothing(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const lease = 300 * time.Millisecond
		ctx := t.Context()
		type world struct {
			accounts *mapper.Table[Account]
			dying    *crashClient
			unit     *unit.Unit
		}
		newWorld := func() world {
			c := dynamolocal.NewEngine(t, dynamolocal.WithoutListener()).Client()
			require.NoError(t, unit.CreateTable(ctx, c, "coord"))
			require.NoError(t, mapper.CreateTable[Account](ctx, c, "accounts"))
			accounts, err := mapper.NewTable[Account](c, "accounts")
			require.NoError(t, err)
			require.NoError(t, accounts.Put(ctx, &Account{ID: "a", Balance: 100}))
			w := world{accounts: accounts, dying: &crashClient{c: c, limit: -1}}
			cryptotest.SetGlobalRandom(t, 1) // the same unit id in both worlds
			w.unit, err = unit.Begin(ctx, w.dying, unit.Coordinator("coord"), unit.LeaseDuration(lease), unit.Heartbeat(lease/6))
			require.NoError(t, err)
			_, err = unit.Get(ctx, w.unit, accounts, Account{ID: "a"})
			require.NoError(t, err)
			w.dying.paused.Store(true) // its owner dies holding the item
			return w
		}
		put := func(w world) error {
			return w.accounts.Put(ctx, &Account{ID: "a", Balance: 1, Version: 1})
		}
		a, b := newWorld(), newWorld()
		require.Equal(t, a.unit.ID(), b.unit.ID(), "one id in both worlds")

		require.ErrorIs(t, put(a), unit.ErrLocked, "A's first sighting")
		time.Sleep(lease + lease/10)
		require.ErrorIs(t, put(b), unit.ErrLocked, "B's first sighting of its own unit: what A saw does not count")
		require.NoError(t, put(a), "A watched its unit for a lease: dead, settled")
		require.ErrorIs(t, put(b), unit.ErrLocked, "B has not watched for a lease yet")
		time.Sleep(lease + lease/10)
		require.NoError(t, put(b), "now B has")
		for _, w := range []world{a, b} { // the dead wake: rolled back already
			w.dying.paused.Store(false)
			require.NoError(t, w.unit.Rollback(ctx))
		}

		// Global-table guards: learnt per world (per unit and Table), not
		// per table name in the process.
		for _, global := range []bool{true, false} {
			c := dynamolocal.NewEngine(t, dynamolocal.WithoutListener()).Client()
			require.NoError(t, unit.CreateTable(ctx, c, "coord2"))
			if global {
				ddbtest.MakeGlobal(t, c, "coord2", "", "eu-west-1")
			}
			u, err := unit.Begin(ctx, c, unit.Coordinator("coord2"))
			if global {
				require.ErrorIs(t, err, unit.ErrGlobalTable)
				continue
			}
			require.NoError(t, err, "another world's coordinator of the same name was global, not this one")
			require.NoError(t, u.Rollback(ctx))
		}
	})
}
