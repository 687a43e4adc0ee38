// Package mapper maps Go structs to DynamoDB items, with optimistic locking
// on every write of a versioned type.
//
// # Which call for which job
//
//   - Read one item: [Table.Get] (one GetItem, consistent). Many by key:
//     [Table.GetAll] (BatchGetItem, 100 keys a call). By key condition:
//     [Table.Query], collected with [All], or [Table.One] for exactly one;
//     everything: [Table.Scan].
//   - Create or replace an item: [Table.Put] (one PutItem, version-checked).
//     Write the struct's attributes and leave others alone: [Table.Save].
//   - A change DynamoDB can make itself (count, append, set, remove):
//     [Table.Update], one UpdateItem, no read, no conflict between writers.
//   - A change that needs the item first: [Table.Modify], read, change and
//     version-checked write, retried on conflict (its doc says how).
//   - Several items together: the *Op methods in a transaction (package
//     txn, up to 100); beyond that, or with locking reads, package unit.
//   - Load data no one else writes: [Table.PutAll], [Table.DeleteAll]
//     (BatchWriteItem, no conditions).
//   - Tables: [CreateTable] from the struct's tags, [Table.Check] at
//     start-up.
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
// The options hash, range and version are the mapper's own; every option
// attributevalue understands (omitempty, omitemptyelem, nullempty,
// nullemptyelem, string, stringset, numberset, binaryset, unixtime) is passed
// through, and fields are encoded exactly as attributevalue would with
// TagKey "dynamo" (custom attributevalue.Marshaler types included). The
// `dynamodbav` tag is read for fields without a `dynamo` tag.
//
// [NewTable] refuses, with a [*SchemaError] matching [ErrInvalidSchema],
// what attributevalue would silently accept or drop: an unknown, empty or
// repeated option (a typo like "hsh" would otherwise lose the key), no hash
// key, a second hash, range or version field, a version field that is not
// an integer, a key of a type that cannot be stored as S, N or B, two fields
// with one attribute name at the same depth, options that contradict each
// other, unexported tagged fields, and channels or functions.
//
// # Tables from structs
//
// Secondary indexes are named in tags of their own, as guregu/dynamo names
// them, and a TTL in the dynamo tag:
//
//	type Order struct {
//		Customer string    `dynamo:"customer,hash"`
//		ID       string    `dynamo:"id,range"`
//		Status   string    `dynamo:"status" index:"by-status,hash"`
//		Placed   int64     `dynamo:"placed" index:"by-status,range" localIndex:"by-placed,range"`
//		Email    *string   `dynamo:"email,omitempty" index:"by-email,hash;by-email-placed,hash"`
//		Expires  time.Time `dynamo:"expires,ttl,unixtime"`
//	}
//
// `index:"Name,hash"` and `index:"Name,range"` make the field the hash or
// range key of the global secondary index Name; `localIndex:"Name,range"`
// makes it the range key of the local index Name (whose hash key is the
// table's). A field that is a key of several indexes lists them in one
// value separated by ';' (`index:"a,hash;b,hash"`), or repeats the key as
// guregu/dynamo allows (`index:"a,hash" index:"b,hash"`: every occurrence
// counts, where reflect's StructTag.Get sees only the first; staticcheck
// reports repeated keys as SA5008, the ';' form avoids that). The ttl
// option marks the attribute DynamoDB's TTL reads: an integer of epoch
// seconds, or a time.Time tagged unixtime (a pointer to either: items
// without it never expire). NewTable refuses, as a [*SchemaError]: an
// unknown option or a missing hash/range word, an index name DynamoDB
// would refuse, an index named twice on one field, a global index with a
// range key but no hash key, two hash or two range keys for one
// index, a name used as both global and local index, a local index on a
// table without a range key or on the table's own range key, an index key
// of a type that is not S, N or B (or with nullempty or a set option), and
// a second ttl field or one of another type.
//
// Sparse indexes: DynamoDB refuses an item whose index key attribute is an
// empty string or binary, or NULL (a ValidationException naming the
// index). So a field that is a key of a secondary index, global or local,
// but not of the table, is left out of the item when it is empty or nil,
// with or without omitempty: Put, PutAll, PutOp, Modify and Save write the
// item without it (Save removes the attribute), the item is absent from
// that index, and the field reads back as the zero value. An empty table
// key is still an [ErrInvalidItem].
//
// [CreateTable] creates the table from these tags in one call: keys,
// attribute definitions, indexes (projection ALL unless [ProjectKeysOnly]
// or [ProjectInclude]), on-demand billing unless [Provisioned], TTL enabled,
// and it waits until the table and its global indexes are ACTIVE. On a table
// that exists with the same schema it is not an error (and it turns TTL on
// if it is off); on a different one it changes nothing and returns a
// [*MismatchError] ([ErrSchemaMismatch]) that names every difference.
// Indexes of the table that the struct does not name are not a difference:
// several types may share one table, each naming the indexes it uses.
// Billing and throughput are not compared either. [IndexThroughput] on a
// local index is an [ErrInvalidOption], before any call: a local index
// uses the table's capacity.
//
// [Table.Check] compares an existing table with T in one DescribeTable
// call: the key names and types, and each index T names. It reports every
// difference in one [*MismatchError], each naming the Go field and
// attribute it concerns (for a missing index, or one global where the tags
// say local, the field whose tag defines it). NewTable makes no call, so
// call Check at start-up to learn of a mismatch before the first request
// fails with DynamoDB's "The provided key element does not match the
// schema".
//
// # Several entity types in one table
//
// A single-table design keeps several struct types in one table. Declare
// its layout once as a [Design] (key attributes, the type attribute,
// overloaded indexes), create it with [Design.CreateTable], and make a
// Table per type with [NewEntity], whose [Entity] gives key templates over
// the type's fields ("CUSTOMER#{ID}", "ORDER#{Date}#{ID}"). Such a Table is
// a Table like any other; its items also carry the rendered keys and the
// type attribute. [NewCollection] reads several types with one Query
// ([Collection.Query]): each item comes decoded into its own type for a
// type switch, an item of a type no member declares as an [*UnknownItem].
// A plain [NewTable] has tagged keys and no type attribute, as before.
//
// # Counting, exactly one, old items, capacity
//
// [Table.Count] and [Table.ScanCount] count with Select=COUNT, following
// every page (DynamoDB's own count stops at 1 MB a page). [Table.One] wants
// exactly one item from a query: none is [ErrNotFound], several is
// [ErrNotUnique]; it reads no further than the second item.
//
// The write option [Old] sets a variable to the item as it was before a
// Put, Save, Update or Delete (ReturnValues=ALL_OLD, from the same call;
// nil when there was none). An Update given Old returns a nil item, because
// UpdateItem returns the old or the new item, not both. [ReadCapacity] and
// [WriteCapacity] add the capacity units DynamoDB reports as consumed
// (ReturnConsumedCapacity=TOTAL) to a [Capacity]. The calls that cannot
// honour them do not take them (batch writes, transaction ops, Modify;
// GetAll refuses ReadCapacity with [ErrInvalidOption]).
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
//   - [Table.Modify]: read, change, write, retried on conflict (see
//     "Modify: retries and turns" below).
//
// Conditions of the caller's own ([If]) are ANDed with the version check,
// never replace it. Every conditional write asks DynamoDB for the item as
// it was (ReturnValuesOnConditionCheckFailure=ALL_OLD), so a refused write
// returns a [*version.ConflictError] whose Item is the current item, at no
// extra cost. A refusal by the caller's own condition while the version
// matched is a [*ConditionError] instead, which Modify does not retry; a
// refusal by a [Fence] (a higher token stored) matches [ErrFenced].
//
// Versions never wrap and never leave their field's range, on any path,
// checked or not. The range of each version type is 0 to its maximum, and
// never more than int64's: int8 to 127, int16 to 32767, int32 to
// 2147483647, int64 (and int on 64-bit platforms) to 9223372036854775807;
// uint8 to 255, uint16 to 65535, uint32 to 4294967295, and uint64, uint
// and uintptr to 9223372036854775807 too (versions are int64s). A write
// that would store a version beyond it is refused with an error matching
// [ErrInvalidItem], whose message says "refused rather than wrapped":
// before sending when the version is known (Put, Save, Modify, a checked
// Update or UpdateOp, a uint64 version already beyond int64's maximum);
// for an Update with no version check, by the condition it carries (the
// stored version below the ceiling), the refusal then being decided from
// the item returned with it (in a transaction, the op's txn.Reason has
// AtCeiling set and the CanceledError matches ErrInvalidItem). Nothing is
// written.
//
// # Lost responses: exactly once
//
// When an attempt's answer is lost (a timeout, a reset connection, a 5xx),
// the write may or may not have been applied. The rule, for every write:
// a change applied twice is never reported as success, and where the
// outcome cannot be known the error matches [ErrUnknownOutcome]
// (version.ErrUnknownOutcome), never version.ErrConflict. How each write
// keeps it (the mapper watches the SDK's attempts of each call, and stores a
// token unique to each write in the item, [TableOptions.TokenAttribute]):
//
//   - Writes with a version check (Put and Save of a versioned item, Modify,
//     Update and Delete with a non-zero version): once applied, the write's
//     own check is false, so the SDK may resend it. If the resend fails its
//     condition, the token decides: ours means the first attempt landed
//     (success); not ours means another writer came in between, and the
//     outcome is unknown. Cost: nothing unless an answer is lost.
//   - Writes without one (Update of whatever version is stored, Unversioned
//     writes, types without a version, writes conditioned only by If or
//     Fence): a resend could apply them again after another writer replaced
//     the token, so the SDK resends them only after answers that prove
//     nothing was written
//     (throttling and other 4xx, refused connections). After an unanswered
//     attempt, one consistent GetItem settles the write: the item carries
//     our token (success; Update returns the item read) or, for a Delete, is
//     gone (success); otherwise the outcome is unknown. Cost: one GetItem
//     per unanswered attempt.
//   - [ExactlyOnce] (or [TableOptions].ExactlyOnce): the write goes out as a
//     one-action TransactWriteItems with a ClientRequestToken fixed for the
//     write, so every resend is idempotent whatever other writers do, and
//     an unknown outcome remains only when all of the SDK's attempts go
//     unanswered; its error carries the token, and the same write sent with
//     [ExactlyOnceToken](token) within 10 minutes applies at most once.
//     Cost: twice the write capacity, and for Update one consistent GetItem
//     after the write (a transaction returns no item).
//
// Items are never compared by content: two concurrent increments often
// compute identical items. The fault-injection suite at the repository
// root (TestExactlyOnceUnderFaults) checks the rule under lost answers,
// refused connections, throttling, 500s and delays, in both modes; the
// test logs its counts. Batch writes (PutAll, DeleteAll) are outside
// this rule: BatchWriteItem carries no conditions and no tokens, and the
// SDK resends it.
//
// # Reading and writing many items
//
// [Table.Query] and [Table.Scan] return iterators (iter.Seq2[*T, error])
// that follow every page (a page ends at [PageSize] items or 1 MB); break
// out of the loop to stop, with no further call. All reads share one
// option type, [ReadOption]: [Index], [Filter], [Project], [Descending],
// [Limit] (items in all), [PageSize] (DynamoDB's Limit per call),
// [StartAfter], [Segments] (parallel scan) and [ConsistentRead]; an option
// that does not apply to a call is an [ErrInvalidOption] before anything is
// sent. To serve results a page at a time, take a [Cursor] with
// [Table.CursorAfter] after the last item returned: an opaque, URL-safe
// string that resumes the read after that item, in any process.
//
// [Table.GetAll] reads items by key with BatchGetItem, 100 keys per call,
// returns them in the order of the keys, and reports the keys without an
// item in a [*MissingError] (which matches [ErrNotFound]).
// [Table.PutAll] and [Table.DeleteAll] write with BatchWriteItem, 25 items
// per call. All three resend what DynamoDB leaves unprocessed, with backoff,
// and stop with a [*BatchError] that lists what was not done. Batch writes
// carry no conditions, so a versioned type is refused
// ([ErrInvalidOption]) unless [Unversioned] is given: write such items in
// a transaction to keep their version checks.
//
// Types with encodings of their own (attributevalue.Marshaler and
// Unmarshaler) work in every path, as keys too.
//
// # Empty collections
//
// DynamoDB has no empty sets, and a NULL where a list is expected makes a
// later list_append fail. Unless tagged nullempty, a top-level nil slice is
// stored as an empty list and a nil map as an empty map, and they read back
// empty (non-nil). A nil or empty set (stringset, numberset, binaryset,
// [][]byte) is not stored at all, and reads back nil: the attribute is
// absent, and DynamoDB's ADD and DELETE treat a missing set as empty. So
// compare sets by length, not with nil.
//
// # Which Go types round-trip
//
// Every field either reads back what was written or is refused by
// [NewTable] with a [*SchemaError] naming it. Types that implement
// encoding.TextMarshaler and TextUnmarshaler (netip.Addr, big.Int, uuid
// types, ...) are stored as strings (S), and types that implement
// encoding.BinaryMarshaler and BinaryUnmarshaler as binary (B), as
// encoding/json treats them; attributevalue.Marshaler comes first, and
// time.Time keeps attributevalue's encoding (RFC 3339 text, or a number with
// unixtime). Refused, all the way down through pointers, slices, maps and
// nested structs: complex numbers, channels, functions, uintptr and unsafe
// pointers (attributevalue drops them without a word), structs whose
// fields are all unexported and that have no marshaling methods (stored as
// an empty map, read back as zero), a marshaler without its unmarshaler
// (or the reverse), a MarshalText on the pointer where values are not
// addressable (map values: use pointers), map keys other than strings,
// numbers, bools and text marshalers, interfaces with methods, and
// unixtime inside a value encoded as text. Values of type any (and
// map[string]any, []any) are checked when they are written: a value
// DynamoDB cannot hold is an [ErrInvalidItem] naming the field path, and
// nothing is sent. Read back, values in an any come as attributevalue
// decodes them (string, float64, bool, []any, map[string]any, []byte).
//
// Items that hold a text marshaler's value stored by its kind (a [16]byte
// UUID as B, a named int as N, as attributevalue alone stores them) still
// read back (a B goes through UnmarshalBinary, an N through the number
// decoder), and are rewritten as S. A key field of such a type has type S,
// which a table whose key is B or N refuses: give the type a
// MarshalDynamoDBAttributeValue method to keep such a key.
//
// # Checked before sending
//
// DynamoDB answers some mistakes with a ValidationException after a round
// trip; the mapper finds them first, sends nothing, and names the
// attribute: an empty key, a hash key over 2,048 bytes or a range key over
// 1,024 ([ErrInvalidItem]); NaN, infinities and numbers beyond DynamoDB's 38
// digits or range ([ErrInvalidItem]); an item over 400 KB by DynamoDB's
// size rules ([ErrItemTooLarge]). This holds for Get, Put, Save, Update,
// Delete, Modify, the transaction ops and the batch calls. An update's
// values are also checked against the struct: a value its field could not
// be read back from, at any depth, is [ErrInvalidItem] naming the field. A [Table] not
// made by [NewTable] (nil, or a zero value) answers [ErrInvalidOption].
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
// the doc of [WriteOptions] says which call takes which.
//
// The errors a caller branches on are [ErrNotFound], [ErrNotUnique],
// version.ErrConflict (a [*version.ConflictError] with the versions and the
// stored item), [ErrConditionFailed], [ErrLocked], [ErrUnknownOutcome],
// [ErrOldUnknown], [ErrUnprocessed], [ErrSchemaMismatch] and
// [ErrItemTooLarge]. Mistakes come in three classes, each returned before
// anything is sent: [ErrInvalidSchema] (the struct type),
// [ErrInvalidOption] (options and arguments) and [ErrInvalidItem] (keys,
// values and items DynamoDB would refuse).
//
// # Items held by a unit of work
//
// A unit of work (package unit) holds an item by a lock in its attribute
// "optimist_unit", and keeps its write for the item in the lock until it is
// applied, after the unit's commit point: what the item stores outside the
// lock is its committed state, except in the moments between a unit's
// commit point and its apply of that item.
//
//   - Every write (Put, Update, Delete, Save, Modify, and the transaction
//     ops) carries attribute_not_exists(optimist_unit), ANDed with its other
//     conditions. A refused write reads the unit's record (one GetItem): if
//     the unit is over (committed or rolled back) or dead (its heartbeat
//     counter stayed the same for a full lease, watched by this process
//     across calls), the write rolls the item forward or back (one write,
//     and for a dead unit one on its record) and is sent again, once;
//     otherwise it is a [*LockedError] matching [ErrLocked]. So an item is
//     never blocked much longer than a lease after its unit's process died,
//     whoever touches it. Batch writes (PutAll, DeleteAll) cannot carry
//     conditions and do not honour locks: one that overwrites an item a unit
//     holds removes the unit's lock, and the unit's write of that item is
//     then lost. Use them for items no unit is working on.
//   - Every read (Get, GetAll, Query, Scan, One, and txn.Get with GetOp)
//     shows the last committed state of a held item: as stored without the
//     lock; "not found" for an item a unit holds while it does not exist;
//     and for an item whose lock holds the unit's write, that write if the
//     unit's record says it committed (one GetItem of the record per unit
//     and page; an update is applied by the reader, one write, as the unit
//     would). A [Filter], and the key condition of a Query of a secondary
//     index, are evaluated again on what is shown: a filter is sent as
//     "(filter) OR attribute_exists(optimist_unit.p)" so that such items
//     come back, and the mapper decides. Count and ScanCount count items
//     as stored, but for those a unit holds while they do not exist.
//   - A Query of a secondary index finds items by their index key as
//     stored. An item a unit moves to another index key is found under its
//     old key, and shown there only if its committed state still matches,
//     until the unit applies it: between the unit's commit point and its
//     apply (or, if the unit's process died there, until recovery or any
//     call that touches the item applies it), a query of the new key may
//     miss it. An index that does not project "optimist_unit" (KEYS_ONLY,
//     or an INCLUDE made elsewhere) shows items as stored: never an
//     uncommitted state, but in those same moments the state from before
//     the unit. [CreateTable] adds the attribute to every INCLUDE
//     projection.
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
//
// # Cost
//
// Every method names the DynamoDB call it makes and how many: Get, Put,
// Update and Delete one each; Modify as "Modify: retries and turns" says;
// the batch calls one per 25 (writes) or 100 (reads) items, and
// one per round of unprocessed items. bench/README.md's "Under contention"
// section compares them with hand-written loops and guregu/dynamo
// (bench/, make bench).
//
// # Testing
//
// Modify's backoffs, its turns and the item it keeps between calls, and
// the batch calls' backoffs, are timed with the time package: in a
// testing/synctest bubble, with the embedded engine made inside it
// (dynamolocal.NewEngine(t, dynamolocal.WithoutListener())), they run in
// the bubble's virtual time.
package mapper
