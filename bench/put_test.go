package bench

import (
	"context"
	"testing"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/guregu/dynamo/v2"
	"github.com/guregu/dynamo/v2/dynamodbiface"

	"github.com/optimist-dynamo/optimist/mapper"
)

// Item is a typical versioned item. guregu/dynamo reads the same `dynamo`
// tags (it ignores the version option; the benchmark checks the version by
// hand for it).
type Item struct {
	ID      string   `dynamo:"id,hash"`
	Title   string   `dynamo:"title"`
	Votes   int      `dynamo:"votes"`
	Tags    []string `dynamo:"tags"`
	Score   float64  `dynamo:"score"`
	Version int64    `dynamo:"v,version"`
}

func newItem() *Item {
	return &Item{ID: "item-1", Title: "Which editor?", Votes: 41, Tags: []string{"poll", "tools"}, Score: 3.75, Version: 3}
}

// recorder stands in for DynamoDB: it records the PutItem input and answers
// success, so the benchmarks measure building and handing over the request.
// Its other methods are nil interfaces, never called.
type recorder struct {
	last *dynamodb.PutItemInput
}

func (r *recorder) PutItem(_ context.Context, in *dynamodb.PutItemInput, _ ...func(*dynamodb.Options)) (*dynamodb.PutItemOutput, error) {
	r.last = in
	return &dynamodb.PutItemOutput{}, nil
}

type mapperStub struct {
	mapper.Client
	*recorder
}

func (s mapperStub) PutItem(ctx context.Context, in *dynamodb.PutItemInput, o ...func(*dynamodb.Options)) (*dynamodb.PutItemOutput, error) {
	return s.recorder.PutItem(ctx, in, o...)
}

type gureguStub struct {
	dynamodbiface.DynamoDBAPI
	*recorder
}

func (s gureguStub) PutItem(ctx context.Context, in *dynamodb.PutItemInput, o ...func(*dynamodb.Options)) (*dynamodb.PutItemOutput, error) {
	return s.recorder.PutItem(ctx, in, o...)
}

// BenchmarkPutVersioned builds the same request three ways: write version 4
// of the item on the condition that version 3 is stored.
func BenchmarkPutVersioned(b *testing.B) {
	ctx := context.Background()

	b.Run("impl=optimist", func(b *testing.B) {
		rec := &recorder{}
		table, err := mapper.NewTable[Item](mapperStub{recorder: rec}, "items")
		if err != nil {
			b.Fatal(err)
		}
		item := newItem()
		b.ReportAllocs()
		b.ResetTimer()
		for range b.N {
			item.Version = 3
			if err := table.Put(ctx, item); err != nil {
				b.Fatal(err)
			}
		}
		check(b, rec.last)
	})

	b.Run("impl=handwritten", func(b *testing.B) {
		rec := &recorder{}
		item := newItem()
		b.ReportAllocs()
		b.ResetTimer()
		for range b.N {
			item.Version = 3
			old := item.Version
			item.Version++
			av, err := attributevalue.MarshalMapWithOptions(item, func(o *attributevalue.EncoderOptions) { o.TagKey = "dynamo" })
			if err != nil {
				b.Fatal(err)
			}
			expr, err := expression.NewBuilder().WithCondition(expression.Name("v").Equal(expression.Value(old))).Build()
			if err != nil {
				b.Fatal(err)
			}
			name := "items"
			if _, err := rec.PutItem(ctx, &dynamodb.PutItemInput{
				TableName:                 &name,
				Item:                      av,
				ConditionExpression:       expr.Condition(),
				ExpressionAttributeNames:  expr.Names(),
				ExpressionAttributeValues: expr.Values(),
			}); err != nil {
				b.Fatal(err)
			}
		}
		check(b, rec.last)
	})

	b.Run("impl=guregu", func(b *testing.B) {
		rec := &recorder{}
		table := dynamo.NewFromIface(gureguStub{recorder: rec}).Table("items")
		item := newItem()
		b.ReportAllocs()
		b.ResetTimer()
		for range b.N {
			item.Version = 3
			old := item.Version
			item.Version++
			if err := table.Put(item).If("'v' = ?", old).Run(ctx); err != nil {
				b.Fatal(err)
			}
		}
		check(b, rec.last)
	})
}

// check makes sure each implementation built a real versioned write.
func check(b *testing.B, in *dynamodb.PutItemInput) {
	b.Helper()
	if in == nil || in.ConditionExpression == nil || len(in.Item) < 6 || len(in.ExpressionAttributeValues) != 1 {
		b.Fatalf("not a versioned put: %+v", in)
	}
}
