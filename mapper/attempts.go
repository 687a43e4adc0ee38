package mapper

import (
	"context"
	"errors"
	"net"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/smithy-go/middleware"
	smithyhttp "github.com/aws/smithy-go/transport/http"
)

// attempts watches the SDK's attempts of one call, to learn whether any of
// them may have been applied without our hearing of it. The SDK retries a
// conditional write whose response was lost; if the first attempt landed,
// the retry fails its own condition, and without this record the caller
// would see a conflict with itself.
//
// The middleware sits right after the SDK's retry middleware, so it sees
// each attempt's result. An attempt is ambiguous unless it ended with a 4xx
// response (DynamoDB refused it) or failed to dial (nothing was sent).
type attempts struct {
	ambiguous bool
	n         int
}

func (a *attempts) ID() string { return "optimist.attempts" }

func (a *attempts) HandleFinalize(ctx context.Context, in middleware.FinalizeInput, next middleware.FinalizeHandler) (
	middleware.FinalizeOutput, middleware.Metadata, error,
) {
	out, md, err := next.HandleFinalize(ctx, in)
	a.n++
	if err != nil && !definitelyNotApplied(err) {
		a.ambiguous = true
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

func (a *attempts) option(o *dynamodb.Options) {
	o.APIOptions = append(o.APIOptions, a.install)
}

func (a *attempts) install(s *middleware.Stack) error {
	if _, ok := s.Finalize.Get("Retry"); ok {
		return s.Finalize.Insert(a, "Retry", middleware.After)
	}
	return s.Finalize.Add(a, middleware.After)
}
