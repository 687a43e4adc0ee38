// Package syncx has a mutex for locks held across a call to DynamoDB.
//
// A goroutine waiting for a sync.Mutex is not durably blocked in a
// testing/synctest bubble, so a bubble whose goroutines wait for a lock
// that another holds across a request cannot tell that they are all
// blocked: synctest.Wait does not return, and dynamolocal's simulation
// runner, which serves a request only once everything else is blocked,
// would never serve the one the holder waits for. A channel operation is
// durably blocking; [Mutex] is a channel.
package syncx

import (
	"sync"

	"github.com/optimist-dynamo/optimist/internal/simhook"
)

// Mutex is a mutual exclusion lock whose waiters block on a channel. The
// zero value is an unlocked mutex. The channel is made on first use, so a
// Mutex first used in a synctest bubble belongs to it.
type Mutex struct {
	once sync.Once
	ch   chan struct{}
}

// Lock locks m, waiting until it is unlocked.
func (m *Mutex) Lock() {
	m.once.Do(func() { m.ch = make(chan struct{}, 1) })
	select {
	case m.ch <- struct{}{}:
		return
	default:
	}
	// Held by another goroutine: its Unlock wakes this one, which in a
	// simulation waits for its turn (see simhook) rather than run beside
	// the one that unlocked.
	resume := simhook.Pause()
	m.ch <- struct{}{}
	if resume != nil {
		resume()
	}
}

// Unlock unlocks m; unlocking an unlocked Mutex blocks forever, so do not.
func (m *Mutex) Unlock() { <-m.ch }
