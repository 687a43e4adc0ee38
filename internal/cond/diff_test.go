//go:build conformance

package cond

import (
	"context"
	"flag"
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/require"
)

var (
	diffSeed       = flag.Uint64("cond.seed", 1, "seed of TestDifferential's random items and conditions; 0 takes one from the clock")
	diffConditions = flag.Int("cond.conditions", 1200, "how many random conditions TestDifferential generates")
)

const (
	diffItems   = 64 // random items in the table
	diffWorkers = 3  // concurrent Scans
	maxReported = 20 // disagreements shown in full
)

// gcase is a generated condition with its names and values.
type gcase struct {
	expr    string
	names   map[string]string
	vals    map[string]types.AttributeValue
	builder bool // made by the SDK's expression builder
}

// TestDifferential compares Eval with DynamoDB Local on random items and
// random conditions (see gen_test.go), asking DynamoDB in two ways:
//
//   - as a Scan filter, which evaluates one condition on every item of the
//     table in one call: the items it returns must be exactly those on
//     which Eval is true, and it must refuse exactly the conditions that
//     Eval refuses;
//   - as a ConditionCheck, on one item and on a key that holds no item, up
//     to 100 checks per TransactWriteItems (DynamoDB Local gives a
//     cancellation reason for each), which is the path a unit's op takes
//     and the only way to evaluate on no item.
//
// Every disagreement fails the test with the expression, names, values
// and item. The seed is fixed so that a failure reproduces; -cond.seed=0
// draws a new one, and -cond.conditions sets the number of conditions.
func TestDifferential(t *testing.T) {
	seed := *diffSeed
	if seed == 0 {
		seed = uint64(time.Now().UnixNano())
	}
	t.Logf("seed %d (rerun with -cond.seed=%d)", seed, seed)
	g := &gen{r: rand.New(rand.NewPCG(seed, 0))}
	for range diffItems {
		g.items = append(g.items, g.item())
	}
	stored := make([]map[string]types.AttributeValue, diffItems)
	for i, it := range g.items {
		stored[i] = map[string]types.AttributeValue{"pk": S(pkOf(i))}
		for k, v := range it {
			stored[i][k] = v
		}
	}
	cases := make([]gcase, *diffConditions)
	built := 0
	for i := range cases {
		n := g.cond(3)
		if g.chance(0.3) {
			if cb, ok := build(n); ok {
				e, err := expression.NewBuilder().WithCondition(cb).Build()
				require.NoError(t, err)
				cases[i] = gcase{aws.ToString(e.Condition()), e.Names(), e.Values(), true}
				built++
				continue
			}
		}
		expr, nm, vals := g.render(n)
		cases[i] = gcase{expr: expr, names: nm, vals: vals}
	}

	c, table := referenceTable(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	putAll(ctx, t, c, table, stored)

	var failures atomic.Int64
	report := func(format string, args ...any) {
		if failures.Add(1) <= maxReported {
			t.Errorf(format, args...)
		}
	}

	// Scans, a few at a time.
	var (
		compared, refused, held atomic.Int64
		wg                      sync.WaitGroup
		valid                   = make([]bool, len(cases))
	)
	work := make(chan int)
	for range diffWorkers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range work {
				gc := cases[i]
				matched, err := scanFilter(ctx, c, table, gc)
				if err != nil && !isValidation(err) {
					t.Errorf("scan: %v\n%s", err, describe(gc.expr, gc.names, gc.vals, nil))
					continue
				}
				if err != nil {
					refused.Add(1)
				}
				e, perr := Parse(gc.expr)
				for j, item := range stored {
					got, everr := outcomeOf(false, perr)
					if perr == nil {
						got, everr = outcomeOf(e.Eval(item, gc.names, gc.vals))
					}
					want := outFalse
					switch {
					case err != nil:
						want = outInvalid
					case matched[pkOf(j)]:
						want = outTrue
						held.Add(1)
					}
					compared.Add(1)
					if everr != nil || got != want {
						report("Scan filter: DynamoDB Local says %v, Eval %v (err %v)\n%s", want, got, everr, describe(gc.expr, gc.names, gc.vals, item))
						break // one report per condition
					}
					if want == outInvalid {
						break // refused on every item alike
					}
				}
				valid[i] = err == nil
			}
		}()
	}
	for i := range cases {
		work <- i
	}
	close(work)
	wg.Wait()

	// ConditionChecks, 50 conditions per transaction, each on an item and
	// on no item.
	var checks []check
	var items []map[string]types.AttributeValue
	flush := func() {
		if len(checks) == 0 {
			return
		}
		outs, err := conditionChecks(ctx, c, table, checks)
		for k, ch := range checks {
			want := outFalse
			switch {
			case err == nil:
				want = outs[k]
			case isValidation(err):
				// Some condition the Scan accepted is refused here: ask
				// one by one, to find which.
				var err1 error
				if want, err1 = conditionCheck(ctx, c, table, ch.pk, ch.expr, ch.names, ch.vals); err1 != nil {
					t.Errorf("condition check: %v", err1)
					continue
				}
			default:
				t.Errorf("condition checks: %v", err)
				return
			}
			got, everr := evalOutcome(ch.expr, items[k], ch.names, ch.vals)
			compared.Add(1)
			if everr != nil || got != want {
				report("ConditionCheck: DynamoDB Local says %v, Eval %v (err %v)\n%s", want, got, everr, describe(ch.expr, ch.names, ch.vals, items[k]))
			}
		}
		checks, items = checks[:0], items[:0]
	}
	n := 0
	for i, gc := range cases {
		if !valid[i] {
			continue
		}
		j := n % diffItems // distinct items within a transaction of 50
		checks = append(checks,
			check{pkOf(j), gc.expr, gc.names, gc.vals},
			check{fmt.Sprintf("none-%d", len(checks)), gc.expr, gc.names, gc.vals})
		items = append(items, stored[j], nil)
		n++
		if len(checks) == 100 {
			flush()
		}
	}
	flush()

	t.Logf("%d conditions (%d from the SDK's builder, %d refused by DynamoDB Local), %d items: %d evaluations compared, %d true; %d disagreements",
		len(cases), built, refused.Load(), diffItems, compared.Load(), held.Load(), failures.Load())
	// Guard the generator: conditions that were nearly all refused, or
	// nearly never held, would test little.
	require.Less(t, refused.Load(), int64(len(cases)/4), "too many refused conditions")
	require.Greater(t, held.Load(), compared.Load()/10, "too few conditions that hold")
}

func pkOf(i int) string { return fmt.Sprintf("i%03d", i) }

// scanFilter returns the keys of the items on which DynamoDB Local's Scan
// finds gc true.
func scanFilter(ctx context.Context, c *dynamodb.Client, table string, gc gcase) (map[string]bool, error) {
	in := &dynamodb.ScanInput{
		TableName:        aws.String(table),
		FilterExpression: aws.String(gc.expr),
		ConsistentRead:   aws.Bool(true),
	}
	if len(gc.names) > 0 {
		in.ExpressionAttributeNames = gc.names
	}
	if len(gc.vals) > 0 {
		in.ExpressionAttributeValues = gc.vals
	}
	matched := map[string]bool{}
	p := dynamodb.NewScanPaginator(c, in)
	for p.HasMorePages() {
		out, err := p.NextPage(ctx)
		if err != nil {
			return nil, err
		}
		for _, it := range out.Items {
			matched[it["pk"].(*types.AttributeValueMemberS).Value] = true
		}
	}
	return matched, nil
}

// putAll writes items with BatchWriteItem.
func putAll(ctx context.Context, t *testing.T, c *dynamodb.Client, table string, items []map[string]types.AttributeValue) {
	t.Helper()
	for start := 0; start < len(items); start += 25 {
		var reqs []types.WriteRequest
		for _, it := range items[start:min(start+25, len(items))] {
			reqs = append(reqs, types.WriteRequest{PutRequest: &types.PutRequest{Item: it}})
		}
		pending := map[string][]types.WriteRequest{table: reqs}
		for len(pending) > 0 {
			out, err := c.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{RequestItems: pending})
			if err != nil {
				t.Fatalf("put items %d to %d: %v", start, start+len(reqs)-1, err)
			}
			pending = out.UnprocessedItems
		}
	}
}
