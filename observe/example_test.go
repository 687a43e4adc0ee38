package observe_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"sync/atomic"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/optimist-dynamo/optimist/observe"
)

// Slog writes one record per event. Here the library's event is made by
// hand, and the time left out, to show a record.
func ExampleSlog() {
	logger := slog.New(slog.NewTextHandler(os.Stdout, &slog.HandlerOptions{
		ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr {
			if a.Key == slog.TimeKey {
				return slog.Attr{}
			}
			return a
		},
	}))
	o := observe.Slog(logger)
	// Attach it: mapper.NewTable[T](client, "accounts", func(opts *mapper.TableOptions) { opts.Observer = o })
	o.Observe(context.Background(), observe.Event{
		Kind: observe.UnknownOutcome, Op: "UpdateItem", Table: "accounts",
		Key:   map[string]types.AttributeValue{"id": &types.AttributeValueMemberS{Value: "alice"}},
		Token: "k2x.41", Err: errors.New("mapper: outcome unknown"),
	})
	// Output:
	// level=WARN msg="optimist: unknown_outcome" kind=unknown_outcome op=UpdateItem table=accounts key="{id=\"alice\"}" token=k2x.41 err="mapper: outcome unknown"
}

// Func makes an Observer of a function: here, counters of conflicts and
// retries, next to a logger of what an operator must see.
func ExampleFunc() {
	var conflicts, retries atomic.Int64
	count := observe.Func(func(_ context.Context, e observe.Event) {
		switch e.Kind {
		case observe.Conflict:
			conflicts.Add(1)
		case observe.Retry:
			retries.Add(1)
		}
	})
	o := observe.Multi(count, observe.Slog(slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))))

	// What a Modify that met one conflict reports:
	ctx := context.Background()
	o.Observe(ctx, observe.Event{Kind: observe.Conflict, Op: "PutItem"})
	o.Observe(ctx, observe.Event{Kind: observe.Retry, Op: "Modify", Attempt: 2})
	fmt.Println(conflicts.Load(), "conflict,", retries.Load(), "retry")
	// Output: 1 conflict, 1 retry
}
