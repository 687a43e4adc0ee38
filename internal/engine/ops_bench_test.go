package engine_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/optimist-dynamo/optimist/internal/engine"
)

// BenchmarkEngineOps is the engine's own share of the requests bench/'s
// side-by-side benchmarks send (GetItem, PutItem, a conditional
// UpdateItem, a Query of 100 items, a TransactWriteItems of 4 conditional
// puts, a BatchWriteItem of 25 puts): each request's body, as the SDK
// wrote it, is sent to Engine.Do with no SDK client, one at a time.
// cpu-ns/op is the process's CPU time per request. Writes of new items
// put a fresh partition key (and a transaction a fresh token) in the body
// at each request.
func BenchmarkEngineOps(b *testing.B) {
	ctx := context.Background()
	rec := &recorder{e: engine.New()}
	c := dynamodb.New(dynamodb.Options{Region: "us-east-1", BaseEndpoint: aws.String("http://engine.invalid"),
		Credentials: aws.CredentialsProviderFunc(func(context.Context) (aws.Credentials, error) {
			return aws.Credentials{AccessKeyID: "test", SecretAccessKey: "test"}, nil
		}), HTTPClient: rec})
	table := aws.String("ops")
	_, err := c.CreateTable(ctx, &dynamodb.CreateTableInput{TableName: table, BillingMode: types.BillingModePayPerRequest,
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS},
			{AttributeName: aws.String("sk"), AttributeType: types.ScalarAttributeTypeN}},
		KeySchema: []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash},
			{AttributeName: aws.String("sk"), KeyType: types.KeyTypeRange}}})
	if err != nil {
		b.Fatal(err)
	}
	for i := range 100 {
		if _, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: table, Item: opsItem("q", i)}); err != nil {
			b.Fatal(err)
		}
	}
	// fresh stands for a partition key that is new at each request.
	const fresh = "@@@@@@@@@@"
	puts := func(n int) []types.TransactWriteItem {
		out := make([]types.TransactWriteItem, n)
		for j := range out {
			out[j] = types.TransactWriteItem{Put: &types.Put{TableName: table, Item: opsItem(fresh, 100+j), ConditionExpression: aws.String("attribute_not_exists(pk)")}}
		}
		return out
	}
	writes := make([]types.WriteRequest, 25)
	for j := range writes {
		writes[j] = types.WriteRequest{PutRequest: &types.PutRequest{Item: opsItem(fresh, 200+j)}}
	}
	ops := []struct {
		name string
		send func() error
	}{
		{"GetItem", func() error {
			_, err := c.GetItem(ctx, &dynamodb.GetItemInput{TableName: table, Key: opsKey("q", 7)})
			return err
		}},
		{"PutItem", func() error {
			_, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: table, Item: opsItem(fresh, 1)})
			return err
		}},
		{"ConditionalUpdate", func() error {
			_, err := c.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: table, Key: opsKey("q", 3),
				UpdateExpression: aws.String("SET title = :t ADD #v :one"), ConditionExpression: aws.String("attribute_exists(pk) AND #v >= :one"),
				ExpressionAttributeNames:  map[string]string{"#v": "version"},
				ExpressionAttributeValues: map[string]types.AttributeValue{":t": &types.AttributeValueMemberS{Value: "x"}, ":one": &types.AttributeValueMemberN{Value: "1"}}})
			return err
		}},
		{"Query", func() error {
			_, err := c.Query(ctx, &dynamodb.QueryInput{TableName: table, KeyConditionExpression: aws.String("pk = :p AND sk >= :zero"),
				ExpressionAttributeValues: map[string]types.AttributeValue{":p": &types.AttributeValueMemberS{Value: "q"}, ":zero": &types.AttributeValueMemberN{Value: "0"}}})
			return err
		}},
		{"TransactWrite", func() error {
			_, err := c.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: puts(4)})
			return err
		}},
		{"BatchWrite", func() error {
			_, err := c.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{"ops": writes}})
			return err
		}},
	}
	for _, op := range ops {
		if err := op.send(); err != nil {
			b.Fatal(op.name, err)
		}
		header, body := rec.header, rec.body
		// The SDK gives each TransactWriteItems a token of its own.
		var sent struct{ ClientRequestToken string }
		if err := json.Unmarshal(body, &sent); err != nil {
			b.Fatal(err)
		}
		b.Run("op="+op.name, func(b *testing.B) {
			b.ReportAllocs()
			var buf []byte
			n, cpu0 := 0, processCPU()
			for b.Loop() {
				n++
				buf = append(buf[:0], body...)
				if bytes.Contains(body, []byte(fresh)) {
					buf = bytes.ReplaceAll(buf, []byte(fresh), fmt.Appendf(nil, "%s%09d", op.name[:1], n))
				}
				if t := sent.ClientRequestToken; t != "" {
					buf = bytes.ReplaceAll(buf, []byte(t), fmt.Appendf(nil, "%0*d", len(t), n))
				}
				req, _ := http.NewRequestWithContext(ctx, http.MethodPost, "http://engine.invalid/", bytes.NewReader(buf))
				req.Header = header
				resp, err := rec.e.Do(req)
				if err != nil || resp.StatusCode != http.StatusOK {
					b.Fatal(op.name, err, resp.StatusCode)
				}
			}
			b.ReportMetric(float64(processCPU()-cpu0)/float64(n), "cpu-ns/op")
		})
	}
}

func opsItem(pk string, sk int) map[string]types.AttributeValue {
	return map[string]types.AttributeValue{
		"pk":      &types.AttributeValueMemberS{Value: pk},
		"sk":      &types.AttributeValueMemberN{Value: strconv.Itoa(sk)},
		"version": &types.AttributeValueMemberN{Value: "1"},
		"title":   &types.AttributeValueMemberS{Value: "an item of a benchmark, about a hundred bytes long, as a small entity is"},
		"tags":    &types.AttributeValueMemberSS{Value: []string{"a", "b", "c"}},
	}
}

func opsKey(pk string, sk int) map[string]types.AttributeValue {
	return map[string]types.AttributeValue{
		"pk": &types.AttributeValueMemberS{Value: pk},
		"sk": &types.AttributeValueMemberN{Value: strconv.Itoa(sk)},
	}
}
