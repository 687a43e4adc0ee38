package dynamolocal

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"testing"
	"time"

	"github.com/optimist-dynamo/optimist/internal/engine"
)

// EnvEngine names the variable that chooses the engine [Start] and [New]
// run when [EnvEndpoint] is not set: "" or "embedded" for the embedded
// engine (the default), "dynamodb-local" for AWS DynamoDB Local (Java).
const EnvEngine = "OPTIMIST_ENGINE"

// The values of [EnvEngine].
const (
	EngineEmbedded      = "embedded"
	EngineDynamoDBLocal = "dynamodb-local"
)

// ErrNotEmbedded is returned by the methods that need the embedded engine
// ([Server.Inject]) on a server that is AWS DynamoDB Local or an endpoint
// reached through [EnvEndpoint].
var ErrNotEmbedded = errors.New("dynamolocal: not the embedded engine")

// Options configure a server that [Start] or [NewEngine] starts with the
// embedded engine. They have no effect on AWS DynamoDB Local or on an
// endpoint.
type Options struct {
	// TTLDelay is how long after an item's TTL the engine deletes it; the
	// default 0 deletes it at the first request that finds the clock past
	// its TTL.
	TTLDelay time.Duration
	// Seed seeds the random draws of fault rules with a Probability.
	Seed uint64
	// Listen, if set, is the loopback address the engine serves on
	// ("127.0.0.1:8000"); by default a free port on 127.0.0.1.
	Listen string
	// NoListener serves the engine in memory alone: through
	// [Server.Client], [Server.NewClient] and [Server.Transport], with no
	// loopback port ([Server.Endpoint] names none that answers). A test in
	// a testing/synctest bubble needs it: a goroutine waiting on a socket
	// is never durably blocked, so the bubble's time would never move.
	NoListener bool
}

// Option sets a field of [Options], for [Start] and [NewEngine].
type Option = func(*Options)

// WithoutListener sets [Options].NoListener: the engine is served in
// memory alone, as a test in a testing/synctest bubble needs.
func WithoutListener() Option { return func(o *Options) { o.NoListener = true } }

// WithSeed sets the seed of fault rules' random draws.
func WithSeed(seed uint64) Option { return func(o *Options) { o.Seed = seed } }

// engineChoice reads EnvEngine.
func engineChoice() (string, error) {
	switch v := os.Getenv(EnvEngine); v {
	case "", EngineEmbedded:
		return EngineEmbedded, nil
	case EngineDynamoDBLocal:
		return EngineDynamoDBLocal, nil
	default:
		return "", fmt.Errorf("dynamolocal: %s=%q: want %q (the default) or %q", EnvEngine, v, EngineEmbedded, EngineDynamoDBLocal)
	}
}

// startEmbedded starts the embedded engine and its loopback listener
// (none with o.NoListener).
func startEmbedded(o Options) (*Server, error) {
	faults := engine.NewFaults(o.Seed)
	eng := engine.New(func(eo *engine.Options) {
		eo.TTLDelay = o.TTLDelay
		eo.Faults = faults
	})
	if o.NoListener {
		// The SDK needs an endpoint to sign requests for; the in-memory
		// transport never dials it.
		s := &Server{endpoint: inMemoryEndpoint, eng: eng, faults: faults}
		s.client = s.NewClient()
		return s, nil
	}
	addr := o.Listen
	if addr == "" {
		addr = "127.0.0.1:0"
	}
	l, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("dynamolocal: listen on %s: %w", addr, err)
	}
	hs := &http.Server{Handler: eng, ReadHeaderTimeout: 10 * time.Second, ErrorLog: nil}
	s := &Server{endpoint: "http://" + l.Addr().String(), eng: eng, faults: faults, http: hs}
	s.served = make(chan struct{})
	go func() {
		defer close(s.served)
		hs.Serve(l) // returns http.ErrServerClosed after Close
	}()
	s.client = s.NewClient()
	return s, nil
}

// inMemoryEndpoint is the endpoint of an engine served with no listener:
// a port no one listens on.
const inMemoryEndpoint = "http://127.0.0.1:0"

// Embedded reports whether the server is the embedded engine (so that
// [Server.Inject] works).
func (s *Server) Embedded() bool { return s.eng != nil }

// Transport returns an http.RoundTripper that reaches the server: in
// memory for the embedded engine, http.DefaultTransport otherwise. Give it
// to a [FaultTransport] as Base to inject transport faults without a
// socket.
func (s *Server) Transport() http.RoundTripper {
	if s.eng != nil {
		return roundTripper{s.eng}
	}
	return http.DefaultTransport
}

type roundTripper struct{ e *engine.Engine }

func (r roundTripper) RoundTrip(req *http.Request) (*http.Response, error) { return r.e.Do(req) }

// Rule says which requests the embedded engine fails, and how: by
// operation (Op), table (Table) and key (Key: the requests that touch an
// item with these key values; a batch or transaction touching it as one
// of its items), empty fields matching anything; with which Fault
// (FaultLostResponse: applied, answer lost; FaultRefused: not applied,
// the connection dropped, to the client an unknown outcome like a lost
// answer; FaultThrottled; FaultServerError; FaultDelayed, by Delay, on
// the time package's clock (virtual in a synctest bubble); FaultPartitioned, like FaultRefused for as long as the rule
// stays; FaultTransactionConflict or FaultReplicatedWriteConflict); and
// how often: with a Probability drawn from the server's seed
// ([WithSeed]; 0 means always), after the first After matching requests,
// at most Times times (0: no bound). It is the engine's own type.
type Rule = engine.Rule

// Inject adds a fault rule to the embedded engine and returns the function
// that removes it. Faults happen inside the server, after it has read the
// request, so a rule can name a table or a key, and FaultLostResponse
// applies the request for sure before the answer is lost. A test sharing
// the server of [New] names its own table in its rules and removes them
// with t.Cleanup. On another server Inject returns [ErrNotEmbedded].
func (s *Server) Inject(r Rule) (remove func(), err error) {
	if s.eng == nil {
		return nil, ErrNotEmbedded
	}
	if r.Fault <= FaultNone || r.Fault >= engine.NumFaults {
		return nil, fmt.Errorf("dynamolocal: Inject: fault %v is not one the engine injects", r.Fault)
	}
	return s.faults.Add(r), nil
}

// Injected returns how many requests the embedded engine's rules failed
// with fault (FaultNone: how many went through untouched); 0 on another
// server. FaultRefused and FaultPartitioned are counted together: to the
// client both are a connection dropped unapplied.
func (s *Server) Injected(fault Fault) int {
	if s.eng == nil {
		return 0
	}
	if fault == FaultRefused || fault == FaultPartitioned {
		return s.faults.Count(FaultRefused) + s.faults.Count(FaultPartitioned)
	}
	return s.faults.Count(fault)
}

// closeEmbedded stops the listener and waits for its goroutine.
func (s *Server) closeEmbedded() error {
	if s.http == nil { // served in memory alone
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), stopGrace)
	defer cancel()
	err := s.http.Shutdown(ctx)
	if err != nil {
		err = s.http.Close()
	}
	<-s.served
	return err
}

// StartEngine starts a server of the embedded engine with o, whatever
// [EnvEndpoint] and [EnvEngine] say; its [Server.Close] stops it.
func StartEngine(o Options) (*Server, error) { return startEmbedded(o) }

// NewEngine starts a server of the embedded engine for this test alone,
// with opts, and closes it at the test's cleanup. Unlike [New], it ignores
// [EnvEndpoint] and [EnvEngine]: what it offers (faults inside the server,
// an engine in a testing/synctest bubble) only the embedded engine has.
// Made inside a bubble with [WithoutListener], the engine runs on the
// bubble's virtual time: item TTLs expire, and client request tokens age,
// as the bubble's clock moves. Start fails the test.
func NewEngine(t testing.TB, opts ...Option) *Server {
	t.Helper()
	var o Options
	for _, f := range opts {
		if f != nil {
			f(&o)
		}
	}
	s, err := startEmbedded(o)
	if err != nil {
		t.Fatalf("dynamolocal: start the embedded engine: %v", err)
	}
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Errorf("dynamolocal: close the embedded engine: %v", err)
		}
	})
	return s
}
