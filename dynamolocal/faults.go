package dynamolocal

import (
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/optimist-dynamo/optimist/internal/engine"
	"github.com/optimist-dynamo/optimist/internal/faultwire"
)

// Fault is a failure injected into one request, by a [FaultTransport]
// between a client and any server, or by a [Rule] inside the embedded
// engine ([Server.Inject]). It is the engine's own type: one list of
// faults, one set of names and counts, for both.
type Fault = engine.Fault

// The faults. What a FaultTransport does with each is said here; a rule's
// reading is the same unless said otherwise (see [Rule]).
const (
	// FaultNone: the request went through untouched.
	FaultNone = engine.FaultNone
	// FaultLostResponse: the server applied the request, and its response
	// was lost on the way back (the client sees "connection reset by
	// peer"). The case where a resent write meets its own first attempt.
	FaultLostResponse = engine.FaultLostResponse
	// FaultRefused: the connection was refused; nothing was sent (a rule:
	// the connection is dropped unapplied).
	FaultRefused = engine.FaultRefused
	// FaultThrottled: answered 400 ProvisionedThroughputExceededException
	// without sending anything to the server.
	FaultThrottled = engine.FaultThrottled
	// FaultServerError: answered 500 InternalServerError without sending
	// anything to the server. The client cannot tell that nothing was
	// applied: to it a 5xx is an unknown outcome.
	FaultServerError = engine.FaultServerError
	// FaultDelayed: sent after a delay of up to MaxDelay (a rule: by its
	// Delay).
	FaultDelayed = engine.FaultDelayed
	// FaultPartitioned: refused while the transport is partitioned (see
	// [FaultTransport.Partition]); nothing was sent (a rule: as
	// FaultRefused, for as long as the rule stays).
	FaultPartitioned = engine.FaultPartitioned
	// FaultTransactionConflict: refused as if another transaction held the
	// item (the embedded engine's rules only; see [Server.Inject]).
	FaultTransactionConflict = engine.FaultTransactionConflict
	// FaultReplicatedWriteConflict: refused with
	// ReplicatedWriteConflictException, as a global table in multi-Region
	// strong consistency refuses a write that conflicts with one in
	// another Region (the embedded engine's rules only).
	FaultReplicatedWriteConflict = engine.FaultReplicatedWriteConflict
)

// FaultTransport is an [http.RoundTripper] that puts an unreliable network
// between a DynamoDB client and the server, for tests of code that must stay
// correct under faults: each request, at random from Seed, loses its
// response after the server applied it, has its connection refused, is
// throttled or answered 500 without being sent, or is delayed. The SDK's
// real retry logic then runs against the server's real behaviour.
//
// Each request draws one number: it is lost with probability LoseResponse,
// else refused with probability Refuse, else throttled, else answered 500,
// else delayed, by the same rule (the probabilities add up, and should add up
// to at most 1). The same Seed and the same sequence of requests give the
// same faults; give each client its own transport for a reproducible run.
//
// Set the fields before the first request and do not change them
// afterwards; the methods are safe for concurrent use.
//
//	ft := &dynamolocal.FaultTransport{Seed: 1, LoseResponse: 0.1, ServerError: 0.05}
//	client := srv.NewClient(ft.Option())
type FaultTransport struct {
	// Base makes the real round trips; nil means http.DefaultTransport.
	Base http.RoundTripper
	// Seed seeds the random draws.
	Seed uint64
	// Probabilities, each in [0, 1], of each fault per request.
	LoseResponse, Refuse, Throttle, ServerError, Delay float64
	// MaxDelay bounds a delay (default 50ms).
	MaxDelay time.Duration
	// Ops, if not empty, are the only operations ("PutItem", see
	// [OpName]) that suffer faults; others go through untouched.
	Ops []string

	mu          sync.Mutex
	rng         *rand.Rand
	counts      [engine.NumFaults]int
	partitioned bool
}

// OpName returns the DynamoDB operation of a request, taken from its
// X-Amz-Target header ("DynamoDB_20120810.PutItem" gives "PutItem"), or "" if
// the header is missing.
func OpName(req *http.Request) string { return faultwire.OpName(req) }

// Partition cuts the network (on) or restores it: while it is cut, every
// request is refused before anything is sent.
func (f *FaultTransport) Partition(on bool) {
	f.mu.Lock()
	f.partitioned = on
	f.mu.Unlock()
}

// Count returns how many requests suffered fault (FaultNone: how many went
// through untouched).
func (f *FaultTransport) Count(fault Fault) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	if fault < 0 || fault >= engine.NumFaults {
		return 0
	}
	return f.counts[fault]
}

// Option returns a client option that sends the client's requests through f,
// for [Server.NewClient] or [dynamodb.New].
func (f *FaultTransport) Option() func(*dynamodb.Options) {
	return func(o *dynamodb.Options) { o.HTTPClient = &http.Client{Transport: f} }
}

// draw picks the fault of one request and counts it.
func (f *FaultTransport) draw(op string) (Fault, time.Duration) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.rng == nil {
		f.rng = rand.New(rand.NewPCG(f.Seed, f.Seed^0x9e3779b97f4a7c15))
	}
	fault := FaultNone
	var delay time.Duration
	switch {
	case f.partitioned:
		fault = FaultPartitioned
	case len(f.Ops) > 0 && !slices.Contains(f.Ops, op):
	default:
		x := f.rng.Float64()
		for _, c := range []struct {
			p     float64
			fault Fault
		}{{f.LoseResponse, FaultLostResponse}, {f.Refuse, FaultRefused}, {f.Throttle, FaultThrottled}, {f.ServerError, FaultServerError}, {f.Delay, FaultDelayed}} {
			if x < c.p {
				fault = c.fault
				break
			}
			x -= c.p
		}
		if fault == FaultDelayed {
			max := f.MaxDelay
			if max <= 0 {
				max = 50 * time.Millisecond
			}
			delay = time.Duration(f.rng.Int64N(int64(max)) + 1)
		}
	}
	f.counts[fault]++
	return fault, delay
}

// RoundTrip implements [http.RoundTripper].
func (f *FaultTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	fault, delay := f.draw(OpName(req))
	base := f.Base
	if base == nil {
		base = http.DefaultTransport
	}
	switch fault {
	case FaultRefused, FaultPartitioned:
		closeBody(req)
		return nil, &net.OpError{Op: "dial", Net: "tcp", Err: os.NewSyscallError("connect", syscall.ECONNREFUSED)}
	case FaultThrottled:
		closeBody(req)
		return errorResponse(req, http.StatusBadRequest, "ProvisionedThroughputExceededException",
			"The level of configured provisioned throughput for the table was exceeded (injected)"), nil
	case FaultServerError:
		closeBody(req)
		return errorResponse(req, http.StatusInternalServerError, "InternalServerError", "Internal server error (injected)"), nil
	case FaultDelayed:
		t := time.NewTimer(delay)
		select {
		case <-t.C:
		case <-req.Context().Done():
			t.Stop()
			closeBody(req)
			return nil, req.Context().Err()
		}
	}
	if fault == FaultLostResponse {
		return faultwire.LoseAnswer(base, req)
	}
	return base.RoundTrip(req)
}

func closeBody(req *http.Request) {
	if req.Body != nil {
		req.Body.Close()
	}
}

// errorResponse is an error answer in DynamoDB's JSON protocol.
func errorResponse(req *http.Request, status int, code, msg string) *http.Response {
	body := fmt.Sprintf(`{"__type":"com.amazonaws.dynamodb.v20120810#%s","message":%q}`, code, msg)
	h := http.Header{}
	h.Set("Content-Type", "application/x-amz-json-1.0")
	h.Set("X-Amzn-Requestid", "injected-fault")
	return &http.Response{
		Status:        fmt.Sprintf("%d %s", status, http.StatusText(status)),
		StatusCode:    status,
		Proto:         "HTTP/1.1",
		ProtoMajor:    1,
		ProtoMinor:    1,
		Header:        h,
		Body:          io.NopCloser(strings.NewReader(body)),
		ContentLength: int64(len(body)),
		Request:       req,
	}
}
