package bench

import (
	"context"
	"fmt"
	"reflect"
	"runtime"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/guregu/dynamo/v2"

	"github.com/optimist-dynamo/optimist/dynamolocal"
	"github.com/optimist-dynamo/optimist/internal/ddbtest"
	"github.com/optimist-dynamo/optimist/mapper"
)

// Flat is an item of scalars and a list of strings, as most tables hold.
type Flat struct {
	PK      string   `dynamo:"pk,hash"`
	SK      int      `dynamo:"sk,range"`
	Title   string   `dynamo:"title"`
	Owner   string   `dynamo:"owner"`
	Votes   int      `dynamo:"votes"`
	Score   float64  `dynamo:"score"`
	Ratio   float32  `dynamo:"ratio"`
	Views   uint32   `dynamo:"views"`
	Created int64    `dynamo:"created"`
	Active  bool     `dynamo:"active"`
	Tags    []string `dynamo:"tags"`
	Version int64    `dynamo:"v,version"`
}

// Address is the struct nested in Nested.
type Address struct {
	Street string `dynamo:"street"`
	City   string `dynamo:"city"`
	Zip    int    `dynamo:"zip"`
}

// Nested is the "complex struct" of guregu's decoder benchmarks, in a
// table's terms: strings, numbers, a pointer, a time, a nested struct, a
// list of them, a list, a map and a string set.
type Nested struct {
	PK      string         `dynamo:"pk,hash"`
	SK      int            `dynamo:"sk,range"`
	Name    string         `dynamo:"name"`
	Age     int            `dynamo:"age"`
	Balance float64        `dynamo:"balance"`
	Bonus   *int           `dynamo:"bonus"`
	Joined  time.Time      `dynamo:"joined"`
	Home    Address        `dynamo:"home"`
	Past    []Address      `dynamo:"past"`
	Phones  []string       `dynamo:"phones"`
	Scores  map[string]int `dynamo:"scores"`
	Labels  []string       `dynamo:"labels,stringset"`
	Version int64          `dynamo:"v,version"`
}

func newFlat(pk string, sk int) *Flat {
	return &Flat{PK: pk, SK: sk, Title: "Which editor do you use?", Owner: "alice@example.com", Votes: 41 + sk,
		Score: 3.75, Ratio: 0.5, Views: 1234, Created: 1700000000 + int64(sk), Active: true,
		Tags: []string{"poll", "tools"}, Version: 3}
}

func newNested(pk string, sk int) *Nested {
	bonus := 555
	return &Nested{PK: pk, SK: sk, Name: "監獄学園", Age: 30 + sk%40, Balance: 1234.5, Bonus: &bonus,
		Joined: time.Date(2024, 5, 17, 9, 30, 0, 123456789, time.UTC),
		Home:   Address{Street: "1 Main St", City: "Springfield", Zip: 12345},
		Past:   []Address{{Street: "2 Elm St", City: "Shelbyville", Zip: 54321}},
		Phones: []string{"+1 555 0100", "+1 555 0101"}, Scores: map[string]int{"math": 90, "art": 75},
		Labels: []string{"vip", "beta"}, Version: 7}
}

// shape is one item type of the decode benchmarks, with what each
// implementation needs to decode it.
type shape struct {
	name      string
	item      map[string]types.AttributeValue // as optimist writes it
	optimist  func(map[string]types.AttributeValue) (any, error)
	attrvalue func(map[string]types.AttributeValue) (any, error)
	guregu    func(map[string]types.AttributeValue) (any, error)
	want      any
}

func newShape[T any](b testing.TB, name string, v *T) shape {
	b.Helper()
	rec := &recorder{}
	table, err := mapper.NewTable[T](mapperStub{recorder: rec}, "items")
	if err != nil {
		b.Fatal(err)
	}
	// A Put, which also stores the write token (and sets v's version to
	// the one written).
	if err := table.Put(context.Background(), v); err != nil {
		b.Fatal(err)
	}
	item := rec.last.Item
	return shape{
		name: name,
		item: item,
		optimist: func(item map[string]types.AttributeValue) (any, error) {
			return table.Decode(item)
		},
		attrvalue: func(item map[string]types.AttributeValue) (any, error) {
			out := new(T)
			return out, attributevalue.UnmarshalMapWithOptions(item, out, decodeOpts)
		},
		guregu: func(item map[string]types.AttributeValue) (any, error) {
			out := new(T)
			return out, dynamo.UnmarshalItem(item, out)
		},
		want: v,
	}
}

func decodeShapes(b testing.TB) []shape {
	return []shape{newShape(b, "flat", newFlat("p", 1)), newShape(b, "nested", newNested("p", 1))}
}

// TestDecodeShapes pins what BenchmarkDecode measures: the three decoders
// read back the value written, from the item optimist writes (which also
// holds its write token, an attribute no field has).
func TestDecodeShapes(t *testing.T) {
	for _, s := range decodeShapes(t) {
		if _, ok := s.item["optimist_token"]; !ok {
			t.Fatalf("%s: the item has no write token: %v", s.name, s.item)
		}
		for impl, dec := range map[string]func(map[string]types.AttributeValue) (any, error){
			"optimist": s.optimist, "attributevalue": s.attrvalue, "guregu": s.guregu,
		} {
			got, err := dec(s.item)
			if err != nil {
				t.Fatalf("%s/%s: %v", s.name, impl, err)
			}
			if !reflect.DeepEqual(s.want, got) {
				t.Errorf("%s/%s: decoded\n%+v\nwant\n%+v", s.name, impl, got, s.want)
			}
		}
	}
}

// BenchmarkDecode decodes one item, with no call, the way each library
// reads what a Get or a Query returns: optimist's Table.Decode (a plan per
// type), the SDK's attributevalue.UnmarshalMap, guregu's UnmarshalItem.
// Each decodes into a new value, as a read returns one.
func BenchmarkDecode(b *testing.B) {
	for _, s := range decodeShapes(b) {
		for _, impl := range []struct {
			name string
			dec  func(map[string]types.AttributeValue) (any, error)
		}{{"optimist", s.optimist}, {"attributevalue", s.attrvalue}, {"guregu", s.guregu}} {
			b.Run("shape="+s.name+"/impl="+impl.name, func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					if _, err := impl.dec(s.item); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// readFixture is a table of DynamoDB Local holding, for each shape, items
// with the hash key shape name and sort keys 0 to n-1.
type readFixture struct {
	raw    *dynamodb.Client
	name   string
	flat   *mapper.Table[Flat]
	nested *mapper.Table[Nested]
	gtable dynamo.Table
}

func newReadFixture(b *testing.B, n int) *readFixture {
	b.Helper()
	srv := dynamolocal.New(b)
	f := &readFixture{raw: srv.Client()}
	f.name = ddbtest.CreateTable(b, f.raw, "pk", types.ScalarAttributeTypeS, "sk", types.ScalarAttributeTypeN)
	var err error
	if f.flat, err = mapper.NewTable[Flat](f.raw, f.name); err != nil {
		b.Fatal(err)
	}
	if f.nested, err = mapper.NewTable[Nested](f.raw, f.name); err != nil {
		b.Fatal(err)
	}
	f.gtable = dynamo.NewFromIface(f.raw).Table(f.name)
	ctx := context.Background()
	flats := make([]*Flat, n)
	nesteds := make([]*Nested, n)
	for i := range n {
		flats[i], nesteds[i] = newFlat("flat", i), newNested("nested", i)
	}
	// Loaded by four writers at a time, to keep set-up short.
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for w := range 4 {
		lo, hi := w*n/4, (w+1)*n/4
		wg.Add(2)
		go func() { defer wg.Done(); errs <- f.flat.PutAll(ctx, flats[lo:hi], mapper.Unversioned()) }()
		go func() { defer wg.Done(); errs <- f.nested.PutAll(ctx, nesteds[lo:hi], mapper.Unversioned()) }()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			b.Fatal(err)
		}
	}
	return f
}

// variant is one implementation of a read: it returns how many items it
// decoded.
type variant struct {
	name string
	read func(ctx context.Context) (int, error)
}

// interleave runs each variant once per iteration, in an order that
// rotates, and reports per variant its wall time and the CPU time this
// process spent (ms per read: on a shared machine the CPU time, the
// client's own work, varies less than the wall time, which includes
// DynamoDB Local's) and its allocations per read; and the medians over
// iterations of optimist's wall and CPU times over each peer's and over the
// best peer's (the fastest of two noisy times is biased low, so on a busy
// machine optimist/best exceeds 1 even between equals: read it beside the
// per-peer ratios).
func interleave(b *testing.B, want int, variants []variant) {
	b.Helper()
	ctx := context.Background()
	for _, v := range variants { // warm-up: DynamoDB Local compiles its paths as they are used
		if _, err := v.read(ctx); err != nil {
			b.Fatal(v.name, err)
		}
	}
	wall := map[string]time.Duration{}
	cpu := map[string]time.Duration{}
	allocs := map[string]uint64{}
	var wallRatios, cpuRatios []float64
	perPeer := map[string][]float64{}
	var ms runtime.MemStats
	for iter := 0; b.Loop(); iter++ {
		thisWall := map[string]time.Duration{}
		thisCPU := map[string]time.Duration{}
		for i := range variants {
			v := variants[(i+iter)%len(variants)]
			runtime.ReadMemStats(&ms)
			before := ms.Mallocs
			cpu0, start := processCPU(), time.Now()
			n, err := v.read(ctx)
			thisWall[v.name], thisCPU[v.name] = time.Since(start), processCPU()-cpu0
			runtime.ReadMemStats(&ms)
			allocs[v.name] += ms.Mallocs - before
			if err != nil || n != want {
				b.Fatalf("%s: %d items (%v), want %d", v.name, n, err, want)
			}
			wall[v.name] += thisWall[v.name]
			cpu[v.name] += thisCPU[v.name]
		}
		bestWall, bestCPU := time.Duration(1<<63-1), time.Duration(1<<63-1)
		for _, v := range variants[1:] {
			bestWall, bestCPU = min(bestWall, thisWall[v.name]), min(bestCPU, thisCPU[v.name])
		}
		for _, v := range variants[1:] {
			perPeer[v.name] = append(perPeer[v.name], float64(thisWall[variants[0].name])/float64(thisWall[v.name]))
		}
		wallRatios = append(wallRatios, float64(thisWall[variants[0].name])/float64(bestWall))
		cpuRatios = append(cpuRatios, float64(thisCPU[variants[0].name])/float64(max(bestCPU, 1)))
	}
	for _, v := range variants {
		b.ReportMetric(float64(wall[v.name].Microseconds())/1000/float64(b.N), v.name+"-ms")
		b.ReportMetric(float64(cpu[v.name].Microseconds())/1000/float64(b.N), v.name+"-cpu-ms")
		b.ReportMetric(float64(allocs[v.name])/float64(b.N), v.name+"-allocs")
	}
	for _, v := range variants[1:] {
		slices.Sort(perPeer[v.name])
		b.ReportMetric(perPeer[v.name][len(perPeer[v.name])/2], variants[0].name+"/"+v.name)
	}
	slices.Sort(wallRatios)
	slices.Sort(cpuRatios)
	b.ReportMetric(wallRatios[len(wallRatios)/2], "optimist/best")
	b.ReportMetric(cpuRatios[len(cpuRatios)/2], "optimist-cpu/best")
	b.ReportMetric(0, "ns/op")
}

// queryVariants reads the items of hash key pk with sort key below n:
// optimist's Query, guregu's Query.All, and the SDK's paginator with
// attributevalue.UnmarshalListOfMaps per page.
func queryVariants[T any](f *readFixture, table *mapper.Table[T], pk string, n int) []variant {
	return []variant{
		{"optimist", func(ctx context.Context) (int, error) {
			var out []*T
			for v, err := range table.Query(ctx, expression.Key("pk").Equal(expression.Value(pk)).And(expression.Key("sk").LessThan(expression.Value(n)))) {
				if err != nil {
					return 0, err
				}
				out = append(out, v)
			}
			return len(out), nil
		}},
		{"guregu", func(ctx context.Context) (int, error) {
			var out []T
			err := f.gtable.Get("pk", pk).Range("sk", dynamo.Less, n).All(ctx, &out)
			return len(out), err
		}},
		{"sdk", func(ctx context.Context) (int, error) {
			expr, err := expression.NewBuilder().WithKeyCondition(
				expression.Key("pk").Equal(expression.Value(pk)).And(expression.Key("sk").LessThan(expression.Value(n)))).Build()
			if err != nil {
				return 0, err
			}
			p := dynamodb.NewQueryPaginator(f.raw, &dynamodb.QueryInput{
				TableName: aws.String(f.name), KeyConditionExpression: expr.KeyCondition(),
				ExpressionAttributeNames: expr.Names(), ExpressionAttributeValues: expr.Values(),
			})
			var out []T
			for p.HasMorePages() {
				page, err := p.NextPage(ctx)
				if err != nil {
					return 0, err
				}
				var items []T
				if err := attributevalue.UnmarshalListOfMapsWithOptions(page.Items, &items, decodeOpts); err != nil {
					return 0, err
				}
				out = append(out, items...)
			}
			return len(out), nil
		}},
	}
}

// BenchmarkQuery: a Query of 1,000 and of 10,000 items of one hash key on
// DynamoDB Local (eventually consistent, every page), by optimist, guregu
// and the SDK, interleaved in every iteration (see interleave).
func BenchmarkQuery(b *testing.B) {
	f := newReadFixture(b, 10000)
	for _, n := range []int{1000, 10000} {
		b.Run(fmt.Sprintf("shape=flat/items=%d", n), func(b *testing.B) {
			interleave(b, n, queryVariants(f, f.flat, "flat", n))
		})
		b.Run(fmt.Sprintf("shape=nested/items=%d", n), func(b *testing.B) {
			interleave(b, n, queryVariants(f, f.nested, "nested", n))
		})
	}
}

// getAllVariants reads the items with hash key pk and sort keys 0 to n-1
// by key, strongly consistent: optimist's GetAll, guregu's BatchGet, and
// BatchGetItem by hand (100 keys a call, unprocessed keys sent again) with
// attributevalue.UnmarshalListOfMaps.
func getAllVariants[T any](f *readFixture, table *mapper.Table[T], pk string, n int, key func(pk string, sk int) T) []variant {
	keys := make([]T, n)
	gkeys := make([]dynamo.Keyed, n)
	avKeys := make([]map[string]types.AttributeValue, n)
	for i := range n {
		keys[i] = key(pk, i)
		gkeys[i] = dynamo.Keys{pk, i}
		avKeys[i] = map[string]types.AttributeValue{
			"pk": &types.AttributeValueMemberS{Value: pk}, "sk": &types.AttributeValueMemberN{Value: fmt.Sprint(i)},
		}
	}
	return []variant{
		{"optimist", func(ctx context.Context) (int, error) {
			out, err := table.GetAll(ctx, keys)
			return len(out), err
		}},
		{"guregu", func(ctx context.Context) (int, error) {
			var out []T
			err := f.gtable.Batch("pk", "sk").Get(gkeys...).Consistent(true).All(ctx, &out)
			return len(out), err
		}},
		{"sdk", func(ctx context.Context) (int, error) {
			var items []map[string]types.AttributeValue
			for lo := 0; lo < n; lo += 100 {
				req := map[string]types.KeysAndAttributes{f.name: {Keys: avKeys[lo:min(lo+100, n)], ConsistentRead: aws.Bool(true)}}
				for len(req) > 0 {
					out, err := f.raw.BatchGetItem(ctx, &dynamodb.BatchGetItemInput{RequestItems: req})
					if err != nil {
						return 0, err
					}
					items = append(items, out.Responses[f.name]...)
					req = out.UnprocessedKeys
				}
			}
			var out []T
			err := attributevalue.UnmarshalListOfMapsWithOptions(items, &out, decodeOpts)
			return len(out), err
		}},
	}
}

// BenchmarkGetAll: 1,000 items read by key on DynamoDB Local, strongly
// consistent, by optimist, guregu and the SDK, interleaved in every
// iteration (see interleave).
func BenchmarkGetAll(b *testing.B) {
	const n = 1000
	f := newReadFixture(b, n)
	b.Run(fmt.Sprintf("shape=flat/items=%d", n), func(b *testing.B) {
		interleave(b, n, getAllVariants(f, f.flat, "flat", n, func(pk string, sk int) Flat { return Flat{PK: pk, SK: sk} }))
	})
	b.Run(fmt.Sprintf("shape=nested/items=%d", n), func(b *testing.B) {
		interleave(b, n, getAllVariants(f, f.nested, "nested", n, func(pk string, sk int) Nested { return Nested{PK: pk, SK: sk} }))
	})
}
