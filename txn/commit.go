package txn

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/optimist-dynamo/optimist/internal/attempt"
	"github.com/optimist-dynamo/optimist/internal/obs"
	"github.com/optimist-dynamo/optimist/internal/retry"
	"github.com/optimist-dynamo/optimist/internal/unitproto"
	"github.com/optimist-dynamo/optimist/observe"
	"github.com/optimist-dynamo/optimist/version"
)

// Commit sends the transaction with one TransactWriteItems: all its ops
// are applied, or none.
//
// Before sending, it refuses an empty transaction ([ErrEmpty]), more ops
// than the limit ([ErrTooManyItems]), two ops on one item
// ([ErrDuplicateItem]), and an estimated request over 4 MB
// ([ErrTooLarge]). Every op asks for the item as stored when its condition
// fails (ALL_OLD), and the client request token is the same on every
// retry, the SDK's and Commit's own, so the transaction is applied at most
// once.
//
// A cancellation is a [*CanceledError] with one [Reason] per op, in the
// order the ops were added. It matches [version.ErrConflict] when an op
// failed its version check. When an attempt went unanswered and Commit
// could not learn its outcome (the SDK's retries ran out, ctx ended), the
// error matches [version.ErrUnknownOutcome] and is a
// *version.UnknownOutcomeError that names the token: the transaction may
// have been applied. To settle it, commit the same ops again in a new Tx
// with Token(thatToken) within 10 minutes of the first attempt; DynamoDB
// applies them at most once (it answers success if they were applied). Cancellations caused only by other
// transactions (TransactionConflict) are retried with jittered backoff,
// up to [MaxAttempts]; condition failures are not. After success, the structs of
// the mapper's ops get their new versions; after a failure, nothing
// changes. Either way the Tx is done: a second
// Commit returns [ErrDone].
func (tx *Tx) Commit(ctx context.Context) error {
	if tx == nil {
		return errNilTx
	}
	if tx.done {
		return ErrDone
	}
	tx.done = true
	if err := tx.validate(); err != nil {
		return err
	}
	if err := tx.checkReplicas(ctx); err != nil {
		return err
	}
	in := &dynamodb.TransactWriteItemsInput{
		TransactItems:      make([]types.TransactWriteItem, len(tx.ops)),
		ClientRequestToken: aws.String(tx.cfg.Token),
	}
	for i, op := range tx.ops {
		in.TransactItems[i] = op.request().TransactItem()
	}
	if tx.cfg.Observer == nil {
		_, _, err := tx.send(ctx, in, nil)
		return err
	}
	if observe.WantsCapacity(tx.cfg.Observer) {
		in.ReturnConsumedCapacity = types.ReturnConsumedCapacityTotal
	}
	ctx, span := obs.Start(ctx, tx.cfg.Observer, tx.event())
	n, capacity, err := tx.send(ctx, in, &span)
	if err != nil {
		e := span.Event()
		e.Err = err
		switch {
		case errors.Is(err, version.ErrUnknownOutcome):
			e.Kind = observe.UnknownOutcome
			span.Point(e)
		case version.IsConflict(err):
			e.Kind = observe.Conflict
			span.Point(e)
		}
	}
	span.End(err, capacity, "", n)
	return err
}

// event is the Start event of the transaction's Write span.
func (tx *Tx) event() observe.Event {
	e := observe.Event{Kind: observe.Write, Op: "TransactWriteItems", Token: tx.cfg.Token, Attempt: 1}
	var tables []string
	for _, op := range tx.ops {
		if !slices.Contains(tables, op.Table()) {
			tables = append(tables, op.Table())
		}
	}
	e.Table = strings.Join(tables, ",")
	if len(tx.ops) == 1 {
		e.Key = tx.ops[0].Key()
	}
	return e
}

// send sends the transaction until it is applied, canceled for good, or
// fails, and returns the attempts made and the capacity consumed (when
// asked for).
func (tx *Tx) send(ctx context.Context, in *dynamodb.TransactWriteItemsInput, span *obs.Span) (int, float64, error) {
	var att attempt.Tracker // across Commit's attempts and the SDK's
	settled := false        // the locks of units met once were settled
	for n := 1; ; n++ {
		out, err := tx.client.TransactWriteItems(ctx, in, att.Option)
		if err == nil {
			for _, op := range tx.ops {
				if w := op.write(); w.OnCommit != nil {
					w.OnCommit()
				}
			}
			capacity := 0.0
			for _, cc := range out.ConsumedCapacity {
				capacity += aws.ToFloat64(cc.CapacityUnits)
			}
			return n, capacity, nil
		}
		var tce *types.TransactionCanceledException
		var inProgress *types.TransactionInProgressException
		switch {
		case errors.As(err, &tce):
			// A cancellation is final even after an unanswered attempt: had
			// that attempt been applied, DynamoDB would have answered this
			// one, sent with the same token, with success.
			if !retryable(tce) || !tx.cfg.policy().More(n) {
				if !settled && tx.cfg.policy().More(n) && tx.settleUnits(ctx, tce) {
					// Items held by units that were over or dead: free
					// now, so the transaction may go through.
					settled = true
					continue
				}
				return n, 0, tx.canceled(tce, err, n)
			}
		case errors.As(err, &inProgress):
			if !tx.cfg.policy().More(n) {
				return n, 0, tx.failed(&att, fmt.Errorf("txn: commit %s: still in progress after %d attempts: %w", tx.cfg.Token, n, err))
			}
		default:
			return n, 0, tx.failed(&att, fmt.Errorf("txn: commit %s: %w", tx.cfg.Token, err))
		}
		wait := tx.cfg.policy().Backoff(n)
		if span.On() {
			e := span.Event()
			e.Kind, e.Attempt, e.Wait, e.Err = observe.Retry, n+1, wait, err
			span.Point(e)
		}
		if err := retry.Sleep(ctx, wait); err != nil {
			return n, 0, tx.failed(&att, fmt.Errorf("txn: commit %s: %w after %d attempts (last: %v)", tx.cfg.Token, err, n, errFrom(tce, inProgress)))
		}
	}
}

// settleUnits settles the items of a cancellation that are held by units
// of work (package unit) that are over or dead, as mapper writes do, and
// reports whether every held item it met is free now.
func (tx *Tx) settleUnits(ctx context.Context, tce *types.TransactionCanceledException) bool {
	held := false
	for i, cr := range tce.CancellationReasons {
		l, ok := unitproto.Parse(cr.Item)
		if !ok || i >= len(tx.ops) {
			continue
		}
		held = true
		op := tx.ops[i]
		var mem *unitproto.Memory // a mapper Table's op: what that Table saw
		if w := op.write(); w != nil && w.T != nil {
			mem = w.T.Units
		}
		v, err := unitproto.Settle(ctx, unitproto.ViaTransactions(tx.client), mem, op.Table(), op.Key(), l)
		if err != nil || !v.Settled() {
			return false
		}
	}
	return held
}

// failed is the error of a Commit that ended without an answer it can
// trust: err, or, when an attempt went unanswered (it may have been
// applied), an unknown outcome that names the token. The same ops
// committed again in a new Tx with [Token] of that token, within 10 minutes
// of the first attempt, are applied at most once.
func (tx *Tx) failed(att *attempt.Tracker, err error) error {
	if !att.Ambiguous {
		return err
	}
	return &version.UnknownOutcomeError{Op: "TransactWriteItems", Token: tx.cfg.Token, Err: err}
}

func errFrom(tce *types.TransactionCanceledException, ip *types.TransactionInProgressException) error {
	if tce != nil {
		return tce
	}
	return ip
}
