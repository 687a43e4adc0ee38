package bench

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/optimist-dynamo/optimist/dynamolocal"
)

// The embedded engine beside AWS DynamoDB Local, in the same run: each
// operation is a sub-benchmark per engine (impl=embedded, in memory;
// impl=embedded-http, over its loopback port as another process would
// reach it; impl=dynamodb-local), so benchstat -col /impl puts them side
// by side. DynamoDB Local needs Java 17+ and npm: without java on PATH its
// variants are skipped, and the skip says so. Every request is checked
// (an item found, a count of items written), so that a fast wrong answer
// cannot pass for a fast one.

// engines returns the servers to compare, started once per binary, and
// why DynamoDB Local could not be started (its variants fail with that;
// the embedded ones still run).
var engines = sync.OnceValues(func() ([]namedServer, error) {
	emb, err := dynamolocal.StartEngine(dynamolocal.Options{})
	if err != nil {
		panic(err) // a loopback listener: nothing to compare without it
	}
	out := []namedServer{
		{"embedded", emb, emb.Client()},
		// The SDK's default HTTP client, the one the dynamodb-local
		// variant's client has: a nil HTTPClient set after New resolved
		// the default would be left nil.
		{"embedded-http", emb, emb.NewClient(func(o *dynamodb.Options) { o.HTTPClient = awshttp.NewBuildableClient() })},
	}
	if _, err := exec.LookPath("java"); err != nil {
		return out, nil
	}
	ref, err := dynamolocal.StartDynamoDBLocal(context.Background())
	if err != nil {
		return out, err
	}
	warmUp(ref.Client())
	return append(out, namedServer{"dynamodb-local", ref, ref.Client()}), nil
})

// warmUp sends a JVM just started a few hundred requests of every kind
// measured, so that its first measured rounds do not pay for the JIT.
func warmUp(c *dynamodb.Client) {
	ctx := context.Background()
	table := sanitize(fmt.Sprintf("bench-warmup-%d", time.Now().UnixNano()))
	if createTable(ctx, c, table) != nil {
		return // the benchmarks will say why
	}
	for i := range 200 {
		c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(table), Item: benchItem("w", i%50)})
		c.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(table), Key: benchKey("w", i%50)})
		c.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String(table), Key: benchKey("w", i%50),
			UpdateExpression: aws.String("ADD version :one"), ConditionExpression: aws.String("attribute_exists(pk)"),
			ExpressionAttributeValues: map[string]types.AttributeValue{":one": &types.AttributeValueMemberN{Value: "1"}}})
		c.Query(ctx, &dynamodb.QueryInput{TableName: aws.String(table), KeyConditionExpression: aws.String("pk = :p"),
			ExpressionAttributeValues: map[string]types.AttributeValue{":p": &types.AttributeValueMemberS{Value: "w"}}})
		c.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
			{Put: &types.Put{TableName: aws.String(table), Item: benchItem("w", 1000+i)}}}})
	}
	c.DeleteTable(ctx, &dynamodb.DeleteTableInput{TableName: aws.String(table)})
}

type namedServer struct {
	name string
	srv  *dynamolocal.Server
	c    *dynamodb.Client
}

// eachEngine runs f as a sub-benchmark per engine, on a table of its own
// with a string hash key pk and a number range key sk.
func eachEngine(b *testing.B, f func(b *testing.B, c *dynamodb.Client, table string)) {
	servers, refErr := engines()
	for _, s := range servers {
		b.Run("impl="+s.name, func(b *testing.B) {
			table := sanitize(fmt.Sprintf("bench-%s-%s-%d", strings.TrimPrefix(strings.Split(b.Name(), "/")[0], "BenchmarkEngine"), s.name, time.Now().UnixNano()))
			createBenchTable(b, s.c, table)
			f(b, s.c, table)
		})
	}
	if len(servers) == 2 {
		b.Run("impl=dynamodb-local", func(b *testing.B) {
			if refErr != nil {
				b.Fatal(refErr)
			}
			b.Skip("no java on PATH (AWS DynamoDB Local needs Java 17+)")
		})
	}
}

func sanitize(s string) string {
	out := []byte(s)
	for i, c := range out {
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '_' || c == '.') {
			out[i] = '_'
		}
	}
	return string(out)
}

func createBenchTable(b *testing.B, c *dynamodb.Client, table string) {
	b.Helper()
	ctx := context.Background()
	if err := createTable(ctx, c, table); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { c.DeleteTable(ctx, &dynamodb.DeleteTableInput{TableName: aws.String(table)}) })
}

func createTable(ctx context.Context, c *dynamodb.Client, table string) error {
	_, err := c.CreateTable(ctx, &dynamodb.CreateTableInput{
		TableName:   aws.String(table),
		BillingMode: types.BillingModePayPerRequest,
		AttributeDefinitions: []types.AttributeDefinition{
			{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS},
			{AttributeName: aws.String("sk"), AttributeType: types.ScalarAttributeTypeN},
		},
		KeySchema: []types.KeySchemaElement{
			{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash},
			{AttributeName: aws.String("sk"), KeyType: types.KeyTypeRange},
		},
	})
	return err
}

func benchItem(pk string, sk int) map[string]types.AttributeValue {
	return map[string]types.AttributeValue{
		"pk":      &types.AttributeValueMemberS{Value: pk},
		"sk":      &types.AttributeValueMemberN{Value: strconv.Itoa(sk)},
		"version": &types.AttributeValueMemberN{Value: "1"},
		"title":   &types.AttributeValueMemberS{Value: "an item of a benchmark, about a hundred bytes long, as a small entity is"},
		"tags":    &types.AttributeValueMemberSS{Value: []string{"a", "b", "c"}},
	}
}

func benchKey(pk string, sk int) map[string]types.AttributeValue {
	return map[string]types.AttributeValue{
		"pk": &types.AttributeValueMemberS{Value: pk},
		"sk": &types.AttributeValueMemberN{Value: strconv.Itoa(sk)},
	}
}

// clients is how many requests are in flight at once, whatever
// GOMAXPROCS: the same for every engine, and enough to keep DynamoDB
// Local's request threads busy.
const clients = 8

// parallel runs op from clients goroutines, b.N times in all, and reports
// requests per second. The first error stops every goroutine and fails the
// benchmark.
func parallel(b *testing.B, op func(i int) error) {
	b.Helper()
	procs := runtime.GOMAXPROCS(0)
	b.SetParallelism((clients + procs - 1) / procs) // RunParallel starts p x GOMAXPROCS goroutines
	var next atomic.Int64
	var failed atomic.Bool
	withServer := strings.Contains(b.Name(), "impl=dynamodb-local")
	cpu := func() time.Duration {
		if withServer {
			return processCPU() + serverCPU()
		}
		return processCPU()
	}
	b.ResetTimer()
	start, cpu0 := time.Now(), cpu()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if failed.Load() {
				continue // drain pb; the error is reported once
			}
			if err := op(int(next.Add(1) - 1)); err != nil && !failed.Swap(true) {
				b.Error(err)
			}
		}
	})
	elapsed, used := time.Since(start), cpu()-cpu0
	b.StopTimer()
	b.ReportMetric(float64(b.N)/elapsed.Seconds(), "req/s")
	// The client's CPU and the server's (DynamoDB Local's with
	// OPTIMIST_BENCH_SERVER_PID; the engine's is the client's process).
	b.ReportMetric(float64(used)/float64(b.N), "cpu-ns/op")
	if failed.Load() {
		b.FailNow()
	}
}

// count returns how many items table holds, by a consistent Scan.
func count(b *testing.B, c *dynamodb.Client, table string) int {
	b.Helper()
	n := 0
	p := dynamodb.NewScanPaginator(c, &dynamodb.ScanInput{TableName: aws.String(table), Select: types.SelectCount, ConsistentRead: aws.Bool(true)})
	for p.HasMorePages() {
		out, err := p.NextPage(context.Background())
		if err != nil {
			b.Fatal(err)
		}
		n += int(out.Count)
	}
	return n
}

func BenchmarkEngineGetItem(b *testing.B) {
	eachEngine(b, func(b *testing.B, c *dynamodb.Client, table string) {
		ctx := context.Background()
		for i := range 100 {
			if _, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(table), Item: benchItem("p", i)}); err != nil {
				b.Fatal(err)
			}
		}
		parallel(b, func(i int) error {
			out, err := c.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(table), Key: benchKey("p", i%100)})
			if err != nil {
				return err
			}
			if sk, ok := out.Item["sk"].(*types.AttributeValueMemberN); !ok || sk.Value != strconv.Itoa(i%100) || len(out.Item) != 5 {
				return fmt.Errorf("GetItem of sk %d read %v", i%100, out.Item)
			}
			return nil
		})
	})
}

// BenchmarkEnginePutItem writes a new item each time, over 1,000
// partitions.
func BenchmarkEnginePutItem(b *testing.B) {
	eachEngine(b, func(b *testing.B, c *dynamodb.Client, table string) {
		ctx := context.Background()
		parallel(b, func(i int) error {
			_, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(table), Item: benchItem("p"+strconv.Itoa(i%1000), i)})
			return err
		})
		if n := count(b, c, table); n != b.N {
			b.Fatalf("%d PutItem calls left %d items", b.N, n)
		}
	})
}

// BenchmarkEngineConditionalUpdate is the library's hot write: a version
// check and an ADD, on 16 items, so that writers meet on an item. The
// versions must add up to exactly one increment per request.
func BenchmarkEngineConditionalUpdate(b *testing.B) {
	eachEngine(b, func(b *testing.B, c *dynamodb.Client, table string) {
		ctx := context.Background()
		for i := range 16 {
			if _, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(table), Item: benchItem("u", i)}); err != nil {
				b.Fatal(err)
			}
		}
		parallel(b, func(i int) error {
			_, err := c.UpdateItem(ctx, &dynamodb.UpdateItemInput{
				TableName:                 aws.String(table),
				Key:                       benchKey("u", i%16),
				UpdateExpression:          aws.String("SET title = :t ADD #v :one"),
				ConditionExpression:       aws.String("attribute_exists(pk) AND #v >= :one"),
				ExpressionAttributeNames:  map[string]string{"#v": "version"},
				ExpressionAttributeValues: map[string]types.AttributeValue{":t": &types.AttributeValueMemberS{Value: "x"}, ":one": &types.AttributeValueMemberN{Value: "1"}},
			})
			return err
		})
		sum := 0
		for i := range 16 {
			out, err := c.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(table), Key: benchKey("u", i), ConsistentRead: aws.Bool(true)})
			if err != nil {
				b.Fatal(err)
			}
			v, _ := out.Item["version"].(*types.AttributeValueMemberN)
			if v == nil {
				b.Fatalf("item %d has no version: %v", i, out.Item)
			}
			n, err := strconv.Atoi(v.Value)
			if err != nil {
				b.Fatal(err)
			}
			sum += n - 1
		}
		if sum != b.N {
			b.Fatalf("%d conditional updates added %d to the versions", b.N, sum)
		}
	})
}

// BenchmarkEngineQuery reads a partition of 100 items in one page.
func BenchmarkEngineQuery(b *testing.B) {
	eachEngine(b, func(b *testing.B, c *dynamodb.Client, table string) {
		ctx := context.Background()
		for i := range 100 {
			if _, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(table), Item: benchItem("q", i)}); err != nil {
				b.Fatal(err)
			}
		}
		parallel(b, func(int) error {
			out, err := c.Query(ctx, &dynamodb.QueryInput{
				TableName:                 aws.String(table),
				KeyConditionExpression:    aws.String("pk = :p AND sk >= :zero"),
				ExpressionAttributeValues: map[string]types.AttributeValue{":p": &types.AttributeValueMemberS{Value: "q"}, ":zero": &types.AttributeValueMemberN{Value: "0"}},
			})
			if err == nil && (len(out.Items) != 100 || out.LastEvaluatedKey != nil) {
				err = fmt.Errorf("query read %d items (more: %v), want 100 in one page", len(out.Items), out.LastEvaluatedKey != nil)
			}
			return err
		})
	})
}

// BenchmarkEngineTransactWrite writes 4 new items in one transaction, each
// with a condition.
func BenchmarkEngineTransactWrite(b *testing.B) {
	eachEngine(b, func(b *testing.B, c *dynamodb.Client, table string) {
		ctx := context.Background()
		parallel(b, func(i int) error {
			items := make([]types.TransactWriteItem, 4)
			for j := range items {
				items[j] = types.TransactWriteItem{Put: &types.Put{
					TableName:           aws.String(table),
					Item:                benchItem("t"+strconv.Itoa(i), j),
					ConditionExpression: aws.String("attribute_not_exists(pk)"),
				}}
			}
			_, err := c.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: items})
			return err
		})
		if n := count(b, c, table); n != 4*b.N {
			b.Fatalf("%d transactions of 4 puts left %d items", b.N, n)
		}
	})
}

// BenchmarkEngineBatchWrite writes 25 new items in one BatchWriteItem.
func BenchmarkEngineBatchWrite(b *testing.B) {
	eachEngine(b, func(b *testing.B, c *dynamodb.Client, table string) {
		ctx := context.Background()
		parallel(b, func(i int) error {
			reqs := make([]types.WriteRequest, 25)
			for j := range reqs {
				reqs[j] = types.WriteRequest{PutRequest: &types.PutRequest{Item: benchItem("b"+strconv.Itoa(i), j)}}
			}
			out, err := c.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{table: reqs}})
			if err == nil && len(out.UnprocessedItems) > 0 {
				err = fmt.Errorf("BatchWriteItem left %d tables unprocessed", len(out.UnprocessedItems))
			}
			return err
		})
		if n := count(b, c, table); n != 25*b.N {
			b.Fatalf("%d batches of 25 puts left %d items", b.N, n)
		}
	})
}

// BenchmarkEngineStart is the time to a server that has answered a
// request: StartDynamoDBLocal waits for a ListTables answer, so the
// embedded engine's variant makes one too.
func BenchmarkEngineStart(b *testing.B) {
	b.Run("impl=embedded", func(b *testing.B) {
		for b.Loop() {
			s, err := dynamolocal.StartEngine(dynamolocal.Options{})
			if err != nil {
				b.Fatal(err)
			}
			if _, err := s.Client().ListTables(context.Background(), &dynamodb.ListTablesInput{}); err != nil {
				b.Fatal(err)
			}
			if err := s.Close(); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("impl=dynamodb-local", func(b *testing.B) {
		if _, err := exec.LookPath("java"); err != nil {
			b.Skip("no java on PATH: AWS DynamoDB Local needs Java 17+")
		}
		// A fresh JVM each time, not one attached to.
		if ep, ok := os.LookupEnv(dynamolocal.EnvReference); ok {
			os.Unsetenv(dynamolocal.EnvReference)
			defer os.Setenv(dynamolocal.EnvReference, ep)
		}
		for b.Loop() {
			s, err := dynamolocal.StartDynamoDBLocal(context.Background())
			if err != nil {
				b.Fatal(err)
			}
			if err := s.Close(); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// itemSize is an item's size as DynamoDB counts it for its 400 KB limit
// and its capacity units (names and values; a number one byte per two
// digits plus one), for the types benchItem uses.
func itemSize(item map[string]types.AttributeValue) int {
	n := 0
	for name, v := range item {
		n += len(name)
		switch v := v.(type) {
		case *types.AttributeValueMemberS:
			n += len(v.Value)
		case *types.AttributeValueMemberN:
			n += (len(v.Value)+1)/2 + 1
		case *types.AttributeValueMemberSS:
			for _, s := range v.Value {
				n += len(s)
			}
		default:
			panic(fmt.Sprintf("itemSize: %T", v))
		}
	}
	return n
}

// BenchmarkEngineMemory reports the embedded engine's live heap per
// stored item (heap-B/item), beside the item's size as DynamoDB counts it
// (item-B). The heap is read after a collection, before and after the
// puts, with the server still referenced, so it is what the engine keeps:
// the requests' garbage is gone. The client is in the same process but
// keeps nothing per item.
func BenchmarkEngineMemory(b *testing.B) {
	const items = 20000
	size := 0
	for i := range items {
		size += itemSize(benchItem("m"+strconv.Itoa(i%500), i))
	}
	for b.Loop() {
		s, err := dynamolocal.StartEngine(dynamolocal.Options{})
		if err != nil {
			b.Fatal(err)
		}
		c := s.Client()
		table := sanitize(fmt.Sprintf("mem-%d", time.Now().UnixNano()))
		createBenchTable(b, c, table)
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		for i := range items {
			if _, err := c.PutItem(context.Background(), &dynamodb.PutItemInput{TableName: aws.String(table), Item: benchItem("m"+strconv.Itoa(i%500), i)}); err != nil {
				b.Fatal(err)
			}
		}
		runtime.GC()
		runtime.ReadMemStats(&after)
		b.ReportMetric(float64(int64(after.HeapAlloc)-int64(before.HeapAlloc))/items, "heap-B/item")
		b.ReportMetric(float64(size)/items, "item-B")
		if n := count(b, c, table); n != items {
			b.Fatalf("%d puts left %d items", items, n)
		}
		if err := s.Close(); err != nil {
			b.Fatal(err)
		}
	}
}
