//go:build go1.26

package dynamolocal_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/optimist-dynamo/optimist/dynamolocal"
	"github.com/optimist-dynamo/optimist/mapper"
	"github.com/optimist-dynamo/optimist/pessimistic"
	"github.com/optimist-dynamo/optimist/unit"
	"github.com/optimist-dynamo/optimist/update"
)

// simAccount is an account of the simulation workloads.
type simAccount struct {
	ID      string `dynamo:"id,hash"`
	Balance int64  `dynamo:"balance"`
	Fence   int64  `dynamo:"fence,omitempty"`
	Count   int64  `dynamo:"count,omitempty"`
	Version int64  `dynamo:"v,version"`
}

const (
	simAccounts = "accounts"
	simLocks    = "locks"
	simUnits    = "units"
	simOpening  = 100
	simN        = 3 // accounts
)

// simSetup makes the workloads' tables through the client "admin": three
// accounts of simOpening each.
func simSetup(s *dynamolocal.Sim) *mapper.Table[simAccount] {
	t := s.T
	ctx := s.Context()
	c := s.Client("admin")
	if err := mapper.CreateTable[simAccount](ctx, c, simAccounts); err != nil {
		t.Fatal(err)
	}
	if err := pessimistic.CreateTable(ctx, c, simLocks); err != nil {
		t.Fatal(err)
	}
	if err := unit.CreateTable(ctx, c, simUnits); err != nil {
		t.Fatal(err)
	}
	acc := simTable(s, c)
	for i := range simN {
		if err := acc.Put(ctx, &simAccount{ID: simID(i), Balance: simOpening}); err != nil {
			t.Fatal(err)
		}
	}
	return acc
}

func simID(i int) string { return fmt.Sprintf("a%d", i) }

func simTable(s *dynamolocal.Sim, c *dynamodb.Client) *mapper.Table[simAccount] {
	acc, err := mapper.NewTable[simAccount](c, simAccounts)
	if err != nil {
		s.T.Fatal(err)
	}
	return acc
}

// simTransfer moves amount from account i to account j in a unit, trying
// again after a conflict; it reports whether it committed.
func simTransfer(ctx context.Context, c *dynamodb.Client, acc *mapper.Table[simAccount], i, j int, amount int64) (bool, error) {
	for range 5 {
		u, err := unit.Begin(ctx, c, unit.Coordinator(simUnits), unit.LeaseDuration(5*time.Second))
		if err != nil {
			return false, err
		}
		err = func() error {
			from, err := unit.Get(ctx, u, acc, simAccount{ID: simID(i)})
			if err != nil {
				return err
			}
			to, err := unit.Get(ctx, u, acc, simAccount{ID: simID(j)})
			if err != nil {
				return err
			}
			from.Balance -= amount
			to.Balance += amount
			if err := u.Add(acc.PutOp(from), acc.PutOp(to)); err != nil {
				return err
			}
			return u.Commit(ctx)
		}()
		if err == nil {
			return true, nil
		}
		_ = u.Rollback(ctx)
		if !errors.Is(err, unit.ErrLocked) && !errors.Is(err, unit.ErrAborted) {
			return false, err
		}
	}
	return false, nil
}

// contended is the digest test's workload: two FIFO lock holders writing
// fenced counts, two units moving money between the same accounts (their
// commits write in parallel), a Modify and an ExactlyOnce Update, all
// under lost answers, and Recover.
func contended(s *dynamolocal.Sim) {
	acc := simSetup(s)
	s.Inject(dynamolocal.Rule{Op: "UpdateItem", Fault: dynamolocal.FaultLostResponse, Probability: 0.2})
	for _, name := range []string{"lock-a", "lock-b"} {
		s.Go(name, func(ctx context.Context, c *dynamodb.Client) {
			l, err := pessimistic.New(c, simLocks, pessimistic.Owner(name), pessimistic.LeaseDuration(3*time.Second))
			if err != nil {
				s.T.Error(err)
				return
			}
			defer l.Close()
			t := simTable(s, c)
			for range 2 {
				lease, err := l.Acquire(ctx, "job", pessimistic.FIFO())
				if err != nil {
					s.T.Logf("%s: Acquire: %v", name, err) // lost answers may exhaust its tries
					return
				}
				_, err = t.Update(ctx, simAccount{ID: simID(0)}, update.Add("count", 1),
					mapper.Fence("fence", lease.Token()))
				if err != nil && !errors.Is(err, mapper.ErrConditionFailed) {
					s.T.Logf("%s: fenced update: %v", name, err)
				}
				time.Sleep(time.Duration(s.Rand(name).IntN(1000)) * time.Millisecond)
				_ = lease.Release(ctx)
			}
		})
	}
	for k, name := range []string{"unit-x", "unit-y"} {
		s.Go(name, func(ctx context.Context, c *dynamodb.Client) {
			t := simTable(s, c)
			if _, err := simTransfer(ctx, c, t, k, 2, int64(10+k)); err != nil {
				s.T.Logf("%s: %v", name, err)
			}
		})
	}
	s.Go("modify", func(ctx context.Context, c *dynamodb.Client) {
		t := simTable(s, c)
		for range 3 {
			if _, err := t.Modify(ctx, simAccount{ID: simID(1)}, func(a *simAccount) error { a.Count++; return nil }); err != nil {
				s.T.Logf("modify: %v", err)
			}
			if _, err := t.Update(ctx, simAccount{ID: simID(2)}, update.Add("count", 1), mapper.ExactlyOnce()); err != nil {
				s.T.Logf("update: %v", err)
			}
		}
	})
	s.Wait()
	if _, err := unit.Recover(s.Context(), s.Client("admin"), simUnits); err != nil {
		s.T.Errorf("Recover: %v", err)
	}
	_ = acc
}

// TestSimDigest runs the contended workload twice per seed and wants the
// same digest each time, at GOMAXPROCS 1 and 2. Its own few seeds keep
// make test cheap (each seed is four simulations); make sim runs it over
// many more (-sim.seeds).
func TestSimDigest(t *testing.T) { simDigest(t, contended, 5) }

func simDigest(t *testing.T, workload func(*dynamolocal.Sim), seeds int) {
	for _, procs := range []int{1, 2} {
		t.Run(fmt.Sprintf("procs=%d", procs), func(t *testing.T) {
			defer runtimeGOMAXPROCS(runtimeGOMAXPROCS(procs))
			for _, seed := range dynamolocal.SimSeeds(seeds) {
				a := dynamolocal.Simulate(t, seed, workload)
				b := dynamolocal.Simulate(t, seed, workload)
				if a.Digest != b.Digest {
					t.Errorf("seed %d: digests differ (%d and %d requests); first difference:\n%s", seed, len(a.Transcript), len(b.Transcript), firstDiff(a.Transcript, b.Transcript))
				}
			}
		})
	}
}

func firstDiff(a, b []string) string {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			before := ""
			for j := max(0, i-3); j < i; j++ {
				before += fmt.Sprintf("  line %d, both: %s\n", j, a[j])
			}
			return fmt.Sprintf("%sline %d:\n  %s\n  %s", before, i, a[i], b[i])
		}
	}
	return "one transcript is a prefix of the other"
}
