//go:build !unix

package engine_test

import "time"

// processCPU is not measured here: the benchmarks report 0 cpu-ns/op.
func processCPU() time.Duration { return 0 }
