package bench

import (
	"context"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/optimist-dynamo/optimist/mapper"
	"github.com/optimist-dynamo/optimist/update"
)

// updateStub answers UpdateItem with a fixed item, so the benchmark
// measures what the client does per call.
type updateStub struct {
	mapper.Client
	last *dynamodb.UpdateItemInput
}

var stubItem = map[string]types.AttributeValue{
	"id": &types.AttributeValueMemberS{Value: "c"},
	"n":  &types.AttributeValueMemberN{Value: "42"},
	"v":  &types.AttributeValueMemberN{Value: "43"},
}

func (s *updateStub) UpdateItem(_ context.Context, in *dynamodb.UpdateItemInput, _ ...func(*dynamodb.Options)) (*dynamodb.UpdateItemOutput, error) {
	s.last = in
	return &dynamodb.UpdateItemOutput{Attributes: stubItem}, nil
}

// BenchmarkUpdateCPU: the client's own work for one ADD increment, through
// optimist's Update and as a hand-built UpdateItem input, with DynamoDB
// stubbed out.
func BenchmarkUpdateCPU(b *testing.B) {
	ctx := context.Background()
	b.Run("impl=optimist", func(b *testing.B) {
		stub := &updateStub{}
		t, err := mapper.NewTable[Counter](stub, "c")
		if err != nil {
			b.Fatal(err)
		}
		b.ReportAllocs()
		for b.Loop() {
			if _, err := t.Update(ctx, Counter{ID: "c"}, update.Add("n", 1)); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("impl=raw", func(b *testing.B) {
		stub := &updateStub{}
		b.ReportAllocs()
		for b.Loop() {
			out, err := stub.UpdateItem(ctx, &dynamodb.UpdateItemInput{
				TableName:                 aws.String("c"),
				Key:                       map[string]types.AttributeValue{"id": &types.AttributeValueMemberS{Value: "c"}},
				UpdateExpression:          aws.String("ADD #n :one"),
				ExpressionAttributeNames:  map[string]string{"#n": "n"},
				ExpressionAttributeValues: map[string]types.AttributeValue{":one": &types.AttributeValueMemberN{Value: "1"}},
				ReturnValues:              types.ReturnValueAllNew,
			})
			if err != nil || out == nil {
				b.Fatal(err)
			}
		}
	})
}
