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
// watched on this process's clock across calls, is dead, and is marked
// aborted (conditional on the counter watched, so a unit that beat in the
// meantime is never touched) and rolled back. A unit that beat in the
// meantime, or is not seen dead yet, waits. Cost: nothing, or for a dead
// unit one UpdateItem of its record.
func (co Coordinator) Judge(ctx context.Context, id string, rec Record) (Verdict, error) {
	v := Fate(rec)
	if v.Action != Wait || !watch(co.Table, id, rec.Beat, rec.Lease) {
		return v, nil
	}
	st, err := co.SetState(ctx, id, StateAborted, rec.Beat)
	if err != nil {
		return v, fmt.Errorf("unit: aborting dead unit %s: %w", id, err)
	}
	forget(co.Table, id)
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

// memory keeps, across calls in this process, since when each unit's
// record was seen with its heartbeat counter unchanged: a unit is dead
// once that lasted a full lease by the observer's own clock (time.Now).
// No clocks of different machines are compared.
var memory struct {
	sync.Mutex
	seen map[string]observed
}

func init() {
	procmem.Register(func() {
		memory.Lock()
		memory.seen = nil
		memory.Unlock()
	})
}

type observed struct {
	beat  string
	since time.Time
}

const memoryCap = 1 << 14

// watch records a sighting of unit id's record with counter beat and
// reports whether the counter has stayed so for a full lease or longer.
func watch(coord, id, beat string, d time.Duration) bool {
	k := StateKey(coord, id)
	now := time.Now()
	memory.Lock()
	defer memory.Unlock()
	if memory.seen == nil || len(memory.seen) >= memoryCap {
		memory.seen = map[string]observed{}
	}
	o, ok := memory.seen[k]
	if !ok || o.beat != beat {
		memory.seen[k] = observed{beat: beat, since: now}
		return false
	}
	return now.Sub(o.since) >= d
}

// forget drops what watch saw of unit id.
func forget(coord, id string) {
	memory.Lock()
	delete(memory.seen, StateKey(coord, id))
	memory.Unlock()
}

// fateOf is [Fate] of a state a [StateReader] returned ("" for no
// record): how readers judge the units whose locks they see.
func fateOf(state string) Action {
	return Fate(Record{Found: state != "", State: state}).Action
}
