package ddbtest

import (
	"errors"
	"net/http"
	"sync"
	"syscall"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/optimist-dynamo/optimist/internal/faultwire"
)

// DropTransport is an [http.RoundTripper] that loses responses: for a dropped
// call it makes the real round trip, so the server applies the request, then
// discards the response and returns a "connection reset by peer" error, which
// the SDK's default retryer retries. It models a response lost on the way
// back, the case where a retried write meets its own first attempt. The loss
// is the one dynamolocal.FaultTransport's FaultLostResponse makes (package
// faultwire); what DropTransport adds is which calls lose it: by their
// number per operation, where FaultTransport draws at random.
//
// Calls are numbered per operation from 1, retries included. A call is
// dropped if DropOps says so or Drop returns true. Set the fields before the
// first call and do not change them afterwards; the methods are safe for
// concurrent use.
type DropTransport struct {
	// Base makes the real round trips; nil means http.DefaultTransport.
	Base http.RoundTripper
	// DropOps maps an operation ("PutItem") to how many of its first calls
	// lose their response.
	DropOps map[string]int
	// Drop, if set, is asked about every call: op is the operation (see
	// dynamolocal.OpName) and call its number.
	Drop func(op string, call int) bool

	mu      sync.Mutex
	calls   map[string]int
	dropped int
}

// RoundTrip implements [http.RoundTripper].
func (d *DropTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	op := faultwire.OpName(req)
	d.mu.Lock()
	if d.calls == nil {
		d.calls = map[string]int{}
	}
	d.calls[op]++
	n := d.calls[op]
	d.mu.Unlock()
	drop := n <= d.DropOps[op] || (d.Drop != nil && d.Drop(op, n))

	if !drop {
		base := d.Base
		if base == nil {
			base = http.DefaultTransport
		}
		return base.RoundTrip(req)
	}
	// The loss itself is faultwire's: the real round trip, the whole
	// response read so the server is done with it, then a connection reset.
	resp, err := faultwire.LoseAnswer(d.Base, req)
	if resp == nil && !errors.Is(err, syscall.ECONNRESET) {
		return resp, err // the round trip itself failed: nothing was lost
	}
	d.mu.Lock()
	d.dropped++
	d.mu.Unlock()
	return resp, err
}

// Calls returns how many calls of operation op went through the transport,
// dropped or not.
func (d *DropTransport) Calls(op string) int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.calls[op]
}

// Dropped returns how many responses were dropped.
func (d *DropTransport) Dropped() int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.dropped
}

// Option returns a client option that sends the client's requests through d,
// for dynamolocal's Server.NewClient or [dynamodb.New].
func (d *DropTransport) Option() func(*dynamodb.Options) {
	return func(o *dynamodb.Options) {
		o.HTTPClient = &http.Client{Transport: d}
	}
}
