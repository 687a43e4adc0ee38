//go:build go1.25

package syncx

import (
	"testing"
	"testing/synctest"
)

// TestDurable shows that a goroutine waiting for a Mutex held across a
// blocking call counts as durably blocked: synctest.Wait returns.
func TestDurable(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var m Mutex
		release := make(chan struct{})
		m.Lock()
		got := 0
		done := make(chan struct{})
		go func() {
			m.Lock()
			got++
			m.Unlock()
			close(done)
		}()
		synctest.Wait() // returns only if the waiter is durably blocked
		if got != 0 {
			t.Fatal("the waiter ran while the mutex was held")
		}
		close(release)
		m.Unlock()
		<-done
		if got != 1 {
			t.Fatalf("got %d", got)
		}
	})
}
