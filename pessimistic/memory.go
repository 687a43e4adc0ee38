package pessimistic

import (
	"sync"
	"time"
)

// memory keeps what a Locker's calls observed of holders, across calls, so
// that callers who try often but wait briefly (Wait(0) in a loop, a cron
// job) still take over an abandoned lock once its record stayed the same
// for a lease: each call alone would give up before watching that long. An
// observation is kept only with the clock it was made on.
type memory struct {
	mu     sync.Mutex
	locks  map[string]observed            // lock name → its holder's record version
	queues map[string]map[string]observed // lock name → queue row → its record version
}

// memoryCap bounds what a Locker remembers; past it, the memory of a lock
// is dropped (which only delays a takeover).
const memoryCap = 4096

// observed is when a waiter first saw a record with its record version.
type observed struct {
	rvn   string
	since time.Time
	lease time.Duration
	clock TimeSource
	head  bool // a queue row that was the first live row of the last read
}

// recall returns the observation of the lock's record made with clock.
func (m *memory) recall(name string, clock TimeSource) (observed, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	obs, ok := m.locks[name]
	return obs, ok && obs.clock == clock
}

// remember keeps an observation of the lock's record; forget drops it.
func (m *memory) remember(name string, obs observed) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.locks == nil || len(m.locks) >= memoryCap {
		m.locks = map[string]observed{}
	}
	if old, ok := m.locks[name]; !ok || old.rvn != obs.rvn || old.clock != obs.clock || obs.since.Before(old.since) {
		m.locks[name] = obs
	}
}

func (m *memory) forget(name string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.locks, name)
}

// recallQueue returns a copy of the observations of the lock's queue rows
// made with clock.
func (m *memory) recallQueue(name string, clock TimeSource) map[string]*observed {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := map[string]*observed{}
	for sk, obs := range m.queues[name] {
		if obs.clock == clock {
			out[sk] = &obs
		}
	}
	return out
}

// rememberQueue keeps a call's view of the queue rows: the rows it knows
// of, each with the earliest sighting of its record version.
func (m *memory) rememberQueue(name string, seen map[string]*observed) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.queues == nil || len(m.queues) >= memoryCap {
		m.queues = map[string]map[string]observed{}
	}
	old := m.queues[name]
	rows := make(map[string]observed, len(seen))
	for sk, obs := range seen {
		rows[sk] = *obs
		if prev, ok := old[sk]; ok && prev.rvn == obs.rvn && prev.clock == obs.clock && prev.since.Before(obs.since) {
			rows[sk] = prev
		}
	}
	if len(rows) == 0 {
		delete(m.queues, name)
		return
	}
	m.queues[name] = rows
}
