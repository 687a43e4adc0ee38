// Package attempt watches the SDK's attempts of one call, to learn whether
// a failed call may still have been applied.
package attempt

import (
	"context"
	"errors"
	"net"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/smithy-go/middleware"
	smithyhttp "github.com/aws/smithy-go/transport/http"
)

// Tracker watches the SDK's attempts of one call, to learn whether any of
// them may have been applied without our hearing of it. The SDK retries a
// conditional write whose response was lost; if the first attempt landed,
// the retry fails its own condition, and without this record the caller
// would see a conflict with itself.
//
// The middleware sits right after the SDK's retry middleware, so it sees
// each attempt's result. An attempt is ambiguous unless it ended with a 4xx
// response (DynamoDB refused it) or failed to dial (nothing was sent).
//
// Pass its Option to the call: client.PutItem(ctx, in, tracker.Option). A
// Tracker is for one call; it is not safe for concurrent use.
type Tracker struct {
	// Ambiguous is set when an attempt may have been applied although the
	// call did not hear of it.
	Ambiguous bool
}

// ID names the middleware.
func (a *Tracker) ID() string { return "optimist.attempts" }

// HandleFinalize records the outcome of one attempt.
func (a *Tracker) HandleFinalize(ctx context.Context, in middleware.FinalizeInput, next middleware.FinalizeHandler) (
	middleware.FinalizeOutput, middleware.Metadata, error,
) {
	out, md, err := next.HandleFinalize(ctx, in)
	if err != nil && !definitelyNotApplied(err) {
		a.Ambiguous = true
	}
	return out, md, err
}

func definitelyNotApplied(err error) bool {
	var re *smithyhttp.ResponseError
	if errors.As(err, &re) && re.Response != nil {
		code := re.HTTPStatusCode()
		return code >= 400 && code < 500
	}
	var op *net.OpError
	return errors.As(err, &op) && op.Op == "dial"
}

// Option installs the tracker on one call's middleware stack.
func (a *Tracker) Option(o *dynamodb.Options) {
	o.APIOptions = append(o.APIOptions, a.install)
}

func (a *Tracker) install(s *middleware.Stack) error {
	if _, ok := s.Finalize.Get("Retry"); ok {
		return s.Finalize.Insert(a, "Retry", middleware.After)
	}
	return s.Finalize.Add(a, middleware.After)
}
