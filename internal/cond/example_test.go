package cond_test

import (
	"fmt"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/optimist-dynamo/optimist/internal/cond"
)

func ExampleExpr_Eval() {
	e, err := cond.Parse("#st = :open AND size(Tags) BETWEEN :lo AND :hi")
	if err != nil {
		panic(err)
	}
	names := map[string]string{"#st": "Status"} // STATUS is a reserved word
	values := map[string]types.AttributeValue{
		":open": &types.AttributeValueMemberS{Value: "open"},
		":lo":   &types.AttributeValueMemberN{Value: "1"},
		":hi":   &types.AttributeValueMemberN{Value: "3"},
	}
	item := map[string]types.AttributeValue{
		"Status": &types.AttributeValueMemberS{Value: "open"},
		"Tags":   &types.AttributeValueMemberSS{Value: []string{"a", "b"}},
	}
	fmt.Println(e.Eval(item, names, values))
	fmt.Println(e.Eval(nil, names, values)) // no item
	delete(values, ":hi")
	fmt.Println(e.Eval(item, names, values))
	// Output:
	// true <nil>
	// false <nil>
	// false cond: invalid expression: Invalid ConditionExpression: An expression attribute value used in expression is not defined; attribute value: :hi
}
