package unit_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/optimist-dynamo/optimist/mapper"
	"github.com/optimist-dynamo/optimist/txn"
	"github.com/optimist-dynamo/optimist/unit"
	"github.com/optimist-dynamo/optimist/update"
)

// Focused isolation scenarios, each small and deterministic: a unit is
// stopped at a chosen point of its protocol by an isoClient (held just
// before its commit point, or dead just after it) and read with every
// kind of read.

// isoSeedAccounts creates the accounts ids (balance 100, hist ["seed"]).
func isoSeedAccounts(t *testing.T, e *isoEnv, status string, ids ...string) {
	t.Helper()
	var items []*isoAccount
	for _, id := range ids {
		a := isoKeyOf(id)
		a.Balance, a.Stamp, a.Status, a.Hist = isoBalance, "seed", status, []string{"seed"}
		items = append(items, &a)
	}
	require.NoError(t, e.accts.PutAll(context.Background(), items, mapper.Unversioned()))
}

// isoLocks returns the ids of the accounts that hold a unit's lock.
func isoLocks(t *testing.T, e *isoEnv) []string {
	t.Helper()
	items, err := isoRaw(context.Background(), e.c, e.accts.Name())
	require.NoError(t, err)
	var ids []string
	for _, it := range items {
		if _, ok := it[isoLockAttr]; ok {
			id, _ := it["id"].(*types.AttributeValueMemberS)
			ids = append(ids, id.Value)
		}
	}
	sort.Strings(ids)
	return ids
}

// isoRead is one way of reading a set of accounts: it returns what it saw
// of ids (missing ids: no item).
type isoReader struct {
	name string
	read func(ctx context.Context, e *isoEnv, ids []string) (map[string]*isoAccount, error)
}

func isoCollect(ids []string, seq func(yield func(*isoAccount, error) bool)) (map[string]*isoAccount, error) {
	out := map[string]*isoAccount{}
	var err error
	seq(func(a *isoAccount, e error) bool {
		if e != nil {
			err = e
			return false
		}
		if slices.Contains(ids, a.ID) {
			if _, dup := out[a.ID]; dup {
				err = fmt.Errorf("%s returned twice", a.ID)
				return false
			}
			out[a.ID] = a
		}
		return true
	})
	return out, err
}

var isoReaders = []isoReader{
	{"Get", func(ctx context.Context, e *isoEnv, ids []string) (map[string]*isoAccount, error) {
		out := map[string]*isoAccount{}
		for _, id := range ids {
			a, err := e.accts.Get(ctx, isoKeyOf(id))
			if errors.Is(err, mapper.ErrNotFound) {
				continue
			}
			if err != nil {
				return nil, err
			}
			out[id] = a
		}
		return out, nil
	}},
	{"GetAll", func(ctx context.Context, e *isoEnv, ids []string) (map[string]*isoAccount, error) {
		keys := make([]isoAccount, len(ids))
		for i, id := range ids {
			keys[i] = isoKeyOf(id)
		}
		got, err := e.accts.GetAll(ctx, keys)
		missing := map[int]bool{}
		if me := (*mapper.MissingError)(nil); errors.As(err, &me) {
			for _, i := range me.Keys {
				missing[i] = true
			}
		} else if err != nil {
			return nil, err
		}
		out := map[string]*isoAccount{}
		for i, a := range got {
			switch {
			case a != nil:
				out[ids[i]] = a
			case !missing[i]:
				return nil, fmt.Errorf("GetAll returned no item for %s and no MissingError naming it", ids[i])
			}
		}
		return out, nil
	}},
	{"Query", func(ctx context.Context, e *isoEnv, ids []string) (map[string]*isoAccount, error) {
		out := map[string]*isoAccount{}
		for _, bank := range []string{"b0", "b1"} {
			got, err := isoCollect(ids, e.accts.Query(ctx, expression.Key("bank").Equal(expression.Value(bank)),
				mapper.ConsistentRead(true), mapper.PageSize(3)))
			if err != nil {
				return nil, err
			}
			for id, a := range got {
				out[id] = a
			}
		}
		return out, nil
	}},
	{"Scan", func(ctx context.Context, e *isoEnv, ids []string) (map[string]*isoAccount, error) {
		return isoCollect(ids, e.accts.Scan(ctx, mapper.ConsistentRead(true), mapper.PageSize(3)))
	}},
	{"Scan(Segments)", func(ctx context.Context, e *isoEnv, ids []string) (map[string]*isoAccount, error) {
		return isoCollect(ids, e.accts.Scan(ctx, mapper.ConsistentRead(true), mapper.Segments(3)))
	}},
	{"txn.Get", func(ctx context.Context, e *isoEnv, ids []string) (map[string]*isoAccount, error) {
		dst := make([]*isoAccount, len(ids))
		ops := make([]txn.GetOp, len(ids))
		for i, id := range ids {
			ops[i] = e.accts.GetOp(isoKeyOf(id), &dst[i])
		}
		if err := txn.Get(ctx, e.c, ops...); err != nil {
			return nil, err
		}
		out := map[string]*isoAccount{}
		for i, a := range dst {
			if a != nil {
				out[ids[i]] = a
			}
		}
		return out, nil
	}},
}

// isoWant is the expected state of an account: its stamp, status and
// balance (nil: no item).
type isoWant struct {
	stamp, status string
	balance       int64
}

func isoDescribe(a *isoAccount) string {
	if a == nil {
		return "no item"
	}
	return fmt.Sprintf("stamp %s, status %s, balance %d, hist %v, version %d", a.Stamp, a.Status, a.Balance, a.Hist, a.Version)
}

// isoDiff compares what a read saw with the expected states.
func isoDiff(want map[string]*isoWant, got map[string]*isoAccount) []string {
	var bad []string
	ids := make([]string, 0, len(want))
	for id := range want {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, id := range ids {
		w, a := want[id], got[id]
		switch {
		case w == nil && a == nil:
		case w == nil || a == nil || a.Stamp != w.stamp || a.Status != w.status || a.Balance != w.balance ||
			len(a.Hist) == 0 || a.Hist[len(a.Hist)-1] != a.Stamp || a.Version != int64(len(a.Hist)):
			exp := "no item"
			if w != nil {
				exp = fmt.Sprintf("stamp %s, status %s, balance %d", w.stamp, w.status, w.balance)
			}
			bad = append(bad, fmt.Sprintf("%s: got %s, want %s", id, isoDescribe(a), exp))
		}
	}
	return bad
}

// isoReport reports the differences one read found, a few of them.
func isoReportDiff(t *testing.T, name string, diff []string) {
	t.Helper()
	if len(diff) > 0 {
		t.Errorf("%s: %d accounts not in their expected state: %s", name, len(diff), strings.Join(diff[:min(len(diff), 3)], "; "))
	}
}

// isoReadAll reads ids with every reader and reports each difference from
// want; index queries must return, for each status, the accounts of ids in
// that status, each shown in that status.
func isoReadAll(t *testing.T, ctx context.Context, e *isoEnv, ids []string, want map[string]*isoWant) {
	t.Helper()
	for _, r := range isoReaders {
		got, err := r.read(ctx, e, ids)
		if !assert.NoError(t, err, r.name) {
			continue
		}
		isoReportDiff(t, r.name, isoDiff(want, got))
	}
	for _, st := range []string{"open", "closed"} {
		sub := map[string]*isoWant{}
		for id, w := range want {
			if w != nil && w.status == st {
				sub[id] = w
			} else {
				sub[id] = nil
			}
		}
		got, err := isoCollect(ids, e.accts.Query(ctx, expression.Key("status").Equal(expression.Value(st)), mapper.Index(isoIndex)))
		if assert.NoError(t, err) {
			isoReportDiff(t, "Query(index, status = "+st+")", isoDiff(sub, got))
		}
		for _, how := range []string{"Scan", "Query"} {
			var seq func(yield func(*isoAccount, error) bool)
			if how == "Scan" {
				seq = e.accts.Scan(ctx, mapper.ConsistentRead(true), mapper.PageSize(3), mapper.Filter(isoIs(st)))
			} else {
				seq = func(yield func(*isoAccount, error) bool) {
					for _, bank := range []string{"b0", "b1"} {
						for a, err := range e.accts.Query(ctx, expression.Key("bank").Equal(expression.Value(bank)),
							mapper.ConsistentRead(true), mapper.PageSize(3), mapper.Filter(isoIs(st))) {
							if !yield(a, err) {
								return
							}
						}
					}
				}
			}
			got, err := isoCollect(ids, seq)
			if assert.NoError(t, err) {
				isoReportDiff(t, how+"+Filter(status = "+st+")", isoDiff(sub, got))
			}
		}
	}
}

// TestIsolationCommittedUnitWhoseOwnerDied: a unit that writes four
// accounts (two read with a lock and put, two updated blind), only reads
// two more (locks them) and checks another, dies just after its commit
// point. Commit returned nil; before anyone recovers it, every read shows
// its four accounts in their new state and the others unchanged.
func TestIsolationCommittedUnitWhoseOwnerDied(t *testing.T) {
	e := newIsoEnv(t, false)
	ctx := isoCtx(t, 2*time.Minute)
	ids := []string{"s00", "s01", "s02", "s03", "s04", "s05", "s06", "s07"}
	isoSeedAccounts(t, e, "open", ids...)

	cc := newIsoClient(e.c, e.coord)
	cc.crashAfterCommit = true
	u, err := unit.Begin(ctx, cc, unit.Coordinator(e.coord), unit.LeaseDuration(time.Minute))
	require.NoError(t, err)
	const stamp = "U"
	var ops []txn.Op
	for _, id := range []string{"s00", "s01", "s04", "s05"} { // in key order
		a, err := unit.Get(ctx, u, e.accts, isoKeyOf(id))
		require.NoError(t, err)
		if id == "s00" || id == "s01" {
			a.Balance += map[string]int64{"s00": 5, "s01": -5}[id]
			a.Stamp, a.Status, a.Hist = stamp, "closed", append(a.Hist, stamp)
			ops = append(ops, e.accts.PutOp(a))
		}
	}
	for id, d := range map[string]int64{"s02": 3, "s03": -3} {
		ops = append(ops, e.accts.UpdateOp(isoKeyOf(id), update.Add("balance", d).Append("hist", []string{stamp}).Set("stamp", stamp).Set("status", "closed")))
	}
	checked, err := e.accts.Get(ctx, isoKeyOf("s06"))
	require.NoError(t, err)
	ops = append(ops, e.accts.CheckOp(*checked))
	require.NoError(t, u.Add(ops...))
	require.NoError(t, u.Commit(ctx), "past the commit point, Commit reports success")
	_, acked, _, _ := cc.commitPoint()
	require.True(t, acked, "the commit point was acknowledged")
	require.True(t, cc.dead.Load(), "the unit died after its commit point")
	locks := isoLocks(t, e)
	t.Logf("locks left by the dead unit: %v", locks)
	require.NotEmpty(t, locks)

	want := map[string]*isoWant{
		"s00": {stamp, "closed", 105}, "s01": {stamp, "closed", 95}, "s02": {stamp, "closed", 103}, "s03": {stamp, "closed", 97},
		"s04": {"seed", "open", 100}, "s05": {"seed", "open", 100}, "s06": {"seed", "open", 100}, "s07": {"seed", "open", 100},
	}
	t.Run("before recovery", func(t *testing.T) { isoReadAll(t, ctx, e, ids, want) })

	n, err := unit.Recover(ctx, e.c, e.coord)
	require.NoError(t, err)
	assert.Equal(t, 1, n)
	assert.Empty(t, isoLocks(t, e))
	t.Run("after recovery", func(t *testing.T) { isoReadAll(t, ctx, e, ids, want) })
}

// isoPausingTxn pauses txn.Get after its first TransactGetItems (the
// snapshot) returned, until resume is closed: what the reader does after
// the snapshot then happens after whatever the test does meanwhile.
type isoPausingTxn struct {
	c              *dynamodb.Client
	n              atomic.Int32
	paused, resume chan struct{}
}

func (p *isoPausingTxn) TransactGetItems(ctx context.Context, in *dynamodb.TransactGetItemsInput, o ...func(*dynamodb.Options)) (*dynamodb.TransactGetItemsOutput, error) {
	out, err := p.c.TransactGetItems(ctx, in, o...)
	if p.n.Add(1) == 1 {
		close(p.paused)
		<-p.resume
	}
	return out, err
}

func (p *isoPausingTxn) TransactWriteItems(ctx context.Context, in *dynamodb.TransactWriteItemsInput, o ...func(*dynamodb.Options)) (*dynamodb.TransactWriteItemsOutput, error) {
	return p.c.TransactWriteItems(ctx, in, o...)
}

// TestIsolationSnapshotIsAStateTheDatabaseHeld is the (A1, X0) anomaly:
// A0, X0; a unit locks A and prepares A1, and is held just before its
// commit point; a txn.Get(A, X) takes its snapshot; a plain writer reads A
// (A0) and writes X1; the unit commits A1; then the txn.Get finishes. It
// may return (A0, X0) (the state at its snapshot), never (A1, X0): X1 was
// written before A1 was committed, so no state holds A1 without X1.
func TestIsolationSnapshotIsAStateTheDatabaseHeld(t *testing.T) {
	e := newIsoEnv(t, false)
	ctx := isoCtx(t, 2*time.Minute)
	isoSeedAccounts(t, e, "open", "A", "X")

	cc := newIsoClient(e.c, e.coord)
	cc.hold, cc.held = make(chan struct{}), make(chan struct{})
	u, err := unit.Begin(ctx, cc, unit.Coordinator(e.coord))
	require.NoError(t, err)
	a, err := unit.Get(ctx, u, e.accts, isoKeyOf("A"))
	require.NoError(t, err)
	a.Balance, a.Stamp, a.Hist = 101, "U", append(a.Hist, "U")
	require.NoError(t, u.Add(e.accts.PutOp(a)))
	committed := make(chan error, 1)
	go func() { committed <- u.Commit(ctx) }()
	<-cc.held // A is prepared; the commit point is not sent

	p := &isoPausingTxn{c: e.c, paused: make(chan struct{}), resume: make(chan struct{})}
	var gotA, gotX *isoAccount
	read := make(chan error, 1)
	go func() {
		read <- txn.Get(ctx, p, e.accts.GetOp(isoKeyOf("A"), &gotA), e.accts.GetOp(isoKeyOf("X"), &gotX))
	}()
	select {
	case <-p.paused: // the snapshot is taken
	case err := <-read:
		t.Fatalf("txn.Get returned before its snapshot was paused: %v", err)
	}

	// The plain writer: reads A (the unit has not committed: A0), writes X1.
	rctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	seenA, err := e.accts.Get(rctx, isoKeyOf("A"))
	cancel()
	if assert.NoError(t, err, "a plain Get of an item a unit has prepared") {
		assert.Equal(t, "seed", seenA.Stamp, "before the commit point, A is A0")
	}
	_, err = e.accts.Update(ctx, isoKeyOf("X"), update.Add("balance", 0).Append("hist", []string{"P"}).Set("stamp", "P"))
	require.NoError(t, err, "X is not locked: the plain write succeeds")

	close(cc.hold) // the unit commits A1
	require.NoError(t, <-committed)
	close(p.resume)
	require.NoError(t, <-read)
	require.NotNil(t, gotA)
	require.NotNil(t, gotX)
	t.Logf("txn.Get returned A: %s; X: %s", isoDescribe(gotA), isoDescribe(gotX))
	assert.False(t, gotA.Stamp == "U" && gotX.Stamp == "seed",
		"txn.Get returned (A1, X0), a state the database never held: X1 was written before A1 was committed")
	assert.True(t, (gotA.Stamp == "seed" && gotX.Stamp == "seed") || (gotA.Stamp == "U" && gotX.Stamp == "P") ||
		(gotA.Stamp == "seed" && gotX.Stamp == "P"), "a state the database held")
}

// TestIsolationIndexQueriesOfAHeldUnit: ten accounts go from open to
// closed in one unit (five read with a lock and put, five updated blind),
// held just before its commit point, then dead just after it. Queries of
// the global index on status (status = open, status = closed) and filtered
// reads never show an uncommitted state, never show an item in a state
// that does not match the key condition, and never leave out an item that
// matches. With an INCLUDE projection that leaves out the lock attribute,
// the index cannot tell a prepared item from a committed one.
func TestIsolationIndexQueriesOfAHeldUnit(t *testing.T) {
	for _, include := range []bool{false, true} {
		name := "ALL"
		if include {
			name = "INCLUDE"
		}
		t.Run(name, func(t *testing.T) {
			e := newIsoEnv(t, include)
			ctx := isoCtx(t, 2*time.Minute)
			var moved, open, closed []string
			for i := range 10 {
				moved = append(moved, fmt.Sprintf("c%02d", i))
			}
			for i := range 4 {
				open = append(open, fmt.Sprintf("o%02d", i))
				closed = append(closed, fmt.Sprintf("k%02d", i))
			}
			isoSeedAccounts(t, e, "open", append(slices.Clone(moved), open...)...)
			isoSeedAccounts(t, e, "closed", closed...)
			ids := slices.Concat(moved, open, closed)
			want := map[string]*isoWant{}
			for _, id := range ids {
				st := "open"
				if strings.HasPrefix(id, "k") {
					st = "closed"
				}
				want[id] = &isoWant{"seed", st, 100}
			}

			cc := newIsoClient(e.c, e.coord)
			cc.hold, cc.held = make(chan struct{}), make(chan struct{})
			cc.crashAfterCommit = true
			u, err := unit.Begin(ctx, cc, unit.Coordinator(e.coord), unit.LeaseDuration(time.Minute))
			require.NoError(t, err)
			var ops []txn.Op
			for i, id := range moved {
				if i < 5 {
					a, err := unit.Get(ctx, u, e.accts, isoKeyOf(id))
					require.NoError(t, err)
					a.Stamp, a.Status, a.Hist = "U", "closed", append(a.Hist, "U")
					ops = append(ops, e.accts.PutOp(a))
				} else {
					ops = append(ops, e.accts.UpdateOp(isoKeyOf(id), update.Append("hist", []string{"U"}).Set("stamp", "U").Set("status", "closed")))
				}
			}
			require.NoError(t, u.Add(ops...))
			committed := make(chan error, 1)
			go func() { committed <- u.Commit(ctx) }()
			<-cc.held

			t.Run("held before the commit point", func(t *testing.T) {
				rctx, cancel := context.WithTimeout(ctx, 20*time.Second)
				defer cancel()
				isoReadAll(t, rctx, e, ids, want)
			})
			close(cc.hold)
			require.NoError(t, <-committed)
			require.NotEmpty(t, isoLocks(t, e), "the unit died after its commit point, its items still locked")
			for _, id := range moved {
				want[id] = &isoWant{"U", "closed", 100}
			}
			t.Run("dead after the commit point", func(t *testing.T) { isoReadAll(t, ctx, e, ids, want) })
			_, err = unit.Recover(ctx, e.c, e.coord)
			require.NoError(t, err)
			require.Empty(t, isoLocks(t, e))
			t.Run("recovered", func(t *testing.T) { isoReadAll(t, ctx, e, ids, want) })
		})
	}
}

// TestIsolationRawTxnOpsOnAPreparedItem: while a unit holds A and B
// prepared (just before its commit point), a raw txn.Put of A and a raw
// txn.Delete of B (attribute maps, no version) are refused with ErrLocked;
// the unit then commits both, and nothing of the raw writes shows.
func TestIsolationRawTxnOpsOnAPreparedItem(t *testing.T) {
	e := newIsoEnv(t, false)
	ctx := isoCtx(t, 2*time.Minute)
	isoSeedAccounts(t, e, "open", "A", "B", "C")

	cc := newIsoClient(e.c, e.coord)
	cc.hold, cc.held = make(chan struct{}), make(chan struct{})
	u, err := unit.Begin(ctx, cc, unit.Coordinator(e.coord))
	require.NoError(t, err)
	for id, d := range map[string]int64{"A": 7, "B": -7} {
		a, err := unit.Get(ctx, u, e.accts, isoKeyOf(id))
		require.NoError(t, err)
		a.Balance += d
		a.Stamp, a.Hist = "U", append(a.Hist, "U")
		require.NoError(t, u.Add(e.accts.PutOp(a)))
	}
	committed := make(chan error, 1)
	go func() { committed <- u.Commit(ctx) }()
	<-cc.held

	rawItem := func(id string) (map[string]types.AttributeValue, map[string]types.AttributeValue) {
		key, err := e.accts.Key(isoKeyOf(id))
		require.NoError(t, err)
		item := map[string]types.AttributeValue{
			"bank": key["bank"], "id": key["id"],
			"balance": &types.AttributeValueMemberN{Value: "0"}, "stamp": &types.AttributeValueMemberS{Value: "raw"},
			"status": &types.AttributeValueMemberS{Value: "open"}, "hist": &types.AttributeValueMemberL{Value: []types.AttributeValue{&types.AttributeValueMemberS{Value: "raw"}}},
			"v": &types.AttributeValueMemberN{Value: "1"},
		}
		return key, item
	}
	keyA, itemA := rawItem("A")
	keyB, _ := rawItem("B")
	keyC, itemC := rawItem("C")
	tx := txn.New(e.c)
	require.NoError(t, tx.Add(txn.Put(e.accts.Name(), keyA, itemA)))
	assert.ErrorIs(t, tx.Commit(ctx), unit.ErrLocked, "a raw txn.Put of a prepared item")
	tx = txn.New(e.c)
	require.NoError(t, tx.Add(txn.Delete(e.accts.Name(), keyB)))
	assert.ErrorIs(t, tx.Commit(ctx), unit.ErrLocked, "a raw txn.Delete of a prepared item")
	// The control: the same raw Put of an item no unit holds succeeds.
	tx = txn.New(e.c)
	require.NoError(t, tx.Add(txn.Put(e.accts.Name(), keyC, itemC)))
	require.NoError(t, tx.Commit(ctx), "a raw txn.Put of an item no unit holds")

	close(cc.hold)
	require.NoError(t, <-committed)
	assert.Empty(t, isoLocks(t, e))
	want := map[string]*isoWant{"A": {"U", "open", 107}, "B": {"U", "open", 93}, "C": {"raw", "open", 0}}
	for _, r := range isoReaders {
		got, err := r.read(ctx, e, []string{"A", "B", "C"})
		require.NoError(t, err, r.name)
		isoReportDiff(t, r.name, isoDiff(want, got))
	}
}

// TestIsolationPlaceholderIsMissing: a unit locks a key with no item (a
// placeholder holds the lock). Every read takes it for no item: GetAll
// reports it in a *MissingError (never a nil item without an error), Get
// returns ErrNotFound, txn.Get nil, Query and Scan leave it out.
func TestIsolationPlaceholderIsMissing(t *testing.T) {
	e := newIsoEnv(t, false)
	ctx := isoCtx(t, 2*time.Minute)
	isoSeedAccounts(t, e, "open", "A")
	u, err := unit.Begin(ctx, e.c, unit.Coordinator(e.coord))
	require.NoError(t, err)
	_, err = unit.Get(ctx, u, e.accts, isoKeyOf("M"))
	require.ErrorIs(t, err, mapper.ErrNotFound)
	require.Equal(t, []string{"M"}, isoLocks(t, e), "the placeholder holds the lock")

	got, err := e.accts.GetAll(ctx, []isoAccount{isoKeyOf("A"), isoKeyOf("M")})
	var me *mapper.MissingError
	if assert.ErrorAs(t, err, &me, "GetAll of a placeholder reports it missing") {
		assert.Equal(t, []int{1}, me.Keys)
	}
	assert.ErrorIs(t, err, mapper.ErrNotFound)
	if assert.Len(t, got, 2) {
		assert.NotNil(t, got[0])
		assert.Nil(t, got[1])
	}
	want := map[string]*isoWant{"A": {"seed", "open", 100}, "M": nil}
	for _, r := range isoReaders {
		got, err := r.read(ctx, e, []string{"A", "M"})
		if assert.NoError(t, err, r.name) {
			isoReportDiff(t, r.name, isoDiff(want, got))
		}
	}
	require.NoError(t, u.Rollback(ctx))
	assert.Empty(t, isoLocks(t, e))
}
