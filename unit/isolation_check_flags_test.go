package unit_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// Hand-written histories for the isolation checker: a correct one it must
// pass, and each kind of violation it must flag.

// isoToy is a small history: accounts A, B and X (100 each, status open)
// seeded before anything else; unit U1 moves 10 from B to A and closes A,
// its commit point sent at 15, Commit returning at 20. V is an account
// that unit U5 renames to W (deletes V, creates W) between 40 and 45.
func isoToy() *isoHistory {
	seed := &isoWriter{ID: "seed", Plain: true, Effects: map[string]isoEffect{
		"A": {Status: "open", Set: true, Balance: 100},
		"B": {Status: "open", Set: true, Balance: 100},
		"X": {Status: "open", Set: true, Balance: 100},
		"V": {Status: "open", Set: true, Balance: 100},
	}, MustCommit: true, Note: "seed"}
	u1 := &isoWriter{ID: "U1", Start: 15, End: 20, MustCommit: true, Note: "U1", Effects: map[string]isoEffect{
		"A": {Status: "closed", Delta: 10},
		"B": {Status: "open", Delta: -10},
	}}
	u5 := &isoWriter{ID: "U5", Start: 40, End: 45, MustCommit: true, Note: "U5", Effects: map[string]isoEffect{
		"V": {Delete: true},
		"W": {Status: "open", Set: true, Balance: 100},
	}}
	return &isoHistory{
		Writers: map[string]*isoWriter{"seed": seed, "U1": u1, "U5": u5},
		Final: map[string][]string{
			"A": {"seed", "U1"}, "B": {"seed", "U1"}, "X": {"seed"},
			"V": {"seed", "U5"}, "W": {"U5"},
		},
		Slot:   map[string]string{"V": "v", "W": "v"},
		Stable: []string{"A", "B", "X"},
		Total:  400,
	}
}

// see is an observation of key in the state after the writes hist.
func toySee(key string, balance int64, status string, hist ...string) isoObs {
	return isoObs{Key: key, Present: true, Rank: len(hist), HistHash: isoHash(hist), Stamp: hist[len(hist)-1],
		Balance: balance, Status: status, Version: int64(len(hist))}
}

func toyNone(key string) isoObs { return isoObs{Key: key} }

var (
	toyA0 = toySee("A", 100, "open", "seed")
	toyA1 = toySee("A", 110, "closed", "seed", "U1")
	toyB0 = toySee("B", 100, "open", "seed")
	toyB1 = toySee("B", 90, "open", "seed", "U1")
	toyX0 = toySee("X", 100, "open", "seed")
	toyV0 = toySee("V", 100, "open", "seed")
	toyW1 = toySee("W", 100, "open", "U5")
)

func toyRead(kind string, start, end int64, obs ...isoObs) *isoRead {
	return &isoRead{Kind: kind, Start: start, End: end, Obs: obs}
}

func toySnapshot(start, end int64, obs ...isoObs) *isoRead {
	r := toyRead("txn.Get", start, end, obs...)
	r.Snapshot = true
	return r
}

func toyCheck(t *testing.T, reads ...*isoRead) *isoReport {
	t.Helper()
	h := isoToy()
	h.Reads = reads
	rep := isoCheck(h)
	t.Log(rep)
	return rep
}

func TestIsoCheckerPassesALinearizableHistory(t *testing.T) {
	all0 := toySnapshot(1, 2, toyA0, toyB0, toyX0, toyV0, toyNone("W"))
	all0.AllAccounts = true
	all1 := toySnapshot(21, 30, toyA1, toyB1, toyX0, toyV0, toyNone("W"))
	all1.AllAccounts = true
	all2 := toySnapshot(50, 52, toyA1, toyB1, toyX0, toyNone("V"), toyW1)
	all2.AllAccounts = true
	closed := toyRead("Query index", 25, 26, toyA1)
	closed.Pred, closed.Neg = "closed", []string{"B", "X"}
	open := toyRead("Query index", 12, 18, toyA0, toyB1, toyX0) // A, B read at different times
	open.Pred = "open"
	rep := toyCheck(t,
		all0, all1, all2, closed, open,
		toySnapshot(11, 19, toyA0, toyB0), // concurrent with U1's commit: before it
		toySnapshot(11, 19, toyA1, toyB1), // or after it
		toyRead("Get", 11, 19, toyB1),     // concurrent
		toyRead("Get", 16, 17, toyA1),     // concurrent, after the commit point was sent
		toyRead("Get", 18, 19, toyB1),     // after a read saw U1: sees it too
		toyRead("Get", 25, 26, toyA1),     // after Commit returned
		toyRead("GetAll", 1, 60, toyA0),   // long read
		toyRead("Get", 41, 44, toyV0),     // concurrent with the rename
		toyRead("Get", 43, 44, toyW1),     // concurrent with the rename
		toyRead("Get", 46, 47, toyNone("V")),
		toyRead("Get", 3, 4, toyNone("W")),
	)
	assert.Zero(t, rep.total(), rep.String())
}

func TestIsoCheckerFlagsBackInTime(t *testing.T) {
	rep := toyCheck(t, toyRead("Get", 21, 22, toyA1), toyRead("Get", 23, 24, toyA0))
	assert.Equal(t, 1, rep.counts["back-in-time"], rep.String())

	// Concurrent with the commit, but the second began after the first ended.
	rep = toyCheck(t, toyRead("Get", 16, 17, toyA1), toyRead("Get", 18, 19, toyA0))
	assert.Equal(t, 1, rep.counts["back-in-time"], rep.String())

	// A deleted item that comes back.
	rep = toyCheck(t, toyRead("Get", 46, 47, toyNone("V")), toyRead("Get", 48, 49, toyV0))
	assert.Equal(t, 1, rep.counts["back-in-time"], rep.String())
}

func TestIsoCheckerFlagsAPartialUnitAcrossReads(t *testing.T) {
	rep := toyCheck(t, toyRead("Get", 16, 17, toyA1), toyRead("Get", 18, 19, toyB0))
	assert.Equal(t, 1, rep.counts["partial-unit"], rep.String())

	// The rename: W seen created, then V still there.
	rep = toyCheck(t, toyRead("Get", 42, 43, toyW1), toyRead("Get", 44, 44, toyV0))
	assert.Equal(t, 1, rep.counts["partial-unit"], rep.String())
}

func TestIsoCheckerFlagsAStaleReadAfterCommit(t *testing.T) {
	rep := toyCheck(t, toyRead("Query", 25, 26, toyA0))
	assert.Equal(t, 1, rep.counts["stale-after-commit"], rep.String())
	rep = toyCheck(t, toyRead("Scan", 50, 51, toyV0))
	assert.Equal(t, 1, rep.counts["stale-after-commit"], rep.String())
}

func TestIsoCheckerFlagsAMixedSnapshot(t *testing.T) {
	rep := toyCheck(t, toySnapshot(12, 18, toyA1, toyB0))
	assert.Equal(t, 1, rep.counts["mixed-snapshot"], rep.String())

	// Half a rename: V deleted and W not created.
	rep = toyCheck(t, toySnapshot(41, 44, toyNone("V"), toyNone("W")))
	assert.Equal(t, 1, rep.counts["mixed-snapshot"], rep.String())
	// Both there.
	rep = toyCheck(t, toySnapshot(41, 44, toyV0, toyW1))
	assert.Equal(t, 1, rep.counts["mixed-snapshot"], rep.String())

	// Every account, the total off.
	all := toySnapshot(21, 30, toyA1, toyB0, toyX0, toyV0)
	all.AllAccounts = true
	rep = toyCheck(t, all)
	assert.Equal(t, 1, rep.counts["snapshot-total"], rep.String())
}

// The (A1, X0) snapshot: a plain write of X finished before U1's commit
// point was sent, so no state holds U1 without it.
func TestIsoCheckerFlagsAnImpossibleSnapshot(t *testing.T) {
	h := isoToy()
	h.Writers["P"] = &isoWriter{ID: "P", Plain: true, Start: 11, End: 12, MustCommit: true, Note: "plain write",
		Effects: map[string]isoEffect{"X": {Status: "closed"}}}
	h.Final["X"] = []string{"seed", "P"}
	h.Reads = []*isoRead{toySnapshot(10, 16, toyA1, toyX0)}
	rep := isoCheck(h)
	t.Log(rep)
	assert.Equal(t, 1, rep.counts["impossible-snapshot"], rep.String())
	assert.Equal(t, 1, rep.total(), rep.String())

	h.Reads = []*isoRead{toySnapshot(10, 16, toyA1, toySee("X", 100, "closed", "seed", "P")), toySnapshot(10, 16, toyA0, toyX0)}
	rep = isoCheck(h)
	assert.Zero(t, rep.total(), rep.String())
}

func TestIsoCheckerFlagsUncommittedAndNeverHeldStates(t *testing.T) {
	h := isoToy()
	h.Writers["U2"] = &isoWriter{ID: "U2", Start: 30, End: isoNever, MustNotCommit: true, Note: "rolled back",
		Effects: map[string]isoEffect{"A": {Status: "open", Delta: 5}}}
	h.Reads = []*isoRead{
		toyRead("Scan", 31, 32, toySee("A", 115, "open", "seed", "U1", "U2")),
		toyRead("Get", 31, 32, toySee("B", 95, "open", "seed", "U1")), // content that never was
	}
	rep := isoCheck(h)
	t.Log(rep)
	assert.Equal(t, 1, rep.counts["uncommitted-seen"], rep.String())
	assert.Equal(t, 1, rep.counts["never-held"], rep.String())
}

func TestIsoCheckerFlagsADirtyRead(t *testing.T) {
	rep := toyCheck(t, toyRead("Get", 12, 13, toyA1))
	assert.Equal(t, 1, rep.counts["dirty-read"], rep.String())
}

func TestIsoCheckerFlagsFilteredReads(t *testing.T) {
	closed := toyRead("Query index", 25, 26, toyA1, toySee("B", 90, "open", "seed", "U1"))
	closed.Pred = "closed"
	open := toyRead("Query index", 25, 26, toyX0)
	open.Pred, open.Neg = "open", []string{"A", "B"} // B is open in every state
	rep := toyCheck(t, closed, open)
	assert.Equal(t, 1, rep.counts["filter-mismatch"], rep.String())
	assert.Equal(t, 1, rep.counts["missing-from-filtered-read"], rep.String())
}

func TestIsoCheckerFlagsOutcomes(t *testing.T) {
	h := isoToy()
	h.Writers["U3"] = &isoWriter{ID: "U3", Start: 50, End: 55, MustCommit: true, Note: "Commit returned nil",
		Effects: map[string]isoEffect{"X": {Status: "open", Delta: 1}}}
	h.Writers["U4"] = &isoWriter{ID: "U4", Start: 50, End: isoNever, Note: "crashed",
		Effects: map[string]isoEffect{"A": {Status: "open", Delta: 1}, "B": {Status: "open", Delta: -1}}}
	h.Writers["U6"] = &isoWriter{ID: "U6", Start: 50, End: isoNever, MustNotCommit: true, Note: "rolled back",
		Effects: map[string]isoEffect{"X": {Status: "open", Delta: 1}}}
	h.Final["A"] = []string{"seed", "U1", "U4"}
	h.Final["X"] = []string{"seed", "U6"}
	rep := isoCheck(h)
	t.Log(rep)
	assert.Equal(t, 1, rep.counts["lost-commit"], rep.String())
	assert.Equal(t, 1, rep.counts["partial-final"], rep.String())
	assert.Equal(t, 1, rep.counts["uncommitted-applied"], rep.String())
}
