//go:build go1.26

package main

import (
	"context"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/optimist-dynamo/optimist/dynamolocal"
	"github.com/optimist-dynamo/optimist/mapper"
	"github.com/optimist-dynamo/optimist/pessimistic"
	"github.com/optimist-dynamo/optimist/update"
)

// Report is what the workers write under the lock, with their fencing
// token.
type Report struct {
	ID    string `dynamo:"id,hash"`
	Runs  int    `dynamo:"runs"`
	Fence int64  `dynamo:"fence"`
}

// readme:begin simulation
// TestSimCrashedWorker: workers "a" and "b" each take the lock and write
// the report, fenced with their token; "a" crashes at a request the seed
// draws (it may die holding the lock). Whatever the seed, "b" gets the
// lock, after a's lease at worst, and its write lands. A failing seed is
// logged with the command that replays it (-sim.seed=N).
func TestSimCrashedWorker(t *testing.T) {
	for _, seed := range dynamolocal.SimSeeds(20) {
		var bWrote bool
		dynamolocal.Simulate(t, seed, func(s *dynamolocal.Sim) {
			ctx, admin := s.Context(), s.Client("admin")
			if err := pessimistic.CreateTable(ctx, admin, "locks"); err != nil {
				s.T.Fatal(err) // s.T: the test inside the simulation's bubble
			}
			if err := mapper.CreateTable[Report](ctx, admin, "reports"); err != nil {
				s.T.Fatal(err)
			}
			work := func(ctx context.Context, c *dynamodb.Client) error {
				locker, err := pessimistic.New(c, "locks", pessimistic.LeaseDuration(10*time.Second))
				if err != nil {
					return err
				}
				defer locker.Close()
				lease, err := locker.Acquire(ctx, "report", pessimistic.Wait(time.Minute))
				if err != nil {
					return err
				}
				defer lease.Release(ctx)
				reports, err := mapper.NewTable[Report](c, "reports")
				if err != nil {
					return err
				}
				_, err = reports.Update(ctx, Report{ID: "daily"}, update.Add("runs", 1),
					mapper.Fence("fence", lease.Token()))
				return err
			}
			s.CrashAfter("a", 1+s.Rand("a").IntN(4)) // its 1st to 4th request is its last
			s.Go("a", func(ctx context.Context, c *dynamodb.Client) { _ = work(ctx, c) })
			s.Go("b", func(ctx context.Context, c *dynamodb.Client) {
				time.Sleep(time.Second) // virtual time: a asks first
				if err := work(ctx, c); err != nil {
					s.T.Errorf("b: %v", err)
					return
				}
				bWrote = true
			})
			s.Wait()
		})
		if !bWrote {
			t.Errorf("seed %d: b never wrote", seed)
		}
	}
}

// readme:end simulation
