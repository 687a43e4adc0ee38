// Package unit is units of work of any size on DynamoDB: locking reads,
// writes to any number of items in any number of tables, then commit (all
// or nothing) or rollback, with no partial state visible to readers and
// nothing left locked when a process dies. DynamoDB's own transactions
// stop at 100 actions and hold nothing between a read and a write.
//
//	u, err := unit.Begin(ctx, client, unit.Coordinator("units"))
//	acct, err := unit.Get(ctx, u, accounts, Account{ID: "alice"}) // locks alice
//	acct.Balance -= 10
//	err = u.Add(accounts.PutOp(acct), ledger.PutOp(&entry))        // any number
//	err = u.Commit(ctx)                                            // or u.Rollback(ctx)
//
// # Protocol
//
// A coordinator table (made with [CreateTable]: hash key "id", TTL on
// "ttl") holds one record per unit: its id, owner, state (active,
// committed, aborted), lease, start time, and a heartbeat counter that the
// unit bumps every [Heartbeat]. The items the unit may lock are listed
// before they are locked in pages "id#0", "id#1", ... of the same table
// (string sets of about 2,000 items or 300 KB each), so recovery finds
// every lock. There is no limit on a unit's size short of time: pages are
// added as needed. One item, though, must hold its new state and (inside
// its lock) its old one, so items over about 200 KB cannot be written by
// a unit ([ErrTooLarge]).
//
// Each item carries its lock in the attribute "optimist_unit", a map:
// the unit id, the coordinator table, the owner, and once prepared the old
// state of the item ("before image") while the item itself holds the new
// one. The format lives in internal/unitlock, shared with package mapper.
//
//   - Get (locking read): one conditional UpdateItem sets the lock
//     (attribute_not_exists(lock) OR lock.unit = mine) and returns the
//     item (ALL_NEW). A missing item is locked by a PutItem of a
//     placeholder (key and lock only) that every reader takes for "no
//     item"; Get then returns mapper.ErrNotFound and u may create it.
//   - Commit: (1) log and lock the items of ops not locked yet, in key
//     order; (2) prepare each op in place: a PutItem (or UpdateItem with
//     the op's own update expression) conditional on our lock, on the lock
//     not being prepared yet, and on the op's own condition (its version
//     check), which stores the new state with the old one in the lock;
//     (3) the commit point, one conditional UpdateItem of the record,
//     active → committed; (4) apply: remove each lock (delete the item for
//     a delete op), mark the record finished; TTL removes it an hour
//     later. Before the commit point anything that fails rolls the unit
//     back; after it, anyone may finish it.
//   - Rollback: mark the record aborted, then per item restore the before
//     image (or just remove the lock, or delete a placeholder).
//
// Every write is conditional on the lock being the unit's in the state
// expected, so each is idempotent: the SDK's retry of a write whose
// response was lost meets its own first attempt (recognised by the unit id
// in the lock) and succeeds, and a recoverer racing the owner does the
// same write or finds it done. Where the outcome cannot be learnt (the
// commit point's response lost and the record unreadable), Commit returns
// an error matching version.ErrUnknownOutcome and leaves the unit to
// recovery.
//
// # Cost
//
// Measured (TestCost) against DynamoDB Local, with the calls per item:
//
//	item written, not read (Add only)   3 writes: lock, prepare, apply
//	item read and written               4 writes: log, lock (the read), prepare, apply
//	item only read                      3 writes: log, lock (the read), unlock
//	per unit                            begin, a log write per page (2,000 items),
//	                                    commit point, finish, a page delete, heartbeats
//
// and no reads on the way. awslabs/dynamodb-transactions makes about 7
// writes per item written. A locking read costs two calls instead of one
// because the log entry must be durable before the lock: otherwise a
// crash between the two would leave a lock that recovery cannot find.
//
// # Isolation and readers
//
// Locked items are written only by their unit: plain mapper writes (Put,
// Update, Delete, Save, Modify, and txn ops) carry
// attribute_not_exists(optimist_unit) and are refused with an error
// matching [ErrLocked] (the same value as mapper.ErrLocked). Plain reads
// (mapper Get, GetAll, Query, Scan, txn.Get) show the last committed
// state: a placeholder is no item, a prepared item is shown in its old
// state unless the unit's record says committed (one more GetItem of the
// record, made only for items between prepare and apply). txn.Get shows a
// consistent snapshot: a unit with an unprepared item in the snapshot had
// not committed when it was taken, so all its items show their old state;
// otherwise one read of its record decides for all of them. Separate reads
// (one Get after another) are each the last committed state at their
// time, and never go back: once any item of a unit is seen in its new
// state, every later read sees the unit's new state.
//
// Units wait for each other by "wait-die": a unit that meets the lock of
// an older live unit gets [ErrLocked] at once (and Commit rolls it back);
// an older unit waits for a younger one, up to [Wait]. Waits go only from
// old to young, so no cycle, and no deadlock, can form. Lock items in key
// order where you can: two units then meet at their first common item.
//
// # Recovery
//
// A unit whose owner died is found by observation, never by comparing
// clocks of different machines: an observer that sees the record's
// heartbeat counter unchanged for a full lease on its own monotonic clock
// marks it aborted (conditional on the counter it saw, so a live unit is
// never touched) and undoes it. A committed unit is rolled forward by
// anyone, at once. [Recover] does this for a whole coordinator table;
// a unit that meets the lock of a finished or dead unit finishes that item
// inline (plain mapper writes get ErrLocked until a unit or Recover has
// done so). Always end a unit with Commit or Rollback: until then its
// heartbeats keep its locks alive. A unit whose record was aborted under it (a long
// pause) learns it from its heartbeat or at its commit point: [ErrAborted].
//
// Batch writes (mapper PutAll, DeleteAll) cannot carry conditions and do
// not honour locks; use them only for items no unit is working on.
package unit
