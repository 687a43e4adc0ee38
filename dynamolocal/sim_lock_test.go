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

// fencedLog records the fenced writes of a lock workload: each landed
// write's token as the item stored it, in the order they landed, and the
// writes of a holder that lost its lock.
type fencedLog struct {
	mu      sync.Mutex
	landed  []int64
	stale   []error // the errors of writes by a holder past its lease
	skipped bool    // the deliberate fault: a stale write sent without its fence
	crashed bool    // holder "crash" crashed
	// slowPoll, the deliberate fault of the takeover check: "b" polls
	// every slowPoll, while the bound is checked for the default.
	slowPoll time.Duration
	fifo     bool          // every holder takes the lock with FIFO, else as a lease lock (one mode per name, as a user's)
	acquired time.Duration // when b's Acquire returned, from the start
	takeover time.Duration // from the last renewal of another client (or b's first try) to b's acquire
}

// Lock workload timing: the lease, and the default PollInterval (a
// quarter of the lease, at most 100ms); the longest round trip of a
// simulation is two answer latencies.
const (
	simLease = 3 * time.Second
	simPoll  = 100 * time.Millisecond
	simRTT   = 4 * time.Millisecond
)

// fifoTakeoverBound is pessimistic's documented bound for a FIFO lock's
// next in line: two leases and three round trips.
func fifoTakeoverBound(lease, rtt time.Duration) time.Duration { return 2*lease + 3*rtt }

// bound is the takeover bound of the log's mode.
func (l *fencedLog) bound() time.Duration {
	if l.fifo {
		return fifoTakeoverBound(simLease, simRTT)
	}
	return leaseTakeoverBound(simLease, simPoll, simRTT)
}

// leaseTakeoverBound is pessimistic's documented bound for a lease lock,
// from the last renewal written to the takeover: lease + 3/2 poll
// interval + three round trips.
func leaseTakeoverBound(lease, poll, rtt time.Duration) time.Duration {
	return lease + poll*3/2 + 3*rtt
}

// takeoverDelay reads a lock workload's transcript: the virtual time from
// the later of the last successful write to the lock table by a client
// other than taker before acquired, and taker's first try there (a
// waiter cannot know how old the record it first reads is), to acquired.
func takeoverDelay(lines []string, taker string, acquired time.Duration) time.Duration {
	var last, first time.Duration = 0, -1
	for _, l := range lines {
		f := strings.SplitN(l, " ", 4)
		if len(f) < 4 || f[2] != "UpdateItem" && f[2] != "PutItem" && f[2] != "DeleteItem" ||
			!strings.Contains(f[3], `"TableName":"`+simLocks+`"`) {
			continue
		}
		at, err := time.ParseDuration(f[0])
		switch {
		case err != nil || at >= acquired:
		case !strings.HasPrefix(f[1], taker+"#"):
			if strings.Contains(f[3], "-> 200 ") {
				last = at
			}
		case first < 0:
			first = at
		}
	}
	return acquired - max(last, first)
}

// violations is the lock checker: the tokens of the writes that landed
// never fall (so no two holders wrote at once), b's takeover came within
// the documented bound, and every stale write was refused.
func (l *fencedLog) violations() []string {
	var out []string
	for i := 1; i < len(l.landed); i++ {
		if l.landed[i] < l.landed[i-1] {
			out = append(out, fmt.Sprintf("write %d landed with token %d after token %d", i, l.landed[i], l.landed[i-1]))
		}
	}
	if bound := l.bound(); l.takeover > bound {
		out = append(out, fmt.Sprintf("b took the lock over %v after the last renewal or its first try, past the bound %v", l.takeover, bound))
	}
	for _, err := range l.stale {
		if !errors.Is(err, mapper.ErrConditionFailed) {
			out = append(out, fmt.Sprintf("a stale holder's write was not refused: %v", err))
		}
	}
	return out
}

// lockWorkload: holder "pause" takes the lock, holds it for a seeded
// while, and is cut off past its lease; holder "crash" waits for it and
// crashes at a seeded request; holder "b" takes it over and writes. Then
// "pause" comes back and writes with its old token. All three take the
// lock in the log's mode, lease or FIFO: a lock name is used in one mode,
// as a user's would be.
func lockWorkload(log *fencedLog) func(s *dynamolocal.Sim) {
	return func(s *dynamolocal.Sim) {
		start := time.Now()
		simSetup(s)
		var mode []pessimistic.Option
		if log.fifo {
			mode = append(mode, pessimistic.FIFO())
		}
		const lease = simLease
		write := func(ctx context.Context, t *mapper.Table[simAccount], token int64, fenced bool) error {
			opts := []mapper.WriteOption{mapper.Fence("fence", token)}
			if !fenced {
				opts = nil
			}
			a, err := t.Update(ctx, simAccount{ID: simID(0)}, update.Add("count", 1), opts...)
			if err == nil {
				log.mu.Lock()
				log.landed = append(log.landed, a.Fence)
				log.mu.Unlock()
			}
			return err
		}
		holder := func(name string, body func(ctx context.Context, l *pessimistic.Locker, t *mapper.Table[simAccount])) {
			s.Go(name, func(ctx context.Context, c *dynamodb.Client) {
				opts := []pessimistic.Option{pessimistic.Owner(name), pessimistic.LeaseDuration(lease)}
				if name == "b" && log.slowPoll > 0 {
					opts = append(opts, pessimistic.PollInterval(log.slowPoll))
				}
				l, err := pessimistic.New(c, simLocks, opts...)
				if err != nil {
					s.T.Error(err)
					return
				}
				defer l.Close()
				body(ctx, l, simTable(s, c))
			})
		}
		holder("pause", func(ctx context.Context, l *pessimistic.Locker, t *mapper.Table[simAccount]) {
			lease, err := l.Acquire(ctx, "job", mode...)
			if err != nil {
				s.T.Errorf("pause: Acquire: %v", err)
				return
			}
			_ = write(ctx, t, lease.Token(), true)
			// It holds, renewing, while b waits from 1s, then is cut off.
			time.Sleep(time.Duration(s.Rand("pause").IntN(3000)) * time.Millisecond)
			s.Cut("pause", 3*time.Second+time.Duration(s.Rand("pause").IntN(5000))*time.Millisecond)
			time.Sleep(10 * time.Second) // paused past its lease
			err = write(ctx, t, lease.Token(), !log.skipped)
			log.mu.Lock()
			log.stale = append(log.stale, err)
			log.mu.Unlock()
		})
		s.CrashAfter("crash", 3+s.Rand("crash").IntN(6))
		holder("crash", func(ctx context.Context, l *pessimistic.Locker, t *mapper.Table[simAccount]) {
			if lease, err := l.Acquire(ctx, "job", mode...); err == nil {
				_ = write(ctx, t, lease.Token(), true)
			}
		})
		holder("b", func(ctx context.Context, l *pessimistic.Locker, t *mapper.Table[simAccount]) {
			time.Sleep(time.Second)
			lease, err := l.Acquire(ctx, "job", append(mode, pessimistic.Wait(time.Minute))...)
			if err != nil {
				s.T.Errorf("b: Acquire: %v", err)
				return
			}
			log.acquired = time.Since(start)
			if err := write(ctx, t, lease.Token(), true); err != nil {
				s.T.Logf("b: write: %v", err)
			}
			_ = lease.Release(ctx)
		})
		s.Wait()
		log.crashed = s.Crashed("crash")
		if log.acquired > 0 {
			log.takeover = takeoverDelay(s.Transcript(), "b", log.acquired)
		}
	}
}

// TestSimLocks runs lockWorkload over many seeds and checks its
// invariants; a violation names its seed and how to replay it.
func TestSimLocks(t *testing.T) {
	for _, fifo := range []bool{false, true} {
		t.Run(map[bool]string{false: "lease", true: "fifo"}[fifo], func(t *testing.T) {
			crashes, worst := 0, time.Duration(0)
			for _, seed := range dynamolocal.SimSeeds(20) {
				log := &fencedLog{fifo: fifo}
				dynamolocal.Simulate(t, seed, lockWorkload(log))
				for _, v := range log.violations() {
					t.Errorf("seed %d: %s; replay: go test ./dynamolocal/ -run '^%s$' -sim.seed=%d", seed, v, t.Name(), seed)
				}
				if len(log.stale) != 1 {
					t.Errorf("seed %d: %d stale writes, want 1", seed, len(log.stale))
				}
				if log.crashed {
					crashes++
				}
				worst = max(worst, log.takeover)
			}
			t.Logf("worst takeover: %v after the last renewal or the first try (bound %v)", worst, (&fencedLog{fifo: fifo}).bound())
			if crashes == 0 && len(dynamolocal.SimSeeds(20)) > 1 { // a replayed seed may not crash it
				t.Error("no seed crashed the holder \"crash\"")
			}
			t.Logf("%d seeds crashed the holder \"crash\"", crashes)
		})
	}
}

// TestSimLocksCheckerFails breaks the invariant on purpose (the paused
// holder writes without its fence) and wants the checker to say so.
func TestSimLocksCheckerFails(t *testing.T) {
	log := &fencedLog{skipped: true}
	dynamolocal.Simulate(t, 1, lockWorkload(log))
	if len(log.violations()) == 0 {
		t.Fatal("an unfenced stale write landed and the checker saw nothing")
	}
}

// TestSimLocksTakeoverCheckerFails: "b" polls every two seconds, where the
// bound is checked for the default poll interval, and the checker must
// see a takeover past the bound on some seed.
func TestSimLocksTakeoverCheckerFails(t *testing.T) {
	for seed := uint64(1); seed <= 20; seed++ {
		log := &fencedLog{slowPoll: 2 * time.Second}
		dynamolocal.Simulate(t, seed, lockWorkload(log))
		if len(log.violations()) > 0 {
			return
		}
	}
	t.Fatal("20 seeds of a waiter polling every 2s and the checker saw no late takeover")
}
