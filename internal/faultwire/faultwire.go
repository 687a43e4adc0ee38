// Package faultwire is the wire half of an injected fault that the test
// helpers share: which operation a request is, and how an answer is lost
// after the server applied the request. dynamolocal's FaultTransport draws
// its faults at random and internal/ddbtest's DropTransport picks them by
// call number; both lose an answer here, so a lost answer looks the same to
// the SDK whichever chose it.
package faultwire

import (
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"syscall"
)

// OpName returns the DynamoDB operation of a request, taken from its
// X-Amz-Target header ("DynamoDB_20120810.PutItem" gives "PutItem"), or "" if
// the header is missing.
func OpName(req *http.Request) string {
	target := req.Header.Get("X-Amz-Target")
	if i := strings.LastIndexByte(target, '.'); i >= 0 {
		return target[i+1:]
	}
	return target
}

// LoseAnswer makes the real round trip with base (http.DefaultTransport if
// nil), reads the whole answer so that the server is done with the request,
// and then loses it: the caller gets "connection reset by peer", as a
// client does when the network drops an answer on its way back. If the
// round trip itself fails, its error is returned and nothing was lost.
func LoseAnswer(base http.RoundTripper, req *http.Request) (*http.Response, error) {
	if base == nil {
		base = http.DefaultTransport
	}
	resp, err := base.RoundTrip(req)
	if err != nil {
		return resp, err
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return nil, reset()
}

// reset is the error of a connection reset by the peer while reading, the
// error a lost answer gives.
func reset() error {
	return &net.OpError{Op: "read", Net: "tcp", Err: os.NewSyscallError("read", syscall.ECONNRESET)}
}
