// Package mapper maps Go structs to DynamoDB items, with optimistic locking
// on every write of a versioned type.
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
// table's). A field that is a key of several indexes lists them separated
// by ';' (a Go struct tag holds one value per key). The ttl option marks the
// attribute DynamoDB's TTL reads: an integer of epoch seconds, or a
// time.Time tagged unixtime (a pointer to either: items without it never
// expire). NewTable refuses, as a [*SchemaError]: an unknown option or a
// missing hash/range word, an index name DynamoDB would refuse, a global
// index with a range key but no hash key, two hash or two range keys for one
// index, a name used as both global and local index, a local index on a
// table without a range key or on the table's own range key, an index key
// of a type that is not S, N or B (or with nullempty or a set option), a
// pointer index key without omitempty (a nil pointer would be stored as
// NULL, which DynamoDB refuses in an index key; with omitempty the item is
// simply left out of the index: a sparse index), and a second ttl field or
// one of another type.
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
// Billing and throughput are not compared either.
//
// [Table.Check] compares an existing table with T in one DescribeTable
// call: the key names and types, and each index T names. It reports every
// difference in one [*MismatchError]. NewTable makes no call, so call Check
// at start-up to learn of a mismatch before the first request fails with
// DynamoDB's "The provided key element does not match the schema".
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
// (ReturnConsumedCapacity=TOTAL) to a [Capacity]. These options are refused
// by the calls that cannot honour them (batch writes, transaction ops,
// Modify, GetAll) with [ErrInvalidOption].
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
//   - [Table.Modify]: read, change, write, and on a conflict change the item
//     that came back with the conflict, with no second read.
//
// Conditions of the caller's own ([If]) are ANDed with the version check,
// never replace it. Every conditional write asks DynamoDB for the item as
// it was (ReturnValuesOnConditionCheckFailure=ALL_OLD), so a refused write
// returns a [*version.ConflictError] whose Item is the current item, at no
// extra cost. A refusal by the caller's own condition while the version
// matched is a [*ConditionError] instead, which Modify does not retry.
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
//     the token (issue 10 measured 24 double increments in 240 that way), so
//     the SDK resends them only after answers that prove nothing was written
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
// Under the fault mix of TestExactlyOnceUnderFaults (10 clients each behind
// a transport that loses 10% of answers after the server applied the
// request, refuses 5%, throttles 5%, answers 500 to 5% and delays 10%), 240
// increments by Modify and Update with Gets gave, in both modes, a
// linearizable history with 0 duplicates, 0 lost and 0 reported failed
// that were applied; the default mode ended about a third of the
// increments in an unknown outcome (mostly Updates, whose 500s cannot be
// told from applied writes), ExactlyOnce none. Items are never compared by
// content: two concurrent increments often compute identical items. Batch
// writes (PutAll, DeleteAll) are outside this rule: BatchWriteItem carries
// no conditions and no tokens, and the SDK resends it.
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
// ([ErrBatchVersioned]) unless [Unversioned] is given: write such items in
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
// DynamoDB cannot hold is an [ErrInvalidValue] naming the field path, and
// nothing is sent. Read back, values in an any come as attributevalue
// decodes them (string, float64, bool, []any, map[string]any, []byte).
//
// Upgrading: before this rule, a text marshaler was stored by its kind (a
// [16]byte UUID as B, a named int as N). Such items still read back (a B
// goes through UnmarshalBinary, an N through the number decoder), and are
// rewritten as S; but a key field of such a type now has type S, which a
// table created with a B or N key refuses: keep such a key with a
// MarshalDynamoDBAttributeValue method of its own.
//
// # Checked before sending
//
// DynamoDB answers some mistakes with a ValidationException after a round
// trip; the mapper finds them first, sends nothing, and names the
// attribute: an empty key, a hash key over 2,048 bytes or a range key over
// 1,024 ([ErrInvalidKey]); NaN, infinities and numbers beyond DynamoDB's 38
// digits or range ([ErrInvalidValue]); an item over 400 KB by DynamoDB's
// size rules ([ErrItemTooLarge]). This holds for Get, Put, Save, Update,
// Delete, Modify, the transaction ops and the batch calls. A [Table] not
// made by [NewTable] (nil, or a zero value) answers [ErrInvalidTable].
//
// # Cost
//
// Every method names the DynamoDB call it makes. Get, Put, Update and
// Delete make one call each. Modify makes one GetItem (none when it follows
// another Modify of the same key by the same Table), then one PutItem per
// attempt; with 16 goroutines incrementing one item it made 1.0 to 1.3
// calls per increment on DynamoDB Local with one attempt per change (1.9
// with the goroutines in four Tables, as four processes would be), against
// 8 to 14 for the usual hand-written loop that re-reads after each
// conflict, and took a third to a half of its time (bench/, BenchmarkContention). Building a Put request takes a third of
// the time of attributevalue.MarshalMap plus the expression builder, because
// plain fields are encoded without reflection through attributevalue and
// the condition strings are fixed per table (see bench/).
package mapper
