package engine_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/optimist-dynamo/optimist/internal/engine"
)

// The engine's cost per request against the size of the table: each
// operation at several table sizes (SCALE_SIZES, comma-separated, default
// 100,100000,1000000), so that benchstat -col /items shows how it grows.
// The table is keyed (pk, sk), 100 items per partition, with a GSI (gh,
// gr), 100 items per index partition, an LSI on ls and TTL on exp; its
// items, about 104 bytes as DynamoDB counts them, are loaded in random key
// order by BatchWriteItem.

func scaleSizes(b *testing.B) []int {
	env := os.Getenv("SCALE_SIZES")
	if env == "" {
		return []int{100, 100000, 1000000}
	}
	var out []int
	for _, f := range strings.Split(env, ",") {
		n, err := strconv.Atoi(f)
		if err != nil {
			b.Fatalf("SCALE_SIZES: %v", err)
		}
		out = append(out, n)
	}
	return out
}

const scaleTable = "scale"

func sS(v string) types.AttributeValue { return &types.AttributeValueMemberS{Value: v} }
func sN(v int) types.AttributeValue    { return &types.AttributeValueMemberN{Value: strconv.Itoa(v)} }

func scaleKey(i int) map[string]types.AttributeValue {
	return map[string]types.AttributeValue{"pk": sS(fmt.Sprintf("p%07d", i/100)), "sk": sS(fmt.Sprintf("s%05d", i%100))}
}

// scaleItem is item i of a table of n items.
func scaleItem(i, n int) map[string]types.AttributeValue {
	m := scaleKey(i)
	groups := max(1, n/100)
	m["gh"] = sS(fmt.Sprintf("g%05d", i%groups))
	m["gr"] = sN(i * 7919 % 1000003)
	m["ls"] = sN(99 - i%100)
	m["exp"] = sN(int(time.Now().Add(365 * 24 * time.Hour).Unix()))
	m["d"] = sS(strings.Repeat("x", 58))
	return m
}

// scaleCreate creates the table: with its indexes and TTL, or plain (its
// key alone).
func scaleCreate(ctx context.Context, c *dynamodb.Client, plain bool) error {
	s := types.ScalarAttributeTypeS
	ks := func(h, r string) []types.KeySchemaElement {
		return []types.KeySchemaElement{{AttributeName: aws.String(h), KeyType: types.KeyTypeHash}, {AttributeName: aws.String(r), KeyType: types.KeyTypeRange}}
	}
	all := &types.Projection{ProjectionType: types.ProjectionTypeAll}
	if plain {
		_, err := c.CreateTable(ctx, &dynamodb.CreateTableInput{TableName: aws.String(scaleTable), KeySchema: ks("pk", "sk"),
			AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("pk"), AttributeType: s},
				{AttributeName: aws.String("sk"), AttributeType: s}},
			BillingMode: types.BillingModePayPerRequest})
		return err
	}
	_, err := c.CreateTable(ctx, &dynamodb.CreateTableInput{
		TableName: aws.String(scaleTable),
		KeySchema: ks("pk", "sk"),
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("pk"), AttributeType: s},
			{AttributeName: aws.String("sk"), AttributeType: s}, {AttributeName: aws.String("gh"), AttributeType: s},
			{AttributeName: aws.String("gr"), AttributeType: types.ScalarAttributeTypeN},
			{AttributeName: aws.String("ls"), AttributeType: types.ScalarAttributeTypeN}},
		GlobalSecondaryIndexes: []types.GlobalSecondaryIndex{{IndexName: aws.String("gsi"), KeySchema: ks("gh", "gr"), Projection: all}},
		LocalSecondaryIndexes:  []types.LocalSecondaryIndex{{IndexName: aws.String("lsi"), KeySchema: ks("pk", "ls"), Projection: all}},
		BillingMode:            types.BillingModePayPerRequest,
	})
	if err != nil {
		return err
	}
	_, err = c.UpdateTimeToLive(ctx, &dynamodb.UpdateTimeToLiveInput{TableName: aws.String(scaleTable),
		TimeToLiveSpecification: &types.TimeToLiveSpecification{AttributeName: aws.String("exp"), Enabled: aws.Bool(true)}})
	return err
}

// scaleLoad writes n items in random key order.
func scaleLoad(ctx context.Context, c *dynamodb.Client, n int) error {
	perm := rand.New(rand.NewPCG(1, 2)).Perm(n)
	for lo := 0; lo < n; lo += 25 {
		var reqs []types.WriteRequest
		for _, i := range perm[lo:min(n, lo+25)] {
			reqs = append(reqs, types.WriteRequest{PutRequest: &types.PutRequest{Item: scaleItem(i, n)}})
		}
		out, err := c.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{scaleTable: reqs}})
		if err != nil {
			return err
		}
		if len(out.UnprocessedItems) > 0 {
			return fmt.Errorf("unprocessed items")
		}
	}
	return nil
}

var scaleClients sync.Map // n -> *dynamodb.Client

// scaleClient returns a client of an engine holding the table of n items,
// loaded once per binary.
func scaleClient(b *testing.B, n int) *dynamodb.Client {
	if c, ok := scaleClients.Load(n); ok {
		return c.(*dynamodb.Client)
	}
	ctx := context.Background()
	c := client(engine.New())
	if err := scaleCreate(ctx, c, false); err != nil {
		b.Fatal(err)
	}
	if err := scaleLoad(ctx, c, n); err != nil {
		b.Fatal(err)
	}
	scaleClients.Store(n, c)
	return c
}

// BenchmarkScaleLoad loads a table of each size into a new engine and
// reports the time it took (ns/op, cpu-ns/op: one op is the whole load)
// and the heap it holds per item, for the table with its indexes and TTL
// and for a plain one.
func BenchmarkScaleLoad(b *testing.B) {
	for _, n := range scaleSizes(b) {
		for _, plain := range []bool{false, true} {
			b.Run(fmt.Sprintf("items=%d/plain=%t", n, plain), func(b *testing.B) { scaleLoadOnce(b, n, plain) })
		}
	}
}

func scaleLoadOnce(b *testing.B, n int, plain bool) {
	ctx := context.Background()
	for b.Loop() {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		e := engine.New()
		c := client(e)
		cpu := processCPU()
		if err := scaleCreate(ctx, c, plain); err != nil {
			b.Fatal(err)
		}
		if err := scaleLoad(ctx, c, n); err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(processCPU()-cpu), "cpu-ns/op")
		runtime.GC()
		runtime.ReadMemStats(&after)
		d, err := c.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(scaleTable)})
		if err != nil {
			b.Fatal(err)
		}
		if got := *d.Table.ItemCount; got != int64(n) {
			b.Fatalf("ItemCount %d, want %d", got, n)
		}
		b.ReportMetric(float64(after.HeapAlloc-before.HeapAlloc)/float64(n), "heapB/item")
		b.ReportMetric(float64(*d.Table.TableSizeBytes)/float64(n), "ddbB/item")
		runtime.KeepAlive(e)
	}
}

func BenchmarkScale(b *testing.B) {
	for _, n := range scaleSizes(b) {
		b.Run(fmt.Sprintf("items=%d", n), func(b *testing.B) {
			c := scaleClient(b, n)
			for _, op := range scaleOps {
				b.Run("op="+op.name, func(b *testing.B) {
					ctx := context.Background()
					i := 0
					cpu := processCPU()
					for b.Loop() {
						if err := op.run(ctx, c, n, i); err != nil {
							b.Fatal(err)
						}
						i++
					}
					b.ReportMetric(float64(processCPU()-cpu)/float64(i), "cpu-ns/op")
				})
			}
		})
	}
}

type scaleOp struct {
	name string
	run  func(ctx context.Context, c *dynamodb.Client, n, i int) error
}

// pick is the i-th key an operation reads or writes: spread over the table.
func pick(n, i int) int { return i * 7919 % n }

func wantCount(got, want int32) error {
	if got != want {
		return fmt.Errorf("count %d, want %d", got, want)
	}
	return nil
}

var tbl = aws.String(scaleTable)

var scaleOps = []scaleOp{
	{"GetItem", func(ctx context.Context, c *dynamodb.Client, n, i int) error {
		out, err := c.GetItem(ctx, &dynamodb.GetItemInput{TableName: tbl, Key: scaleKey(pick(n, i))})
		if err == nil && out.Item == nil {
			err = fmt.Errorf("no item")
		}
		return err
	}},
	{"PutItem", func(ctx context.Context, c *dynamodb.Client, n, i int) error {
		_, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: tbl, Item: scaleItem(pick(n, i), n)})
		return err
	}},
	{"UpdateItemCond", func(ctx context.Context, c *dynamodb.Client, n, i int) error {
		_, err := c.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: tbl, Key: scaleKey(pick(n, i)),
			UpdateExpression: aws.String("SET gr = :g"), ConditionExpression: aws.String("attribute_exists(pk)"),
			ExpressionAttributeValues: map[string]types.AttributeValue{":g": sN(pick(n, i) * 7919 % 1000003)}})
		return err
	}},
	// A new partition key in the middle of the key order, put then deleted.
	{"PutDeleteNewPartition", func(ctx context.Context, c *dynamodb.Client, n, i int) error {
		item := scaleItem(n/2, n)
		item["pk"] = sS(fmt.Sprintf("p%07dx", n/200))
		if _, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: tbl, Item: item}); err != nil {
			return err
		}
		_, err := c.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: tbl, Key: map[string]types.AttributeValue{"pk": item["pk"], "sk": item["sk"]}})
		return err
	}},
	// A put of an item already expired, which the next request deletes:
	// every iteration deletes the one before's.
	{"PutItemTTLExpiry", func(ctx context.Context, c *dynamodb.Client, n, i int) error {
		item := scaleItem(n/2, n)
		item["pk"], item["exp"] = sS("ttl"), sN(int(time.Now().Add(-time.Hour).Unix()))
		_, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: tbl, Item: item})
		return err
	}},
	{"QueryTable", func(ctx context.Context, c *dynamodb.Client, n, i int) error {
		out, err := c.Query(ctx, &dynamodb.QueryInput{TableName: tbl, KeyConditionExpression: aws.String("pk = :p"), Limit: aws.Int32(100),
			ExpressionAttributeValues: map[string]types.AttributeValue{":p": scaleKey(pick(n, i))["pk"]}})
		if err != nil {
			return err
		}
		return wantCount(out.Count, int32(min(n, 100)))
	}},
	{"QueryGSI", func(ctx context.Context, c *dynamodb.Client, n, i int) error {
		g := scaleItem(pick(n, i), n)["gh"]
		out, err := c.Query(ctx, &dynamodb.QueryInput{TableName: tbl, IndexName: aws.String("gsi"), KeyConditionExpression: aws.String("gh = :g"),
			Limit: aws.Int32(100), ExpressionAttributeValues: map[string]types.AttributeValue{":g": g}})
		if err != nil {
			return err
		}
		return wantCount(out.Count, int32(min(n, 100)))
	}},
	{"QueryLSI", func(ctx context.Context, c *dynamodb.Client, n, i int) error {
		out, err := c.Query(ctx, &dynamodb.QueryInput{TableName: tbl, IndexName: aws.String("lsi"), KeyConditionExpression: aws.String("pk = :p AND ls >= :z"),
			Limit: aws.Int32(100), ExpressionAttributeValues: map[string]types.AttributeValue{":p": scaleKey(pick(n, i))["pk"], ":z": sN(0)}})
		if err != nil {
			return err
		}
		return wantCount(out.Count, int32(min(n, 100)))
	}},
	{"ScanTable", func(ctx context.Context, c *dynamodb.Client, n, i int) error {
		out, err := c.Scan(ctx, &dynamodb.ScanInput{TableName: tbl, Limit: aws.Int32(100)})
		if err != nil {
			return err
		}
		return wantCount(out.Count, 100)
	}},
	{"ScanGSI", func(ctx context.Context, c *dynamodb.Client, n, i int) error {
		out, err := c.Scan(ctx, &dynamodb.ScanInput{TableName: tbl, IndexName: aws.String("gsi"), Limit: aws.Int32(100)})
		if err != nil {
			return err
		}
		return wantCount(out.Count, 100)
	}},
	{"DescribeTable", func(ctx context.Context, c *dynamodb.Client, n, i int) error {
		_, err := c.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: tbl})
		return err
	}},
	{"BatchWriteItem", func(ctx context.Context, c *dynamodb.Client, n, i int) error {
		var reqs []types.WriteRequest
		for j := range 25 {
			reqs = append(reqs, types.WriteRequest{PutRequest: &types.PutRequest{Item: scaleItem(pick(n, i*25+j), n)}})
		}
		_, err := c.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{scaleTable: reqs}})
		return err
	}},
	{"TransactWriteItems", func(ctx context.Context, c *dynamodb.Client, n, i int) error {
		_, err := c.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
			{Put: &types.Put{TableName: tbl, Item: scaleItem(pick(n, 2*i), n)}},
			{Update: &types.Update{TableName: tbl, Key: scaleKey(pick(n, 2*i+1)), UpdateExpression: aws.String("SET ls = :l"),
				ConditionExpression:       aws.String("attribute_exists(pk)"),
				ExpressionAttributeValues: map[string]types.AttributeValue{":l": sN(99 - pick(n, 2*i+1)%100)}}},
		}})
		return err
	}},
}
