//go:build go1.26

package dynamolocal_test

import (
	"context"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/optimist-dynamo/optimist/dynamolocal"
)

// TestSimCrashEndsContext: a client that crashes at its third request
// sees its context end at the crash, not at the simulation's end; the
// crashing request never returns, and the client sends nothing more while
// another client goes on for a minute of virtual time.
func TestSimCrashEndsContext(t *testing.T) {
	var (
		crashedAt, ctxEndedAt, doneAt time.Time
		returned                      []time.Time // when the victim's calls returned
		sent                          int
	)
	dynamolocal.Simulate(t, 1, func(s *dynamolocal.Sim) {
		simSetup(s)
		start := time.Now()
		get := func(ctx context.Context, c *dynamodb.Client) error {
			_, err := c.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(simAccounts),
				Key: map[string]types.AttributeValue{"id": &types.AttributeValueMemberS{Value: simID(0)}}})
			return err
		}
		s.CrashAfter("victim", 3)
		s.Go("victim", func(ctx context.Context, c *dynamodb.Client) {
			go func() {
				<-ctx.Done()
				ctxEndedAt = time.Now()
			}()
			for range 10 {
				err := get(ctx, c)
				returned = append(returned, time.Now())
				if err != nil {
					return // at the simulation's end, the crashed call fails
				}
				time.Sleep(time.Second)
			}
		})
		s.Go("other", func(ctx context.Context, c *dynamodb.Client) {
			for range 60 {
				if s.Crashed("victim") && crashedAt.IsZero() {
					crashedAt = time.Now()
				}
				if err := get(ctx, c); err != nil {
					t.Errorf("other: %v", err)
				}
				time.Sleep(time.Second)
			}
		})
		s.Wait()
		doneAt = time.Now()
		for _, l := range s.Transcript() {
			if len(l) > 0 && containsField(l, "victim#") {
				sent++
			}
		}
		if time.Since(start) < time.Minute {
			t.Errorf("the workload ended after %v, before the other client's minute", time.Since(start))
		}
	})
	if len(returned) != 3 || returned[2].Before(doneAt) {
		t.Errorf("the victim's calls returned at %v, the workload was done at %v: want two, and the third (which crashed it) only at the end", returned, doneAt)
	}
	if sent != 3 {
		t.Errorf("the engine served %d requests of the victim, want 3", sent)
	}
	if ctxEndedAt.IsZero() || crashedAt.IsZero() || ctxEndedAt.After(crashedAt) {
		t.Errorf("the victim's context ended at %v, its crash was seen at %v: want it ended by then", ctxEndedAt, crashedAt)
	}
}

func containsField(line, field string) bool {
	for i := 0; i+len(field) <= len(line); i++ {
		if line[i:i+len(field)] == field {
			return true
		}
	}
	return false
}
