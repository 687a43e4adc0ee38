package bench

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/optimist-dynamo/optimist/dynamolocal"
)

// The embedded engine beside AWS DynamoDB Local, in the same run: each
// operation is a sub-benchmark per engine (impl=embedded, in memory;
// impl=embedded-http, over its loopback port as another process would
// reach it; impl=dynamodb-local), so benchstat -col /impl puts them side
// by side. DynamoDB Local needs Java 17+ and npm: without java on PATH its
// variants are skipped, and the skip says so.

// engines returns the servers to compare, started once per binary.
var engines = sync.OnceValues(func() ([]namedServer, error) {
	emb, err := dynamolocal.StartEngine(dynamolocal.Options{})
	if err != nil {
		return nil, err
	}
	out := []namedServer{
		{"embedded", emb, emb.Client()},
		{"embedded-http", emb, emb.NewClient(func(o *dynamodb.Options) { o.HTTPClient = nil })},
	}
	if _, err := exec.LookPath("java"); err == nil {
		ref, err := dynamolocal.StartDynamoDBLocal(context.Background())
		if err != nil {
			return nil, err
		}
		out = append(out, namedServer{"dynamodb-local", ref, ref.Client()})
	}
	return out, nil
})

type namedServer struct {
	name string
	srv  *dynamolocal.Server
	c    *dynamodb.Client
}

// eachEngine runs f as a sub-benchmark per engine, on a table of its own
// with a string hash key pk and a number range key sk.
func eachEngine(b *testing.B, f func(b *testing.B, c *dynamodb.Client, table string)) {
	servers, err := engines()
	if err != nil {
		b.Fatal(err)
	}
	if len(servers) == 2 {
		b.Log("impl=dynamodb-local not run: no java on PATH (AWS DynamoDB Local needs Java 17+)")
	}
	for _, s := range servers {
		b.Run("impl="+s.name, func(b *testing.B) {
			table := fmt.Sprintf("bench-%s-%d", b.Name()[:min(len(b.Name()), 40)], time.Now().UnixNano())
			table = sanitize(table)
			createBenchTable(b, s.c, table)
			f(b, s.c, table)
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
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { c.DeleteTable(ctx, &dynamodb.DeleteTableInput{TableName: aws.String(table)}) })
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

// parallel runs op from 8 goroutines b.N times in all and reports
// requests per second.
func parallel(b *testing.B, op func(i int) error) {
	b.SetParallelism(4) // 4 x GOMAXPROCS goroutines
	var n sync.Mutex
	next := 0
	start := time.Now()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			n.Lock()
			i := next
			next++
			n.Unlock()
			if err := op(i); err != nil {
				b.Error(err)
				return
			}
		}
	})
	b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "req/s")
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
			_, err := c.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(table), Key: benchKey("p", i%100)})
			return err
		})
	})
}

func BenchmarkEnginePutItem(b *testing.B) {
	eachEngine(b, func(b *testing.B, c *dynamodb.Client, table string) {
		ctx := context.Background()
		parallel(b, func(i int) error {
			_, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(table), Item: benchItem("p"+strconv.Itoa(i%1000), i)})
			return err
		})
	})
}

// BenchmarkEngineConditionalUpdate is the library's hot write: a version
// check and an ADD, on 16 items.
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
			if err == nil && len(out.Items) != 100 {
				err = fmt.Errorf("query read %d items, want 100", len(out.Items))
			}
			return err
		})
	})
}

// BenchmarkEngineTransactWrite writes 4 items in one transaction, each
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
	})
}

// BenchmarkEngineStart is the time to a server that answers.
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
			s.Close()
		}
	})
	b.Run("impl=dynamodb-local", func(b *testing.B) {
		if _, err := exec.LookPath("java"); err != nil {
			b.Skip("no java on PATH: AWS DynamoDB Local needs Java 17+")
		}
		os.Unsetenv(dynamolocal.EnvReference)
		for b.Loop() {
			s, err := dynamolocal.StartDynamoDBLocal(context.Background())
			if err != nil {
				b.Fatal(err)
			}
			s.Close()
		}
	})
}

// BenchmarkEngineMemory reports the embedded engine's heap per stored item
// (the 5-attribute items above, about 120 bytes by DynamoDB's count).
func BenchmarkEngineMemory(b *testing.B) {
	const items = 20000
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
		b.ReportMetric(float64(after.HeapAlloc-before.HeapAlloc)/items, "heap-B/item")
		s.Close()
	}
}
