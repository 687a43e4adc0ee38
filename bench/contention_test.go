package bench

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/guregu/dynamo/v2"
	"github.com/guregu/dynamo/v2/dynamodbiface"

	"github.com/optimist-dynamo/optimist/internal/ddbtest"
	"github.com/optimist-dynamo/optimist/internal/retry"
	"github.com/optimist-dynamo/optimist/mapper"
	"github.com/optimist-dynamo/optimist/update"
)

// Counter is the contended item: one counter, versioned.
type Counter struct {
	ID      string `dynamo:"id,hash"`
	N       int    `dynamo:"n"`
	Version int64  `dynamo:"v,version"`
}

// Contention shape of issue 11: 16 goroutines each make 25 increments of
// one item.
const (
	writers   = 16
	perWriter = 25
)

// incrementer makes one increment of the item with the given id, retrying
// until it lands, and returns how many writes it tried.
// g is the goroutine making it (0 to writers-1).
type incrementer func(ctx context.Context, g int, id string) (attempts int, err error)

// contender is one way of making increments, with a count of its calls.
type contender struct {
	name  string
	calls func() int64
	inc   incrementer
}

// countingGuregu counts guregu's calls to DynamoDB.
type countingGuregu struct {
	dynamodbiface.DynamoDBAPI
	n atomic.Int64
}

func (c *countingGuregu) GetItem(ctx context.Context, in *dynamodb.GetItemInput, o ...func(*dynamodb.Options)) (*dynamodb.GetItemOutput, error) {
	c.n.Add(1)
	return c.DynamoDBAPI.GetItem(ctx, in, o...)
}

func (c *countingGuregu) PutItem(ctx context.Context, in *dynamodb.PutItemInput, o ...func(*dynamodb.Options)) (*dynamodb.PutItemOutput, error) {
	c.n.Add(1)
	return c.DynamoDBAPI.PutItem(ctx, in, o...)
}

func (c *countingGuregu) UpdateItem(ctx context.Context, in *dynamodb.UpdateItemInput, o ...func(*dynamodb.Options)) (*dynamodb.UpdateItemOutput, error) {
	c.n.Add(1)
	return c.DynamoDBAPI.UpdateItem(ctx, in, o...)
}

func decodeOpts(o *attributevalue.DecoderOptions) { o.TagKey = "dynamo" }
func encodeOpts(o *attributevalue.EncoderOptions) { o.TagKey = "dynamo" }

// handWritten is the loop users write with the SDK alone: consistent read,
// change, write on the condition that the version is unchanged; on a
// conflict, read again (after a jittered backoff if backoff).
func handWritten(c *ddbtest.CountingClient, table string, backoff bool) incrementer {
	return func(ctx context.Context, _ int, id string) (int, error) {
		key := map[string]types.AttributeValue{"id": &types.AttributeValueMemberS{Value: id}}
		for attempt := 1; ; attempt++ {
			out, err := c.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(table), Key: key, ConsistentRead: aws.Bool(true)})
			if err != nil {
				return attempt, err
			}
			var item Counter
			if err := attributevalue.UnmarshalMapWithOptions(out.Item, &item, decodeOpts); err != nil {
				return attempt, err
			}
			item.ID = id
			old := item.Version
			item.N++
			item.Version++
			av, err := attributevalue.MarshalMapWithOptions(item, encodeOpts)
			if err != nil {
				return attempt, err
			}
			cond := expression.AttributeNotExists(expression.Name("id"))
			if old != 0 {
				cond = expression.Name("v").Equal(expression.Value(old))
			}
			expr, err := expression.NewBuilder().WithCondition(cond).Build()
			if err != nil {
				return attempt, err
			}
			_, err = c.PutItem(ctx, &dynamodb.PutItemInput{
				TableName: aws.String(table), Item: av, ConditionExpression: expr.Condition(),
				ExpressionAttributeNames: expr.Names(), ExpressionAttributeValues: expr.Values(),
			})
			var ccf *types.ConditionalCheckFailedException
			if !errors.As(err, &ccf) {
				return attempt, err
			}
			if backoff {
				// Modify's former policy: full jitter from 5ms, capped at 500ms.
				if err := retry.Sleep(ctx, retry.Backoff(attempt, 5*time.Millisecond, 500*time.Millisecond)); err != nil {
					return attempt, err
				}
			}
		}
	}
}

// gureguLoop is the same loop with guregu/dynamo.
func gureguLoop(t dynamo.Table) incrementer {
	return func(ctx context.Context, _ int, id string) (int, error) {
		for attempt := 1; ; attempt++ {
			var item Counter
			err := t.Get("id", id).Consistent(true).One(ctx, &item)
			if err != nil && !errors.Is(err, dynamo.ErrNotFound) {
				return attempt, err
			}
			item.ID = id
			old := item.Version
			item.N++
			item.Version++
			put := t.Put(item)
			if old == 0 {
				put = put.If("attribute_not_exists('id')")
			} else {
				put = put.If("'v' = ?", old)
			}
			err = put.Run(ctx)
			if !dynamo.IsCondCheckFailed(err) {
				return attempt, err
			}
		}
	}
}

// modifyInc is optimist's Modify, goroutine g using tables[g%len(tables)];
// attempts are the runs of fn. Modify calls take turns per Table, so one
// Table stands for one process: several Tables show how Modify does
// against writers in other processes.
func modifyInc(tables ...*mapper.Table[Counter]) incrementer {
	return func(ctx context.Context, g int, id string) (int, error) {
		attempts := 0
		_, err := tables[g%len(tables)].Modify(ctx, Counter{ID: id}, func(c *Counter) error {
			attempts++
			c.N++
			return nil
		})
		return attempts, err
	}
}

// runResult is one contended run of one contender.
type runResult struct {
	wall        time.Duration
	calls       int64
	maxAttempts int
	attempts    []int
}

// run has writers goroutines make perWriter increments each of a fresh item,
// and checks the final count.
func (c contender) run(b *testing.B, check *mapper.Table[Counter], id string) runResult {
	ctx := context.Background()
	before := c.calls()
	var mu sync.Mutex
	var attempts []int
	var wg sync.WaitGroup
	start := time.Now()
	for g := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range perWriter {
				n, err := c.inc(ctx, g, id)
				if err != nil {
					b.Error(c.name, err)
					return
				}
				mu.Lock()
				attempts = append(attempts, n)
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	r := runResult{wall: time.Since(start), calls: c.calls() - before, attempts: attempts}
	r.maxAttempts = slices.Max(attempts)
	got, err := check.Get(ctx, Counter{ID: id})
	if err != nil || got.N != writers*perWriter {
		b.Fatalf("%s: final count %v (%v), want %d", c.name, got, err, writers*perWriter)
	}
	return r
}

// BenchmarkContention: 16 goroutines x 25 increments of one item on
// DynamoDB Local, with Modify (one Table; four Tables standing for four
// processes; sixteen, one per goroutine, as sixteen processes would be), the hand-written SDK loop (with and without jittered backoff)
// and guregu's loop, interleaved in every iteration (the
// order rotates), so that all four meet the same machine. Metrics: wall per
// run of each (ms), Modify's wall over the best of the others, calls per
// increment, and the most attempts one change needed.
func BenchmarkContention(b *testing.B) {
	srv := ddbtest.Server(b)
	raw := srv.Client()
	name := ddbtest.CreateTable(b, raw, "id", types.ScalarAttributeTypeS, "", "")
	counted := ddbtest.NewCounting(raw)
	opt, err := mapper.NewTable[Counter](counted, name)
	if err != nil {
		b.Fatal(err)
	}
	check, err := mapper.NewTable[Counter](raw, name)
	if err != nil {
		b.Fatal(err)
	}
	var procs []*mapper.Table[Counter]
	for range writers {
		p, err := mapper.NewTable[Counter](counted, name)
		if err != nil {
			b.Fatal(err)
		}
		procs = append(procs, p)
	}
	gc := &countingGuregu{DynamoDBAPI: raw}
	contenders := []contender{
		{"modify", counted.Total, modifyInc(opt)},
		{"modify4procs", counted.Total, modifyInc(procs[:4]...)},
		{"modify16procs", counted.Total, modifyInc(procs...)},
		{"loop", counted.Total, handWritten(counted, name, false)},
		{"loopbackoff", counted.Total, handWritten(counted, name, true)},
		{"guregu", gc.n.Load, gureguLoop(dynamo.NewFromIface(gc).Table(name))},
	}
	wall := map[string]time.Duration{}
	calls := map[string]int64{}
	maxAttempts := map[string]int{}
	var ratios []float64
	for iter := 0; b.Loop(); iter++ {
		this := map[string]time.Duration{}
		for i := range contenders {
			c := contenders[(i+iter)%len(contenders)]
			r := c.run(b, check, fmt.Sprintf("%s-%d", c.name, iter))
			this[c.name] = r.wall
			wall[c.name] += r.wall
			calls[c.name] += r.calls
			maxAttempts[c.name] = max(maxAttempts[c.name], r.maxAttempts)
		}
		best := min(this["loop"], this["loopbackoff"], this["guregu"])
		ratios = append(ratios, float64(this["modify"])/float64(best))
	}
	incs := float64(b.N * writers * perWriter)
	for _, c := range contenders {
		b.ReportMetric(float64(wall[c.name].Milliseconds())/float64(b.N), c.name+"-ms")
		b.ReportMetric(float64(calls[c.name])/incs, c.name+"-calls/inc")
		b.ReportMetric(float64(maxAttempts[c.name]), c.name+"-maxattempts")
	}
	slices.Sort(ratios)
	b.ReportMetric(ratios[len(ratios)/2], "modify/best")
	b.ReportMetric(0, "ns/op")
}

// BenchmarkAdd: 400 ADD increments of one counter at 16 goroutines, with
// optimist's Update(update.Add), with a raw UpdateItem ADD, and with a raw
// UpdateItem that also writes what Update's guarantees need, interleaved.
// Metrics: wall per run of each (ms), and the median ratios of Update's to
// the two raw ones: update/rawguarded near 1 says that what is left of
// update/raw is those attributes, on the server.
func BenchmarkAdd(b *testing.B) {
	srv := ddbtest.Server(b)
	raw := srv.Client()
	name := ddbtest.CreateTable(b, raw, "id", types.ScalarAttributeTypeS, "", "")
	opt, err := mapper.NewTable[Counter](raw, name)
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	variants := []struct {
		name string
		inc  func(id string) error
	}{
		{"update", func(id string) error {
			_, err := opt.Update(ctx, Counter{ID: id}, update.Add("n", 1))
			return err
		}},
		{"raw", func(id string) error {
			_, err := raw.UpdateItem(ctx, &dynamodb.UpdateItemInput{
				TableName:                 aws.String(name),
				Key:                       map[string]types.AttributeValue{"id": &types.AttributeValueMemberS{Value: id}},
				UpdateExpression:          aws.String("ADD #n :one"),
				ExpressionAttributeNames:  map[string]string{"#n": "n"},
				ExpressionAttributeValues: map[string]types.AttributeValue{":one": &types.AttributeValueMemberN{Value: "1"}},
				ReturnValues:              types.ReturnValueAllNew,
			})
			return err
		}},
		// What Update's guarantees add, by hand: the version bump (so that
		// a stale copy can no longer be saved over the change), a fresh
		// write token (so that a lost response can be settled), and the
		// condition that no unit of work holds the item.
		{"rawguarded", func(id string) error {
			_, err := raw.UpdateItem(ctx, &dynamodb.UpdateItemInput{
				TableName:                aws.String(name),
				Key:                      map[string]types.AttributeValue{"id": &types.AttributeValueMemberS{Value: id}},
				UpdateExpression:         aws.String("ADD #n :one, #v :one SET #t = :t"),
				ConditionExpression:      aws.String("attribute_not_exists(#lk)"),
				ExpressionAttributeNames: map[string]string{"#n": "n", "#v": "v", "#t": "optimist_token", "#lk": "optimist_unit"},
				ExpressionAttributeValues: map[string]types.AttributeValue{
					":one": &types.AttributeValueMemberN{Value: "1"},
					":t":   &types.AttributeValueMemberS{Value: strconv.FormatUint(rand.Uint64(), 36) + ".1"},
				},
				ReturnValues: types.ReturnValueAllNew,
			})
			return err
		}},
	}
	round := func(inc func(id string) error, id string) time.Duration {
		var wg sync.WaitGroup
		start := time.Now()
		for range writers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for range perWriter {
					if err := inc(id); err != nil {
						b.Error(err)
						return
					}
				}
			}()
		}
		wg.Wait()
		return time.Since(start)
	}
	// One untimed round of each first: DynamoDB Local compiles its code
	// paths as they are used, and the two variants do not use the same
	// ones (a condition, more attributes), so a cold first round says more
	// about its JIT than about either variant.
	for _, v := range variants {
		round(v.inc, v.name+"-warmup")
	}
	wall := map[string]time.Duration{}
	var ratios, guarded []float64
	for iter := 0; b.Loop(); iter++ {
		this := map[string]time.Duration{}
		for i := range variants {
			v := variants[(i+iter)%len(variants)]
			this[v.name] = round(v.inc, fmt.Sprintf("%s-%d", v.name, iter))
			wall[v.name] += this[v.name]
		}
		ratios = append(ratios, float64(this["update"])/float64(this["raw"]))
		guarded = append(guarded, float64(this["update"])/float64(this["rawguarded"]))
	}
	for _, v := range variants {
		b.ReportMetric(float64(wall[v.name].Milliseconds())/float64(b.N), v.name+"-ms")
	}
	slices.Sort(ratios)
	b.ReportMetric(ratios[len(ratios)/2], "update/raw")
	slices.Sort(guarded)
	b.ReportMetric(guarded[len(guarded)/2], "update/rawguarded")
	b.ReportMetric(0, "ns/op")
}
