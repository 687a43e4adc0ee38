//go:build go1.26

package dynamolocal

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"hash/fnv"
	"io"
	"math/rand/v2"
	"net/http"
	"slices"
	"sync"
	"testing"
	"testing/cryptotest"
	"testing/synctest"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/smithy-go/middleware"

	"github.com/optimist-dynamo/optimist/internal/engine"
	"github.com/optimist-dynamo/optimist/internal/procmem"
	"github.com/optimist-dynamo/optimist/internal/simhook"
)

// The flags of simulation tests: -sim.seed replays one seed, -sim.seeds
// sets how many seeds [SimSeeds] returns.
var (
	simSeed  = flag.Uint64("sim.seed", 0, "run the simulations with this seed alone (replay)")
	simSeeds = flag.Int("sim.seeds", 0, "how many seeds each simulation runs (0: the test's own count)")
)

// SimSeeds returns the seeds a simulation test runs: the seed of
// -sim.seed alone if it is set (to replay a failure), else 1 to n, n being
// -sim.seeds if it is set, else def.
func SimSeeds(def int) []uint64 {
	if *simSeed != 0 {
		return []uint64{*simSeed}
	}
	n := def
	if *simSeeds > 0 {
		n = *simSeeds
	}
	seeds := make([]uint64, n)
	for i := range seeds {
		seeds[i] = uint64(i + 1)
	}
	return seeds
}

// ErrCrashed is the message of the answers a crashed client's requests
// get when the simulation ends (error code SimulationEnded).
var ErrCrashed = errors.New("dynamolocal: the simulated client crashed")

// simDrain is how long Simulate waits, in virtual time, for the library's
// goroutines to stop once the workload is done.
const simDrain = 2 * time.Minute

// ended is the answer to a request of a crashed client once the workload
// is done, or of anyone after the simulation ended: a client error, which
// the SDK does not retry, so that the goroutines still running stop.
func ended(req *http.Request, err error) *http.Response {
	return errorResponse(req, http.StatusBadRequest, "SimulationEnded", err.Error())
}

// ErrSimEnded is the message of the answer to a request sent after the
// simulation ended, by a goroutine of the library still running then
// (error code SimulationEnded).
var ErrSimEnded = errors.New("dynamolocal: the simulation has ended")

// SimResult is what a simulation served.
type SimResult struct {
	// Digest is the SHA-256 of the transcript: equal digests, equal
	// histories.
	Digest string
	// Transcript has one line per request served: virtual time, client,
	// the client's request number, operation, the request and the answer
	// as canonical JSON (keys sorted), and the fault if any.
	Transcript []string
}

// Sim is one simulation run by [Simulate]: an embedded engine made in a
// testing/synctest bubble, named clients that reach it through a
// scheduler, and the faults and crashes of each client. Its methods are
// safe for concurrent use, from the bubble's goroutines.
type Sim struct {
	// T is the bubble's test.
	T    *testing.T
	seed uint64

	eng    *engine.Engine
	faults *engine.Faults
	pick   *rand.Rand // the scheduler's draws
	start  time.Time
	ctx    context.Context
	end    context.CancelFunc

	mu       sync.Mutex
	cond     *sync.Cond // signals a change of running
	clients  map[string]*simClient
	pending  []*simCall
	starts   []func()  // actors waiting for their turn to start
	woken    []simWake // the library's goroutines waiting for their turn (see simhook)
	tickets  uint64    // the last ticket given (see simhook.Scheduler)
	running  int       // actors neither returned nor crashed
	ending   bool      // the workload is done: crashed clients' calls fail at once
	closed   bool      // the scheduler is gone: every call fails at once
	exited   chan struct{}
	over     chan struct{} // closed when the workload is done: crashed clients' calls fail
	actors   int           // actor goroutines not returned
	kick     chan struct{}
	stop     chan struct{}
	lines    []string
	schedErr error
}

type simClient struct {
	sim        *Sim
	name       string
	client     *dynamodb.Client
	ctx        context.Context // ends at the client's crash, or the simulation's end
	cancel     context.CancelFunc
	dead       chan struct{} // closed at its crash
	faults     *engine.Faults
	rng        *rand.Rand
	n          int // requests served
	live       int // actors running on it
	crashAfter int
	crashed    bool
	cutUntil   time.Time

	backoffMu sync.Mutex
	backoff   *rand.Rand // the SDK's retry jitter
}

// BackoffDelay is the SDK's backoff before retry attempt (from 1): up to
// 2^attempt seconds, at most 20, drawn from the client's seeded stream.
func (c *simClient) BackoffDelay(attempt int, _ error) (time.Duration, error) {
	c.backoffMu.Lock()
	defer c.backoffMu.Unlock()
	ceiling := min(time.Second<<min(attempt, 5), 20*time.Second)
	return time.Duration(c.backoff.Int64N(int64(ceiling)) + 1), nil
}

type simCall struct {
	c      *simClient
	req    *http.Request
	body   []byte
	key    string
	ticket uint64 // its caller's turn once the answer or its context's end wakes it
	reply  chan simReply
	gone   bool
}

type simReply struct {
	resp    *http.Response
	err     error
	latency time.Duration
}

// Simulate runs workload in a testing/synctest bubble, on a fresh
// embedded engine made in the bubble (so that its time is the bubble's),
// with seed fixing the whole history: the order in which concurrent
// requests are served and the library's goroutines run, the faults drawn,
// and the library's random choices (crypto/rand is seeded with
// [cryptotest.SetGlobalRandom], so t must not be parallel). When workload returns, Simulate waits for the actors
// started by [Sim.Go] that have not crashed, ends every client's context,
// fails the crashed clients' requests with [ErrCrashed], and returns what
// was served. If the test failed, it logs the seed and how to replay it.
func Simulate(t *testing.T, seed uint64, workload func(s *Sim)) SimResult {
	t.Helper()
	cryptotest.SetGlobalRandom(t, seed)
	// Each run is a new world: what the library remembers per process
	// (tables found not global, units alive here) was of the last one.
	procmem.Forget()
	var res SimResult
	synctest.Test(t, func(t *testing.T) {
		s := newSim(t, seed)
		defer simhook.Install(simGate{s})()
		done := make(chan struct{})
		go func() { defer close(done); s.schedule() }()
		workload(s)
		s.Wait()
		s.finish()
		<-done
		// The library's goroutines still running (a dead unit's sends,
		// an SDK backoff) meet ErrSimEnded and stop within this virtual
		// time; a bubble ends only with its goroutines.
		time.Sleep(simDrain)
		if s.schedErr != nil {
			t.Error(s.schedErr)
		}
		res = s.result()
	})
	if t.Failed() {
		t.Logf("simulation seed %d failed; replay it with: go test -run '^%s$' -sim.seed=%d", seed, t.Name(), seed)
	}
	return res
}

func newSim(t *testing.T, seed uint64) *Sim {
	faults := engine.NewFaults(seed)
	s := &Sim{
		T:       t,
		seed:    seed,
		faults:  faults,
		eng:     engine.New(func(o *engine.Options) { o.Faults = faults }),
		pick:    rand.New(rand.NewPCG(seed, 0x5ced)),
		start:   time.Now(),
		clients: map[string]*simClient{},
		kick:    make(chan struct{}, 1),
		stop:    make(chan struct{}),
		exited:  make(chan struct{}, 1),
		over:    make(chan struct{}),
	}
	s.cond = sync.NewCond(&s.mu)
	s.ctx, s.end = context.WithCancel(context.Background())
	return s
}

// Seed is the simulation's seed.
func (s *Sim) Seed() uint64 { return s.seed }

// Context is the context of the simulation's clients: it ends when the
// simulation does.
func (s *Sim) Context() context.Context { return s.ctx }

// Client returns the client named name, made on first use: its own
// [*dynamodb.Client], whose requests reach the engine through the
// scheduler. Use one goroutine per client (see [Sim.Go]) for a history
// the seed fixes: the requests of goroutines that share a client are
// told apart by their bodies alone.
func (s *Sim) Client(name string) *dynamodb.Client {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.clientLocked(name).client
}

func (s *Sim) clientLocked(name string) *simClient {
	if c, ok := s.clients[name]; ok {
		return c
	}
	h := fnv.New64a()
	h.Write([]byte(name))
	c := &simClient{sim: s, name: name, faults: engine.NewFaults(s.seed ^ h.Sum64()),
		rng: rand.New(rand.NewPCG(s.seed, h.Sum64()))}
	c.ctx, c.cancel = context.WithCancel(s.ctx)
	c.dead = make(chan struct{})
	c.backoff = rand.New(rand.NewPCG(s.seed^0xb0ff, h.Sum64()))
	c.client = dynamodb.New(dynamodb.Options{
		HTTPClient: c,
		// No draw from crypto/rand per request (its invocation id, a
		// header) nor per retry (its backoffs' jitter comes from the
		// client's stream): the SDK sends a retry after a sleep of its
		// own, which the simulation does not order (see simGate), and a
		// draw then could shift the library's draws that follow.
		APIOptions: []func(*middleware.Stack) error{func(st *middleware.Stack) error {
			_, err := st.Build.Remove("ClientRequestID")
			return err
		}},
		Retryer: retry.NewStandard(func(o *retry.StandardOptions) { o.Backoff = c }),
		Region:  Region,
		Credentials: aws.CredentialsProviderFunc(func(context.Context) (aws.Credentials, error) {
			return aws.Credentials{AccessKeyID: AccessKeyID, SecretAccessKey: SecretAccessKey, Source: "dynamolocal"}, nil
		}),
	}, engine.ClientOptions(inMemoryEndpoint)) // unsigned, as every in-memory client
	s.clients[name] = c
	return c
}

// Rand returns the seeded random stream of the client named name, for the
// workload's own choices on that client's goroutine (not safe for
// concurrent use).
func (s *Sim) Rand(name string) *rand.Rand {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.clientLocked(name).rng
}

// Go runs f as an actor on the client named name, with the client's
// context, which ends when the client crashes or the simulation ends.
// Actors start one at a time, in the order Go was called, each once
// everything started before it is blocked.
func (s *Sim) Go(name string, f func(ctx context.Context, c *dynamodb.Client)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c := s.clientLocked(name)
	c.live++
	s.running++
	s.actors++
	s.starts = append(s.starts, func() {
		defer func() {
			s.mu.Lock()
			c.live--
			if !c.crashed {
				s.running--
				s.cond.Broadcast()
			}
			s.actors--
			if s.actors == 0 {
				s.exited <- struct{}{}
			}
			s.mu.Unlock()
		}()
		f(c.ctx, c.client)
	})
	s.poke()
}

// Wait waits until every actor has returned or crashed. Use it, not
// synctest.Wait, inside a simulation: the scheduler calls synctest.Wait.
func (s *Sim) Wait() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for s.running > 0 || len(s.starts) > 0 {
		s.cond.Wait()
	}
}

// Inject adds a fault rule for every client's requests; it returns the
// function that removes it.
func (s *Sim) Inject(r Rule) (remove func()) { return s.faults.Add(r) }

// InjectClient adds a fault rule for the requests of the client named name
// alone: its After and Times count that client's matching requests, so
// Rule{After: n - 1, Times: 1, ...} is the client's n-th request. It is
// tried before the rules of [Sim.Inject].
func (s *Sim) InjectClient(name string, r Rule) (remove func()) {
	s.mu.Lock()
	c := s.clientLocked(name)
	s.mu.Unlock()
	return c.faults.Add(r)
}

// CrashAfter makes the client named name crash once it has sent n more
// requests: the n-th is applied and its answer never arrives (n 0: it
// crashes at once). At its crash the client's context (the one [Sim.Go]
// gives its actors) ends, and from then on its requests reach nothing:
// each, and each that was waiting for its turn, blocks until the
// simulation ends, whatever its context, and then fails with
// [ErrCrashed]. So a goroutine of the client, the library's included,
// that sends a request is not run again before the end, and none does
// anything more that the engine sees; its actors stop counting for
// [Sim.Wait].
func (s *Sim) CrashAfter(name string, n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c := s.clientLocked(name)
	if n <= 0 {
		s.crashLocked(c)
		return
	}
	c.crashAfter = c.n + n
}

func (s *Sim) crashLocked(c *simClient) {
	if c.crashed {
		return
	}
	c.crashed = true
	c.cancel()
	close(c.dead)
	// Its calls waiting for their turn are never served: their
	// goroutines see the context end and wait for the simulation's.
	s.pending = slices.DeleteFunc(s.pending, func(call *simCall) bool { return call.c == c })
	s.running -= c.live
	s.cond.Broadcast()
	s.lines = append(s.lines, fmt.Sprintf("%v %s crashed", time.Since(s.start), c.name))
}

// Cut cuts the client named name off for d of virtual time: its requests
// in that time are refused unapplied, as a network cut refuses them.
func (s *Sim) Cut(name string, d time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.clientLocked(name).cutUntil = time.Now().Add(d)
}

// Crashed reports whether the client named name has crashed.
func (s *Sim) Crashed(name string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	c, ok := s.clients[name]
	return ok && c.crashed
}

// poke wakes the scheduler; s.mu is held.
func (s *Sim) poke() {
	select {
	case s.kick <- struct{}{}:
	default:
	}
}

// finish ends the simulation once the workload and its live actors are
// done: contexts end, crashed clients' calls fail, the actors exit, the
// scheduler stops.
func (s *Sim) finish() {
	s.end()
	s.mu.Lock()
	s.ending = true
	close(s.over)
	n := s.actors
	s.mu.Unlock()
	if n > 0 {
		<-s.exited
	}
	close(s.stop)
}

func (s *Sim) result() SimResult {
	h := sha256.New()
	for _, l := range s.lines {
		h.Write([]byte(l))
		h.Write([]byte{'\n'})
	}
	return SimResult{Digest: hex.EncodeToString(h.Sum(nil)), Transcript: s.lines}
}

// Transcript returns the lines served so far (see [SimResult]).
func (s *Sim) Transcript() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.lines)
}

// Do sends one request of the client through the scheduler.
func (c *simClient) Do(req *http.Request) (*http.Response, error) {
	var body []byte
	if req.Body != nil {
		var err error
		body, err = io.ReadAll(req.Body)
		req.Body.Close()
		if err != nil {
			return nil, err
		}
	}
	s := c.sim
	call := &simCall{c: c, req: req, body: body, reply: make(chan simReply, 1),
		key: c.name + "\x00" + req.Header.Get("X-Amz-Target") + "\x00" + canonical(body)}
	s.mu.Lock()
	switch {
	case s.closed:
		s.mu.Unlock()
		return ended(req, ErrSimEnded), nil
	case c.crashed && s.ending:
		s.mu.Unlock()
		return ended(req, ErrCrashed), nil
	case c.crashed:
		s.mu.Unlock()
		<-s.over
		return ended(req, ErrCrashed), nil
	default:
		call.ticket = s.ticketLocked()
		s.pending = append(s.pending, call)
		s.poke()
	}
	s.mu.Unlock()
	select {
	case r := <-call.reply:
		time.Sleep(r.latency)
		s.resume(call.ticket)
		if s.crashedNow(c) { // it crashed while the answer travelled
			<-s.over
			return ended(req, ErrCrashed), nil
		}
		return r.resp, r.err
	case <-c.dead:
		// Whatever the request's context (the library sends some on a
		// context of its own), its goroutine stays blocked until the
		// simulation ends.
		<-s.over
		return ended(req, ErrCrashed), nil
	case <-req.Context().Done():
		s.resume(call.ticket)
		if s.crashedNow(c) { // the crash ended it
			<-s.over
			return ended(req, ErrCrashed), nil
		}
		s.mu.Lock()
		call.gone = true
		s.mu.Unlock()
		return nil, req.Context().Err()
	}
}

// crashedNow reports whether c crashed and the simulation goes on.
func (s *Sim) crashedNow(c *simClient) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return c.crashed && !s.ending
}
