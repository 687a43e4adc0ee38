package engine

import (
	"context"
	"net/http"
	"net/url"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	smithyendpoints "github.com/aws/smithy-go/endpoints"
)

// A client of the engine in memory skips the SDK's work that only a remote
// server needs, because most of a request's CPU in memory is the client's:
// the engine checks no signature, so the client writes the Authorization
// header's credential scope (access key and region, by which the engine
// scopes tables as DynamoDB Local does) without hashing the payload or
// computing a signature; and the endpoint is fixed, so it is not resolved
// by the SDK's rules at every request. Everything else (parameter
// validation, retries, the response checksum, middleware added by
// options) runs as for any server.

// ClientOptions sets the options of an SDK client of the engine, whose
// requests go to endpoint (a URL the client's HTTPClient reaches the
// engine by, or none that answers when the engine serves it in memory).
func ClientOptions(endpoint string) func(*dynamodb.Options) {
	u, err := url.Parse(endpoint)
	return func(o *dynamodb.Options) {
		if err != nil {
			return // the SDK's resolver reports the endpoint
		}
		o.HTTPSignerV4 = scopeSigner{}
		o.EndpointResolverV2 = fixedEndpoint{endpoint, *u}
		o.APIOptions = append(o.APIOptions, v4.SwapComputePayloadSHA256ForUnsignedPayloadMiddleware)
	}
}

// scopeSigner writes a SigV4 Authorization header with the credential
// scope and no signature.
type scopeSigner struct{}

func (scopeSigner) SignHTTP(_ context.Context, creds aws.Credentials, r *http.Request, _, service, region string, t time.Time, _ ...func(*v4.SignerOptions)) error {
	// One string built in one buffer: this runs at every request.
	b := make([]byte, 0, 128)
	b = append(b, "AWS4-HMAC-SHA256 Credential="...)
	b = append(b, creds.AccessKeyID...)
	b = t.UTC().AppendFormat(append(b, '/'), "20060102")
	b = append(append(b, '/'), region...)
	b = append(append(b, '/'), service...)
	b = append(b, "/aws4_request, SignedHeaders=host, Signature=unsigned"...)
	r.Header["Authorization"] = []string{string(b)}
	if creds.SessionToken != "" {
		r.Header.Set("X-Amz-Security-Token", creds.SessionToken)
	}
	return nil
}

// fixedEndpoint resolves every request to one URL, or to the client's
// BaseEndpoint when options changed it.
type fixedEndpoint struct {
	s string
	u url.URL
}

func (f fixedEndpoint) ResolveEndpoint(_ context.Context, p dynamodb.EndpointParameters) (smithyendpoints.Endpoint, error) {
	if p.Endpoint != nil && *p.Endpoint != f.s {
		u, err := url.Parse(*p.Endpoint)
		if err != nil {
			return smithyendpoints.Endpoint{}, err
		}
		return smithyendpoints.Endpoint{URI: *u}, nil
	}
	return smithyendpoints.Endpoint{URI: f.u}, nil
}
