package mapper

import (
	"context"
	"errors"

	"github.com/optimist-dynamo/optimist/txn"
)

// commitOne sends op, built from the write r, as a transaction of one
// action ([ExactlyOnce]), and reports a refusal as the plain write would:
// a *version.ConflictError or a *ConditionError rather than a
// txn.CanceledError. Unknown outcomes come from txn.Commit, with the token.
func (t *Table[T]) commitOne(ctx context.Context, op txn.Op, r *writeReq, w *writeConfig) error {
	if op.Err != nil {
		return op.Err
	}
	var opts []txn.Option
	if w.token != "" {
		opts = append(opts, txn.Token(w.token))
	}
	tx := txn.New(t.client, opts...)
	if err := tx.Add(op); err != nil {
		return err
	}
	err := tx.Commit(ctx)
	var ce *txn.CanceledError
	if err == nil || errors.Is(err, ErrUnknownOutcome) || !errors.As(err, &ce) || len(ce.Reasons) != 1 {
		return err
	}
	if reason := ce.Reasons[0]; reason.Code == txn.CodeConditionalCheckFailed {
		return t.refusal(r, reason.Item, err)
	}
	return err
}
