// Command withdynamodblocal runs a command with AWS DynamoDB Local, the
// reference of the conformance suite, running beside it:
//
//	go run ./internal/tools/withdynamodblocal -- go test -tags conformance ./...
//
// It starts DynamoDB Local (or uses the one at DYNAMODB_LOCAL_ENDPOINT),
// runs the command with DYNAMODB_LOCAL_ENDPOINT set to it, stops it, and
// exits with the command's status. One JVM then serves every test binary,
// among them package cond's, which cannot import dynamolocal (the embedded
// engine imports cond).
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"time"

	"github.com/optimist-dynamo/optimist/dynamolocal"
)

func main() {
	args := os.Args[1:]
	if len(args) > 0 && args[0] == "--" {
		args = args[1:]
	}
	if len(args) == 0 {
		fmt.Fprintln(os.Stderr, "usage: withdynamodblocal -- command [args...]")
		os.Exit(2)
	}
	os.Exit(run(args))
}

func run(args []string) int {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	srv, err := dynamolocal.StartDynamoDBLocal(ctx)
	cancel()
	if err != nil {
		fmt.Fprintln(os.Stderr, "withdynamodblocal:", err)
		return 1
	}
	defer srv.Close()
	fmt.Fprintf(os.Stderr, "withdynamodblocal: AWS DynamoDB Local at %s\n", srv.Endpoint())
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	cmd.Env = append(os.Environ(), dynamolocal.EnvReference+"="+srv.Endpoint())
	err = cmd.Run()
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		return exit.ExitCode()
	case err != nil:
		fmt.Fprintln(os.Stderr, "withdynamodblocal:", err)
		return 1
	}
	return 0
}
