//go:build go1.26

package dynamolocal_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/optimist-dynamo/optimist/dynamolocal"
	"github.com/optimist-dynamo/optimist/mapper"
	"github.com/optimist-dynamo/optimist/pessimistic"
	"github.com/optimist-dynamo/optimist/update"
)

// fifoRole is what a waiter of the FIFO workload does besides waiting its
// turn, holding the lock and writing with its token.
type fifoRole int

const (
	fifoNormal fifoRole = iota
	fifoPause           // cut off past its lease once it holds the lock, then writes with its old token
	fifoStall           // cut off for a seeded while from a moment after its join, in the queue or holding
	fifoCrash           // crashes at a seeded request
	fifoJump            // the deliberate fault: a lease-mode Acquire on the FIFO lock's name
)

func (r fifoRole) String() string {
	return [...]string{"normal", "pause", "stall", "crash", "jump"}[r]
}

// fifoWaiter is one waiter of the FIFO workload and what it saw, in
// virtual time from the workload's start.
type fifoWaiter struct {
	name   string
	client string // its client's name: its own, or "twins" for two waiters sharing a Locker
	role   fifoRole
	// joinAt is when it calls Acquire; hold, how long it holds the lock.
	joinAt, hold time.Duration

	// joinSent is when its join was sent, joinAnswered when it was
	// answered (see joinClock); -1: not yet.
	mu                     sync.Mutex
	joinSent, joinAnswered time.Duration

	err      error // Acquire's
	grant    int   // its place among the grants, from 1 (0: never granted)
	token    int64
	acquired time.Duration
	// end is when its hold ended: its lease's context ended (a cut-off
	// holder's, before anyone may take over), it called Release, or it
	// crashed (see crashedAt). Under mu.
	end       time.Duration
	crashedAt time.Duration // -1: never crashed
	writeErr  error         // of its fenced write as the holder
	wrote     bool
	heldWrite bool // its lease was still alive when the write returned
	// The paused holder's write with its old token, after its pause, and
	// whether a higher token had landed before it was sent.
	staleErr   error
	staleSent  bool
	staleAbove bool
}

// joinClock is a lock client: the SDK's client, noting for the waiter
// whose Acquire a call serves (its context carries the waiter) when its
// first UpdateItem was sent and when an UpdateItem was first answered
// without error. The queue exists before anyone joins, so an Acquire's
// first write is its join, and its first success the join's answer; when
// that answer was lost (the library then reads the entry back), a later
// write's success stands for it, or none: a later or unknown answer only
// drops pairs from the order check, it never adds one.
type joinClock struct {
	*dynamodb.Client
	start time.Time
}

// waiterKey is the context key of the waiter an Acquire is for.
type waiterKey struct{}

// UpdateItem notes the times and passes the call on.
func (c joinClock) UpdateItem(ctx context.Context, in *dynamodb.UpdateItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.UpdateItemOutput, error) {
	w, _ := ctx.Value(waiterKey{}).(*fifoWaiter)
	if w != nil {
		w.mu.Lock()
		if w.joinSent < 0 {
			w.joinSent = time.Since(c.start)
		}
		w.mu.Unlock()
	}
	out, err := c.Client.UpdateItem(ctx, in, opts...)
	if w != nil && err == nil {
		w.mu.Lock()
		if w.joinAnswered < 0 {
			w.joinAnswered = time.Since(c.start)
		}
		w.mu.Unlock()
	}
	return out, err
}

func (w *fifoWaiter) times() (sent, answered time.Duration) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.joinSent, w.joinAnswered
}

// fifoLog is what the FIFO workload records for its checker.
type fifoLog struct {
	jump     bool // the deliberate fault: a client jumps the queue with a lease-mode Acquire
	unfenced bool // the deliberate fault: the paused holder's late write carries no fence
	// lossy: a tenth of the lock table's answers are lost after they were
	// applied. The SDK's backoff before the resend (up to two seconds)
	// can then outlast what is left of a heartbeat's lease, so a waiter may
	// give its place up (ErrUnreachable): it counts as one that gave up.
	lossy bool
	// hiddenLoss, the deliberate fault of the liveness check: the answers
	// are lost as with lossy, but the checker is not told.
	hiddenLoss bool

	mu      sync.Mutex
	waiters []*fifoWaiter
	grants  int
	landed  []int64 // the tokens of the fenced writes that landed, in order
}

// maxLanded is the highest token landed so far.
func (l *fifoLog) maxLanded() int64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	m := int64(0)
	for _, t := range l.landed {
		m = max(m, t)
	}
	return m
}

// granted records w's Acquire as the next grant.
func (l *fifoLog) granted(w *fifoWaiter, lease *pessimistic.Lease, at time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.grants++
	w.grant, w.token, w.acquired = l.grants, lease.Token(), at
}

// fifoWorkload: six waiters join one FIFO lock at seeded times within the
// first second, each holding it for a seeded while (up to a second) and
// writing once with its token. Two of them ("t1" and "t2") share one
// Locker on one client, whose waiters share what they read; of the four
// others, by the seed, one holder is cut off past its lease and then
// writes with its old token, one waiter is cut off for a seeded while a
// moment after its join (most often while it waits), and one crashes at
// a seeded request. With log.lossy, answers of the lock table are lost
// too; with log.jump, a seventh waiter takes the lock in lease mode at 1.5
// to 2.5 s.
func fifoWorkload(log *fifoLog) func(s *dynamolocal.Sim) {
	return func(s *dynamolocal.Sim) {
		start := time.Now()
		since := func() time.Duration { return time.Since(start) }
		simSetup(s)
		fifoQueueReady(s)
		if log.lossy || log.hiddenLoss {
			s.Inject(dynamolocal.Rule{Table: simLocks, Fault: dynamolocal.FaultLostResponse, Probability: 0.1})
		}
		r := s.Rand("admin")
		second := func() time.Duration { return time.Duration(r.Int64N(int64(time.Second))) }
		roles := []fifoRole{fifoPause, fifoStall, fifoCrash, fifoNormal}
		r.Shuffle(len(roles), func(i, j int) { roles[i], roles[j] = roles[j], roles[i] })
		for i, role := range roles {
			name := fmt.Sprintf("w%d", i+1)
			log.waiters = append(log.waiters, &fifoWaiter{name: name, client: name, role: role, joinAt: second(), hold: second()})
		}
		for _, name := range []string{"t1", "t2"} {
			log.waiters = append(log.waiters, &fifoWaiter{name: name, client: "twins", joinAt: second(), hold: second()})
		}
		if log.jump {
			log.waiters = append(log.waiters, &fifoWaiter{name: "jumper", client: "jumper", role: fifoJump,
				joinAt: 1500*time.Millisecond + second(), hold: second()})
		}
		lockers := map[string]*fifoLocker{}
		for _, w := range log.waiters {
			w.joinSent, w.joinAnswered, w.crashedAt = -1, -1, -1
			if lockers[w.client] == nil {
				lockers[w.client] = newFIFOLocker(s, joinClock{s.Client(w.client), start})
			}
			lockers[w.client].users++
			switch w.role {
			case fifoCrash:
				s.CrashAfter(w.client, 2+r.IntN(16))
			case fifoStall:
				cutAt := w.joinAt + time.Duration(r.Int64N(int64(1500*time.Millisecond)))
				cutFor := simLease + time.Duration(r.Int64N(int64(5*time.Second)))
				s.Go("cutter", func(context.Context, *dynamodb.Client) {
					time.Sleep(cutAt)
					s.Cut(w.client, cutFor)
				})
			}
		}
		for _, w := range log.waiters {
			s.Go(w.client, func(ctx context.Context, c *dynamodb.Client) {
				defer lockers[w.client].done()
				fifoActor(context.WithValue(ctx, waiterKey{}, w), s, log, w, lockers[w.client].l, simTable(s, c), since)
			})
		}
		s.Wait()
	}
}

// fifoQueueReady makes the lock's queue (a FIFO Acquire and Release by
// "admin"), so that every waiter's first UpdateItem is its join.
func fifoQueueReady(s *dynamolocal.Sim) {
	ctx := s.Context()
	l, err := pessimistic.New(s.Client("admin"), simLocks, pessimistic.Owner("admin"), pessimistic.LeaseDuration(simLease))
	if err != nil {
		s.T.Fatal(err)
	}
	defer l.Close()
	lease, err := l.Acquire(ctx, "job", pessimistic.FIFO())
	if err != nil {
		s.T.Fatal(err)
	}
	if err := lease.Release(ctx); err != nil {
		s.T.Fatal(err)
	}
}

// fifoLocker is a Locker and how many waiters use it: the last to finish
// closes it (a crashed client's, once the simulation ends).
type fifoLocker struct {
	l     *pessimistic.Locker
	mu    sync.Mutex
	users int
}

func newFIFOLocker(s *dynamolocal.Sim, c joinClock) *fifoLocker {
	l, err := pessimistic.New(c, simLocks, pessimistic.LeaseDuration(simLease))
	if err != nil {
		s.T.Fatal(err)
	}
	return &fifoLocker{l: l}
}

func (f *fifoLocker) done() {
	f.mu.Lock()
	f.users--
	last := f.users == 0
	f.mu.Unlock()
	if last {
		f.l.Close()
	}
}

// fifoActor is one waiter: it joins at w.joinAt, holds the lock for
// w.hold, writes once with its token, and releases.
func fifoActor(ctx context.Context, s *dynamolocal.Sim, log *fifoLog, w *fifoWaiter, l *pessimistic.Locker, t *mapper.Table[simAccount], since func() time.Duration) {
	time.Sleep(w.joinAt)
	opts := []pessimistic.Option{pessimistic.Owner(w.name), pessimistic.Wait(2 * time.Minute)}
	if w.role != fifoJump {
		opts = append(opts, pessimistic.FIFO())
	}
	lease, err := l.Acquire(ctx, "job", opts...)
	if err != nil {
		w.err = err
		return
	}
	log.granted(w, lease, since())
	// Its hold ends when its lease's context does (lost, or released),
	// whatever it is doing then: a cut-off holder may be in its write.
	context.AfterFunc(lease.Context(), func() {
		w.mu.Lock()
		if w.end == 0 { // not ended by the Release below, whose write may take long
			w.end = since()
		}
		w.mu.Unlock()
	})
	w.writeErr, w.wrote = fifoWrite(ctx, log, t, lease.Token(), true), true
	w.heldWrite = lease.Context().Err() == nil
	hold := w.hold
	if w.role == fifoPause {
		s.Cut(w.client, simLease+time.Duration(s.Rand(w.client).Int64N(int64(5*time.Second))))
		hold = 10 * time.Second // paused past its lease, and past its cut
	}
	time.Sleep(hold)
	if w.role == fifoPause {
		w.staleAbove = log.maxLanded() > lease.Token()
		w.staleErr, w.staleSent = fifoWrite(ctx, log, t, lease.Token(), !log.unfenced), true
	}
	w.mu.Lock()
	if w.end == 0 {
		w.end = since() // ended by the Release below
	}
	w.mu.Unlock()
	_ = lease.Release(ctx) // a lost lease's: ErrNotHeld
}

// fifoWrite adds one to the shared count, fenced with token unless
// fenced is false, and records the token if the write landed.
func fifoWrite(ctx context.Context, log *fifoLog, t *mapper.Table[simAccount], token int64, fenced bool) error {
	var opts []mapper.WriteOption
	if fenced {
		opts = append(opts, mapper.Fence("fence", token))
	}
	_, err := t.Update(ctx, simAccount{ID: simID(0)}, update.Add("count", 1), opts...)
	if err == nil {
		log.mu.Lock()
		log.landed = append(log.landed, token)
		log.mu.Unlock()
	}
	return err
}

// noteCrashes reads the crash times of the waiters from a transcript.
func (l *fifoLog) noteCrashes(lines []string) {
	for _, line := range lines {
		f := strings.Fields(line)
		if len(f) != 3 || f[2] != "crashed" {
			continue
		}
		at, err := time.ParseDuration(f[0])
		if err != nil {
			continue
		}
		for _, w := range l.waiters {
			if w.client == f[1] {
				w.crashedAt = at
			}
		}
	}
}

// alive reports whether w's hold or wait counts for FIFO order: it was
// neither cut off while waiting nor crashed.
func (w *fifoWaiter) alive() bool { return w.role != fifoStall && w.crashedAt < 0 }

// held reports whether w was granted the lock while it lived, and the
// interval of its hold.
func (w *fifoWaiter) held() (from, to time.Duration, ok bool) {
	if w.grant == 0 || w.crashedAt >= 0 && w.acquired >= w.crashedAt {
		return 0, 0, false
	}
	w.mu.Lock()
	to = w.end
	w.mu.Unlock()
	if w.crashedAt >= 0 && (to == 0 || w.crashedAt < to) {
		to = w.crashedAt
	}
	return w.acquired, to, true
}

// violations is the FIFO lock checker: never two holders at once, tokens
// rise (grant after grant, and write after landed write), a holder's
// fenced write lands and a stale one is refused once a higher token
// landed, and among the waiters that stayed alive, each is granted the
// lock, and none whose join was sent after another's join was answered is
// granted first.
func (l *fifoLog) violations() []string {
	var out []string
	out = append(out, l.holderViolations()...)
	out = append(out, l.tokenViolations()...)
	out = append(out, l.orderViolations()...)
	return out
}

// holderViolations: no two holds overlap; every live holder's write
// landed; a stale write was refused when a higher token had landed.
func (l *fifoLog) holderViolations() []string {
	var out []string
	for i, a := range l.waiters {
		af, at, ok := a.held()
		if !ok {
			continue
		}
		for _, b := range l.waiters[i+1:] {
			if bf, bt, ok := b.held(); ok && af < bt && bf < at {
				out = append(out, fmt.Sprintf("two holders: %s (%s, token %d) held the lock from %v to %v, %s (%s, token %d) from %v to %v",
					a.name, a.role, a.token, af, at, b.name, b.role, b.token, bf, bt))
			}
		}
		if a.wrote && a.heldWrite && a.role != fifoStall && a.writeErr != nil && a.crashedAt < 0 {
			out = append(out, fmt.Sprintf("live write refused: %s (%s, token %d) holds the lock and its fenced write failed: %v", a.name, a.role, a.token, a.writeErr))
		}
		if a.staleSent && a.staleAbove && !errors.Is(a.staleErr, mapper.ErrFenced) {
			out = append(out, fmt.Sprintf("stale write: %s's write with its old token %d after a higher one landed was not refused as fenced: %v", a.name, a.token, a.staleErr))
		}
	}
	return out
}

// tokenViolations: the tokens of the grants, in grant order, rise, and so
// do those of the writes that landed, in landing order.
func (l *fifoLog) tokenViolations() []string {
	var out []string
	byGrant := make([]*fifoWaiter, l.grants+1)
	for _, w := range l.waiters {
		if _, _, ok := w.held(); ok {
			byGrant[w.grant] = w
		}
	}
	var last *fifoWaiter
	for _, w := range byGrant {
		if w == nil {
			continue
		}
		if last != nil && w.token <= last.token {
			out = append(out, fmt.Sprintf("tokens fell: %s was granted token %d after %s's %d", w.name, w.token, last.name, last.token))
		}
		last = w
	}
	for i := 1; i < len(l.landed); i++ {
		if l.landed[i] < l.landed[i-1] {
			out = append(out, fmt.Sprintf("tokens fell: write %d landed with token %d after token %d", i, l.landed[i], l.landed[i-1]))
		}
	}
	return out
}

// orderViolations: each waiter a that stayed alive was granted the lock
// (unless its calls' answers were lost: then it may have given up), and
// no waiter b whose join was sent after a's join was answered was granted
// before a.
func (l *fifoLog) orderViolations() []string {
	var out []string
	for _, a := range l.waiters {
		if !a.alive() {
			continue
		}
		if a.grant == 0 {
			if !l.lossy { // with no fault, nothing makes a live waiter give up
				out = append(out, fmt.Sprintf("live waiter lost: %s (%s) was never granted the lock: %v", a.name, a.role, a.err))
			}
			continue
		}
		_, aAnswered := a.times()
		for _, b := range l.waiters {
			// b need not have stayed alive: a crashed or cut-off waiter
			// that joined after a live one may not be granted first either.
			if _, _, held := b.held(); b == a || !held {
				continue
			}
			bSent, _ := b.times()
			if aAnswered >= 0 && aAnswered < bSent && b.grant < a.grant {
				out = append(out, fmt.Sprintf("FIFO order: %s (%s) joined at %v, after %s's join was answered at %v, and was granted the lock first (at %v, token %d; %s at %v, token %d)",
					b.name, b.role, bSent, a.name, aAnswered, b.acquired, b.token, a.name, a.acquired, a.token))
			}
		}
	}
	return out
}

// fifoStats counts what a seed's history held, to show that the
// workload's pauses and crashes happen.
type fifoStats struct {
	seeds, grants                  int
	crashedWaiting, crashedHolding int
	stallsLost, staleRefused       int
	gaveUp                         int // live waiters of lossy seeds that gave their place up
}

func (st *fifoStats) add(l *fifoLog) {
	st.seeds++
	st.grants += l.grants
	for _, w := range l.waiters {
		switch {
		case w.crashedAt >= 0 && w.grant == 0:
			st.crashedWaiting++
		case w.crashedAt >= 0:
			st.crashedHolding++
		case w.role == fifoStall && w.grant == 0:
			st.stallsLost++
		case w.staleSent && w.staleAbove && errors.Is(w.staleErr, mapper.ErrFenced):
			st.staleRefused++
		case w.alive() && w.grant == 0:
			st.gaveUp++
		}
	}
}

// runFIFO runs fifoWorkload with seed and returns its log, its crash
// times read.
func runFIFO(t *testing.T, seed uint64, log *fifoLog) *fifoLog {
	res := dynamolocal.Simulate(t, seed, fifoWorkload(log))
	log.noteCrashes(res.Transcript)
	return log
}

// TestSimFIFO runs fifoWorkload over many seeds (make sim: -sim.seeds)
// and checks its invariants; a violation names its seed and how to replay
// it.
func TestSimFIFO(t *testing.T) {
	var st fifoStats
	seeds := dynamolocal.SimSeeds(6)
	for _, seed := range seeds {
		log := runFIFO(t, seed, &fifoLog{lossy: seed%2 == 0})
		for _, v := range log.violations() {
			t.Errorf("seed %d: %s; replay: go test ./dynamolocal/ -run '^TestSimFIFO$' -sim.seed=%d", seed, v, seed)
		}
		st.add(log)
	}
	t.Logf("%d seeds (half with lost answers), %d grants: %d waiters crashed waiting and %d holding, %d cut-off waiters lost their place, %d stale writes refused, %d live waiters gave up after lost answers",
		st.seeds, st.grants, st.crashedWaiting, st.crashedHolding, st.stallsLost, st.staleRefused, st.gaveUp)
	if len(seeds) > 1 && (st.crashedWaiting+st.crashedHolding == 0 || st.staleRefused == 0) {
		t.Errorf("over %d seeds no waiter crashed or no stale write was refused: the workload lost its faults", len(seeds))
	}
}

// TestSimFIFOCheckerFails breaks the invariants on purpose and wants the
// checker to say so within twenty seeds: a client that takes the FIFO
// lock's name with a lease-mode Acquire (which pessimistic's doc forbids)
// jumps the queue, holds beside the head and gets a higher token than the
// waiters after it, whose fenced writes are then refused; a paused holder
// that writes without its fence lands a stale write; lost answers that
// the checker is not told of make a live waiter give its place up.
func TestSimFIFOCheckerFails(t *testing.T) {
	cases := []struct {
		name  string
		log   func() *fifoLog
		kinds []string
	}{
		{"jump", func() *fifoLog { return &fifoLog{jump: true} }, []string{"FIFO order:", "two holders:", "tokens fell:", "live write refused:"}},
		{"unfenced", func() *fifoLog { return &fifoLog{unfenced: true} }, []string{"stale write:", "tokens fell:"}},
		{"hidden-loss", func() *fifoLog { return &fifoLog{hiddenLoss: true} }, []string{"live waiter lost:"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			seen := map[string]bool{}
			for seed := uint64(1); seed <= 20 && len(seen) < len(c.kinds); seed++ {
				for _, v := range runFIFO(t, seed, c.log()).violations() {
					for _, k := range c.kinds {
						if strings.HasPrefix(v, k) && !seen[k] {
							seen[k] = true
							t.Logf("seed %d: %s", seed, v)
						}
					}
				}
			}
			for _, k := range c.kinds {
				if !seen[k] {
					t.Errorf("20 seeds of the fault and the checker never reported %q", k)
				}
			}
		})
	}
}
