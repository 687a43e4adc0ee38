//go:build conformance

package cond

// The tests that hold the cases and the reserved words to DynamoDB Local.

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/stretchr/testify/require"
)

// TestCasesOnDynamoDB checks that the outcomes written in cases are
// DynamoDB Local's, so that TestCases tests Eval against DynamoDB and not
// against the author's idea of it.
func TestCasesOnDynamoDB(t *testing.T) {
	c, table := referenceTable(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	item := attrs("pk", S("std"))
	for k, v := range std {
		item[k] = v
	}
	_, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(table), Item: item})
	require.NoError(t, err)

	// One call per case (a refused expression fails a whole transaction),
	// a few at a time.
	var wg sync.WaitGroup
	work := make(chan tcase)
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for tc := range work {
				pk := "std"
				if tc.none {
					pk = "none"
				}
				got, err := conditionCheck(ctx, c, table, pk, tc.expr, tc.names, tc.vals)
				if err != nil {
					t.Errorf("%v\n%s", err, describe(tc.expr, tc.names, tc.vals, tc.item()))
					continue
				}
				if got != tc.want {
					t.Errorf("DynamoDB Local says %v, the case %v\n%s", got, tc.want, describe(tc.expr, tc.names, tc.vals, tc.item()))
				}
			}
		}()
	}
	for _, tc := range cases {
		work <- tc
	}
	close(work)
	wg.Wait()
}

// TestReservedWordsOnDynamoDB checks that DynamoDB Local refuses the
// reserved words Parse refuses.
func TestReservedWordsOnDynamoDB(t *testing.T) {
	refused := reservedRefused(t)
	c, table := referenceTable(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var wg sync.WaitGroup
	work := make(chan string)
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for w := range work {
				want := outInvalid
				if w == "size" || w == "convert" {
					want = outFalse
				}
				got, err := conditionCheck(ctx, c, table, "none", w+" = :v", nil, v1(N("1")))
				if err != nil || got != want {
					t.Errorf("%s = :v: DynamoDB Local says %v (err %v), want %v", w, got, err, want)
				}
			}
		}()
	}
	for _, w := range append(refused, "and", "or", "not", "between", "in", "remove") {
		work <- w
	}
	close(work)
	wg.Wait()
}
