// Package procmem holds the list of the library's process-wide memories:
// what it learns once per process and keeps across calls. One is left:
// txn's record of which raw ops' tables are global tables. The units'
// memories (units running, units seen unchanged) are held by values since
// they moved into unitproto, and need no forgetting.
//
// A simulation (dynamolocal.Simulate) stands for a fresh world of
// machines each time it runs: memories left by an earlier run, whose
// tables and units were others, would change what the library sends (a
// DescribeTable made in one run and not in the next), so the same seed
// would not give the same history. Simulate calls [Forget] before each
// run. Nothing else should.
package procmem

import "sync"

var mu sync.Mutex
var forgets []func()

// Register adds forget, which empties one process-wide memory, to those
// [Forget] calls. Call it from an init function.
func Register(forget func()) {
	mu.Lock()
	defer mu.Unlock()
	forgets = append(forgets, forget)
}

// Forget empties every registered memory, as a new process starts with
// none. It must not run while the library is in use.
func Forget() {
	mu.Lock()
	defer mu.Unlock()
	for _, f := range forgets {
		f()
	}
}
