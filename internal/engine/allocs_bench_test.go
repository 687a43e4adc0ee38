package engine_test

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/optimist-dynamo/optimist/internal/engine"
)

// recorder is an SDK HTTP client that serves by an engine and keeps the
// last request's header and body.
type recorder struct {
	e      *engine.Engine
	header http.Header
	body   []byte
}

func (r *recorder) Do(req *http.Request) (*http.Response, error) {
	b, err := io.ReadAll(req.Body)
	if err != nil {
		return nil, err
	}
	r.header, r.body = req.Header.Clone(), b
	req.Body = io.NopCloser(bytes.NewReader(b))
	return r.e.Do(req)
}

// BenchmarkQueryAllocs is a Query of a page of 100 items through the SDK
// client and the engine (client=sdk), and the same request to the engine
// alone (client=none): the difference is the SDK's own work.
// allocs/item is allocs/op over the 100 items returned.
func BenchmarkQueryAllocs(b *testing.B) {
	ctx := context.Background()
	rec := &recorder{e: engine.New()}
	c := dynamodb.New(dynamodb.Options{Region: "us-east-1", BaseEndpoint: aws.String("http://engine.invalid"),
		Credentials: aws.CredentialsProviderFunc(func(context.Context) (aws.Credentials, error) {
			return aws.Credentials{AccessKeyID: "test", SecretAccessKey: "test"}, nil
		}), HTTPClient: rec})
	if err := scaleCreate(ctx, c, true); err != nil {
		b.Fatal(err)
	}
	if err := scaleLoad(ctx, c, 100); err != nil {
		b.Fatal(err)
	}
	in := &dynamodb.QueryInput{TableName: tbl, KeyConditionExpression: aws.String("pk = :p"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":p": scaleKey(0)["pk"]}}
	query := func() error {
		out, err := c.Query(ctx, in)
		if err == nil {
			err = wantCount(out.Count, 100)
		}
		return err
	}
	if err := query(); err != nil {
		b.Fatal(err)
	}
	b.Run("client=sdk", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if err := query(); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(testing.AllocsPerRun(20, func() { _ = query() }))/100, "allocs/item")
	})
	b.Run("client=none", func(b *testing.B) {
		b.ReportAllocs()
		do := func() {
			req, _ := http.NewRequestWithContext(ctx, http.MethodPost, "http://engine.invalid/", bytes.NewReader(rec.body))
			req.Header = rec.header
			resp, err := rec.e.Do(req)
			if err != nil || resp.StatusCode != http.StatusOK {
				b.Fatal(err, resp.StatusCode)
			}
		}
		for b.Loop() {
			do()
		}
		b.ReportMetric(float64(testing.AllocsPerRun(20, do))/100, "allocs/item")
	})
}
