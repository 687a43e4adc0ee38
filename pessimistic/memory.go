package pessimistic

import (
	"sync"
	"time"
)

// memory keeps what a Locker's calls observed of holders, across calls, so
// that callers who try often but wait briefly (Wait(0) in a loop, a cron
// job) still take over an abandoned lock once its record stayed the same
// for a lease: each call alone would give up before watching that long.
type memory struct {
	mu     sync.Mutex
	locks  map[string]observed   // lock name → its holder's record version
	queues map[string]*fifoQueue // lock name → what its FIFO queue looked like
}

// memoryCap bounds what a Locker remembers; past it, the memory of a lock
// is dropped (which only delays a takeover).
const memoryCap = 4096

// observed is when a waiter first saw a record with its record version.
type observed struct {
	rvn   string
	since time.Time
	lease time.Duration
}

// recall returns the observation of the lock's record.
func (m *memory) recall(name string) (observed, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	obs, ok := m.locks[name]
	return obs, ok
}

// remember keeps an observation of the lock's record; forget drops it.
func (m *memory) remember(name string, obs observed) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.locks == nil || len(m.locks) >= memoryCap {
		m.locks = map[string]observed{}
	}
	if old, ok := m.locks[name]; !ok || old.rvn != obs.rvn || obs.since.Before(old.since) {
		m.locks[name] = obs
	}
}

func (m *memory) forget(name string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.locks, name)
}

// queue returns the Locker's view of the FIFO queue of the lock called
// name, for one more user; done gives it back.
func (m *memory) queue(name string) *fifoQueue {
	m.mu.Lock()
	defer m.mu.Unlock()
	q := m.queues[name]
	if q == nil {
		if m.queues == nil {
			m.queues = map[string]*fifoQueue{}
		}
		if len(m.queues) >= memoryCap {
			for n, old := range m.queues {
				if old.users == 0 {
					delete(m.queues, n)
				}
			}
		}
		q = newFIFOQueue()
		m.queues[name] = q
	}
	q.users++
	return q
}

func (m *memory) done(q *fifoQueue) {
	m.mu.Lock()
	q.users--
	m.mu.Unlock()
}
