package dynamolocal

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/optimist-dynamo/optimist/internal/endpoint"
	"github.com/optimist-dynamo/optimist/internal/engine"
)

// Pinned distribution of DynamoDB Local. The npm package is only a carrier: its
// emulator/ directory holds the jar and native libraries of DynamoDB Local
// 1.25.1, and nothing else of it is used.
const (
	// Package is the npm package that ships DynamoDB Local.
	Package = "amplify-dynamodb-simulator"
	// Version is the pinned version of [Package].
	Version = "2.9.30"
	// JarSHA256 is the hex SHA-256 of emulator/DynamoDBLocal.jar in [Package]
	// at [Version]. An install whose jar does not match is never run.
	JarSHA256 = "454305e9bc3e6ebcca5b62569869e31563b8d7e346474e94557b2600702146c7"
)

// Environment variables read by [Start] and [New].
const (
	// EnvEndpoint names the variable that, when set (e.g. to
	// "http://localhost:8000"), makes [Start] use an already running DynamoDB
	// Local at that URL instead of installing and starting one.
	EnvEndpoint = "DYNAMODB_ENDPOINT"
	// EnvDir names the variable that, when set, is the directory where
	// DynamoDB Local is installed, instead of the user cache directory.
	EnvDir = "OPTIMIST_DYNAMODB_LOCAL_DIR"
)

// Settings of the clients made by [Server.Client] and [Server.NewClient].
// DynamoDB Local scopes tables by access key and region, so every client made
// here sees the same tables. The key must be letters and digits only: DynamoDB
// Local answers UnrecognizedClientException to a key with a dash.
const (
	// Region is the clients' region.
	Region = "us-east-1"
	// AccessKeyID is the clients' dummy access key.
	AccessKeyID = "optimist"
	// SecretAccessKey is the clients' dummy secret key.
	SecretAccessKey = "local"
)

// startTimeout bounds how long Start waits for a started server to answer.
// DynamoDB Local takes about 3-4 s on a quiet machine; on a loaded one
// (2 cores shared by several test binaries) it was seen to take over 30 s,
// so the bound is wide: it only matters when the server never answers.
const startTimeout = 2 * time.Minute

// stopGrace is how long Close waits after SIGTERM before it sends SIGKILL.
const stopGrace = 3 * time.Second

// Server is a running embedded engine or DynamoDB Local, or one found
// through [EnvEndpoint]. Its methods are safe for concurrent use.
type Server struct {
	endpoint string
	client   *dynamodb.Client

	// The embedded engine, its fault rules and its loopback listener; nil
	// for DynamoDB Local and for an endpoint.
	eng    *engine.Engine
	faults *engine.Faults
	http   *http.Server
	served chan struct{} // closed when the listener's goroutine returns

	// The JVM of DynamoDB Local; nil for the embedded engine and when
	// attached through EnvEndpoint: then there is nothing to stop.
	cmd     *exec.Cmd
	out     *tailBuffer
	exited  chan struct{} // closed when cmd.Wait returns
	waitErr error         // result of cmd.Wait, valid once exited is closed

	closeOnce sync.Once
	closeErr  error
}

// Start returns a server ready to answer requests.
//
// If [EnvEndpoint] is set, Start starts nothing: it waits until that endpoint
// answers a ListTables call and returns a Server for it whose Close does
// nothing. Otherwise, by default, it starts the embedded engine with opts
// (in microseconds; no I/O but a loopback listener). With [EnvEngine] set
// to "dynamodb-local" it installs DynamoDB Local into the cache directory
// if needed (see the package documentation), starts it with java on a
// free port, and waits until it answers a ListTables call (seconds); opts
// do not apply to it.
//
// ctx bounds installing and starting only; the server keeps running after ctx
// ends, until [Server.Close] or until the calling process exits.
func Start(ctx context.Context, opts ...Option) (*Server, error) {
	if ep := os.Getenv(EnvEndpoint); ep != "" {
		return attach(ctx, ep, EnvEndpoint+"=")
	}
	choice, err := engineChoice()
	if err != nil {
		return nil, err
	}
	if choice == EngineEmbedded {
		var o Options
		for _, f := range opts {
			if f != nil {
				f(&o)
			}
		}
		return startEmbedded(o)
	}
	return startDynamoDBLocal(ctx)
}

// EnvReference names the variable that, when set, is the endpoint of an
// AWS DynamoDB Local already running, for [StartDynamoDBLocal].
const EnvReference = "DYNAMODB_LOCAL_ENDPOINT"

// StartDynamoDBLocal returns AWS DynamoDB Local, whatever [EnvEngine] and
// [EnvEndpoint] say: the one at [EnvReference] if that is set, else one it
// installs and starts as [Start] does with OPTIMIST_ENGINE=dynamodb-local.
// The conformance suite takes it as the reference the embedded engine is
// held to.
func StartDynamoDBLocal(ctx context.Context) (*Server, error) {
	if ep := os.Getenv(EnvReference); ep != "" {
		return attach(ctx, ep, EnvReference+"=")
	}
	return startDynamoDBLocal(ctx)
}

// startDynamoDBLocal installs AWS DynamoDB Local if needed and starts it.
func startDynamoDBLocal(ctx context.Context) (*Server, error) {
	// Look for java first: without it a 56 MB download would be wasted.
	java, err := lookJava()
	if err != nil {
		return nil, err
	}
	dir, err := cacheDir()
	if err != nil {
		return nil, err
	}
	emu, err := defaultInstaller(dir).install(ctx)
	if err != nil {
		return nil, err
	}
	return launch(ctx, java, emu)
}

// ErrInvalidEndpoint is returned at once by [Attach], and by [Start] for
// [EnvEndpoint], for an endpoint that is not an http or https URL with a
// host ("http://localhost:8000", or just "localhost:8000"); nothing is
// sent.
var ErrInvalidEndpoint = errors.New("dynamolocal: invalid endpoint")

// Attach returns a Server for a DynamoDB Local that something else runs at
// endpoint ("http://localhost:8000", or just "localhost:8000"), once it
// answers a ListTables call. An endpoint that is not such a URL is an
// error matching [ErrInvalidEndpoint], at once. It waits up to 30 s for a server that does not
// answer yet, or until ctx ends; but when the connection is refused for
// 3 s on end (nothing listens on the port), it gives up then,
// with an error that says so. Its Close does nothing. Start does the same
// when DYNAMODB_ENDPOINT is set.
func Attach(ctx context.Context, endpoint string) (*Server, error) {
	return attach(ctx, endpoint, "")
}

// attach is Attach; label names where the endpoint came from in messages.
func attach(ctx context.Context, endpoint, label string) (*Server, error) {
	endpoint, err := checkEndpoint(endpoint)
	if err != nil {
		return nil, fmt.Errorf("%w: %s%s", ErrInvalidEndpoint, label, err)
	}
	s := newServer(endpoint)
	if err := s.waitReady(ctx, 0); err != nil {
		if errors.Is(err, syscall.ECONNREFUSED) {
			// syscall.ECONNREFUSED reads "connection refused", without
			// the SDK's long chain of wrappers.
			return nil, fmt.Errorf("dynamolocal: %s%s: %w for %v: nothing listens there; start DynamoDB Local, or fix or unset %s",
				label, endpoint, syscall.ECONNREFUSED, refusedFor, EnvEndpoint)
		}
		return nil, fmt.Errorf("dynamolocal: %s%s: %w", label, endpoint, err)
	}
	return s, nil
}

// checkEndpoint returns endpoint as a base URL, or why it is not one; see
// [endpoint.Parse].
func checkEndpoint(ep string) (string, error) { return endpoint.Parse(ep) }

// refusedFor is how long Attach waits while connections are refused: a
// server being started next door binds its port within a second or two,
// and a wrong endpoint should fail fast.
const refusedFor = 3 * time.Second

func newServer(endpoint string) *Server {
	s := &Server{endpoint: endpoint}
	s.client = s.NewClient()
	return s
}

// Endpoint returns the server's base URL, e.g. "http://127.0.0.1:34567".
func (s *Server) Endpoint() string { return s.endpoint }

// Client returns a client for the server, with [Region] and the dummy
// credentials [AccessKeyID] and [SecretAccessKey]. Every call returns the same
// client.
func (s *Server) Client() *dynamodb.Client { return s.client }

// NewClient returns a new client for the server configured like
// [Server.Client], with optFns applied last. Tests use it to install an HTTP
// client that injects faults (Options.HTTPClient) or middleware
// (Options.APIOptions).
//
// A client of the embedded engine does not sign its requests (the engine
// checks no signature): it sends the credential scope alone, and its
// endpoint is fixed rather than resolved at each request; see the package
// doc.
func (s *Server) NewClient(optFns ...func(*dynamodb.Options)) *dynamodb.Client {
	var hc dynamodb.HTTPClient = newSocketClient()
	if s.eng != nil {
		hc = s.eng // in memory: no socket
		optFns = append([]func(*dynamodb.Options){engine.ClientOptions(s.endpoint)}, optFns...)
	}
	return dynamodb.New(dynamodb.Options{
		HTTPClient:   hc,
		Region:       Region,
		BaseEndpoint: aws.String(s.endpoint),
		Credentials: aws.CredentialsProviderFunc(func(context.Context) (aws.Credentials, error) {
			return aws.Credentials{
				AccessKeyID:     AccessKeyID,
				SecretAccessKey: SecretAccessKey,
				Source:          "dynamolocal",
			}, nil
		}),
	}, optFns...)
}

// Close stops the server: SIGTERM, then SIGKILL if it has not exited after a
// short grace, and waits until the process is gone. It returns an error if the
// server had already exited on its own (the error holds its output). Close of
// a Server found through [EnvEndpoint] does nothing. Close is idempotent:
// later calls return the first call's result.
func (s *Server) Close() error {
	switch {
	case s.eng != nil:
		s.closeOnce.Do(func() { s.closeErr = s.closeEmbedded() })
	case s.cmd != nil:
		s.closeOnce.Do(func() { s.closeErr = s.stop() })
	}
	return s.closeErr
}

func (s *Server) stop() error {
	select {
	case <-s.exited:
		return fmt.Errorf("dynamolocal: server on %s had exited before Close: %v%s",
			s.endpoint, s.waitErr, s.out.report())
	default:
	}
	// SIGTERM lets the JVM run its shutdown hooks. Where signals other than
	// kill are not supported (Windows), Signal fails and we kill at once.
	if err := s.cmd.Process.Signal(syscall.SIGTERM); err == nil {
		timer := time.NewTimer(stopGrace)
		defer timer.Stop()
		select {
		case <-s.exited:
			return nil
		case <-timer.C:
		}
	}
	if err := s.cmd.Process.Kill(); err != nil && !errors.Is(err, os.ErrProcessDone) {
		return fmt.Errorf("dynamolocal: kill server on %s: %w", s.endpoint, err)
	}
	<-s.exited
	return nil
}

// shared is the one server per process that New hands out.
var shared struct {
	once sync.Once
	srv  *Server
	err  error
}

// sharedStartTimeout bounds the first New: it may include a 56 MB download.
const sharedStartTimeout = 10 * time.Minute

// New returns the server shared by every test of the test binary (the
// process), starting it with [Start] on the first call. Tests should share it
// and each use a table of its own.
//
// The server is not closed by t.Cleanup, since later tests reuse it: the
// embedded engine goes with the process, and on Linux so does DynamoDB
// Local's JVM (see the package documentation). If the server
// cannot be started, New calls t.Fatalf with the reason, on that call and on
// every later one: the start is attempted once per process, never retried.
func New(t testing.TB) *Server {
	t.Helper()
	shared.once.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), sharedStartTimeout)
		defer cancel()
		shared.srv, shared.err = Start(ctx)
	})
	if shared.err != nil {
		t.Fatalf("dynamolocal: cannot start the server for the tests: %v", shared.err)
	}
	return shared.srv
}
