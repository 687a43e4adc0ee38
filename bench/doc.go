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
//
// # Modify's constants
//
// BenchmarkContention chose the constants of mapper.Table.Modify's retries
// and turns (mapper's package doc describes the protocol). This is the one
// place that says why each has its value; compare the variants with the
// metrics modify16procs/best and modify20procs/best, one Table per
// goroutine as separate processes would be, where Modify meets conflicts.
//
//   - Retry at once 2 times: a conflict brings the stored item back
//     (ALL_OLD), as fresh as a read, so a short race costs no more than a
//     read would; sleeping sooner only slows the writers that would have
//     won the next version.
//   - Take the turn after 8 refused writes: until then writers back off,
//     which keeps the races few without stopping anyone, and the turn is
//     left for the tail, the one change in many that keeps losing. Taken
//     sooner (the third conflict was measured), it stops every other
//     writer of a busy item again and again, each paying a refused write
//     and a read for it, and Modify lost to the hand-written loop with
//     backoff; without a turn, nothing bounds the attempts of the
//     unluckiest change. With it, a change made by Modify alone runs fn at
//     most 9 times.
//   - Wait out 3 turns in a row before queueing: turns are rare, and
//     several back to back say that others keep coming to theirs, so a
//     writer that only waited them out could wait for ever. Queueing at the
//     second turn already stopped too many writers behind every turn.
//   - A 1 s turn lease: far above a turn's usual hold (one write's round
//     trip), so a slow holder keeps its turn, and short enough that a
//     writer that died in its turn blocks Modify's writes of the item for
//     at most a second. The holder cannot extend it.
//
// # The embedded engine
//
// The BenchmarkEngine benchmarks compare the embedded DynamoDB engine with
// AWS DynamoDB Local, the reference it is held to, in one run: each
// operation is a sub-benchmark per server, impl=embedded (in memory, no
// socket: what dynamolocal.New gives tests), impl=embedded-http (the same
// engine over its loopback port, with the SDK's default HTTP client, as
// another process reaches it) and impl=dynamodb-local (one DynamoDB Local
// started for the binary, or the one DYNAMODB_LOCAL_ENDPOINT names; skipped,
// saying so, without java). Summarise them with benchstat -col /impl.
//
// The clients are those dynamolocal gives: DynamoDB Local's is the SDK's
// default client (SigV4 signing with a SHA-256 of the payload, endpoint
// rules resolved at each request); the embedded engine's two skip what
// only a remote server needs, as dynamolocal's package doc says: they send
// the credential scope unsigned (the engine checks no signature) and
// resolve a fixed endpoint. Both validate parameters, retry, and check the
// response checksum. Most of a request's CPU in memory is the client's,
// so the ratios measure the client as much as the engine.
//
// BenchmarkEngineGetItem, BenchmarkEnginePutItem,
// BenchmarkEngineConditionalUpdate (a version condition and an ADD on 16
// items), BenchmarkEngineQuery (a partition of 100 items, one page) and
// BenchmarkEngineTransactWrite (4 conditional puts) keep 8 requests in
// flight whatever GOMAXPROCS, and report req/s. Each checks its answers:
// the item read, the items written, the versions adding up to exactly one
// increment per conditional update. B/op and allocs/op count the whole
// process: for impl=embedded they include the server's work, for
// impl=dynamodb-local only the client's.
//
// BenchmarkEngineStart is the time until a new server has answered a
// ListTables call (a new JVM for DynamoDB Local each time, even with
// DYNAMODB_LOCAL_ENDPOINT set). BenchmarkEngineMemory stores 20,000 items
// in a new engine and reports the live heap it grew by per item
// (heap-B/item, read after a collection), beside the item's size as
// DynamoDB counts it (item-B).
//
// Run them alone with
//
//	go test -run '^$' -bench BenchmarkEngine -benchmem -count 6 -timeout 30m .
package bench
