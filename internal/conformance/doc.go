// Package conformance holds the differential suite that keeps the embedded
// engine (internal/engine) honest: every request is sent to AWS DynamoDB
// Local (the reference) and to the engine (the subject), and the two answers
// must agree.
//
// The suite is test code behind the build tag "conformance", so that
// `go test ./...` needs Go alone; `make conformance` runs it, and needs Java
// and npm for DynamoDB Local (or DYNAMODB_LOCAL_ENDPOINT). A test binary built
// with the tag fails, never skips, when the reference cannot be started.
//
// # Clients
//
// One function of conformance_test.go, clients, returns both sides:
//
//   - the reference: DynamoDB Local at DYNAMODB_LOCAL_ENDPOINT when that is
//     set (e.g. http://127.0.0.1:8000), else one started by package
//     dynamolocal with OPTIMIST_ENGINE=dynamodb-local;
//   - the subject: the engine (dynamolocal's default).
//
// Each side gets its own table-name and ClientRequestToken prefix, so both
// may point at one server (the harness was written that way before the engine
// existed: then every case must agree). The prefixes are removed from every
// answer before comparing.
//
// # What is compared
//
// A success is compared as the JSON of the SDK's output struct, with
// attribute values in DynamoDB's JSON shape, without ResultMetadata and the
// volatile fields (table ARNs, ids, timestamps; see volatile in
// harness_test.go). Scan and BatchGetItem items are compared as multisets
// unless a case asks for order; DescribeTable's index lists and attribute
// definitions are compared sorted by name, since DynamoDB documents no order
// for them. ConsumedCapacity is compared. An error is compared by its API
// error code, its message (exactly, or by a prefix where a case says so and
// why) and its extra fields (CancellationReasons with their items, the Item
// of a ConditionalCheckFailedException).
//
// # Cases and the generator
//
// cases_test.go is a catalogue of named cases, each a sequence of requests
// whose expected outcome on the reference is stated (success or an error
// code), so that a case that no longer tests what it says fails. gen_test.go
// generates tables, items, conditions, updates, queries and scans from a
// seed; the seed is printed, and -conformance.seed replays it.
//
// # Known divergences
//
// Every divergence either is fixed or has an entry in [Known] with the
// reason; the test fails on any other. The run ends with the line
// "conformance: N cases, M generated requests, K divergences".
package conformance
