package unitproto

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/optimist-dynamo/optimist/internal/procmem"
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
// watched on this process's clock across calls (the Coordinator's
// [Memory]), is dead, and is marked
// aborted (conditional on the counter watched, so a unit that beat in the
// meantime is never touched) and rolled back. A unit that beat in the
// meantime, or is not seen dead yet, waits. Cost: nothing, or for a dead
// unit one UpdateItem of its record.
func (co Coordinator) Judge(ctx context.Context, id string, rec Record) (Verdict, error) {
	v := Fate(rec)
	if v.Action != Wait {
		return v, nil
	}
	dead, changes := co.mem.watch(co.Table, id, rec.Beat, rec.Lease)
	if v.Changes = changes; !dead {
		return v, nil
	}
	st, err := co.SetState(ctx, id, StateAborted, rec.Beat)
	if err != nil {
		return v, fmt.Errorf("unit: aborting dead unit %s: %w", id, err)
	}
	co.mem.forget(co.Table, id)
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

// Memory is what a judge of units remembers across its judgements: since
// when each unit's record was seen with its heartbeat counter unchanged. A
// unit is dead once that lasted a full lease by the judge's own clock
// (time.Now); no clocks of different machines are compared. A Memory
// given to a Coordinator ([Coordinator.Remembering]) belongs to its
// caller: two worlds in one process (two engines whose units may even
// share ids) that judge with memories of their own never see each other's
// sightings. The zero Memory is ready; it is safe for concurrent use.
//
// Every party of the library (units meeting a lock, Recover, plain
// writers in [Settle]) still judges with processMemory, so that what one
// party watched counts for the next (a unit found dead by a unit that
// meets its lock after another waited a lease on it).
type Memory struct {
	mu   sync.Mutex
	seen map[string]observed
}

func init() {
	procmem.Register(func() {
		processMemory.mu.Lock()
		processMemory.seen = nil
		processMemory.mu.Unlock()
	})
}

type observed struct {
	beat        string
	since, last time.Time
	lease       time.Duration
	changes     int // how many times the counter was seen to change
}

// processMemory is the Memory of the Coordinators made by NewCoordinator.
var processMemory Memory

// pruneAt is the size from which a Memory drops, before it records a new
// unit, the sightings that no judgement renewed for two leases: their
// judge stopped watching them (a judge that watches a unit sees it at
// least once a lease, or it could not find it dead).
const pruneAt = 1024

// watch records a sighting of unit id's record with counter beat and
// reports whether the counter has stayed so for a full lease d or longer,
// and how many times it was seen to change.
func (m *Memory) watch(coord, id, beat string, d time.Duration) (dead bool, changes int) {
	k := StateKey(coord, id)
	now := time.Now()
	m.mu.Lock()
	defer m.mu.Unlock()
	o, ok := m.seen[k]
	if !ok && len(m.seen) >= pruneAt {
		for k, o := range m.seen {
			if now.Sub(o.last) > 2*o.lease {
				delete(m.seen, k)
			}
		}
	}
	if m.seen == nil {
		m.seen = map[string]observed{}
	}
	if !ok || o.beat != beat {
		n := 0
		if ok {
			n = o.changes + 1
		}
		m.seen[k] = observed{beat: beat, since: now, last: now, lease: d, changes: n}
		return false, n
	}
	o.last, o.lease = now, d
	m.seen[k] = o
	return now.Sub(o.since) >= d, o.changes
}

// forget drops what m saw of unit id.
func (m *Memory) forget(coord, id string) {
	m.mu.Lock()
	delete(m.seen, StateKey(coord, id))
	m.mu.Unlock()
}

// fateOf is [Fate] of a state a [StateReader] returned ("" for no
// record): how readers judge the units whose locks they see.
func fateOf(state string) Action {
	return Fate(Record{Found: state != "", State: state}).Action
}
