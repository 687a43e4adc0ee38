//go:build go1.26

package dynamolocal_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/optimist-dynamo/optimist/dynamolocal"
	"github.com/optimist-dynamo/optimist/unit"
)

// unitLog is what the units workload saw at its end.
type unitLog struct {
	total   int64 // the sum of the balances
	locked  int   // items still carrying a unit's lock
	crashed bool
	skew    int64 // the deliberate fault: money made from nothing
}

// violations is the units checker: money is conserved (every transfer
// all or nothing) and Recover left nothing locked.
func (l *unitLog) violations() []string {
	var out []string
	if l.total != simN*simOpening {
		out = append(out, fmt.Sprintf("balances sum to %d, want %d", l.total, simN*simOpening))
	}
	if l.locked != 0 {
		out = append(out, fmt.Sprintf("%d items still locked after Recover", l.locked))
	}
	return out
}

// unitWorkload: two clients move money between the accounts in units;
// "x" crashes at a seeded request, maybe mid-commit; once its lease has
// passed, Recover finishes or undoes its unit.
func unitWorkload(log *unitLog) func(s *dynamolocal.Sim) {
	return func(s *dynamolocal.Sim) {
		acc := simSetup(s)
		s.CrashAfter("x", 2+s.Rand("x").IntN(12))
		for k, name := range []string{"x", "y"} {
			s.Go(name, func(ctx context.Context, c *dynamodb.Client) {
				t := simTable(s, c)
				for r := range 2 {
					if _, err := simTransfer(ctx, c, t, (k+r)%simN, (k+r+1)%simN, int64(7+k)); err != nil {
						s.T.Logf("%s: %v", name, err)
					}
				}
			})
		}
		s.Wait()
		log.crashed = s.Crashed("x")
		ctx := s.Context()
		time.Sleep(10 * time.Second) // past the crashed unit's lease
		admin := s.Client("admin")
		if _, err := unit.Recover(ctx, admin, simUnits); err != nil {
			s.T.Errorf("Recover: %v", err)
		}
		out, err := admin.Scan(ctx, &dynamodb.ScanInput{TableName: aws.String(simAccounts), ConsistentRead: aws.Bool(true)})
		if err != nil {
			s.T.Fatal(err)
		}
		for _, it := range out.Items {
			if _, ok := it["optimist_unit"]; ok {
				log.locked++
			}
		}
		for i := range simN {
			a, err := acc.Get(ctx, simAccount{ID: simID(i)})
			if err != nil {
				s.T.Fatal(err)
			}
			log.total += a.Balance
		}
		log.total += log.skew
	}
}

// TestSimUnits runs unitWorkload over many seeds.
func TestSimUnits(t *testing.T) {
	crashes := 0
	for _, seed := range dynamolocal.SimSeeds(20) {
		log := &unitLog{}
		dynamolocal.Simulate(t, seed, unitWorkload(log))
		for _, v := range log.violations() {
			t.Errorf("seed %d: %s; replay: go test ./dynamolocal/ -run '^TestSimUnits$' -sim.seed=%d", seed, v, seed)
		}
		if log.crashed {
			crashes++
		}
	}
	if crashes == 0 {
		t.Error("no seed crashed client x")
	}
}

// TestSimUnitsCheckerFails makes money from nothing on purpose and wants
// the checker to say so.
func TestSimUnitsCheckerFails(t *testing.T) {
	log := &unitLog{skew: 1}
	dynamolocal.Simulate(t, 1, unitWorkload(log))
	if len(log.violations()) == 0 {
		t.Fatal("the balances' sum was off and the checker saw nothing")
	}
}
