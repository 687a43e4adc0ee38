//go:build conformance

package conformance

import (
	"context"
	"fmt"
	"strings"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/smithy-go/middleware"
	smithyhttp "github.com/aws/smithy-go/transport/http"
)

// rawRequest is a request whose body is sent as it is, not serialised from
// an SDK input: for bodies the SDK cannot produce (a value of the wrong
// JSON type, an attribute value with no member). Both sides get the same
// body but for the table names, which Body writes with its namer. The
// answer goes through the SDK's deserialiser like any other.
type rawRequest struct {
	Op   string
	Body string
}

// raw is a step that sends body (built with n, for table names) as
// operation op.
func raw(want, op string, body func(n namer) string) step {
	return st(want, func(n namer) any { return &rawRequest{Op: op, Body: body(n)} })
}

// rawCall sends in with c: the SDK call of in.Op with an empty input, its
// serialised body replaced by in.Body before the request is signed.
func rawCall(ctx context.Context, c *dynamodb.Client, in *rawRequest) (any, error) {
	swap := func(o *dynamodb.Options) {
		o.APIOptions = append(o.APIOptions, func(s *middleware.Stack) error {
			return s.Build.Add(middleware.BuildMiddlewareFunc("conformanceRawBody", func(
				ctx context.Context, bin middleware.BuildInput, next middleware.BuildHandler,
			) (middleware.BuildOutput, middleware.Metadata, error) {
				req, ok := bin.Request.(*smithyhttp.Request)
				if !ok {
					return middleware.BuildOutput{}, middleware.Metadata{}, fmt.Errorf("conformance: raw: request is %T", bin.Request)
				}
				r, err := req.SetStream(strings.NewReader(in.Body))
				if err != nil {
					return middleware.BuildOutput{}, middleware.Metadata{}, err
				}
				r.ContentLength = int64(len(in.Body))
				bin.Request = r
				return next.HandleBuild(ctx, bin)
			}), middleware.After)
		})
	}
	switch in.Op {
	case "CreateTable":
		return c.CreateTable(ctx, &dynamodb.CreateTableInput{}, swap)
	case "GetItem":
		return c.GetItem(ctx, &dynamodb.GetItemInput{}, swap)
	case "PutItem":
		return c.PutItem(ctx, &dynamodb.PutItemInput{}, swap)
	case "UpdateItem":
		return c.UpdateItem(ctx, &dynamodb.UpdateItemInput{}, swap)
	case "DeleteItem":
		return c.DeleteItem(ctx, &dynamodb.DeleteItemInput{}, swap)
	case "Query":
		return c.Query(ctx, &dynamodb.QueryInput{}, swap)
	case "Scan":
		return c.Scan(ctx, &dynamodb.ScanInput{}, swap)
	case "BatchGetItem":
		return c.BatchGetItem(ctx, &dynamodb.BatchGetItemInput{}, swap)
	case "BatchWriteItem":
		return c.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{}, swap)
	case "TransactWriteItems":
		return c.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{}, swap)
	case "TransactGetItems":
		return c.TransactGetItems(ctx, &dynamodb.TransactGetItemsInput{}, swap)
	}
	panic("conformance: raw: no call for " + in.Op)
}
