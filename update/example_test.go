package update_test

import (
	"errors"
	"fmt"

	"github.com/optimist-dynamo/optimist/update"
)

// One update appends a voter and counts the vote; the names are
// placeholders, so a reserved word like "count" is safe.
func ExampleBuilder_Build() {
	expr, err := update.Append("votedBy", "ada").Add("count", 1).Build()
	if err != nil {
		panic(err)
	}
	fmt.Print(*expr.Update())
	fmt.Println(expr.Names())
	// Output:
	// ADD #0 :0
	// SET #1 = list_append(if_not_exists(#1, :1), :2)
	// map[#0:count #1:votedBy]
}

// Mistakes are reported before anything is sent; the first one is kept.
func ExampleBuilder_Err() {
	u := update.Set("profile.name", "Ada").Remove("profile").Add("visits", "one")
	fmt.Println(u.Err())
	fmt.Println(errors.Is(u.Err(), update.ErrInvalidPath))
	// Output:
	// Remove("profile"): update: invalid path: overlapping paths: profile also changed by Set("profile.name")
	// true
}
