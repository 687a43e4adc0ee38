package mapper

import (
	"context"
	"errors"

	"github.com/optimist-dynamo/optimist/internal/plan"
	"github.com/optimist-dynamo/optimist/txn"
)

// commitOne sends the write r as a transaction of one action
// ([ExactlyOnce]), and reports a refusal as the plain write would: a
// *version.ConflictError, a *ConditionError or a LockedError rather than a
// txn.CanceledError. Unknown outcomes come from txn.Commit, with the token.
// The struct's version is set by the caller, as for a plain write.
func (t *Table[T]) commitOne(ctx context.Context, r *plan.Request, o *WriteOptions) error {
	var opts []txn.Option
	if o.Token != "" {
		opts = append(opts, txn.Token(o.Token))
	}
	if t.opts.Observer != nil {
		opts = append(opts, txn.Observer(t.opts.Observer))
	}
	tx := txn.New(t.client, opts...)
	if err := tx.Add(op(r, nil)); err != nil {
		return err
	}
	err := tx.Commit(ctx)
	var ce *txn.CanceledError
	if err == nil || errors.Is(err, ErrUnknownOutcome) || !errors.As(err, &ce) || len(ce.Reasons) != 1 {
		return err
	}
	if reason := ce.Reasons[0]; reason.Code == txn.CodeConditionalCheckFailed {
		return t.refusal(r.W, reason.Item, err)
	}
	return err
}
