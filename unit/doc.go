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
// # Which call for which job
//
//   - [CreateTable] once, for the coordinator table (hash key "id", TTL on
//     "ttl"); [Begin] starts a unit, with its record in that table.
//   - [Get] reads and locks one item (the item as committed, or
//     mapper.ErrNotFound for one that does not exist, which stays locked so
//     that the unit may create it); [GetAll] does the same for many keys of
//     one table at a lower cost.
//   - [Unit.Add] takes the mapper's PutOp, UpdateOp, DeleteOp and CheckOp
//     (or txn.Put, Update, Delete, Check), with their version checks;
//     [Unit.Commit] applies them all or none; [Unit.Rollback] releases
//     everything.
//   - [Recover] finishes the units of a coordinator table whose process
//     died; [List] shows them. The operator's command cmd/optimist has both
//     (units ls, units recover).
//
// # Cost
//
// Writes per item (a unit's own writes; Begin, the commit point, the
// record's finish and a log write and a delete per page of 2,000 items
// come on top, once per unit):
//
//	item written, not read (Add only)      2: lock with the write in it, apply
//	item created by Add                    2: the same (the lock write creates it)
//	item checked (CheckOp), not read       2: lock with the check, unlock
//	item read (GetAll) and written         3: lock, add the write, apply
//	item read (GetAll) only                2: lock, unlock
//	with Get instead of GetAll             one more: each Get logs its key alone
//	item read by Get while missing,
//	then created                           5: log, a refused lock, the placeholder, the write, apply
//
// and no reads on the way.
//
// # Protocol
//
// A coordinator table holds one record per unit: its id, owner, state
// (active, committed, aborted), lease, start time, and a heartbeat counter
// that the unit bumps every [Heartbeat]. The items the unit may lock are
// listed before they are locked, in pages "id#0", "id#1", ... of the same
// table (string sets of about 2,000 items or 300 KB each), so that
// recovery finds every lock; pages are added as needed.
//
// Each item the unit holds carries a lock in the attribute
// "optimist_unit", a map: the unit's id, the coordinator table, the owner,
// and once the unit has its write for the item, the write itself (an
// "intent"): the whole new item of a put, the actions of an update, or
// "delete". The item's own attributes are not changed until the write is
// applied, after the commit point: until then, what the item stores is its
// committed state, whatever the unit does. The format lives in
// internal/unitproto, shared with package mapper and package txn.
//
//   - Get (a locking read): one conditional UpdateItem sets the lock
//     (attribute_not_exists(lock) OR lock.unit = mine) and returns the
//     item (ALL_NEW). A missing item is locked by a PutItem of a
//     placeholder (key and lock) that every reader takes for "no item".
//   - Commit: (1) log the items of ops not logged yet; (2) for each op,
//     one conditional write that takes the lock with the op's write in it
//     (an UpdateItem on the op's own condition, its version check, and on
//     no other lock; for a missing item, or a create, a PutItem of the key
//     and the lock), or, for an item the unit read, adds the write to its
//     lock; (3) the commit point, one conditional UpdateItem of the unit's
//     record, active → committed; (4) apply: each item gets its write and
//     loses its lock in one write (a PutItem of the new item, an
//     UpdateItem of the actions and REMOVE of the lock, a DeleteItem), and
//     the record is marked finished; TTL removes it an hour later. Before
//     the commit point anything that fails rolls the unit back; after it,
//     anyone may apply it.
//   - Rollback: mark the record aborted, then remove each lock (one write
//     each; a placeholder is deleted). Nothing else needs undoing: the
//     items' own attributes were never changed.
//
// # Nothing left locked
//
// The rule: a unit's record is marked finished, and its pages deleted,
// only once every lock write the unit ever sent has been answered and
// every item it may hold has been settled after that. A write whose
// caller stopped waiting (its ctx ended, or GetAll or Commit stopped the
// others when one met an older unit's lock) may still reach DynamoDB: a
// cancelled context does not mean the request was not sent. So lock and
// log writes are never cancelled with the caller's ctx: the caller gets
// ctx's error at once and the item is marked uncertain, while the request
// goes on to its answer (for at most a minute); Commit's apply and
// Rollback wait for every such answer, then read each uncertain item
// (one consistent GetItem) and remove what they find. No lock write can
// then land after the unit is finished. Until the record is finished its
// pages list every item the unit may have locked, which is what
// [Recover] reads. (A request whose connection broke after it was sent
// gets no answer; DynamoDB may in principle still apply it after the
// read. Such a lock names a finished unit, and any locking read or write
// that meets it removes it.)
//
// Every write is conditional on the lock being the unit's, in the state
// expected, so each is idempotent: the SDK's retry of a write whose
// response was lost meets its own first attempt (recognised by the unit id
// in the lock) and goes on, and a recoverer racing the owner does the same
// write or finds it done. Where the outcome cannot be learnt (the commit
// point's response lost and the record unreadable), Commit returns an
// error matching version.ErrUnknownOutcome and leaves the unit to
// recovery.
//
// A unit holds an item's committed state and its write at once, so it
// cannot put near DynamoDB's 400 KB limit: such an op, or an update that
// would make the item too large once applied, fails the unit with
// mapper.ErrItemTooLarge before its commit point.
//
// # What readers see
//
// Plain reads (mapper Get, GetAll, Query, Scan, txn.Get) show the last
// committed state: an item held by a unit as stored without the lock; a
// placeholder as no item; and an item whose lock holds the unit's write,
// the write if the unit's record says committed (one GetItem of the record
// per unit whose lock the page shows; an update is applied by the reader,
// as the unit would), else the item as stored. A Filter and a secondary
// index's key condition are evaluated again on what is shown.
//
// Read atomicity: a read call (a page of a Query or Scan, one BatchGetItem
// of a GetAll) never shows some of a committed unit's writes to its items
// and not others, for every unit whose lock one of its items carried when
// read. The items of a page may be read at different moments, and the
// unit's record after them, so a page can hold an item read after the
// unit's commit point (showing its write) and another read before it. An
// item read while it held only the unit's lock carries the lock without
// the write; one read before the unit locked it carries nothing of the
// unit, but is on the unit's item list (its pages in the coordinator
// table, which the reader then reads: one GetItem a page). On either sign
// the reader reads the page's items again (one TransactGetItems per 100
// items, a state the database held) and shows them with that unit known
// committed before the new reads; so too after it applied a unit's update
// itself. It repeats while new signs appear, a few times at most, then
// fails. A GetAll counts the keys it found no item for among its items (a
// unit may be creating them); a Query or Scan cannot know of items it did
// not return (one a unit creates, or one its filter dropped). A unit none
// of whose locks the page carried is not covered on DynamoDB, whose pages
// are not read at once (an item of it read applied and another read
// before it was locked): for a state the database held
// across items, use txn.Get (a snapshot). A txn.Get snapshot is a
// state the database held: when it meets a unit that committed (possibly
// after the snapshot was taken), the unit's items are applied and the
// snapshot taken again. Separate reads never go back: once any item of a
// unit is seen in its new state, every later read sees the unit's new
// state. Queries of a secondary index find items by their index key as
// stored: between a unit's commit point and its apply of an item whose
// index key it changes, a query of the new key may miss the item (it is
// never shown in a state that does not match, nor in an uncommitted one).
//
// Writes of items a unit holds: every write the library sends (mapper
// writes, transaction ops, raw txn ops, item locks) carries
// attribute_not_exists(optimist_unit), and is refused with an error
// matching [ErrLocked]; a mapper write that meets the lock of a unit that
// is over, or dead (its heartbeat counter unchanged for a full lease,
// watched by the writer: a mapper.Table remembers what its writes and
// units saw), settles the item and goes through. So no item stays blocked
// much longer than a lease after its unit's process died, whoever touches
// it through one Table. Batch writes (mapper PutAll, DeleteAll) cannot
// carry conditions and do not honour locks; a batch write (or any writer
// outside this library) that overwrites an item a unit holds removes the
// unit's lock, and the unit's write of that item is then lost, while the
// unit's other items are applied: use batch writes only for items no unit
// is working on.
//
// # Waiting, dying, recovering
//
// Units wait for each other by "wait-die": a unit that meets the lock of
// an older live unit gets [ErrLocked] at once (and Commit rolls it back);
// an older unit waits for a younger one, up to [Wait]. Waits go only from
// old to young, so no cycle, and no deadlock, can form. A unit that
// retries with [KeepAge] keeps its age, and so is not starved by younger
// ones.
//
// A unit whose owner died is found by observation, never by comparing
// clocks of different machines: an observer that sees the record's
// heartbeat counter unchanged for a full lease on its own monotonic clock
// marks it aborted (conditional on the counter it saw, so a live unit is
// never touched) and undoes it. A committed unit is rolled forward by
// anyone, at once. [Recover] does this for a whole coordinator table,
// watching every active unit at once; units, readers and plain writes that
// meet a lock do it for that item. A unit whose record was aborted under
// it (a long pause) learns it from its heartbeat, before it takes another
// lock, or at its commit point: [ErrAborted]; Commit and Rollback then
// release what it holds. Always end a unit with Commit or Rollback: until
// then its heartbeats keep its locks alive.
//
// # Testing code that uses units
//
// Everything a unit times uses the time package: in a testing/synctest
// bubble with the embedded engine made inside it, Recover's wait of a
// lease returns at once. End every unit before the bubble ends.
package unit
