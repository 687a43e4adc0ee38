// Package ddbtest holds the test helpers shared by optimist's test packages:
// the per-process DynamoDB Local server, tables made per test, a client that
// counts calls, and an HTTP transport that loses responses.
//
// Every test uses the one server of its test binary ([Server]) and a table of
// its own ([CreateTable]), so tests can run in parallel and never see each
// other's items. Faults are injected below the SDK ([DropTransport]), so the
// SDK's real retry logic runs against DynamoDB Local's real behaviour.
// DropTransport picks calls by their number per operation and loses their
// answers with dynamolocal's FaultTransport (FaultLostResponse); the package
// dynamolocal says why its rules and its transport both exist.
package ddbtest
