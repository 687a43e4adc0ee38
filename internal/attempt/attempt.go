// Package attempt watches the SDK's attempts of one call, to learn whether
// a failed call may still have been applied.
package attempt

import (
	"context"
	"errors"
	"net"

	"github.com/aws/aws-sdk-go-v2/aws"
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
	// Err is the error of the first ambiguous attempt.
	Err error
	// NoResend, set before the call, keeps the SDK from sending the request
	// again after an attempt that may have been applied: it still retries
	// attempts that surely were not (throttling and other 4xx answers,
	// refused connections), but an ambiguous attempt ends the call. Writes
	// whose condition would not stop a second application need it.
	NoResend bool
}

// ID names the middleware.
func (a *Tracker) ID() string { return "optimist.attempts" }

// HandleFinalize records the outcome of one attempt.
func (a *Tracker) HandleFinalize(ctx context.Context, in middleware.FinalizeInput, next middleware.FinalizeHandler) (
	middleware.FinalizeOutput, middleware.Metadata, error,
) {
	out, md, err := next.HandleFinalize(ctx, in)
	if err != nil && !NotApplied(err) && !a.Ambiguous {
		a.Ambiguous, a.Err = true, err
	}
	return out, md, err
}

// NotApplied reports whether the failed attempt err surely was not applied:
// DynamoDB answered it with a 4xx (it refused the request: a failed
// condition, throttling, a validation error), or the connection could not
// be made, so nothing was sent. Anything else (a lost or reset response, a
// timeout, a 5xx) may have been applied.
func NotApplied(err error) bool {
	var re *smithyhttp.ResponseError
	if errors.As(err, &re) && re.Response != nil && re.HTTPStatusCode() != 0 {
		// (A request that could not be sent also comes as a ResponseError,
		// with status 0.)
		code := re.HTTPStatusCode()
		return code >= 400 && code < 500
	}
	var op *net.OpError
	return errors.As(err, &op) && op.Op == "dial"
}

// Option installs the tracker on one call's middleware stack (and, with
// NoResend, its retryer).
func (a *Tracker) Option(o *dynamodb.Options) {
	o.APIOptions = append(o.APIOptions, a.install)
	if a.NoResend && o.Retryer != nil {
		o.Retryer = noResend{o.Retryer}
	}
}

// noResend is a retryer that does not retry an attempt that may have been
// applied; everything else it leaves to the retryer it wraps.
type noResend struct{ aws.Retryer }

func (r noResend) IsErrorRetryable(err error) bool {
	return NotApplied(err) && r.Retryer.IsErrorRetryable(err)
}

// GetAttemptToken makes noResend an aws.RetryerV2, as the SDK's retry
// middleware prefers.
func (r noResend) GetAttemptToken(ctx context.Context) (func(error) error, error) {
	if v2, ok := r.Retryer.(aws.RetryerV2); ok {
		return v2.GetAttemptToken(ctx)
	}
	return r.GetInitialToken(), nil
}

func (a *Tracker) install(s *middleware.Stack) error {
	if _, ok := s.Finalize.Get("Retry"); ok {
		return s.Finalize.Insert(a, "Retry", middleware.After)
	}
	return s.Finalize.Add(a, middleware.After)
}
