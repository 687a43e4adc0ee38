package bench

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go/middleware"

	"github.com/optimist-dynamo/optimist/dynamolocal"
)

// The SDK client's own CPU per request, the floor under the side-by-side
// benchmarks' in-memory figures: the same GetItem and Query of 100 items
// as BenchmarkEngineGetItem and BenchmarkEngineQuery, one at a time,
// answered by the engine (server=engine) and by a server that returns the
// engine's answer to that request, recorded once, without reading the
// request (server=canned). The in-memory client (client=in-memory, as
// dynamolocal builds it) cannot cost less than its canned variant however
// fast the engine gets; client=default is the SDK's default client, as
// the dynamodb-local variants have, signing and resolving its endpoint,
// without the socket; client=trimmed is the in-memory client with what
// the SDK's public options can still take away from a request in memory
// (see trim) and its check of the answer's CRC32 off, to tell what that
// would save: not enough to be worth the headers and the check given up,
// so the in-memory client keeps them.

// recording serves by next and keeps the last answer.
type recording struct {
	next   dynamodb.HTTPClient
	header http.Header
	body   []byte
}

func (r *recording) Do(req *http.Request) (*http.Response, error) {
	resp, err := r.next.Do(req)
	if err != nil {
		return resp, err
	}
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, err
	}
	r.header, r.body = resp.Header.Clone(), b
	resp.Body = io.NopCloser(bytes.NewReader(b))
	return resp, nil
}

// canned answers every request with one recorded answer, after reading
// the request's body as a server must.
type canned struct {
	header http.Header
	body   []byte
}

func (c *canned) Do(req *http.Request) (*http.Response, error) {
	if req.Body != nil {
		io.Copy(io.Discard, req.Body)
		req.Body.Close()
	}
	return &http.Response{
		Status: "200 OK", StatusCode: http.StatusOK, Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header: c.header.Clone(), Body: io.NopCloser(bytes.NewReader(c.body)),
		ContentLength: int64(len(c.body)), Request: req,
	}, nil
}

func BenchmarkClientFloor(b *testing.B) {
	srv, err := dynamolocal.StartEngine(dynamolocal.Options{NoListener: true})
	if err != nil {
		b.Fatal(err)
	}
	defer srv.Close()
	ctx := context.Background()
	table := "floor"
	createBenchTable(b, srv.Client(), table)
	for i := range 100 {
		if _, err := srv.Client().PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(table), Item: benchItem("p", i)}); err != nil {
			b.Fatal(err)
		}
	}
	ops := []struct {
		name string
		call func(c *dynamodb.Client) error
	}{
		{"GetItem", func(c *dynamodb.Client) error {
			out, err := c.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(table), Key: benchKey("p", 7)})
			if err == nil && len(out.Item) != 5 {
				b.Fatalf("GetItem read %v", out.Item)
			}
			return err
		}},
		{"Query", func(c *dynamodb.Client) error {
			out, err := c.Query(ctx, &dynamodb.QueryInput{
				TableName:                 aws.String(table),
				KeyConditionExpression:    aws.String("pk = :p AND sk >= :zero"),
				ExpressionAttributeValues: map[string]types.AttributeValue{":p": &types.AttributeValueMemberS{Value: "p"}, ":zero": &types.AttributeValueMemberN{Value: "0"}},
			})
			if err == nil && len(out.Items) != 100 {
				b.Fatalf("Query read %d items", len(out.Items))
			}
			return err
		}},
	}
	for _, op := range ops {
		rec := &recording{next: roundTrip{srv.Transport()}}
		if err := op.call(srv.NewClient(func(o *dynamodb.Options) { o.HTTPClient = rec })); err != nil {
			b.Fatal(err)
		}
		answer := &canned{header: rec.header, body: rec.body}
		clients := []struct {
			name string
			c    *dynamodb.Client
		}{
			{"server=engine/client=in-memory", srv.Client()},
			{"server=canned/client=in-memory", srv.NewClient(func(o *dynamodb.Options) { o.HTTPClient = answer })},
			{"server=canned/client=default", defaultClient(answer)},
			{"server=canned/client=trimmed", srv.NewClient(func(o *dynamodb.Options) {
				o.HTTPClient = answer
				o.DisableValidateResponseChecksum = true
				o.APIOptions = append(o.APIOptions, trim)
			})},
		}
		for _, c := range clients {
			b.Run("op="+op.name+"/"+c.name, func(b *testing.B) {
				b.ReportAllocs()
				cpu0 := processCPU()
				for b.Loop() {
					if err := op.call(c.c); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(processCPU()-cpu0)/float64(b.N), "cpu-ns/op")
			})
		}
	}
}

// trim removes the middleware that a request in memory has no use for:
// the User-Agent and invocation-ID headers, the Lambda trace header, the
// Accept-Encoding header for net/http's transport, and endpoint discovery
// (off by default).
func trim(st *middleware.Stack) error {
	for _, id := range []string{"UserAgent", "ClientRequestID", "RecursionDetection"} {
		if _, err := st.Build.Remove(id); err != nil {
			return err
		}
	}
	for _, id := range []string{"DisableAcceptEncodingGzip", "DiscoverEndpoint"} {
		if _, err := st.Finalize.Remove(id); err != nil {
			return err
		}
	}
	return nil
}

// defaultClient is the client of DynamoDB Local's variants (dynamolocal's
// for a socket: signed, its endpoint resolved by the SDK's rules) with
// hc as its HTTP client.
func defaultClient(hc dynamodb.HTTPClient) *dynamodb.Client {
	return dynamodb.New(dynamodb.Options{
		HTTPClient:   hc,
		Region:       dynamolocal.Region,
		BaseEndpoint: aws.String("http://127.0.0.1:8000"),
		Credentials: aws.CredentialsProviderFunc(func(context.Context) (aws.Credentials, error) {
			return aws.Credentials{AccessKeyID: dynamolocal.AccessKeyID, SecretAccessKey: dynamolocal.SecretAccessKey, Source: "dynamolocal"}, nil
		}),
	})
}

// roundTrip is an http.RoundTripper as an SDK HTTP client.
type roundTrip struct{ http.RoundTripper }

func (r roundTrip) Do(req *http.Request) (*http.Response, error) { return r.RoundTrip(req) }
