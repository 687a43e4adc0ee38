// Package ddbtest holds the test helpers shared by optimist's test packages:
// tables made per test, a client that counts calls, an HTTP transport that
// loses responses, and an observer that records events.
//
// A test gets its server from dynamolocal (dynamolocal.New, the server of
// its test binary, or dynamolocal.NewEngine with WithoutListener, an engine
// of its own for a testing/synctest bubble) and a table of its own
// ([CreateTable]), so tests can run in parallel and never see each other's
// items. ddbtest itself imports no public package but observe: it sits
// below the packages whose tests use it. Faults are injected below the SDK ([DropTransport]), so the
// SDK's real retry logic runs against DynamoDB Local's real behaviour.
// DropTransport picks calls by their number per operation and loses their
// answers as dynamolocal's FaultTransport does (FaultLostResponse, both
// through package faultwire); the package dynamolocal says why its rules
// and its transport both exist.
package ddbtest
