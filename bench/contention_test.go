package bench

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
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

	"github.com/optimist-dynamo/optimist/dynamolocal"
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

// The contention measured: 16 goroutines each make 25 increments of
// one item. The few-writer cases make the same 400 increments with 4
// goroutines of 100 each.
const (
	writers   = 16
	perWriter = 25
	few       = 4
	perFew    = writers * perWriter / few
	many      = 20
	perMany   = writers * perWriter / many
)

// contenders picks the contenders of BenchmarkContention to run (comma
// separated names; all if empty), for quicker runs of a few.
var contenders = flag.String("contenders", "", "BenchmarkContention: the contenders to run, comma separated (default all)")

// latency delays every request to the embedded engine by this much, as a
// network would: in process a call's round trip is only CPU, so a chain of
// calls that must follow each other (every write of one item) costs next
// to nothing, where on a network it costs a round trip each.
var latency = flag.Duration("latency", 0, "BenchmarkContention: delay every request to the embedded engine by this much (a network's round trip)")

// incrementer makes one increment of the item with the given id, retrying
// until it lands, and returns how many writes it tried.
// g is the goroutine making it (0 to writers-1).
type incrementer func(ctx context.Context, g int, id string) (attempts int, err error)

// contender is one way of making increments, with a count of its calls:
// n goroutines make per increments each.
type contender struct {
	name   string
	n, per int
	calls  func() int64
	inc    incrementer
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

// modifyInc is optimist's Modify with opts, goroutine g using
// tables[g%len(tables)]; attempts are the runs of fn. Modify calls take
// turns per Table, so one Table stands for one process: several Tables show
// how Modify does against writers in other processes.
func modifyInc(opts []mapper.RetryOption, tables ...*mapper.Table[Counter]) incrementer {
	return func(ctx context.Context, g int, id string) (int, error) {
		attempts := 0
		_, err := tables[g%len(tables)].Modify(ctx, Counter{ID: id}, func(c *Counter) error {
			attempts++
			c.N++
			return nil
		}, opts...)
		return attempts, err
	}
}

// shortBackoff is Modify's former default backoff, kept in the comparison:
// with a Table starting from the item it last wrote, changes land in runs,
// and shorter sleeps make waiters meet runs with writes they refuse.
var shortBackoff = []mapper.RetryOption{mapper.Backoff(10*time.Millisecond, 200*time.Millisecond)}

// runResult is one contended run of one contender.
type runResult struct {
	wall        time.Duration
	calls       int64
	maxAttempts int
}

// run has c.n goroutines make c.per increments each of a fresh item, and
// checks the final count.
func (c contender) run(b *testing.B, check *mapper.Table[Counter], id string) runResult {
	ctx := context.Background()
	before := c.calls()
	var most atomic.Int64
	var wg sync.WaitGroup
	start := time.Now()
	for g := range c.n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range c.per {
				n, err := c.inc(ctx, g, id)
				if err != nil {
					b.Error(c.name, err)
					return
				}
				for m := most.Load(); int64(n) > m && !most.CompareAndSwap(m, int64(n)); m = most.Load() {
				}
			}
		}()
	}
	wg.Wait()
	r := runResult{wall: time.Since(start), calls: c.calls() - before, maxAttempts: int(most.Load())}
	got, err := check.Get(ctx, Counter{ID: id})
	if err != nil || got.N != c.n*c.per {
		b.Fatalf("%s: final count %v (%v), want %d", c.name, got, err, c.n*c.per)
	}
	return r
}

// BenchmarkContention: 16 goroutines x 25 increments of one item on
// DynamoDB Local, with Modify (one Table; four Tables standing for four
// processes; sixteen, one per goroutine, as sixteen processes would be,
// with the default backoff and with the former shorter one), the
// hand-written SDK loop (with and without jittered backoff) and guregu's
// loop; and the same 400 increments by 4 goroutines, with Modify in one
// Table per goroutine (both backoffs) and the hand-written loops; and by 20
// goroutines of 20 each, Modify in one Table per goroutine beside the
// hand-written loops. All run
// in every iteration, in rotating order, so that all meet the same
// machine; -contenders picks some of them.
//
// Metrics, per contender: wall per run (ms), calls per increment, and the
// most attempts one change needed in any run. Ratios (medians over the
// iterations) of a Modify contender's wall to the best loop's with as many
// goroutines in the same iteration: modify/best (one Table),
// modify16procs/best (one Table per goroutine), modify4w/best (4
// goroutines, one Table each), modify20procs/best (20 goroutines, one
// Table each), and the same for the shorter backoff.
func BenchmarkContention(b *testing.B) {
	srv := dynamolocal.New(b)
	raw := srv.Client()
	name := ddbtest.CreateTable(b, raw, "id", types.ScalarAttributeTypeS, "", "")
	if *latency > 0 {
		remove, err := srv.Inject(dynamolocal.Rule{Table: name, Fault: dynamolocal.FaultDelayed, Delay: *latency})
		if err != nil {
			b.Fatalf("-latency: %v", err)
		}
		b.Cleanup(remove)
	}
	counted := ddbtest.NewCounting(raw)
	newTable := func() *mapper.Table[Counter] {
		t, err := mapper.NewTable[Counter](counted, name)
		if err != nil {
			b.Fatal(err)
		}
		return t
	}
	check, err := mapper.NewTable[Counter](raw, name)
	if err != nil {
		b.Fatal(err)
	}
	// procs makes n Tables, one per writer (Modify keeps items per Table:
	// each contender has its own).
	procs := func(n int) []*mapper.Table[Counter] {
		ts := make([]*mapper.Table[Counter], n)
		for i := range ts {
			ts[i] = newTable()
		}
		return ts
	}
	gc := &countingGuregu{DynamoDBAPI: raw}
	all := []contender{
		{"modify", writers, perWriter, counted.Total, modifyInc(nil, newTable())},
		{"modify4procs", writers, perWriter, counted.Total, modifyInc(nil, procs(4)...)},
		{"modify16procs", writers, perWriter, counted.Total, modifyInc(nil, procs(writers)...)},
		{"modify16procs-shortbackoff", writers, perWriter, counted.Total, modifyInc(shortBackoff, procs(writers)...)},
		{"loop", writers, perWriter, counted.Total, handWritten(counted, name, false)},
		{"loopbackoff", writers, perWriter, counted.Total, handWritten(counted, name, true)},
		{"guregu", writers, perWriter, gc.n.Load, gureguLoop(dynamo.NewFromIface(gc).Table(name))},
		{"modify4w", few, perFew, counted.Total, modifyInc(nil, procs(few)...)},
		{"modify4w-shortbackoff", few, perFew, counted.Total, modifyInc(shortBackoff, procs(few)...)},
		{"loop4w", few, perFew, counted.Total, handWritten(counted, name, false)},
		{"loopbackoff4w", few, perFew, counted.Total, handWritten(counted, name, true)},
		{"modify20procs", many, perMany, counted.Total, modifyInc(nil, procs(many)...)},
		{"loop20w", many, perMany, counted.Total, handWritten(counted, name, false)},
		{"loopbackoff20w", many, perMany, counted.Total, handWritten(counted, name, true)},
	}
	var run []contender
	for _, c := range all {
		if *contenders == "" || slices.Contains(strings.Split(*contenders, ","), c.name) {
			run = append(run, c)
		}
	}
	if len(run) == 0 {
		b.Fatalf("-contenders %q names none of them", *contenders)
	}
	wall := map[string]time.Duration{}
	calls := map[string]int64{}
	maxAttempts := map[string]int{}
	ratios := map[string][]float64{}
	// best is the quickest loop of this iteration among names, 0 if none ran.
	best := func(this map[string]time.Duration, names ...string) time.Duration {
		var d time.Duration
		for _, n := range names {
			if w, ok := this[n]; ok && (d == 0 || w < d) {
				d = w
			}
		}
		return d
	}
	// versus pairs each ratio's Modify with the loops it is compared with:
	// those with as many goroutines.
	versus := []struct {
		name  string
		loops []string
	}{
		{"modify", []string{"loop", "loopbackoff", "guregu"}},
		{"modify16procs", []string{"loop", "loopbackoff", "guregu"}},
		{"modify16procs-shortbackoff", []string{"loop", "loopbackoff", "guregu"}},
		{"modify4w", []string{"loop4w", "loopbackoff4w"}},
		{"modify4w-shortbackoff", []string{"loop4w", "loopbackoff4w"}},
		{"modify20procs", []string{"loop20w", "loopbackoff20w"}},
	}
	for iter := 0; b.Loop(); iter++ {
		this := map[string]time.Duration{}
		for i := range run {
			c := run[(i+iter)%len(run)]
			r := c.run(b, check, fmt.Sprintf("%s-%d", c.name, iter))
			this[c.name] = r.wall
			wall[c.name] += r.wall
			calls[c.name] += r.calls
			maxAttempts[c.name] = max(maxAttempts[c.name], r.maxAttempts)
		}
		for _, q := range versus {
			if d, ok := this[q.name]; ok {
				if bst := best(this, q.loops...); bst > 0 {
					ratios[q.name] = append(ratios[q.name], float64(d)/float64(bst))
				}
			}
		}
	}
	for _, c := range run {
		incs := float64(b.N * c.n * c.per)
		b.ReportMetric(float64(wall[c.name].Milliseconds())/float64(b.N), c.name+"-ms")
		b.ReportMetric(float64(calls[c.name])/incs, c.name+"-calls/inc")
		b.ReportMetric(float64(maxAttempts[c.name]), c.name+"-maxattempts")
	}
	for name, r := range ratios {
		slices.Sort(r)
		b.ReportMetric(r[len(r)/2], name+"/best")
	}
	b.ReportMetric(0, "ns/op")
}

// BenchmarkAdd: 400 ADD increments of one counter at 16 goroutines, with
// optimist's Update(update.Add), with a raw UpdateItem ADD, and with a raw
// UpdateItem that also writes what Update's guarantees need, interleaved.
// Metrics: wall per run of each (ms), and the median ratios of Update's to
// the two raw ones: update/rawguarded near 1 says that what is left of
// update/raw is those attributes, on the server.
func BenchmarkAdd(b *testing.B) {
	srv := dynamolocal.New(b)
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
