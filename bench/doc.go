// Package bench compares optimist with the code it replaces and with a
// peer library, side by side in one binary. It is its own module so that
// optimist itself does not depend on the peers.
//
// Run it from the repository root with `make bench`, which runs every
// benchmark ten times and summarises them with benchstat.
//
// The benchmarks against DynamoDB Local (BenchmarkContention, BenchmarkAdd,
// BenchmarkFIFOJoin, BenchmarkContendedSections) run every variant inside
// each iteration, in rotating order, and report per-variant metrics (wall
// in ms, calls per operation, the most attempts one change needed) and the
// ratios between variants, so that variants always meet the same load.
// BenchmarkQuery and BenchmarkGetAll (reads of 1,000 and 10,000 items,
// against guregu and the SDK) interleave the same way, and also report the
// CPU time the benchmark's own process spent per read, the client's work,
// which a shared machine disturbs less than the wall time.
// BenchmarkPutVersioned, BenchmarkUpdateCPU and BenchmarkDecode stub
// DynamoDB out and measure the client's own work.
package bench
