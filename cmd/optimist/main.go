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
//	               Local, or host:port (http is then assumed, as package
//	               dynamolocal assumes it) (default $DYNAMODB_ENDPOINT;
//	               unset: AWS's endpoint)
//	-region NAME   AWS region (default from the AWS configuration; with an
//	               endpoint and none configured, us-east-1)
//	-timeout D     how long each DynamoDB call may take, its retries
//	               included (default 10s): an endpoint that accepts
//	               connections and never answers fails every command in time
//	-force         locks release: remove whoever holds the lock (see below)
//	-json          print JSON instead of aligned text
//
// locks release reads the lock, then removes the holder it read and only
// that one (pessimistic.Locker.ForceReleaseIf): if the holder changed in
// between (a dead holder's lease ran out and a waiter took over), nothing
// is removed and the command names the holder now. It prints the holder
// it removed. With -force it removes whoever holds the lock at the moment
// of the write (Locker.ForceRelease), and prints who that was.
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
// locks show is one consistent GetItem; locks release is two GetItems
// (before and after, for the report) and one or two UpdateItems; each
// locks command checks the table first (a DescribeTable); units recover is unit.Recover (it may watch live units for
// up to a lease before it returns).
//
// When credentials are missing, or a table is not found at an endpoint
// of one's own (DynamoDB Local, whose tables are scoped by access key and
// region), the error says what to set.
//
// Exit status: 0 on success, 1 when an operation fails (a missing table,
// a lock nobody holds for release, a holder that changed, a timeout), 2
// for a usage error.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go/logging"
	"github.com/aws/smithy-go/middleware"

	"github.com/optimist-dynamo/optimist/internal/endpoint"
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
  locks release TABLE NAME   remove the holder of a lock (known dead), if it is still
                             the one read just before; bumps the fence
  units ls TABLE             list the units of work in a coordinator table
  units recover TABLE        finish or undo the units whose owner died

Flags (before or after the command):
  -endpoint URL   DynamoDB endpoint, http://host:port or host:port
                  (default $DYNAMODB_ENDPOINT; unset: AWS)
  -region NAME    AWS region (default from the AWS configuration)
  -timeout D      time allowed for each DynamoDB call (default 10s)
  -force          locks release: remove whoever holds the lock now, not only
                  the holder shown
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

// defaultTimeout bounds each DynamoDB call of the command, retries
// included: long enough for a Scan page across a region, short enough
// that an operator waiting on a dead endpoint is told soon.
const defaultTimeout = 10 * time.Second

// endpointEnv is the environment variable that stands for -endpoint.
const endpointEnv = "DYNAMODB_ENDPOINT"

// cli is one run of the command.
type cli struct {
	stdout, stderr io.Writer
	endpoint       string // as given
	endpointFrom   string // where it came from: "-endpoint" or "DYNAMODB_ENDPOINT"
	region         string
	timeout        time.Duration
	force          bool
	json           bool

	// Set by client, for the hints of explain.
	baseURL    string // the endpoint as used ("" for AWS's)
	accessKey  string
	usedRegion string
}

// run is the command: args without the program name. It returns the exit
// status.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	c := &cli{stdout: stdout, stderr: stderr}
	fs := flag.NewFlagSet("optimist", flag.ContinueOnError)
	fs.SetOutput(io.Discard) // errors are reported below, with the usage
	fs.StringVar(&c.endpoint, "endpoint", "", "DynamoDB endpoint")
	fs.StringVar(&c.region, "region", "", "AWS region")
	fs.DurationVar(&c.timeout, "timeout", defaultTimeout, "time allowed for each DynamoDB call")
	fs.BoolVar(&c.force, "force", false, "locks release: remove whoever holds the lock")
	fs.BoolVar(&c.json, "json", false, "print JSON")
	words, err := parse(fs, args)
	if err == nil {
		err = c.settle(fs)
	}
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
	fmt.Fprintf(stderr, "optimist: %v\n", c.explain(ctx, err))
	return exitFail
}

// settle completes the flags once parsed: where the endpoint comes from,
// and the checks of values.
func (c *cli) settle(fs *flag.FlagSet) error {
	c.endpointFrom = "-endpoint"
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == "endpoint" })
	if !set {
		c.endpoint, c.endpointFrom = os.Getenv(endpointEnv), endpointEnv
	}
	if c.timeout <= 0 {
		return fmt.Errorf("%w: -timeout %v: must be positive", errUsage, c.timeout)
	}
	return nil
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
// with -endpoint (or DYNAMODB_ENDPOINT), -region and -timeout applied.
// It makes sure credentials can be had before any call, so that their
// absence is reported as such rather than as the last provider's failure
// (the EC2 instance metadata service's, far from the operator's mistake).
func (c *cli) client(ctx context.Context) (*dynamodb.Client, error) {
	var opts []func(*config.LoadOptions) error
	if c.region != "" {
		opts = append(opts, config.WithRegion(c.region))
	}
	if c.endpoint != "" {
		u, err := endpointURL(c.endpoint)
		if err != nil {
			if c.endpointFrom == "-endpoint" {
				return nil, fmt.Errorf("%w: -endpoint %w", errUsage, err)
			}
			return nil, fmt.Errorf("%s %w", c.endpointFrom, err)
		}
		c.baseURL = u
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
	c.usedRegion = cfg.Region
	cctx, cancel := context.WithTimeout(ctx, c.timeout)
	creds, err := cfg.Credentials.Retrieve(cctx)
	cancel()
	if err != nil {
		return nil, &credentialsError{local: c.baseURL != "", err: err}
	}
	c.accessKey = creds.AccessKeyID
	return dynamodb.NewFromConfig(cfg, func(o *dynamodb.Options) {
		// The SDK warns on stderr, for every error answer, that it closed
		// the body without checking its CRC32; the command reports the
		// errors themselves.
		o.Logger = logging.Nop{}
		if c.baseURL != "" {
			o.BaseEndpoint = aws.String(c.baseURL)
		}
		o.APIOptions = append(o.APIOptions, callTimeout(c.timeout))
	}), nil
}

// endpointURL accepts an endpoint as package dynamolocal accepts
// DYNAMODB_ENDPOINT (see [endpoint.Parse]).
func endpointURL(ep string) (string, error) { return endpoint.Parse(ep) }

// callTimeout bounds each operation of the client (its retries included)
// by d: an endpoint that accepts connections and never answers would
// otherwise hold the command until the operator kills it.
func callTimeout(d time.Duration) func(*middleware.Stack) error {
	return func(stack *middleware.Stack) error {
		return stack.Initialize.Add(middleware.InitializeMiddlewareFunc("optimistCallTimeout",
			func(ctx context.Context, in middleware.InitializeInput, next middleware.InitializeHandler) (middleware.InitializeOutput, middleware.Metadata, error) {
				cctx, cancel := context.WithTimeoutCause(ctx, d, &timeoutError{d: d})
				defer cancel()
				out, md, err := next.HandleInitialize(cctx, in)
				if err != nil && ctx.Err() == nil && errors.Is(context.Cause(cctx), errTimeout) {
					err = context.Cause(cctx)
				}
				return out, md, err
			}), middleware.Before)
	}
}

// errTimeout is the class of timeoutError.
var errTimeout = errors.New("timeout")

// timeoutError is a call that got no answer within -timeout. (The SDK's
// error around it names the operation.)
type timeoutError struct{ d time.Duration }

func (e *timeoutError) Error() string {
	return fmt.Sprintf("no answer within %v (-timeout)", e.d)
}

func (e *timeoutError) Is(target error) bool {
	return target == errTimeout || target == context.DeadlineExceeded
}

// The credentials and region of package dynamolocal's clients (its
// AccessKeyID, SecretAccessKey and Region; a test holds them equal), named
// in hints. The command does not import dynamolocal, which would link the
// embedded engine into it.
const (
	localAccessKey = "optimist"
	localSecretKey = "local"
	localRegion    = "us-east-1"
)

// credentialsError is the absence of AWS credentials.
type credentialsError struct {
	local bool // an endpoint of one's own: any dummy pair will do
	err   error
}

func (e *credentialsError) Error() string {
	hint := "set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or AWS_PROFILE for a profile of ~/.aws"
	if e.local {
		hint = "DynamoDB Local takes any credentials, but needs some: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY " +
			"(letters and digits; the clients of package dynamolocal use " + localAccessKey + " and " + localSecretKey + ")"
	}
	return fmt.Sprintf("no AWS credentials found: %s (the SDK said: %v)", hint, e.err)
}

func (e *credentialsError) Unwrap() error { return e.err }

// explain adds, to a failure, what the operator can do about it: at an
// endpoint of one's own, a table not found is most often a table made
// with other credentials or another region.
func (c *cli) explain(_ context.Context, err error) error {
	var nf *types.ResourceNotFoundException
	if errors.As(err, &nf) && c.baseURL != "" {
		return fmt.Errorf("%w\n(at %s (from %s), DynamoDB Local keeps tables apart by access key and region: this command used access key %q and region %q; "+
			"the tables of package dynamolocal's clients are under AWS_ACCESS_KEY_ID=%s AWS_SECRET_ACCESS_KEY=%s AWS_REGION=%s)",
			err, c.baseURL, c.endpointFrom, c.accessKey, c.usedRegion, localAccessKey, localSecretKey, localRegion)
	}
	return err
}
