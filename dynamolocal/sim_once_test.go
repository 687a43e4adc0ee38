//go:build go1.26

package dynamolocal_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/optimist-dynamo/optimist/dynamolocal"
	"github.com/optimist-dynamo/optimist/mapper"
	"github.com/optimist-dynamo/optimist/update"
	"github.com/optimist-dynamo/optimist/version"
)

// onceLog counts the increments of the exactly-once workload.
type onceLog struct {
	mu                 sync.Mutex
	updates, unknown   int // Update: answered success; outcome unknown
	modifies, mUnknown int // Modify: the same
	count, mcount      int64
	plain              bool // the deliberate fault: increments sent past the library too
}

// violations is the exactly-once checker: every increment answered
// success landed once (none doubled, none lost), and one whose outcome is
// unknown landed at most once.
func (l *onceLog) violations() []string {
	var out []string
	if l.count < int64(l.updates) || l.count > int64(l.updates+l.unknown) {
		out = append(out, fmt.Sprintf("Update: count %d after %d successes and %d unknown outcomes", l.count, l.updates, l.unknown))
	}
	if l.mcount < int64(l.modifies) || l.mcount > int64(l.modifies+l.mUnknown) {
		out = append(out, fmt.Sprintf("Modify: count %d after %d successes and %d unknown outcomes", l.mcount, l.modifies, l.mUnknown))
	}
	return out
}

// onceWorkload: three clients increment one item with Update (ExactlyOnce)
// and another with Modify, while a third of the answers to UpdateItem and
// PutItem are lost after they were applied.
func onceWorkload(log *onceLog) func(s *dynamolocal.Sim) {
	return func(s *dynamolocal.Sim) {
		acc := simSetup(s)
		s.Inject(dynamolocal.Rule{Op: "UpdateItem", Fault: dynamolocal.FaultLostResponse, Probability: 0.3})
		s.Inject(dynamolocal.Rule{Op: "PutItem", Fault: dynamolocal.FaultLostResponse, Probability: 0.3})
		for _, name := range []string{"c1", "c2", "c3"} {
			s.Go(name, func(ctx context.Context, c *dynamodb.Client) {
				t := simTable(s, c)
				for range 3 {
					var err error
					if !log.plain {
						_, err = t.Update(ctx, simAccount{ID: simID(0)}, update.Add("count", 1), mapper.ExactlyOnce())
					} else { // past the library: the SDK resends a lost answer's request
						_, err = c.UpdateItem(ctx, &dynamodb.UpdateItemInput{
							TableName:                 aws.String(simAccounts),
							Key:                       map[string]types.AttributeValue{"id": &types.AttributeValueMemberS{Value: simID(0)}},
							UpdateExpression:          aws.String("ADD #c :one"),
							ExpressionAttributeNames:  map[string]string{"#c": "count"},
							ExpressionAttributeValues: map[string]types.AttributeValue{":one": &types.AttributeValueMemberN{Value: "1"}},
						})
					}
					log.record(&log.updates, &log.unknown, err)
					_, err = t.Modify(ctx, simAccount{ID: simID(1)}, func(a *simAccount) error { a.Count++; return nil })
					log.record(&log.modifies, &log.mUnknown, err)
				}
			})
		}
		s.Wait()
		ctx := s.Context()
		a0, err := acc.Get(ctx, simAccount{ID: simID(0)})
		if err != nil {
			s.T.Fatal(err)
		}
		a1, err := acc.Get(ctx, simAccount{ID: simID(1)})
		if err != nil {
			s.T.Fatal(err)
		}
		log.count, log.mcount = a0.Count, a1.Count
	}
}

func (l *onceLog) record(ok, unknown *int, err error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	switch {
	case err == nil:
		*ok++
	case errors.Is(err, version.ErrUnknownOutcome):
		*unknown++
	default:
		*unknown++ // any other failure may still have landed once
	}
}

// TestSimExactlyOnce runs onceWorkload over many seeds: 0 doubled, 0 lost.
func TestSimExactlyOnce(t *testing.T) {
	for _, seed := range dynamolocal.SimSeeds(20) {
		log := &onceLog{}
		dynamolocal.Simulate(t, seed, onceWorkload(log))
		for _, v := range log.violations() {
			t.Errorf("seed %d: %s; replay: go test ./dynamolocal/ -run '^TestSimExactlyOnce$' -sim.seed=%d", seed, v, seed)
		}
	}
}

// TestSimExactlyOnceCheckerFails sends the increments as plain UpdateItem
// calls, past the library, so that the SDK's resends of lost answers
// apply twice, and wants the checker to report it on some seed.
func TestSimExactlyOnceCheckerFails(t *testing.T) {
	for seed := uint64(1); seed <= 20; seed++ {
		log := &onceLog{plain: true}
		dynamolocal.Simulate(t, seed, onceWorkload(log))
		if len(log.violations()) > 0 {
			return
		}
	}
	t.Fatal("20 seeds of plain Updates under lost answers and the checker saw no doubled increment")
}
