// Package simhook lets a simulation (dynamolocal.Simulate) run the
// library's goroutines one at a time, in an order its seed fixes.
//
// A testing/synctest bubble moves its virtual time only once every
// goroutine in it is blocked, but the goroutines that wake at one instant
// run in the runtime's order, and side by side when GOMAXPROCS > 1: a
// lease's heartbeat loop that starts as its Acquire returns may give the
// lease up before or after the Acquire looks at it, and two goroutines
// draw from crypto/rand in either order. So the places where the
// library's goroutines start or wake up (a go statement, a sleep, a wait
// for a [syncx.Mutex]) ask the installed [Scheduler] when to go on: the
// simulation lets them go one at a time, each once every other goroutine
// is blocked, in the order of the tickets they took when they started to
// wait, which is fixed because everything before ran one at a time too.
//
// Outside a simulation nothing is installed: [Go] is a go statement and
// [Pause] returns nil, at the cost of one atomic load.
//
// [syncx.Mutex]: github.com/optimist-dynamo/optimist/internal/syncx
package simhook

import "sync/atomic"

// Scheduler is what a simulation installs.
type Scheduler interface {
	// Ticket numbers a wait that starts now: the goroutines whose waits
	// end at one instant go on in the order of their tickets.
	Ticket() uint64
	// Resume blocks until the goroutine holding ticket t may go on.
	Resume(t uint64)
}

type holder struct{ s Scheduler }

var installed atomic.Pointer[holder]

// Install makes s the scheduler of every goroutine that starts or wakes
// through this package until uninstall is called. One simulation runs at a
// time.
func Install(s Scheduler) (uninstall func()) {
	h := &holder{s}
	if !installed.CompareAndSwap(nil, h) {
		panic("simhook: a simulation is already running")
	}
	return func() { installed.CompareAndSwap(h, nil) }
}

// Go runs f in a new goroutine. In a simulation the goroutine starts
// once the scheduler lets it, not beside the goroutine that started it.
func Go(f func()) {
	h := installed.Load()
	if h == nil {
		go f()
		return
	}
	t := h.s.Ticket()
	go func() {
		h.s.Resume(t)
		f()
	}()
}

// Pause marks the start of a wait (a sleep, a lock) that the time or
// another goroutine ends. Outside a simulation it returns nil; in one, a
// function to call once the wait is over, which blocks until the
// scheduler lets the goroutine go on.
func Pause() (resume func()) {
	h := installed.Load()
	if h == nil {
		return nil
	}
	t := h.s.Ticket()
	return func() { h.s.Resume(t) }
}
