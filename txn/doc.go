// Package txn wraps DynamoDB transactions (TransactWriteItems and
// TransactGetItems): all-or-nothing writes to up to 100 items, checked
// before they are sent, and explained op by op when DynamoDB cancels them.
//
//	tx := txn.New(client)
//	tx.Add(
//		accounts.PutOp(&from),                             // versioned, like Put
//		accounts.PutOp(&to),
//		ledger.UpdateOp(Entry{ID: day}, update.Add("count", 1)),
//		limits.CheckOp(limit),                             // read, not written: must be unchanged
//	)
//	err := tx.Commit(ctx)
//	if version.IsConflict(err) { /* one of them changed: read again, retry */ }
//
// Ops come from mapper.Table (PutOp, UpdateOp, DeleteOp, CheckOp), which
// carry the same version checks as the table's single-item writes, or from
// [Put], [Update], [Delete] and [Check] for attribute maps.
//
// # Before sending
//
// Commit refuses, with nothing sent: an empty transaction ([ErrEmpty]),
// more ops than the limit ([ErrTooManyItems]; [MaxItems], default 100 as in
// DynamoDB today; it was 25 until 2022 and some compatible services are
// lower), two ops on one item ([ErrDuplicateItem]), an estimated request
// over 4 MB ([ErrTooLarge]), an op that could not be built (its Err), an
// op whose key, item or values DynamoDB would refuse with a
// ValidationException ([ErrInvalidItem]: NaN, infinities, numbers beyond 38
// digits or DynamoDB's range, empty sets, keys over 2,048 bytes, items over
// 400 KB), and a Tx made with a nil client ([ErrInvalidOption]).
//
// # Failures
//
// A canceled transaction is a [*CanceledError] with one [Reason] per op in
// the order they were added: its code, message, the item as stored (every
// conditional op asks for ALL_OLD) and whether it was a version conflict.
// It matches version.ErrConflict when any op failed its version check, so
// version.IsConflict covers single writes and transactions alike.
//
// # Retries and idempotency
//
// Every commit carries a client request token (random, or [Token]), the
// same on every retry of that commit: the SDK's retry after a lost response
// and Commit's own. DynamoDB applies a token's transaction at most once in
// ten minutes, so a retried commit is never applied twice. Cancellations
// caused only by other transactions (TransactionConflict) or throttling are
// retried with jittered exponential backoff, up to [MaxAttempts] (default
// 5); a condition failure is final. A Tx is committed once: afterwards, or
// after a failed Commit, it answers [ErrDone].
//
// When an attempt went unanswered and Commit could not learn what became of
// it (the SDK's retries ran out, ctx ended), the error matches
// version.ErrUnknownOutcome, not a conflict, and names the token (a
// *version.UnknownOutcomeError with Token set). The transaction may have
// been applied. Resend it safely, within 10 minutes of the first attempt,
// with the same ops in a new Tx with the same token:
//
//	var uo *version.UnknownOutcomeError
//	if errors.As(err, &uo) {
//		again := txn.New(client, txn.Token(uo.Token))
//		again.Add(accounts.PutOp(&from), accounts.PutOp(&to)) // the same ops
//		err = again.Commit(ctx) // nil: applied, by this send or the first
//	}
//
// A cancellation is final even after an unanswered attempt: had that
// attempt been applied, DynamoDB would have answered the resend, which
// carries the same token, with success.
//
// # Reads
//
// [Get] reads up to 100 items in one TransactGetItems: a consistent
// snapshot, which two separate GetItems are not. mapper.Table.GetOp decodes
// into structs.
package txn
