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
//   - the reference: AWS DynamoDB Local from dynamolocal.StartDynamoDBLocal,
//     the one at DYNAMODB_LOCAL_ENDPOINT when that is set (e.g.
//     http://127.0.0.1:8000), else one it installs and starts;
//   - the subject: the embedded engine, from dynamolocal.StartEngine.
//
// Both clients have the SDK's retries and its input validation turned off,
// so that every request, invalid ones included, reaches the server and every
// answer is the server's own. Each side gets its own table-name and
// ClientRequestToken prefix, so both may point at one server:
// CONFORMANCE_SELF=1 makes the subject the reference itself, the harness's
// own check, on which every case and generated request must agree. The
// prefixes are removed from every answer before comparing.
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
// generates tables, items, conditions, updates, queries, scans, batches and
// transactions from a seed: 1 by default, so that make conformance gives
// the same requests on every run; -conformance.seed=N replays seed N, and
// 0 draws a new one, printed (-conformance.requests sets how many,
// -conformance.case runs only the catalogue cases whose name contains a
// string). Other seeds explore further: each divergence they find is
// fixed or listed like any other.
//
// # The documentation set
//
// The cases named "doc/<page>/<behaviour>" (docset_*_test.go) were written
// from DynamoDB's API reference and developer guide rather than from the
// engine's code: each names the page (and section) that states the
// behaviour and expects what the page says, so that they measure the engine
// independently of the catalogue written beside it. Where DynamoDB Local
// departs from the page, the case expects Local's answer (the harness checks
// the reference against it) and the engine's documented one is listed in
// [Known]. -conformance.case=doc/ runs them alone.
//
// # Known divergences
//
// Every divergence either is fixed or has an entry in [Known] with the
// reason (typically where DynamoDB Local departs from DynamoDB's
// documentation and the engine follows the documentation); the test fails
// on any other. The run ends with the line
// "conformance: N cases, M generated requests, K divergences".
package conformance
