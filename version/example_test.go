package version_test

import (
	"errors"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/optimist-dynamo/optimist/version"
)

// A conflict is matched by class with errors.Is, and read in detail with
// errors.As.
func ExampleConflictError() {
	var err error = fmt.Errorf("saving order: %w", &version.ConflictError{
		Table:    "orders",
		Key:      map[string]types.AttributeValue{"id": &types.AttributeValueMemberS{Value: "o-1"}},
		Expected: 3,
		Actual:   4,
		Item:     map[string]types.AttributeValue{"v": &types.AttributeValueMemberN{Value: "4"}},
	})

	if errors.Is(err, version.ErrConflict) {
		fmt.Println("stale copy:", err)
	}
	var ce *version.ConflictError
	if errors.As(err, &ce) {
		fmt.Printf("read v%d, table has v%d\n", ce.Expected, ce.Actual)
	}
	// Output:
	// stale copy: saving order: version: conflict on orders {id="o-1"}: expected version 3, found 4
	// read v3, table has v4
}

// Condition is the version check for hand-built requests.
func ExampleCondition() {
	expr, _ := expression.NewBuilder().WithCondition(version.Condition("v", 3)).Build()
	fmt.Println(*expr.Condition(), expr.Names())
	// Output: #0 = :0 map[#0:v]
}
