package unitproto

import (
	"context"
	"fmt"

	"github.com/optimist-dynamo/optimist/internal/unitproto/seen"
)

// Action is what to do about the locks of a unit, as its record says.
type Action int

const (
	// Wait: the unit is alive (active, and not seen dead): its locks stay.
	Wait Action = iota
	// Forward: the unit committed: its items are rolled forward.
	Forward
	// Back: the unit aborted, died (and was marked aborted here), or has
	// no record: its items are rolled back.
	Back
)

// Verdict is the judgement of a unit's state: what to do about its
// locks, and the record it was judged by.
type Verdict struct {
	Action Action
	Rec    Record // as judged: an abort made here shows in its State
	// Over is true when nothing is left of the unit to finish as a whole:
	// its record is finished, or gone. A lock of it met on an item is
	// still rolled forward or back, as Action says.
	Over bool
	// Revived is true when the unit was seen dead but beat before it could
	// be aborted: alive after all (Action is Wait).
	Revived bool
	// Changes is how many times the judge's memory saw the unit's counter
	// change (see [Verdict.AliveSince]).
	Changes int
}

// Settled reports that the unit's locks are to be rolled forward or back
// (not waited for): what [Settle] did to the item it met.
func (v Verdict) Settled() bool { return v.Action != Wait }

// Committed reports that the unit committed: its items roll forward.
func (v Verdict) Committed() bool { return v.Action == Forward }

// AliveSince is the liveness rule of a party that watches a unit (Wait)
// from the verdict first: its owner is alive once its counter was seen to
// change twice since. Once is not enough: a heartbeat sent before its
// owner died may land late.
func (v Verdict) AliveSince(first Verdict) bool {
	return v.Action == Wait && v.Changes-first.Changes >= 2
}

// Fate judges a record as read, without watching it or writing: committed
// rolls forward; aborted or missing rolls back; active waits. A reader,
// which never aborts a unit, needs no more; [Coordinator.Judge] adds the
// watch that finds a dead unit.
func Fate(rec Record) Verdict {
	v := Verdict{Rec: rec, Over: !rec.Found || rec.Done}
	switch {
	case !rec.Found:
		v.Action = Back
	case rec.State == StateCommitted:
		v.Action = Forward
	case rec.State == StateActive:
		v.Action = Wait
	default:
		v.Action = Back
	}
	return v
}

// Judge is the one judgement of a unit's state that every party makes
// (plain writers in [Settle], units meeting another's lock, and Recover):
// [Fate] of the record rec (as just read), and for an active unit the
// watch: a unit whose heartbeat counter stayed the same for a full lease,
// watched on the judge's clock across calls (the Coordinator's [Memory];
// without one, never), is dead, and is marked
// aborted (conditional on the counter watched, so a unit that beat in the
// meantime is never touched) and rolled back. A unit that beat in the
// meantime, or is not seen dead yet, waits. Cost: nothing, or for a dead
// unit one UpdateItem of its record.
func (co Coordinator) Judge(ctx context.Context, id string, rec Record) (Verdict, error) {
	v := Fate(rec)
	if v.Action != Wait {
		return v, nil
	}
	unchanged, fresh, changes := co.mem.Watch(StateKey(co.Table, id), rec.Beat, rec.Lease)
	if v.Changes = changes; fresh || unchanged < rec.Lease {
		return v, nil
	}
	st, err := co.SetState(ctx, id, StateAborted, rec.Beat)
	if err != nil {
		return v, fmt.Errorf("unit: aborting dead unit %s: %w", id, err)
	}
	co.mem.Forget(StateKey(co.Table, id))
	rec.State, rec.Found = st, st != ""
	v = Fate(rec)
	v.Revived = v.Action == Wait
	return v, nil
}

// JudgeUnit reads the record of unit id (one consistent GetItem) and
// judges it (see [Coordinator.Judge]).
func (co Coordinator) JudgeUnit(ctx context.Context, id string) (Verdict, error) {
	rec, err := co.Read(ctx, id)
	if err != nil {
		return Verdict{}, err
	}
	return co.Judge(ctx, id, rec)
}

// Memory is what a judge of units remembers across its judgements (see
// package seen): since when each unit's record was seen with its heartbeat
// counter unchanged. A unit is dead once that lasted a full lease by the
// judge's own clock. A Memory belongs to the value that holds it: each
// mapper.Table keeps one for the units whose locks its writes meet (in its
// write constants, [plan.Table].Units), and so do a unit (for the tables
// of raw ops) and a call of Recover; there is no memory of the process.
type Memory = seen.Memory

// StateReader reads the state of units' records: ids maps a coordinator
// table to the unit ids wanted in it; the answer maps StateKey(table, id)
// to the state ("" for a missing record).
type StateReader func(ctx context.Context, ids map[string][]string) (map[string]string, error)

// StateKey is the key of a unit's state in a StateReader's answer.
func StateKey(table, id string) string { return table + "\x00" + id }

// fateOf is [Fate] of a state a [StateReader] returned ("" for no
// record): how readers judge the units whose locks they see.
func fateOf(state string) Action {
	return Fate(Record{Found: state != "", State: state}).Action
}
