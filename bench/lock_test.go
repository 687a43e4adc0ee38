package bench

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/optimist-dynamo/optimist/dynamolocal"
	"github.com/optimist-dynamo/optimist/internal/ddbtest"
	"github.com/optimist-dynamo/optimist/pessimistic"
)

// The lock benchmarks run on the server dynamolocal.New gives (the
// embedded engine by default; OPTIMIST_ENGINE=dynamodb-local or
// DYNAMODB_ENDPOINT for another). The peer, cirello-io/dynamolock/v2,
// cannot be added to go.mod: the Go module proxy available here refuses it
// (403). BenchmarkLockContenders runs a model of its protocol instead
// (lockmodel_test.go).

// lockTable creates a lock table for one benchmark.
func lockTable(b *testing.B) (*dynamolocal.Server, string) {
	b.Helper()
	srv := dynamolocal.New(b)
	name := ddbtest.TableName(b)
	if err := pessimistic.CreateTable(context.Background(), srv.Client(), name); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		_, _ = srv.Client().DeleteTable(context.Background(), &dynamodb.DeleteTableInput{TableName: aws.String(name)})
	})
	return srv, name
}

// queued returns how many waiters the FIFO queue of lock name holds.
func queued(ctx context.Context, c *dynamodb.Client, table, name string) (int, error) {
	out, err := c.GetItem(ctx, &dynamodb.GetItemInput{
		TableName:      aws.String(table),
		Key:            map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: name}, "sk": &types.AttributeValueMemberS{Value: "lock"}},
		ConsistentRead: aws.Bool(true),
	})
	if err != nil {
		return 0, err
	}
	qt, _ := out.Item["qt"].(*types.AttributeValueMemberM)
	if qt == nil {
		return 0, nil
	}
	return len(qt.Value), nil
}

// BenchmarkFIFOJoin: N waiters arrive at once at a FIFO lock that someone
// holds; calls/join is every call they made (joins, and the reads of those
// already queued) until all N are queued, per waiter. Before the queue
// moved into the lock's record it was 6.9 / 18.7 / 31.5 at N = 10 / 50 /
// 100, growing as N².
func BenchmarkFIFOJoin(b *testing.B) {
	for _, n := range []int{10, 100} {
		b.Run(fmt.Sprintf("N=%d", n), func(b *testing.B) {
			srv, table := lockTable(b)
			calls := ddbtest.NewCounting(srv.Client())
			holderLocker, err := pessimistic.New(srv.Client(), table, pessimistic.FIFO(), pessimistic.Owner("holder"))
			if err != nil {
				b.Fatal(err)
			}
			defer holderLocker.Close()
			waiters, err := pessimistic.New(calls, table, pessimistic.FIFO())
			if err != nil {
				b.Fatal(err)
			}
			if err := waiters.Check(context.Background()); err != nil { // New makes no call; check before counting
				b.Fatal(err)
			}
			defer waiters.Close()
			var total int64
			b.ResetTimer()
			for i := range b.N {
				total += joinOnce(b, srv.Client(), calls, holderLocker, waiters, table, fmt.Sprintf("lock-%d", i), n)
			}
			b.ReportMetric(float64(total)/float64(b.N*n), "calls/join")
		})
	}
}

// joinOnce runs one round of BenchmarkFIFOJoin and returns the calls made
// until all n waiters were queued.
func joinOnce(b *testing.B, raw *dynamodb.Client, calls *ddbtest.CountingClient, holderLocker, waiters *pessimistic.Locker, table, name string, n int) int64 {
	ctx := context.Background()
	held, err := holderLocker.Acquire(ctx, name)
	if err != nil {
		b.Fatal(err)
	}
	wctx, cancel := context.WithCancel(ctx)
	start := make(chan struct{})
	var wg sync.WaitGroup
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			_, err := waiters.Acquire(wctx, name)
			if !errors.Is(err, context.Canceled) {
				b.Errorf("a waiter got %v, want context.Canceled", err)
			}
		}()
	}
	calls.Reset()
	close(start)
	for {
		q, err := queued(ctx, raw, table, name)
		if err != nil {
			b.Fatal(err)
		}
		if q == n+1 {
			break
		}
		time.Sleep(time.Millisecond)
	}
	got := calls.Total()
	b.StopTimer()
	cancel() // the waiters leave the queue
	wg.Wait()
	if err := held.Release(ctx); err != nil {
		b.Fatal(err)
	}
	if q, err := queued(ctx, raw, table, name); err != nil || q != 0 {
		b.Fatalf("%d left in the queue (%v)", q, err)
	}
	b.StartTimer()
	return got
}

// BenchmarkContendedSections: 96 critical sections on one lock, 4 Lockers
// × 3 goroutines × 8 rounds, each a read-sleep(2ms)-write of a counter,
// with the lease lock and with FIFO, both with the default options. Each
// iteration runs both, alternating which goes first, so that the two see
// the same load (the machine may be shared): compare the ratio, fifo/lease.
// It fails on any overlap, a lost increment, or tokens out of grant order
// (for FIFO the token is the ticket: grants were in ticket order). Before
// the queue moved into the lock's record, FIFO took 5,463 ms and 11.47
// calls/acq against the lease lock's 669 ms and 2.36.
func BenchmarkContendedSections(b *testing.B) {
	srv, table := lockTable(b)
	type variant struct {
		impl        string
		opts        []pessimistic.Option
		wall        time.Duration
		calls, acqs int64
	}
	vs := []*variant{{impl: "lease"}, {impl: "fifo", opts: []pessimistic.Option{pessimistic.FIFO()}}}
	for i := range b.N {
		for k := range vs {
			v := vs[(i+k)%len(vs)]
			wall, calls, acqs := sections(b, srv.Client(), table, v.impl, v.opts)
			v.wall += wall
			v.calls += calls
			v.acqs += acqs
		}
	}
	for _, v := range vs {
		b.ReportMetric(float64(v.wall.Milliseconds())/float64(b.N), v.impl+"-ms")
		b.ReportMetric(float64(v.calls)/float64(v.acqs), v.impl+"-calls/acq")
	}
	b.ReportMetric(float64(vs[1].wall)/float64(vs[0].wall), "fifo/lease")
}

// sections runs the 96 critical sections once; it returns the wall time,
// the calls made and the acquisitions.
func sections(b *testing.B, raw *dynamodb.Client, table, name string, opts []pessimistic.Option) (time.Duration, int64, int64) {
	const lockers, goroutines, rounds = 4, 3, 8
	calls := ddbtest.NewCounting(raw)
	ctx := context.Background()
	var inside, overlaps atomic.Int32
	counter := 0
	var mu sync.Mutex
	var tokens []int64
	var ls []*pessimistic.Locker
	for i := range lockers {
		l, err := pessimistic.New(calls, table, append([]pessimistic.Option{pessimistic.Owner(fmt.Sprintf("locker-%d", i))}, opts...)...)
		if err != nil {
			b.Fatal(err)
		}
		if err := l.Check(context.Background()); err != nil { // New makes no call; check before counting
			b.Fatal(err)
		}
		ls = append(ls, l)
	}
	calls.Reset()
	start := time.Now()
	var wg sync.WaitGroup
	for _, l := range ls {
		for range goroutines {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for range rounds {
					err := l.Do(ctx, name, func(ctx context.Context, lease *pessimistic.Lease) error {
						if inside.Add(1) != 1 {
							overlaps.Add(1)
						}
						defer inside.Add(-1)
						mu.Lock()
						tokens = append(tokens, lease.Token())
						mu.Unlock()
						v := counter
						time.Sleep(2 * time.Millisecond)
						counter = v + 1

						return ctx.Err()
					})
					if err != nil {
						b.Error(err)
					}
				}
			}()
		}
	}
	wg.Wait()
	wall := time.Since(start)
	total := calls.Total()
	for _, l := range ls {
		l.Close()
	}
	const n = lockers * goroutines * rounds
	if overlaps.Load() != 0 || counter != n || len(tokens) != n {
		b.Fatalf("%d overlaps, counter %d, %d grants; want 0, %d, %d", overlaps.Load(), counter, len(tokens), n, n)
	}
	for i := 1; i < len(tokens); i++ {
		if tokens[i] <= tokens[i-1] {
			b.Fatalf("grant %d has token %d after %d: not in token order", i, tokens[i], tokens[i-1])
		}
	}
	return wall, total, n
}

// Flags of BenchmarkLockContenders.
var (
	lockSection = flag.Duration("lock.section", 2*time.Millisecond, "BenchmarkLockContenders: how long each critical section holds the lock")
	lockThink   = flag.Duration("lock.think", 0, "BenchmarkLockContenders: the pause of each contender between its sections")
	lockRefresh = flag.Duration("lock.refresh", time.Second, "BenchmarkLockContenders: the dynamolock model's refresh period (its default: 1s)")
)

// BenchmarkLockContenders: 8 contenders, each its own Locker (as 8
// processes would be), each taking one lock 12 times in a row for a short
// critical section (-lock.section, 2ms; -lock.think between sections, 0),
// with each lock implementation in a sub-benchmark, side by side:
// impl=optimist-fifo and impl=optimist-lease (the default options), and
// impl=dynamolock-model, a model of cirello-io/dynamolock/v2's protocol
// (lockmodel_test.go: the module itself is refused by the Go module proxy
// available here, so it cannot be built in), with its defaults
// (-lock.refresh sets its refresh period). -latency delays every request
// to the embedded engine. Metrics: calls/acq (every call the contenders
// made, heartbeats included, per acquisition), the same by operation
// (get/acq, update/acq, put/acq), waited (the share of acquisitions not
// granted by their first try), reads/wait (the GetItems of those
// acquisitions beyond the first try's, per acquisition that waited: for
// FIFO, the hand-over reads per waiter) and ms/acq (wall per
// acquisition). It fails on any overlap of two sections, and for optimist
// on tokens not rising in grant order.
func BenchmarkLockContenders(b *testing.B) {
	for _, impl := range []string{"optimist-fifo", "optimist-lease", "dynamolock-model"} {
		b.Run("impl="+impl, func(b *testing.B) {
			srv, table := lockTable(b)
			if *latency > 0 {
				remove, err := srv.Inject(dynamolocal.Rule{Table: table, Fault: dynamolocal.FaultDelayed, Delay: *latency})
				if err != nil {
					b.Fatalf("-latency: %v", err)
				}
				b.Cleanup(remove)
			}
			cs := newContenders(b, srv.Client(), table, impl)
			defer cs.close()
			var tot contendStats
			b.ResetTimer()
			for i := range b.N {
				tot.add(cs.run(b, fmt.Sprintf("lock-%d", i%2)))
			}
			tot.report(b)
		})
	}
}

const contenderCount, contenderRounds = 8, 12

// lockContenders are the 8 contenders of one implementation, each with its
// own counting client.
type lockContenders struct {
	impl    string
	calls   []*ddbtest.CountingClient
	acquire []func(ctx context.Context, name string) (release func(context.Context) error, token int64, tries int, err error)
	closers []func()
}

func newContenders(b *testing.B, raw *dynamodb.Client, table, impl string) *lockContenders {
	cs := &lockContenders{impl: impl}
	for i := range contenderCount {
		c := ddbtest.NewCounting(raw)
		cs.calls = append(cs.calls, c)
		owner := fmt.Sprintf("contender-%d", i)
		if impl == "dynamolock-model" {
			m := newModelLocker(c, table, owner, *lockRefresh)
			cs.closers = append(cs.closers, m.close)
			cs.acquire = append(cs.acquire, func(ctx context.Context, name string) (func(context.Context) error, int64, int, error) {
				for {
					lk, tries, err := m.acquire(ctx, name)
					if errors.Is(err, errModelTimeout) {
						continue // a user of dynamolock asks again
					}
					if err != nil {
						return nil, 0, tries, err
					}
					return func(ctx context.Context) error { return m.release(ctx, lk) }, 0, tries, nil
				}
			})
			continue
		}
		opts := []pessimistic.Option{pessimistic.Owner(owner)}
		if impl == "optimist-fifo" {
			opts = append(opts, pessimistic.FIFO())
		}
		l, err := pessimistic.New(c, table, opts...)
		if err != nil {
			b.Fatal(err)
		}
		if err := l.Check(context.Background()); err != nil {
			b.Fatal(err)
		}
		cs.closers = append(cs.closers, l.Close)
		cs.acquire = append(cs.acquire, func(ctx context.Context, name string) (func(context.Context) error, int64, int, error) {
			before := c.Total()
			lease, err := l.Acquire(ctx, name)
			if err != nil {
				return nil, 0, 0, err
			}
			// One call is a grant at the first try (a join, or an
			// UpdateItem); more, a wait (or a FIFO lock's first join,
			// which creates its queue).
			tries := 1
			if c.Total()-before > 1 {
				tries = 2
			}
			return lease.Release, lease.Token(), tries, nil
		})
	}
	// Every lock exists before counting: the FIFO queue's creation is
	// once per lock, not per acquisition.
	for _, name := range []string{"lock-0", "lock-1"} {
		release, _, _, err := cs.acquire[0](context.Background(), name)
		if err != nil {
			b.Fatal(err)
		}
		if err := release(context.Background()); err != nil {
			b.Fatal(err)
		}
	}
	return cs
}

func (cs *lockContenders) close() {
	for _, f := range cs.closers {
		f()
	}
}

// contendStats are the counts of one or more runs.
type contendStats struct {
	acqs, waited, waitReads int64
	ops                     map[string]int64
	wall                    time.Duration
}

var countedOps = []string{"GetItem", "UpdateItem", "PutItem", "DeleteItem"}

func (s *contendStats) add(o contendStats) {
	s.acqs += o.acqs
	s.waited += o.waited
	s.waitReads += o.waitReads
	s.wall += o.wall
	if s.ops == nil {
		s.ops = map[string]int64{}
	}
	for k, v := range o.ops {
		s.ops[k] += v
	}
}

func (s *contendStats) report(b *testing.B) {
	var total int64
	for _, v := range s.ops {
		total += v
	}
	acqs := float64(s.acqs)
	b.ReportMetric(float64(total)/acqs, "calls/acq")
	b.ReportMetric(float64(s.ops["GetItem"])/acqs, "get/acq")
	b.ReportMetric(float64(s.ops["UpdateItem"])/acqs, "update/acq")
	b.ReportMetric(float64(s.ops["PutItem"]+s.ops["DeleteItem"])/acqs, "put+del/acq")
	b.ReportMetric(float64(s.waited)/acqs, "waited")
	if s.waited > 0 {
		b.ReportMetric(float64(s.waitReads)/float64(s.waited), "reads/wait")
	}
	b.ReportMetric(float64(s.wall.Microseconds())/1000/acqs, "ms/acq")
	b.ReportMetric(0, "ns/op")
}

// run lets the 8 contenders take lock name 12 times each and returns the
// counts.
func (cs *lockContenders) run(b *testing.B, name string) contendStats {
	for _, c := range cs.calls {
		c.Reset()
	}
	ctx := context.Background()
	var inside, overlaps atomic.Int32
	var mu sync.Mutex
	var tokens []int64
	var st contendStats
	start := time.Now()
	var wg sync.WaitGroup
	for i := range contenderCount {
		wg.Go(func() {
			c := cs.calls[i]
			for range contenderRounds {
				reads := c.Count("GetItem")
				release, token, tries, err := cs.acquire[i](ctx, name)
				if err != nil {
					b.Error(err)
					return
				}
				if inside.Add(1) != 1 {
					overlaps.Add(1)
				}
				mu.Lock()
				tokens = append(tokens, token)
				st.acqs++
				if tries > 1 {
					st.waited++
					st.waitReads += c.Count("GetItem") - reads
					if cs.impl == "dynamolock-model" {
						st.waitReads-- // its first try's read
					}
				}
				mu.Unlock()
				time.Sleep(*lockSection)
				inside.Add(-1)
				if err := release(ctx); err != nil {
					b.Error(err)
				}
				if *lockThink > 0 {
					time.Sleep(*lockThink)
				}
			}
		})
	}
	wg.Wait()
	st.wall = time.Since(start)
	st.ops = map[string]int64{}
	for _, c := range cs.calls {
		for _, op := range countedOps {
			st.ops[op] += c.Count(op)
		}
	}
	if overlaps.Load() != 0 || st.acqs != contenderCount*contenderRounds {
		b.Fatalf("%d overlaps, %d grants; want 0, %d", overlaps.Load(), st.acqs, contenderCount*contenderRounds)
	}
	if cs.impl != "dynamolock-model" {
		for i := 1; i < len(tokens); i++ {
			if tokens[i] <= tokens[i-1] {
				b.Fatalf("grant %d has token %d after %d: not in grant order", i, tokens[i], tokens[i-1])
			}
		}
	}
	return st
}
