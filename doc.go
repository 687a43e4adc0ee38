// Package optimist is a DynamoDB library for Go services in which several
// processes write the same items. It has no code of its own: this page is
// the map of its packages.
//
//   - [github.com/optimist-dynamo/optimist/mapper] maps structs to tables
//     with struct tags. A field tagged `dynamo:",version"` makes every write
//     conditional on the version read, so a stale copy can never overwrite a
//     newer one; Table.Modify is the retry-on-conflict loop, with a bound
//     on how often one change can lose (see its doc for how).
//   - [github.com/optimist-dynamo/optimist/update] builds update expressions
//     (list_append, ADD, SET, REMOVE, DELETE) that are checked before they
//     are sent; Table.Update applies them atomically, with no read, and
//     moves the version in the same request.
//   - [github.com/optimist-dynamo/optimist/txn] commits several writes at
//     once (TransactWriteItems), checked against DynamoDB's limits before
//     sending, explained op by op when canceled, retried idempotently.
//   - [github.com/optimist-dynamo/optimist/pessimistic] is a lease lock for
//     work where conflicts are likely and retrying is expensive: one-call
//     acquire, fencing tokens, heartbeats, a context that ends when the
//     lease is lost, a FIFO mode, and locks held in the item itself. Its
//     package doc compares the four ways to change shared items.
//   - [github.com/optimist-dynamo/optimist/unit] is units of work beyond
//     DynamoDB's 100 actions: locking reads, commit and rollback across any
//     number of items and tables, readers that see only committed states,
//     and recovery of units whose process died.
//   - [github.com/optimist-dynamo/optimist/version] is the vocabulary of
//     optimistic concurrency: ErrConflict, ConflictError (with the current
//     item, read by DynamoDB in the same call), IsConflict.
//   - [github.com/optimist-dynamo/optimist/observe] reports what the other
//     packages decide (conflicts, retries, lost answers settled, unknown
//     outcomes, locks acquired and lost, units committed and recovered) to
//     an observer: structured logs with observe.Slog, or OpenTelemetry
//     spans and metrics with the module
//     github.com/optimist-dynamo/optimist/otel.
//   - [github.com/optimist-dynamo/optimist/dynamolocal] runs AWS DynamoDB
//     Local for tests and examples, installing it on first use, and injects
//     faults (lost answers, refused connections, throttling) below the SDK.
//   - [github.com/optimist-dynamo/optimist/cmd/optimist] is the operator's
//     command: list, show and release locks, list and recover units.
//
// A first program:
//
//	type Account struct {
//		ID      string `dynamo:"id,hash"`
//		Balance int64  `dynamo:"balance"`
//		Version int64  `dynamo:"v,version"`
//	}
//
//	accounts, err := mapper.NewTable[Account](client, "accounts")
//	// Create: version 0 means "must not exist yet"; it is stored as version 1.
//	err = accounts.Put(ctx, &Account{ID: "alice", Balance: 100})
//	// Change it safely, however many processes do the same at once.
//	acct, err := accounts.Modify(ctx, Account{ID: "alice"}, func(a *Account) error {
//		a.Balance -= 30
//		return nil
//	})
//	// Or, for a change DynamoDB can make itself, with no read at all:
//	acct, err = accounts.Update(ctx, Account{ID: "alice"}, update.Add("balance", -30))
//
// Every operation documents which DynamoDB API it calls and how many times.
// Errors are matched with errors.Is and errors.As: version.ErrConflict,
// mapper.ErrNotFound, mapper.ErrUnknownOutcome, mapper.ErrConditionFailed,
// mapper.ErrLocked (an item a unit of work holds), pessimistic.ErrNotAcquired.
// Options are functions on documented structs in every package
// (mapper.TableOptions, mapper.ReadOptions, txn.Options,
// pessimistic.Options, unit.Options, ...), and an option a call cannot
// honour is refused before anything is sent; the mapper's write options
// have one type per kind of call, so that one a call cannot honour does
// not compile.
package optimist
