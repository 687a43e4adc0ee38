package unit

import (
	"context"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/optimist-dynamo/optimist/internal/attrs"
	"github.com/optimist-dynamo/optimist/internal/plan"
	"github.com/optimist-dynamo/optimist/internal/simhook"
	"github.com/optimist-dynamo/optimist/internal/unitproto"
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
	simhook.Go(func() {
		defer u.sends.Done()
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), sendTimeout)
		defer cancel()
		out, err := call(cctx)
		done <- result{out, err}
	})
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

// render renders a lock write once, for lockWrite.
func render(w *plan.Write) (*plan.Request, error) {
	r, err := w.Render()
	if err != nil {
		return nil, err
	}
	if r.Put != nil {
		r.PutKey = w.Key
	}
	return r, nil
}

// lockWrite sends one write that takes or changes it's lock (see send)
// through the executor, asking rv of a success. ours tells, from the lock
// the item holds as stored, whether the write landed: it settles an
// attempt whose answer was lost (see plan.Exec). The result is Applied
// (Item: the item as returned, or as stored when a lost answer was
// settled) or Refused (Item: the item as stored, ALL_OLD; also after a
// lost answer, when the resend's condition failed); anything else is an
// error, and the item is marked uncertain, the one place that does
// so: the write may have landed (or may land still), so the item is read
// again before it is finished.
func lockWrite(ctx context.Context, u *Unit, it *item, r *plan.Request, rv types.ReturnValue, ours func(*unitproto.Lock) bool) (plan.Result, error) {
	call := plan.Call{ReturnValues: rv, Settle: plan.Settle{Ours: func(stored map[string]types.AttributeValue) bool {
		l, ok := unitproto.Parse(stored)
		return ok && ours(l)
	}}}
	res, err := send(ctx, u, func(ctx context.Context) (plan.Result, error) { return plan.Exec(ctx, u.c, r, call), nil })
	switch {
	case err != nil: // ctx ended before the answer
	case res.Outcome == plan.Applied, res.Outcome == plan.Refused:
		return res, nil
	case res.Outcome == plan.Unknown && res.Seen():
		// The resend's condition failed on an item without the lock as
		// ours judges it: the caller goes on from that item, as from a
		// refusal, and the item is read again before it is finished.
		it.uncertain = true
		return res, nil
	case res.Err != nil:
		err = res.Err
	default:
		err = res.LostErr
	}
	it.uncertain = true
	return res, u.lockErr(it, err)
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
