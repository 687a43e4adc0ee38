package simhook

import (
	"sync"
	"testing"
)

// order is a Scheduler that records the tickets given and resumed.
type order struct {
	mu      sync.Mutex
	n       uint64
	resumed []uint64
	turn    map[uint64]chan struct{}
}

func (o *order) Ticket() uint64 {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.n++
	o.turn[o.n] = make(chan struct{})
	return o.n
}

func (o *order) Resume(t uint64) {
	o.mu.Lock()
	ch := o.turn[t]
	o.mu.Unlock()
	<-ch
	o.mu.Lock()
	o.resumed = append(o.resumed, t)
	o.mu.Unlock()
}

func (o *order) let(t uint64) { close(o.turn[t]) }

// TestOutside: with nothing installed, Go runs f and Pause returns nil.
func TestOutside(t *testing.T) {
	if Pause() != nil {
		t.Fatal("Pause outside a simulation returned a function")
	}
	done := make(chan struct{})
	Go(func() { close(done) })
	<-done
}

// TestInstalled: a goroutine started by Go waits for its turn, and the
// function Pause returns waits for its ticket's.
func TestInstalled(t *testing.T) {
	o := &order{turn: map[uint64]chan struct{}{}}
	uninstall := Install(o)
	defer uninstall()
	started := make(chan struct{})
	Go(func() { close(started) }) // ticket 1
	resume := Pause()             // ticket 2
	paused := make(chan struct{})
	go func() { resume(); close(paused) }()
	o.let(2)
	<-paused
	select {
	case <-started:
		t.Fatal("the goroutine started before its turn")
	default:
	}
	o.let(1)
	<-started
	o.mu.Lock()
	defer o.mu.Unlock()
	if len(o.resumed) != 2 || o.resumed[0] != 2 || o.resumed[1] != 1 {
		t.Fatalf("resumed %v, want [2 1]", o.resumed)
	}
}

// TestInstallTwice: one simulation at a time; uninstalling frees the place.
func TestInstallTwice(t *testing.T) {
	uninstall := Install(&order{})
	func() {
		defer func() {
			if recover() == nil {
				t.Error("a second Install did not panic")
			}
		}()
		Install(&order{})
	}()
	uninstall()
	Install(&order{})()
	if installed.Load() != nil {
		t.Fatal("still installed after uninstall")
	}
}
