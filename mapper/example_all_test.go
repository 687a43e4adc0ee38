package mapper_test

import (
	"context"
	"fmt"
	"log"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"

	"github.com/optimist-dynamo/optimist/mapper"
)

// All collects a Query (or Scan) into a slice, with the first error.
func ExampleAll() {
	ctx := context.Background()
	orders, err := mapper.NewTable[Order](exampleTable[Order]("orders-all"), "orders-all")
	if err != nil {
		log.Fatal(err)
	}
	if err := orders.PutAll(ctx, []*Order{
		{Customer: "bob", ID: 1, Total: 15}, {Customer: "bob", ID: 2, Total: 40}, {Customer: "carol", ID: 1, Total: 99},
	}); err != nil {
		log.Fatal(err)
	}

	bobs, err := mapper.All(orders.Query(ctx, expression.Key("customer").Equal(expression.Value("bob"))))
	if err != nil {
		log.Fatal(err)
	}
	for _, o := range bobs {
		fmt.Println(o.Customer, o.ID, o.Total)
	}
	// Output:
	// bob 1 15
	// bob 2 40
}
