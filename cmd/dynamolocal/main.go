// Command dynamolocal serves the embedded DynamoDB engine on a loopback
// port, for other processes: the optimist command, multi-process tests,
// the AWS CLI or another language's SDK.
//
//	go run ./cmd/dynamolocal -listen 127.0.0.1:8000
//
// It prints the environment to export, then serves until interrupted
// (SIGINT or SIGTERM). Tables live in memory and go with the process.
// Clients may use any access key and region: as with DynamoDB Local,
// tables are kept apart by both, so point every client at the same pair
// (the printed AWS_* values) to share tables.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/optimist-dynamo/optimist/dynamolocal"
)

func main() {
	if err := run(os.Args[1:], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "dynamolocal:", err)
		os.Exit(1)
	}
}

// run parses args, starts the engine and serves until a signal.
func run(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("dynamolocal", flag.ContinueOnError)
	fs.SetOutput(stderr)
	listen := fs.String("listen", "127.0.0.1:8000", "loopback `address` to serve on (port 0: any free port)")
	ttlDelay := fs.Duration("ttl-delay", 0, "how long after an item's TTL it is deleted")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return serve(ctx, *listen, *ttlDelay, stdout)
}

// serve runs the engine on addr until ctx ends.
func serve(ctx context.Context, addr string, ttlDelay time.Duration, stdout io.Writer) error {
	srv, err := dynamolocal.StartEngine(dynamolocal.Options{Listen: addr, TTLDelay: ttlDelay})
	if err != nil {
		return err
	}
	defer srv.Close()
	fmt.Fprintf(stdout, "export %s=%s\n", dynamolocal.EnvEndpoint, srv.Endpoint())
	fmt.Fprintf(stdout, "export AWS_ACCESS_KEY_ID=%s AWS_SECRET_ACCESS_KEY=%s AWS_REGION=%s\n",
		dynamolocal.AccessKeyID, dynamolocal.SecretAccessKey, dynamolocal.Region)
	<-ctx.Done()
	return nil
}
