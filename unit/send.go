package unit

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/optimist-dynamo/optimist/internal/attrs"
)

// sendTimeout bounds a lock or log write that its caller stopped waiting
// for (see send), so that a request hung on a dead connection cannot hold
// Rollback forever.
const sendTimeout = time.Minute

// send makes one call that may take or change a lock of u, or add to its
// item list, and returns its answer, or ctx's error if ctx ends first.
//
// The request itself is never cancelled with ctx (it keeps ctx's values):
// a cancelled request may have been sent all the same, and DynamoDB may
// apply it after the client gave up, so a lock whose write was cancelled
// could land after Rollback had removed the unit's locks and finished its
// record, with nothing left to find it. Instead, the call goes on to its
// answer, and finish waits for every such call (u.sends) before it reads
// and settles the unit's items (an item whose answer its caller did not
// see is marked uncertain, and read again then). The wait is bounded by
// sendTimeout.
func send[O any](ctx context.Context, u *Unit, call func(context.Context) (O, error)) (O, error) {
	type result struct {
		out O
		err error
	}
	done := make(chan result, 1)
	u.sends.Add(1)
	go func() {
		defer u.sends.Done()
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), sendTimeout)
		defer cancel()
		out, err := call(cctx)
		done <- result{out, err}
	}()
	select {
	case r := <-done:
		return r.out, r.err
	case <-ctx.Done():
		select {
		case r := <-done:
			return r.out, r.err
		default:
		}
		var zero O
		return zero, ctx.Err()
	}
}

// lockWrite sends one write that takes or changes it's lock (see send):
// its output on success; on a refusal (a failed condition) the error
// and the exception, whose Item is the item as stored (ALL_OLD); on
// anything else the error, and the item is marked uncertain, the one
// place that does so: the write may have landed, so the item is read
// again before it is finished.
func lockWrite[O any](ctx context.Context, u *Unit, it *item, call func(context.Context) (O, error)) (out O, refused *types.ConditionalCheckFailedException, err error) {
	out, err = send(ctx, u, call)
	if err == nil {
		return out, nil, nil
	}
	if e, ok := ccf(err); ok {
		return out, e, err
	}
	it.uncertain = true
	return out, nil, u.lockErr(it, err)
}

// lockErr is the error of a lock write that failed without an answer.
func (u *Unit) lockErr(it *item, err error) error {
	if tooLarge(err) {
		return fmt.Errorf("%w: %s %s: %v", errItemTooLarge, it.table, attrs.FormatKey(it.key), err)
	}
	return fmt.Errorf("unit: locking %s %s: %w", it.table, attrs.FormatKey(it.key), err)
}

// anyKey returns the name of one key attribute, for attribute_exists.
func anyKey(key map[string]types.AttributeValue) string {
	for k := range key {
		return k
	}
	return ""
}

func ccf(err error) (*types.ConditionalCheckFailedException, bool) {
	var e *types.ConditionalCheckFailedException
	return e, errors.As(err, &e)
}

// Attribute values shared by requests (never written to).
var avTrue = &types.AttributeValueMemberBOOL{Value: true}
