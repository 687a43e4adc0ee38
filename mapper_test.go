package optimist_test

// The end-to-end suite: every package together against the test binary's
// DynamoDB (the embedded engine, or DynamoDB Local). This file holds the
// exactly-once suite; mapper_badinput_test.go holds the refusals of bad
// input by every package.
//
// No write is applied twice and reported as success. Concurrent clients, each behind its own seeded FaultTransport (lost responses after
// the server applied the request, refused connections, throttling, 500s,
// delays), increment one counter with Modify and Update and read it with
// Get; the history is checked for linearizability with porcupine, and the
// final item for duplicates, losses and writes reported failed that were
// applied. The same for money transfers through txn.

import (
	"context"
	"errors"
	"fmt"
	"math/bits"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/anishathalye/porcupine"
	"github.com/aws/aws-sdk-go-v2/aws/ratelimit"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/optimist-dynamo/optimist/dynamolocal"
	"github.com/optimist-dynamo/optimist/internal/ddbtest"
	"github.com/optimist-dynamo/optimist/mapper"
	"github.com/optimist-dynamo/optimist/txn"
	"github.com/optimist-dynamo/optimist/update"
	"github.com/optimist-dynamo/optimist/version"
)

// Tally is one shared counter: every increment adds 1 to N and its own id
// to IDs, in one write.
type Tally struct {
	ID      string   `dynamo:"id,hash"`
	N       int      `dynamo:"n"`
	IDs     []string `dynamo:"ids"`
	Version int64    `dynamo:"v,version"`
}

// faultMix is the fault mix of the suite: a quarter of all attempts fail
// (10% after being applied), a tenth more are delayed.
func faultMix(seed uint64) *dynamolocal.FaultTransport {
	return &dynamolocal.FaultTransport{
		Seed:         seed,
		LoseResponse: 0.10,
		Refuse:       0.05,
		Throttle:     0.05,
		ServerError:  0.05,
		Delay:        0.10,
		MaxDelay:     20 * time.Millisecond,
	}
}

// faultyClient is a client of srv behind ft, whose SDK retryer makes up to
// 10 attempts with short jittered waits and no retry quota, so that the
// SDK's retries run out only when ten attempts in a row fail (about 1e-6
// per call with the mix above).
func faultyClient(srv *dynamolocal.Server, ft *dynamolocal.FaultTransport) *dynamodb.Client {
	ft.Base = srv.Transport()
	return srv.NewClient(ft.Option(), func(o *dynamodb.Options) {
		o.Retryer = retry.NewStandard(func(so *retry.StandardOptions) {
			so.MaxAttempts = 10
			so.RateLimiter = ratelimit.None
			so.Backoff = retry.BackoffDelayerFunc(func(attempt int, _ error) (time.Duration, error) {
				return time.Duration(rand.Int64N(int64(5*time.Millisecond) << min(attempt, 4))), nil
			})
		})
	})
}

// outcome of a write as its caller saw it.
type outcome int

const (
	applied    outcome = iota // nil error
	notApplied                // an error that says nothing was written
	unknown                   // version.ErrUnknownOutcome
)

func outcomeOf(err error) outcome {
	switch {
	case err == nil:
		return applied
	case errors.Is(err, version.ErrUnknownOutcome):
		return unknown
	}
	return notApplied
}

// history records operations for porcupine. Its times are a counter
// drawn before each call and after each return, not a clock: in a
// testing/synctest bubble the clock stands still while requests are
// served, and the counter still orders a return before every call that
// follows it.
type history struct {
	start time.Time
	tick  atomic.Int64
	mu    sync.Mutex
	ops   []porcupine.Operation
}

func (h *history) now() int64 { return h.tick.Add(1) }

func (h *history) add(client int, in any, call int64, out any) {
	ret := h.now()
	h.mu.Lock()
	h.ops = append(h.ops, porcupine.Operation{ClientId: client, Input: in, Call: call, Output: out, Return: ret})
	h.mu.Unlock()
}

type tallyIn struct {
	inc bool
	id  string // of an increment
	bit int    // the increment's place in the state's bitset
}

type tallyOut struct {
	outcome outcome // of an increment
	ids     string  // read by a Get, sorted and joined by ","
	set     string  // the same as a bitset (see tallyState)
	bad     bool    // the Get read an id twice, or one never sent
	n       int
}

// tallyState is the model's state: the set of increments applied, as a
// bitset (bit c*perClient+i for increment i of client c) in a string, so
// that a step costs a copy of a few dozen bytes. A set, not a multiset:
// each increment is made once, so a Get that reads an id twice (or one
// never sent) marks its output bad, and a bad output matches no state.
func tallyState(bits int) string { return string(make([]byte, (bits+7)/8)) }

func withBit(state string, bit int) string {
	b := []byte(state)
	b[bit/8] |= 1 << (bit % 8)
	return string(b)
}

// tallyModel checks the counter workload of clients x perClient
// increments, each followed by a Get. (The order of the list a Get reads
// is left out: it is not what exactly-once is about, and with it every
// order of concurrent increments would be a state of its own.) An
// increment of unknown outcome may or may not have been applied. Every
// request in these tests has finished at the server before its caller hears
// of its failure (a lost response is read whole first; a refused, throttled
// or 500 request is never sent), so an operation takes effect between its
// call and its return, unknown ones included.
func tallyModel(bits int) porcupine.NondeterministicModel {
	return porcupine.NondeterministicModel{
		Init: func() []any { return []any{tallyState(bits)} },
		Step: func(state, input, output any) []any {
			s, in, out := state.(string), input.(tallyIn), output.(tallyOut)
			if !in.inc {
				if !out.bad && out.set == s && out.n == countBits(s) {
					return []any{s}
				}
				return nil
			}
			switch out.outcome {
			case applied:
				return []any{withBit(s, in.bit)}
			case notApplied:
				return []any{s}
			}
			return []any{s, withBit(s, in.bit)}
		},
		Equal: func(a, b any) bool { return a.(string) == b.(string) },
		DescribeOperation: func(input, output any) string {
			in, out := input.(tallyIn), output.(tallyOut)
			if in.inc {
				return fmt.Sprintf("inc(%s) -> %d", in.id, out.outcome)
			}
			return fmt.Sprintf("get -> n=%d [%s]", out.n, out.ids)
		},
	}
}

// readOut is a Get's output: the ids it read, as a bitset of bits bits.
func readOut(ids []string, n, perClient, bits int) tallyOut {
	out := tallyOut{ids: strings.Join(slices.Sorted(slices.Values(ids)), ","), n: n}
	set := []byte(tallyState(bits))
	for _, id := range ids {
		var c, i int
		_, err := fmt.Sscanf(id, "c%d-%d", &c, &i)
		bit := c*perClient + i
		if err != nil || c < 0 || i < 0 || i >= perClient || bit >= bits {
			out.bad = true // an id never sent
			continue
		}
		if set[bit/8]&(1<<(bit%8)) != 0 {
			out.bad = true // read twice
		}
		set[bit/8] |= 1 << (bit % 8)
	}
	out.set = string(set)
	return out
}

func countBits(s string) int {
	n := 0
	for i := range len(s) {
		n += bits.OnesCount8(s[i])
	}
	return n
}

// tallyRun is what one run of the counter workload gave.
type tallyRun struct {
	ops                          int // increments
	applied, failed, unknown     int
	duplicates, lost, failedSeen int
	unknownApplied               int
	unknownByAPI                 [2]int // Modify, Update
	linearizable                 bool
	calls                        int // HTTP requests, retries included
	faults                       map[dynamolocal.Fault]int
	failures                     []string
	wall                         time.Duration
}

// runTally runs clients x perClient increments (even ones with Modify, odd
// ones with Update(Add n 1, Append ids)), each followed by a consistent Get,
// with every client behind its own fault transport.
func runTally(t *testing.T, clients, perClient int, seed uint64, opts ...func(*mapper.TableOptions)) tallyRun {
	t.Helper()
	srv := dynamolocal.NewEngine(t, dynamolocal.WithoutListener())
	raw := srv.Client()
	name := ddbtest.CreateTable(t, raw, "id", types.ScalarAttributeTypeS, "", "")
	clean, err := mapper.NewTable[Tally](raw, name)
	require.NoError(t, err)
	ctx := context.Background()
	require.NoError(t, clean.Put(ctx, &Tally{ID: "t", IDs: []string{}}))

	h := &history{start: time.Now()}
	transports := make([]*dynamolocal.FaultTransport, clients)
	outcomes := make([][]outcome, clients)
	failures := make([][]string, clients)
	var wg sync.WaitGroup
	for c := range clients {
		transports[c] = faultMix(seed + uint64(c))
		table, err := mapper.NewTable[Tally](faultyClient(srv, transports[c]), name, opts...)
		require.NoError(t, err)
		outcomes[c] = make([]outcome, perClient)
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range perClient {
				id := fmt.Sprintf("c%d-%d", c, i)
				call := h.now()
				var err error
				if i%2 == 0 {
					_, err = table.Modify(ctx, Tally{ID: "t"}, func(x *Tally) error {
						x.N++
						x.IDs = append(x.IDs, id)
						return nil
					})
				} else {
					_, err = table.Update(ctx, Tally{ID: "t"}, update.Add("n", 1).Append("ids", id))
				}
				o := outcomeOf(err)
				outcomes[c][i] = o
				if err != nil {
					failures[c] = append(failures[c], err.Error())
				}
				h.add(c, tallyIn{inc: true, id: id, bit: c*perClient + i}, call, tallyOut{outcome: o})

				call = h.now()
				got, err := table.Get(ctx, Tally{ID: "t"})
				if err == nil { // a failed read has no effect to check
					h.add(c, tallyIn{}, call, readOut(got.IDs, got.N, perClient, clients*perClient))
				}
			}
		}()
	}
	wg.Wait()
	run := tallyRun{ops: clients * perClient, wall: time.Since(h.start), faults: map[dynamolocal.Fault]int{}}

	final, err := clean.Get(ctx, Tally{ID: "t"})
	require.NoError(t, err)
	assert.Equal(t, len(final.IDs), final.N, "n counts the ids appended with it")
	seen := map[string]int{}
	for _, id := range final.IDs {
		seen[id]++
	}
	for c := range clients {
		for i, o := range outcomes[c] {
			n := seen[fmt.Sprintf("c%d-%d", c, i)]
			if n > 1 {
				run.duplicates++
			}
			switch o {
			case applied:
				run.applied++
				if n == 0 {
					run.lost++
				}
			case notApplied:
				run.failed++
				if n > 0 {
					run.failedSeen++
				}
			case unknown:
				run.unknown++
				run.unknownByAPI[i%2]++
				if n > 0 {
					run.unknownApplied++
				}
			}
		}
		run.failures = append(run.failures, failures[c]...)
		for f := dynamolocal.FaultNone; f <= dynamolocal.FaultPartitioned; f++ {
			n := transports[c].Count(f)
			run.faults[f] += n
			run.calls += n
		}
	}
	t.Logf("%d increments in %v, %d HTTP requests; faults %v; applied %d, failed %d, unknown %d (Modify %d, Update %d; %d of them applied); duplicates %d, lost %d, failed but applied %d",
		run.ops, run.wall.Round(time.Millisecond), run.calls, run.faults, run.applied, run.failed, run.unknown, run.unknownByAPI[0], run.unknownByAPI[1], run.unknownApplied,
		run.duplicates, run.lost, run.failedSeen)
	checkStart := time.Now()
	// An increment of unknown outcome is checked as what the final item
	// shows it was: applied if its id is there (once: duplicates are
	// counted above), not applied if not. That is stricter than letting
	// the model try both, and it spares the check a search that doubles
	// with every unknown outcome in flight.
	for k, op := range h.ops {
		in, out := op.Input.(tallyIn), op.Output.(tallyOut)
		if in.inc && out.outcome == unknown {
			out.outcome = notApplied
			if seen[in.id] > 0 {
				out.outcome = applied
			}
			h.ops[k].Output = out
		}
	}
	model := tallyModel(clients * perClient)
	res := porcupine.CheckOperationsTimeout(model.ToModel(), h.ops, 3*time.Minute)
	t.Logf("linearizability check: %v in %v", res, time.Since(checkStart).Round(time.Millisecond))
	run.linearizable = res == porcupine.Ok
	require.NotEqual(t, porcupine.Unknown, res, "the linearizability check timed out")
	return run
}

// requireSound asserts on a run that no write was applied twice and
// reported as success.
func requireSound(t *testing.T, run tallyRun) {
	t.Helper()
	assert.True(t, run.linearizable, "the history is linearizable")
	assert.Zero(t, run.duplicates, "no increment applied twice")
	assert.Zero(t, run.lost, "no increment reported applied is missing")
	assert.Zero(t, run.failedSeen, "no increment reported failed was applied")
	assert.Greater(t, run.faults[dynamolocal.FaultLostResponse], 10, "the run met lost responses")
	assert.Greater(t, run.faults[dynamolocal.FaultServerError], 5, "the run met 500s")
}

// TestExactlyOnceUnderFaults: 10 clients x 24 increments of one counter
// (Modify and Update mixed) with Gets, under the fault mix. Default mode:
// linearizable, 0 duplicates, 0 lost, 0 failed-but-applied; lost answers
// that cannot be settled are unknown outcomes. ExactlyOnce: the same, and no
// unknown outcome at all. Each mode runs in a testing/synctest bubble on
// an engine of its own: the faults' delays, the SDK's backoffs and
// Modify's turns pass in virtual time.
func TestExactlyOnceUnderFaults(t *testing.T) {
	t.Run("default", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			run := runTally(t, 10, 24, 1)
			requireSound(t, run)
			for _, f := range run.failures {
				if !strings.Contains(f, "outcome unknown") {
					t.Errorf("an increment failed without being an unknown outcome: %s", f)
				}
			}
		})
	})
	t.Run("ExactlyOnce", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			run := runTally(t, 10, 24, 1, func(o *mapper.TableOptions) { o.ExactlyOnce = true })
			requireSound(t, run)
			assert.Zero(t, run.unknown, "ExactlyOnce resends lost answers safely: no unknown outcome")
			assert.Zero(t, run.failed, "every increment applied: %v", run.failures)
		})
	})
}

// Account is a bank account for the transfer workload: Applied lists the
// transfers applied to it, so a transfer applied twice shows.
type Account struct {
	ID      string   `dynamo:"id,hash"`
	Balance int      `dynamo:"balance"`
	Applied []string `dynamo:"applied"`
	Version int64    `dynamo:"v,version"`
}

// TestTransfersUnderFaults: 8 clients move money among 5 accounts through
// txn (read both accounts, write both with version checks), each behind its
// own fault transport. A conflict is retried by reading again; an unknown
// outcome is settled by committing the same ops again with the same token,
// as the txn docs say. The total is conserved and no transfer is applied
// twice or half. It runs in a testing/synctest bubble on an engine of its
// own: the faults' delays and the SDK's backoffs pass in virtual time.
func TestTransfersUnderFaults(t *testing.T) {
	synctest.Test(t, testTransfersUnderFaults)
}

func testTransfersUnderFaults(t *testing.T) {
	srv := dynamolocal.NewEngine(t, dynamolocal.WithoutListener())
	raw := srv.Client()
	name := ddbtest.CreateTable(t, raw, "id", types.ScalarAttributeTypeS, "", "")
	clean, err := mapper.NewTable[Account](raw, name)
	require.NoError(t, err)
	ctx := context.Background()
	const accounts, start = 5, 1000
	for i := range accounts {
		require.NoError(t, clean.Put(ctx, &Account{ID: fmt.Sprint(i), Balance: start, Applied: []string{}}))
	}

	const clients, perClient = 8, 15
	var mu sync.Mutex
	reported := map[string]outcome{}
	resends := 0
	var wg sync.WaitGroup
	transports := make([]*dynamolocal.FaultTransport, clients)
	for c := range clients {
		transports[c] = faultMix(100 + uint64(c))
		transports[c].Ops = []string{"TransactWriteItems", "GetItem"}
		table, err := mapper.NewTable[Account](faultyClient(srv, transports[c]), name)
		require.NoError(t, err)
		rng := rand.New(rand.NewPCG(uint64(c), 7))
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range perClient {
				id := fmt.Sprintf("x%d-%d", c, i)
				from, to := rng.IntN(accounts), rng.IntN(accounts-1)
				if to >= from {
					to++
				}
				o, n := transfer(ctx, table, id, fmt.Sprint(from), fmt.Sprint(to), 1+rng.IntN(20))
				mu.Lock()
				reported[id] = o
				resends += n
				mu.Unlock()
			}
		}()
	}
	wg.Wait()

	total, appliedTo := 0, map[string]int{}
	for i := range accounts {
		a, err := clean.Get(ctx, Account{ID: fmt.Sprint(i)})
		require.NoError(t, err)
		total += a.Balance
		for _, id := range a.Applied {
			appliedTo[id]++
		}
	}
	assert.Equal(t, accounts*start, total, "money is conserved")
	var ok, unknowns, dup, lost, half int
	for id, o := range reported {
		n := appliedTo[id]
		switch {
		case n > 2:
			dup++
		case n == 1:
			half++
		}
		if o == applied {
			ok++
			if n == 0 {
				lost++
			}
		}
		if o == unknown {
			unknowns++
		}
	}
	lostAnswers := 0
	for _, ft := range transports {
		lostAnswers += ft.Count(dynamolocal.FaultLostResponse)
	}
	t.Logf("%d transfers: %d committed, %d unknown after resending; %d resends with the same token; %d lost answers injected",
		len(reported), ok, unknowns, resends, lostAnswers)
	assert.Zero(t, dup, "no transfer applied twice")
	assert.Zero(t, half, "no transfer applied to one account only")
	assert.Zero(t, lost, "every committed transfer is there")
	assert.Zero(t, unknowns, "resending with the same token settles every unknown outcome")
	assert.Greater(t, lostAnswers, 5)
}

// transfer moves amount from one account to another in a transaction,
// retrying conflicts by reading again and settling unknown outcomes by
// committing the same ops with the same token. It returns the outcome and
// how many times it resent with the same token.
func transfer(ctx context.Context, table *mapper.Table[Account], id, from, to string, amount int) (outcome, int) {
	resends := 0
	for range 50 {
		a, err := table.Get(ctx, Account{ID: from})
		if err != nil {
			continue
		}
		b, err := table.Get(ctx, Account{ID: to})
		if err != nil {
			continue
		}
		if a.Balance < amount {
			return notApplied, resends
		}
		a.Balance -= amount
		b.Balance += amount
		a.Applied = append(a.Applied, id)
		b.Applied = append(b.Applied, id)
		tx := txn.New(table.Client())
		ops := func() []txn.Op { return []txn.Op{table.PutOp(a), table.PutOp(b)} }
		_ = tx.Add(ops()...)
		err = tx.Commit(ctx)
		for i := 0; errors.Is(err, version.ErrUnknownOutcome) && i < 5; i++ {
			var uo *version.UnknownOutcomeError
			errors.As(err, &uo)
			again := txn.New(table.Client(), txn.Token(uo.Token))
			_ = again.Add(ops()...)
			err = again.Commit(ctx)
			resends++
		}
		switch {
		case err == nil:
			return applied, resends
		case version.IsConflict(err):
			continue
		}
		return outcomeOf(err), resends
	}
	return notApplied, resends
}

// TestTallyModel: the linearizability check of the counter workload can
// fail. An increment applied twice (a Get reads its id twice), an applied
// increment that a later Get does not show, and a failed one that it shows
// are each refused; an unknown outcome is accepted either way.
func TestTallyModel(t *testing.T) {
	const perClient, total = 2, 4 // two clients, two increments each
	inc := func(client, i int, o outcome, call, ret int64) porcupine.Operation {
		return porcupine.Operation{ClientId: client, Input: tallyIn{inc: true, id: fmt.Sprintf("c%d-%d", client, i), bit: client*perClient + i},
			Output: tallyOut{outcome: o}, Call: call, Return: ret}
	}
	get := func(client int, ids []string, call, ret int64) porcupine.Operation {
		return porcupine.Operation{ClientId: client, Input: tallyIn{}, Output: readOut(ids, len(ids), perClient, total), Call: call, Return: ret}
	}
	model := tallyModel(total)
	check := func(ops ...porcupine.Operation) porcupine.CheckResult {
		return porcupine.CheckOperationsTimeout(model.ToModel(), ops, 10*time.Second)
	}
	assert.Equal(t, porcupine.Ok, check(
		inc(0, 0, applied, 0, 10), inc(1, 0, unknown, 5, 15), get(0, []string{"c1-0", "c0-0"}, 20, 30),
		inc(1, 1, unknown, 31, 40), get(1, []string{"c0-0", "c1-0"}, 41, 50),
	), "unknown outcomes, one applied and one not")
	assert.Equal(t, porcupine.Illegal, check(
		inc(0, 0, unknown, 0, 10), get(0, []string{"c0-0", "c0-0"}, 20, 30),
	), "an increment applied twice")
	assert.Equal(t, porcupine.Illegal, check(
		inc(0, 0, applied, 0, 10), get(1, []string{}, 20, 30),
	), "an applied increment lost")
	assert.Equal(t, porcupine.Illegal, check(
		inc(0, 0, notApplied, 0, 10), get(1, []string{"c0-0"}, 20, 30),
	), "a failed increment applied")
	assert.Equal(t, porcupine.Illegal, check(
		inc(0, 0, unknown, 0, 10), get(1, []string{"c0-0"}, 20, 30), get(1, []string{}, 31, 40),
	), "an unknown outcome seen applied, then gone")
	assert.Equal(t, porcupine.Illegal, check(get(0, []string{"c9-0"}, 0, 1)), "an id never sent")
}
