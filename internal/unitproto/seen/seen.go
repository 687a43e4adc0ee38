// Package seen holds what a judge of units of work remembers across its
// judgements: since when each unit's record was seen with its heartbeat
// counter unchanged, and how often the counter was seen to change. The
// rule that reads it (dead after a full lease unchanged, alive after two
// changes) is unitproto's; this package only keeps the sightings, so that
// a value lower than unitproto (a table's write constants, in package
// plan) can carry a memory.
//
// A Memory belongs to the value that holds it (a mapper.Table, a unit, a
// call of Recover): there is no memory of the process, so two worlds in
// one process (two engines whose units may even share ids) never see each
// other's sightings.
package seen

import (
	"sync"
	"time"
)

// Memory is a judge's sightings of units' records, by a key of the
// judge's choosing (a unit's coordinator table and id). The zero Memory is
// ready; it is safe for concurrent use. Time is the judge's own clock
// (time.Now): no clocks of different machines are compared.
type Memory struct {
	mu   sync.Mutex
	seen map[string]sighting
}

type sighting struct {
	beat        string
	since, last time.Time
	lease       time.Duration
	changes     int // how many times the counter was seen to change
}

// pruneAt is the size from which a Memory drops, before it records a new
// unit, the sightings that no judgement renewed for two leases: their
// judge stopped watching them (a judge that watches a unit sees it at
// least once a lease, or it could not find it dead).
const pruneAt = 1024

// Watch records a sighting of unit key's record with counter beat (lease:
// the unit's lease). It returns for how long the counter has been seen
// unchanged (0 on a first sighting or a change), whether this is the
// first sighting of this value of the counter, and how many times the
// counter was seen to change. A nil Memory remembers nothing: every
// sighting is a first.
func (m *Memory) Watch(key, beat string, lease time.Duration) (unchanged time.Duration, fresh bool, changes int) {
	if m == nil {
		return 0, true, 0
	}
	now := time.Now()
	m.mu.Lock()
	defer m.mu.Unlock()
	o, ok := m.seen[key]
	if !ok && len(m.seen) >= pruneAt {
		for k, o := range m.seen {
			if now.Sub(o.last) > 2*o.lease {
				delete(m.seen, k)
			}
		}
	}
	if m.seen == nil {
		m.seen = map[string]sighting{}
	}
	if !ok || o.beat != beat {
		n := 0
		if ok {
			n = o.changes + 1
		}
		m.seen[key] = sighting{beat: beat, since: now, last: now, lease: lease, changes: n}
		return 0, true, n
	}
	o.last, o.lease = now, lease
	m.seen[key] = o
	return now.Sub(o.since), false, o.changes
}

// Forget drops what m saw of unit key.
func (m *Memory) Forget(key string) {
	if m == nil {
		return
	}
	m.mu.Lock()
	delete(m.seen, key)
	m.mu.Unlock()
}
