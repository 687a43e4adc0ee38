package bench

import (
	"context"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/optimist-dynamo/optimist/mapper"
)

// TestOptimistRequest pins what the optimist benchmark measures: a put of
// version 4 conditioned on version 3 and on no unit of work holding the
// item (issue 14).
func TestOptimistRequest(t *testing.T) {
	rec := &recorder{}
	table, err := mapper.NewTable[Item](mapperStub{recorder: rec}, "items")
	if err != nil {
		t.Fatal(err)
	}
	if err := table.Put(context.Background(), newItem()); err != nil {
		t.Fatal(err)
	}
	in := rec.last
	if got := in.Item["v"].(*types.AttributeValueMemberN).Value; got != "4" {
		t.Fatalf("version written %s, want 4", got)
	}
	if *in.ConditionExpression != "#v = :v AND attribute_not_exists(#lk)" || in.ExpressionAttributeNames["#v"] != "v" ||
		in.ExpressionAttributeNames["#lk"] != "optimist_unit" ||
		in.ExpressionAttributeValues[":v"].(*types.AttributeValueMemberN).Value != "3" {
		t.Fatalf("condition %s %v %v", *in.ConditionExpression, in.ExpressionAttributeNames, in.ExpressionAttributeValues)
	}
}
