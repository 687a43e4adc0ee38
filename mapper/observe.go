package mapper

import (
	"context"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/optimist-dynamo/optimist/internal/obs"
	"github.com/optimist-dynamo/optimist/observe"
)

// retrying emits the Retry event of Modify's write attempt+1 on key, made
// after wait because of err.
func (t *Table[T]) retrying(ctx context.Context, key map[string]types.AttributeValue, attempt int, wait time.Duration, err error) {
	if ob := t.opts.Observer; ob != nil {
		obs.Point(ctx, ob, observe.Event{Kind: observe.Retry, Op: "Modify", Table: t.name, Key: key, Attempt: attempt + 1, Wait: wait, Err: err})
	}
}
