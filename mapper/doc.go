// Package mapper maps Go structs to DynamoDB items, with optimistic locking
// on every write of a versioned type.
//
// # Which call for which job
//
//   - Read one item: [Table.Get] (one GetItem, consistent). Many by key:
//     [Table.GetAll] (BatchGetItem, 100 keys a call). By key condition:
//     [Table.Query], collected with [All], or [Table.One] for exactly one;
//     everything: [Table.Scan]; how many: [Table.Count], [Table.ScanCount].
//     Queries and scans are iterators that follow every page; break out of
//     the loop to stop. To serve results a page at a time, see [Cursor].
//   - Create or replace an item: [Table.Put] (one PutItem, version-checked).
//     Write the struct's attributes and leave others alone: [Table.Save].
//   - A change DynamoDB can make itself (count, append, set, remove):
//     [Table.Update], one UpdateItem, no read, no conflict between writers.
//   - A change that needs the item first: [Table.Modify], read, change and
//     version-checked write, retried on conflict (see "Modify: retries and
//     turns" below).
//   - Several items together: the *Op methods in a transaction (package
//     txn, up to 100); beyond that, or with locking reads, package unit.
//   - Load data no one else writes: [Table.PutAll], [Table.DeleteAll]
//     (BatchWriteItem, no conditions).
//   - Tables: [CreateTable] from the struct's tags, [Table.Check] at
//     start-up. Several struct types in one table (single-table design):
//     [Design], [NewEntity], and [NewCollection] to read them in one Query.
//
// # Struct tags
//
// Fields are read from the `dynamo` tag, `dynamo:"name,opt,opt"`, once per
// type (the result is cached):
//
//	type Order struct {
//		Customer string    `dynamo:"pk,hash"`       // partition key
//		ID       int64     `dynamo:"sk,range"`      // sort key (optional)
//		Version  int64     `dynamo:"v,version"`     // turns on optimistic locking
//		Items    []string  `dynamo:"items"`
//		Tags     []string  `dynamo:"tags,stringset"`
//		Placed   time.Time `dynamo:"placed,unixtime"`
//		Note     string    `dynamo:",omitempty"`    // attribute "Note"
//		Cache    string    `dynamo:"-"`             // not stored
//	}
//
// The name may be empty (the field name is used); "-" skips the field.
// The options hash, range, version and ttl are the mapper's own; every
// option attributevalue understands (omitempty, omitemptyelem, nullempty,
// nullemptyelem, string, stringset, numberset, binaryset, unixtime) is
// passed through, and fields are encoded exactly as attributevalue would
// with TagKey "dynamo" (custom attributevalue.Marshaler types included, as
// keys too). The `dynamodbav` tag is read for fields without a `dynamo`
// tag. Secondary indexes are named in `index` and `localIndex` tags, and
// ttl marks the TTL attribute: see [CreateTable].
//
// [NewTable] refuses, with a [*SchemaError] matching [ErrInvalidSchema],
// what attributevalue would silently accept or drop: an unknown, empty or
// repeated option (a typo like "hsh" would otherwise lose the key), no hash
// key, a second hash, range or version field, a version field that is not
// an integer, a key of a type that cannot be stored as S, N or B, two fields
// with one attribute name at the same depth, options that contradict each
// other, unexported tagged fields, and types that would not read back what
// was written ([NewTable] lists them; text and binary marshalers are
// stored as S and B).
//
// Empty collections: unless tagged nullempty, a top-level nil slice is
// stored as an empty list and a nil map as an empty map (a NULL would make
// a later list_append fail), and they read back empty, not nil. DynamoDB
// has no empty sets: a nil or empty set (stringset, numberset, binaryset,
// [][]byte) is not stored and reads back nil, and DynamoDB's ADD and DELETE
// treat the missing attribute as empty. So compare sets by length.
//
// # Versions and conflicts
//
// Versions are integers; a new item is written with version 1.
//
//   - [Table.Put]: version 0 in the struct means create (condition
//     attribute_not_exists on the hash key), version n means replace version
//     n (condition v = n); the item is written with version n+1, and the
//     struct gets it only after success.
//   - [Table.Update]: an update expression (package update) applied on the
//     server with one UpdateItem, no read; it increments the version in the
//     same request, and checks it when the key carries one.
//   - [Table.Delete]: with a non-zero version, only that version is deleted.
//   - [Table.PutOp], [Table.UpdateOp], [Table.DeleteOp], [Table.CheckOp]: the
//     same writes as actions of one transaction (package txn); CheckOp
//     asserts that an item read but not written still has its version.
//   - [Table.Modify]: read, change, write, retried on conflict.
//
// Conditions of the caller's own ([If]) are ANDed with the version check,
// never replace it. A refused write returns a [*version.ConflictError]
// whose Item is the current item, at no extra cost
// (ReturnValuesOnConditionCheckFailure=ALL_OLD). A refusal by the caller's
// own condition while the version matched is a [*ConditionError] instead,
// which Modify does not retry; a refusal by a [Fence] (a higher token
// stored) matches [ErrFenced].
//
// Versions never wrap and never leave their field's range, 0 to the type's
// maximum and never beyond int64's (uint64, uint and uintptr stop at
// 9223372036854775807 too), on any path, checked or not. A write that would
// store a version beyond it writes nothing and is refused with an error
// matching [ErrInvalidItem] that says "refused rather than wrapped": before
// sending when the version is known (Put, Save, Modify, a checked Update or
// UpdateOp, a uint64 version already beyond int64's maximum); for an Update
// with no version check, by the condition it carries (the stored version
// below the ceiling), decided from the item returned with the refusal (in a
// transaction, the op's txn.Reason has AtCeiling set and the CanceledError
// matches ErrInvalidItem).
//
// When a write's answer is lost (a timeout, a reset connection, a 5xx), it
// may or may not have been applied. For every write, a change applied twice
// is never reported as success, and where the outcome cannot be known the
// error matches [ErrUnknownOutcome], never version.ErrConflict. [ExactlyOnce]
// says how each write keeps this, at what cost, and how to resend a write
// whose outcome is unknown.
//
// # Options and errors
//
// Table and read options are functions that change an exported, documented
// struct, as [NewTable]'s func(*[TableOptions]) does: [ReadOptions] for
// every read, [CreateOptions] for [CreateTable]; a read option a call
// cannot honour is refused with [ErrInvalidOption] before anything is
// sent, never ignored. Write options are values of one type per kind of
// call ([WriteOption] for Put, Update and Delete, [SaveOption],
// [RetryOption] for Modify, [OpOption], [UpdateOpOption], [BatchOption]),
// so that an option a call cannot honour does not compile; the table in
// the doc of [WriteOptions] says which call takes which. [Old] returns the
// item a write replaced; [ReadCapacity] and [WriteCapacity] add up the
// capacity consumed.
//
// The errors a caller branches on are [ErrNotFound], [ErrNotUnique],
// version.ErrConflict (a [*version.ConflictError] with the versions and the
// stored item), [ErrConditionFailed], [ErrLocked], [ErrUnknownOutcome],
// [ErrOldUnknown], [ErrUnprocessed], [ErrSchemaMismatch] and
// [ErrItemTooLarge]. Mistakes come in three classes, each returned before
// anything is sent: [ErrInvalidSchema] (the struct type),
// [ErrInvalidOption] (options and arguments) and [ErrInvalidItem] (keys,
// values and items DynamoDB would refuse, found without a round trip).
//
// Items held by a unit of work (package unit) are honoured by every write
// and read, not by batch writes: see [LockedError].
//
// # Modify: retries and turns
//
// [Table.Modify] avoids conflicts where it can, retries cheaply where it
// cannot, and bounds how often one change can lose. Its constants were
// chosen with the bench module's BenchmarkContention, whose package doc
// gives the reasons for each.
//
//   - Within a process, Modify calls on one Table and key take turns, first
//     come first served, each starting from the item the previous one
//     wrote, with no read. The Table keeps the item its last call wrote for
//     a second (for up to 64 keys): the next call starts from it, and if
//     another process wrote the item since, the conflict brings back the
//     stored item in place of a read. After 8 calls in a row started from a
//     kept item, the next one reads, leaving other processes a chance.
//   - A conflict carries the stored item (ALL_OLD): the first two are
//     retried at once on it. Later ones sleep a jittered, growing backoff
//     ([Backoff]; 20ms to 200ms by default), then read.
//   - After its eighth refused write, a call takes the item's turn across
//     processes: one UpdateItem that stores {o: owner, u: until} in
//     [TurnAttribute] if no live turn is there, changes nothing else, and
//     returns the item. While the turn is live, every other Modify write of
//     the item is refused (each is conditional on "no turn, or an expired
//     one"), so the holder's next write meets no conflict from Modify; that
//     write removes the turn. A writer refused the turn sleeps about as
//     long as a turn lasts, longer after each few tries, and asks again.
//   - A writer that meets another's live turn before its own eighth refusal
//     sleeps and reads again while the turn is live, running no fn; at the
//     third turn in a row it queues for the turn itself, so that turns back
//     to back cannot starve it.
//   - A turn is a lease the holder cannot extend: it expires a second after
//     it was taken, on the taker's clock, so a writer that died in its turn
//     blocks Modify's writes of the item for at most a second. A call that
//     ends in its turn without writing gives it back with one UpdateItem.
//   - The turn is a fallback, not a lock: every write that lands passed its
//     version check. Writes of other code ignore the turn; one landing in a
//     turn is a conflict the holder retries at once, still in its turn (a
//     Put removes the turn, and the holder asks again). Where no stored
//     item can carry a turn (none, or a unit of work holds it), conflicts
//     from the eighth on back off and read as the earlier ones did.
//
// Cost: each conflict one more PutItem, and from the third on one GetItem
// after the backoff; one GetItem per sleep while another's turn is live;
// one UpdateItem to take the turn and one per refused try while waiting.
// Every other method's doc names the DynamoDB calls it makes and how many;
// bench/README.md compares them with hand-written loops and guregu/dynamo.
//
// Testing: Modify's backoffs, turns and kept items, and the batch calls'
// backoffs, use the time package, so in a testing/synctest bubble, with the
// embedded engine made inside it (dynamolocal.NewEngine(t,
// dynamolocal.WithoutListener())), they run in virtual time.
package mapper
