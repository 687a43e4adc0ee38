package mapper

import (
	"context"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
)

type benchItem struct {
	ID      string   `dynamo:"id,hash"`
	Title   string   `dynamo:"title"`
	Votes   int      `dynamo:"votes"`
	Tags    []string `dynamo:"tags"`
	Score   float64  `dynamo:"score"`
	Version int64    `dynamo:"v,version"`
}

type stubPut struct {
	Client
	last *dynamodb.PutItemInput
}

func (s *stubPut) PutItem(ctx context.Context, in *dynamodb.PutItemInput, _ ...func(*dynamodb.Options)) (*dynamodb.PutItemOutput, error) {
	s.last = in
	return &dynamodb.PutItemOutput{}, nil
}

func BenchmarkPutBuild(b *testing.B) {
	st := &stubPut{}
	tb, err := NewTable[benchItem](st, "t")
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	it := &benchItem{ID: "a", Title: "hello", Votes: 3, Tags: []string{"x", "y"}, Score: 1.5}
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		it.Version = 3
		if err := tb.Put(ctx, it); err != nil {
			b.Fatal(err)
		}
	}
}
