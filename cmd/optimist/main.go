// Command optimist is the operator's tool for optimist's lock tables
// (package pessimistic) and coordinator tables (package unit): it lists and
// shows locks, releases a lock whose holder is dead, and lists and recovers
// units of work.
//
//	go install github.com/optimist-dynamo/optimist/cmd/optimist@latest
//
// Usage:
//
//	optimist [flags] locks ls TABLE            the locks of a lock table
//	optimist [flags] locks show TABLE NAME     one lock: holder, token, lease, data, queue
//	optimist [flags] locks release TABLE NAME  remove a dead holder; bumps the fence
//	optimist [flags] units ls TABLE            the units of a coordinator table
//	optimist [flags] units recover TABLE       finish or undo units whose owner died
//
// Flags (before or after the command):
//
//	-endpoint URL  DynamoDB endpoint, e.g. http://localhost:8000 for DynamoDB
//	               Local (default $DYNAMODB_ENDPOINT; unset: AWS's endpoint)
//	-region NAME   AWS region (default from the AWS configuration; with an
//	               endpoint and none configured, us-east-1)
//	-json          print JSON instead of aligned text
//
// Credentials and region come from the standard AWS configuration
// (environment variables, ~/.aws/config and ~/.aws/credentials, SSO,
// instance roles), as config.LoadDefaultConfig reads it. DynamoDB Local
// accepts any credentials but keeps tables apart by access key and region:
// to see the tables of clients made by package dynamolocal, set
// AWS_ACCESS_KEY_ID=optimist, AWS_SECRET_ACCESS_KEY=local and
// AWS_REGION=us-east-1.
//
// Costs: locks ls and units ls are one Scan of the table (all its pages);
// locks show is one consistent GetItem; locks release is a DescribeTable,
// two GetItems (before and after, for the report) and one or two
// UpdateItems; units recover is unit.Recover (it may watch live units for
// up to a lease before it returns).
//
// Exit status: 0 on success, 1 when an operation fails (a missing table,
// a lock nobody holds for release), 2 for a usage error.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/url"
	"os"
	"os/signal"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/smithy-go/logging"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

const usage = `usage: optimist [flags] COMMAND

Commands:
  locks ls TABLE             list the locks of a lock table
  locks show TABLE NAME      show one lock: holder, token, lease, data, queue
  locks release TABLE NAME   remove the holder of a lock (known dead); bumps the fence
  units ls TABLE             list the units of work in a coordinator table
  units recover TABLE        finish or undo the units whose owner died

Flags (before or after the command):
  -endpoint URL   DynamoDB endpoint (default $DYNAMODB_ENDPOINT; unset: AWS)
  -region NAME    AWS region (default from the AWS configuration)
  -json           print JSON

Credentials and region come from the standard AWS configuration.
Exit status: 0 success, 1 failure, 2 usage error.
`

// Exit statuses.
const (
	exitOK    = 0
	exitFail  = 1
	exitUsage = 2
)

// errUsage marks a usage error: exit status 2, and the usage is printed.
var errUsage = errors.New("usage")

// cli is one run of the command.
type cli struct {
	stdout, stderr io.Writer
	endpoint       string
	region         string
	json           bool
}

// run is the command: args without the program name. It returns the exit
// status.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	c := &cli{stdout: stdout, stderr: stderr}
	fs := flag.NewFlagSet("optimist", flag.ContinueOnError)
	fs.SetOutput(io.Discard) // errors are reported below, with the usage
	fs.StringVar(&c.endpoint, "endpoint", os.Getenv("DYNAMODB_ENDPOINT"), "DynamoDB endpoint")
	fs.StringVar(&c.region, "region", "", "AWS region")
	fs.BoolVar(&c.json, "json", false, "print JSON")
	words, err := parse(fs, args)
	if errors.Is(err, flag.ErrHelp) || (err == nil && len(words) == 1 && words[0] == "help") {
		fmt.Fprint(stdout, usage)
		return exitOK
	}
	if err == nil {
		err = c.dispatch(ctx, words)
	}
	switch {
	case err == nil:
		return exitOK
	case errors.Is(err, errUsage):
		fmt.Fprintf(stderr, "optimist: %v\n\n%s", err, usage)
		return exitUsage
	}
	fmt.Fprintf(stderr, "optimist: %v\n", err)
	return exitFail
}

// parse parses flags anywhere among args and returns the other words.
func parse(fs *flag.FlagSet, args []string) ([]string, error) {
	var words []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return nil, err
			}
			return nil, fmt.Errorf("%w: %v", errUsage, err)
		}
		args = fs.Args()
		if len(args) == 0 {
			return words, nil
		}
		words = append(words, args[0])
		args = args[1:]
	}
}

// command is a verb's implementation, given its arguments (their number
// checked).
type command struct {
	args string // for messages: "TABLE NAME"
	run  func(c *cli, ctx context.Context, args []string) error
}

var commands = map[string]map[string]command{
	"locks": {
		"ls":      {"TABLE", (*cli).locksList},
		"show":    {"TABLE NAME", (*cli).locksShow},
		"release": {"TABLE NAME", (*cli).locksRelease},
	},
	"units": {
		"ls":      {"TABLE", (*cli).unitsList},
		"recover": {"TABLE", (*cli).unitsRecover},
	},
}

func (c *cli) dispatch(ctx context.Context, words []string) error {
	if len(words) == 0 {
		return fmt.Errorf("%w: no command", errUsage)
	}
	verbs, ok := commands[words[0]]
	if !ok {
		return fmt.Errorf("%w: unknown command %q", errUsage, words[0])
	}
	if len(words) < 2 {
		return fmt.Errorf("%w: %s needs a verb (%s)", errUsage, words[0], verbList(verbs))
	}
	cmd, ok := verbs[words[1]]
	if !ok {
		return fmt.Errorf("%w: unknown command %q %q (%s)", errUsage, words[0], words[1], verbList(verbs))
	}
	args := words[2:]
	if want := len(strings.Fields(cmd.args)); len(args) != want {
		return fmt.Errorf("%w: %s %s takes %s", errUsage, words[0], words[1], cmd.args)
	}
	for _, a := range args {
		if a == "" {
			return fmt.Errorf("%w: %s %s: empty %s", errUsage, words[0], words[1], cmd.args)
		}
	}
	return cmd.run(c, ctx, args)
}

func verbList(verbs map[string]command) string {
	var names []string
	for _, v := range []string{"ls", "show", "release", "recover"} {
		if _, ok := verbs[v]; ok {
			names = append(names, v)
		}
	}
	return strings.Join(names, ", ")
}

// client returns a DynamoDB client from the standard AWS configuration,
// with -endpoint and -region applied.
func (c *cli) client(ctx context.Context) (*dynamodb.Client, error) {
	var opts []func(*config.LoadOptions) error
	if c.region != "" {
		opts = append(opts, config.WithRegion(c.region))
	}
	if c.endpoint != "" {
		u, err := url.Parse(c.endpoint)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Hostname() == "" {
			return nil, fmt.Errorf("%w: -endpoint %q: want a URL such as http://localhost:8000", errUsage, c.endpoint)
		}
	}
	cfg, err := config.LoadDefaultConfig(ctx, opts...)
	if err != nil {
		return nil, fmt.Errorf("loading the AWS configuration: %w", err)
	}
	if cfg.Region == "" {
		if c.endpoint == "" {
			return nil, errors.New("no AWS region: set AWS_REGION, a region in ~/.aws/config, or -region")
		}
		cfg.Region = "us-east-1" // DynamoDB Local's tables are scoped by it, nothing more
	}
	return dynamodb.NewFromConfig(cfg, func(o *dynamodb.Options) {
		// The SDK warns on stderr, for every error answer, that it closed
		// the body without checking its CRC32; the command reports the
		// errors themselves.
		o.Logger = logging.Nop{}
		if c.endpoint != "" {
			o.BaseEndpoint = aws.String(strings.TrimRight(c.endpoint, "/"))
		}
	}), nil
}
