package engine

import (
	"context"
	"net/http"
	"strings"
)

// DoWith is [Engine.Do] with a schedule of faults of the caller's own
// (extra, may be nil) consulted before the engine's: dynamolocal's
// simulation runner gives each of its clients one, so that a rule can
// name a client and count that client's requests alone. It returns the
// fault that either schedule chose (FaultNone if none did), so that the
// caller can record it.
func (e *Engine) DoWith(req *http.Request, extra *Faults) (*http.Response, Fault, error) {
	return e.do(req, extra)
}

// serveWith is serve with extra tried first; it returns the fault chosen.
func (e *Engine) serveWith(ctx context.Context, header http.Header, body []byte, extra *Faults) (response, Fault, bool) {
	req := &request{
		op:     strings.TrimPrefix(header.Get("X-Amz-Target"), targetPrefix),
		body:   body,
		scope:  scopeOf(header),
		header: header,
	}
	for _, f := range [...]*Faults{extra, e.opts.Faults} {
		if f == nil {
			continue
		}
		if fault, r := f.decide(req.op, req.body); fault != FaultNone {
			resp, drop := f.apply(ctx, e, req, fault, r)
			return resp, fault, drop
		}
	}
	return e.handle(req), FaultNone, false
}
