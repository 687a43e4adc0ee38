package conformance

// KnownDivergence is a difference between the engine and DynamoDB Local that
// is accepted, with the reason.
type KnownDivergence struct {
	// Case is a pattern of the names of the steps it covers, in which *
	// stands for any run of characters, slashes included: "<case>/<step>-<Op>" for catalogue cases, "gen/<Op>/<n>" for
	// generated requests.
	Case string
	// Reference and Subject, when not empty, must occur in the rendering of
	// the reference's and the engine's answers ("OK {...}" or
	// "<Code>: <message> {...}"), so that an entry for a generated
	// operation covers only this difference.
	Reference, Subject string
	// Reason says why the engine answers differently, and which answer
	// DynamoDB itself (as documented) gives.
	Reason string
}

// NestedNumberSpelling is why the comparison (compactNested in
// harness_test.go) takes two spellings of one number as equal when the
// number is an N or NS element inside an L or M value, and only there.
// DynamoDB Local returns a nested N exactly as it was written ("01.50",
// "1E-10") and a nested NS element as Java's BigDecimal.toString ("2E1"
// comes back "2E+1"), while it normalises top-level N and NS. DynamoDB
// documents that leading and trailing zeroes are trimmed from numbers, and
// the engine stores every number so, nested or not. Top-level numbers are
// still compared exactly.
const NestedNumberSpelling = "DynamoDB Local keeps the spelling of numbers nested in lists and maps; DynamoDB documents trimmed numbers, which the engine returns at every depth"

// Known lists the accepted divergences. An entry that matched nothing in a
// run is listed as unused in the summary, so stale entries show.
var Known = []KnownDivergence{
	{
		Case:      "legacy/*-xor",
		Reference: "InternalFailure: The request processing has failed because of an unknown error",
		Subject:   "ValidationException: 1 validation error detected: Value 'XOR' at 'conditionalOperator' failed to satisfy constraint: Member must satisfy enum value set: [AND, OR]",
		Reason: "DynamoDB Local fails a ConditionalOperator other than AND or OR with an internal error (HTTP 500); " +
			"DynamoDB documents the enumeration AND, OR and refuses other values with a ValidationException, " +
			"as the engine does (it never answers a client's mistake with a 500)",
	},
	{
		Case:      "legacy/query/*-range-ne",
		Reference: "InternalFailure: The request processing has failed because of an unknown error",
		Subject:   "ValidationException: Attempted conditional constraint is not an indexable operation",
		Reason: "DynamoDB Local fails KeyConditions with NE on the range key with an internal error (HTTP 500); " +
			"DynamoDB documents that a range key condition takes only EQ, LE, LT, GE, GT, BEGINS_WITH and BETWEEN, " +
			"and the engine refuses NE as DynamoDB Local refuses IN and CONTAINS there",
	},
	{
		Case:    "raw-serialization/*",
		Subject: "SerializationException: ",
		Reason: "a request member of the wrong JSON type (a number where a string belongs, a list for a map, a " +
			"string for an attribute value, a bad base64 binary) or a body that is not JSON: DynamoDB Local " +
			"converts scalars (5 to \"5\", 1 to true, \"\" to an empty string value) and answers 500 InternalFailure " +
			"to the rest; DynamoDB answers 400 SerializationException to a client's mistake, and so does the engine",
	},
	{
		Case:      "*DeleteItem*",
		Reference: `OK {"ConsumedCapacity":`,
		Subject:   "OK {}",
		Reason: "DynamoDB Local returns ConsumedCapacity for a DeleteItem of a missing item even without " +
			"ReturnConsumedCapacity; DynamoDB documents ConsumedCapacity only when it is TOTAL or INDEXES, " +
			"and the engine follows the documentation",
	},
	{
		Case:      "*CreateTable*",
		Reference: "OK {",
		Subject:   "ValidationException: One or more parameter values were invalid: Neither ReadCapacityUnits nor WriteCapacityUnits can be specified when BillingMode is PAY_PER_REQUEST",
		Reason: "DynamoDB Local creates an on-demand table whose CreateTable names a ProvisionedThroughput, and ignores " +
			"it; DynamoDB's CreateTable reference says the throughput cannot be given with PAY_PER_REQUEST, and DynamoDB " +
			"refuses it with this ValidationException, as the engine does",
	},
	{
		Case:      "table/create-ppr-with-throughput/1-DescribeTable",
		Reference: "OK {",
		Subject:   "ResourceNotFoundException: ",
		Reason:    "the table of that CreateTable (on-demand, with throughput): DynamoDB and the engine refused to create it",
	},
	{
		Case:      "update/index-key-wrong-type/*",
		Reference: "OK {}",
		Subject:   "ValidationException: One or more parameter values were invalid: Type mismatch for Index Key",
		Reason: "DynamoDB Local lets UpdateItem set an index key attribute to a value of another type than the " +
			"index's (it refuses the same item on PutItem); DynamoDB refuses both, and so does the engine",
	},
	{
		Case:      "table/update-replicas/1-UpdateTable",
		Reference: "ValidationException: Nothing to update",
		Subject:   "OK {",
		Reason: "DynamoDB Local has no global tables and ignores ReplicaUpdates; DynamoDB (global tables version " +
			"2019.11.21) adds the replica, and the engine keeps it so that tests can see a replicated table",
	},
	{
		Case:      "table/update-replicas/2-DescribeTable",
		Reference: `"DeletionProtectionEnabled":false,"ItemCount":0,`,
		Subject:   `"GlobalTableVersion":"2019.11.21",`,
		Reason: "the table after that UpdateTable: DynamoDB (and the engine) describe its replica, its global table " +
			"version and its consistency mode (EVENTUAL unless chosen otherwise); DynamoDB Local has none",
	},
	{
		Case:      "update/set-minus-to-zero-*",
		Reference: `"z":{"N":"0.000000`,
		Subject:   `"z":{"N":"0"}`,
		Reason: "DynamoDB Local spells the difference of two equal numbers as zero with its scale kept " +
			"(0.000...0, 130 digits); DynamoDB documents that numbers are stored and returned without leading " +
			"and trailing zeroes, and the engine answers 0",
	},
	{
		Case:      "query/*-gsi-all-start-key",
		Reference: `OK {"Count":0,`,
		Subject:   `OK {"Count":2,`,
		Reason: "the ExclusiveStartKey names one of three items that tie on the GSI's key; DynamoDB orders a " +
			"Query's items by the index's keys only and leaves the order of ties to the implementation " +
			"(DynamoDB Local's follows a hash of the table's key and puts this item last; the engine's is the " +
			"table's key order and puts it first), so where the Query resumes is the implementation's choice",
	},
	{
		Case:      "gen/*",
		Reference: "ValidationException: The document path provided in the update expression is invalid for update",
		Subject:   "ValidationException: The provided expression refers to an attribute that does not exist in the item",
		Reason:    reasonSeveralActionsFail,
	},
	{
		Case:      "gen/*",
		Reference: "ValidationException: The document path provided in the update expression is invalid for update",
		Subject:   "ValidationException: An operand in the update expression has an incorrect data type",
		Reason:    reasonSeveralActionsFail,
	},
	{
		Case:      "gen/*",
		Reference: "ValidationException: The provided expression refers to an attribute that does not exist in the item",
		Subject:   "ValidationException: The document path provided in the update expression is invalid for update",
		Reason:    reasonSeveralActionsFail,
	},
	{
		Case:      "gen/*",
		Reference: "ValidationException: The provided expression refers to an attribute that does not exist in the item",
		Subject:   "ValidationException: An operand in the update expression has an incorrect data type",
		Reason:    reasonSeveralActionsFail,
	},
	{
		Case:      "gen/*",
		Reference: "ValidationException: An operand in the update expression has an incorrect data type",
		Subject:   "ValidationException: The document path provided in the update expression is invalid for update",
		Reason:    reasonSeveralActionsFail,
	},
	{
		Case:      "gen/*",
		Reference: "ValidationException: An operand in the update expression has an incorrect data type",
		Subject:   "ValidationException: The provided expression refers to an attribute that does not exist in the item",
		Reason:    reasonSeveralActionsFail,
	},
	{
		Case:      "*",
		Reference: "ValidationException: Invalid UpdateExpression: Two document paths overlap with each other; must remove or rewrite one of these paths; path one: ",
		Subject:   "ValidationException: Invalid UpdateExpression: Two document paths overlap with each other; must remove or rewrite one of these paths; path one: ",
		Reason:    reasonPathNaming,
	},
	{
		Case:      "*",
		Reference: "ValidationException: Invalid ProjectionExpression: Two document paths overlap with each other; must remove or rewrite one of these paths; path one: ",
		Subject:   "ValidationException: Invalid ProjectionExpression: Two document paths overlap with each other; must remove or rewrite one of these paths; path one: ",
		Reason:    reasonPathNaming,
	},
	{
		Case:      "*",
		Reference: "ValidationException: Invalid UpdateExpression: Two document paths conflict with each other; must remove or rewrite one of these paths; path one: ",
		Subject:   "ValidationException: Invalid UpdateExpression: Two document paths conflict with each other; must remove or rewrite one of these paths; path one: ",
		Reason:    reasonPathNaming,
	},
	{
		Case:      "*",
		Reference: "ValidationException: Invalid ProjectionExpression: Two document paths conflict with each other; must remove or rewrite one of these paths; path one: ",
		Subject:   "ValidationException: Invalid ProjectionExpression: Two document paths conflict with each other; must remove or rewrite one of these paths; path one: ",
		Reason:    reasonPathNaming,
	},
	{
		Case:      "*TransactWriteItems*",
		Reference: `OK {"ConsumedCapacity":`,
		Subject:   `OK {"ConsumedCapacity":`,
		Reason: "DynamoDB Local charges a transactional write 4 write units per 1 KB (a lone Put of a small item " +
			"reports 4) and leaves some writes of a transaction uncharged; DynamoDB documents 2 write units per 1 KB " +
			"for each item a transaction writes (prepare and commit), which the engine reports",
	},
	{
		Case:      "update/add-ns-new/*",
		Reference: `"NS":["1.0","3"]`,
		Subject:   `"NS":["1","3"]`,
		Reason: "DynamoDB Local stores the number set an ADD creates on an absent attribute as written (\"1.0\"); " +
			"DynamoDB documents that leading and trailing zeroes are trimmed, and the engine stores 1",
	}, {
		Case:      "limits/txn-put-1-delete-1.0/*",
		Reference: "OK {}",
		Subject:   "ValidationException: Transaction request cannot include multiple operations on one item",
		Reason: "DynamoDB Local takes the keys N \"1\" and N \"1.0\" of one TransactWriteItems for two items (it " +
			"refuses them in one TransactGetItems); DynamoDB compares numbers by value, so both name one item, and " +
			"its TransactWriteItems reference refuses several operations on one item, as the engine does",
	},
	{
		Case:      "limits/tags-*",
		Reference: "UnknownOperationException: Tagging is not currently supported in DynamoDB Local.",
		Reason: "DynamoDB Local does not support TagResource, UntagResource and ListTagsOfResource; DynamoDB " +
			"does, and so does the engine, with DynamoDB's checks and wording (held by the engine's tests)",
	},
	{
		Case:      "limits/tags-create-table-aws-prefix/*",
		Reference: "OK {",
		Subject:   "ValidationException: Tag Key cannot be prefixed with aws:, Key: aws:team",
		Reason: "DynamoDB Local ignores the Tags of CreateTable; DynamoDB checks them as TagResource does (the aws: " +
			"prefix is reserved), and so does the engine",
	},
}

// updateSpelling is why the entries below accept numbers spelled as a
// generated UpdateItem wrote them.
const updateSpelling = "DynamoDB Local stores a number that UpdateItem's SET or ADD (to an absent attribute) writes as it " +
	"was written (\"3.00\", \"1E-10\", \"1E+3\"), and returns it so from then on, while it trims numbers that " +
	"PutItem writes; DynamoDB documents that leading and trailing zeroes are trimmed, and the engine stores every " +
	"number trimmed. The entries name the generator's spellings, so that only these numbers are accepted"

func init() {
	for _, n := range [][2]string{{"3.00", "3"}, {"1E-10", "0.0000000001"}, {"1E+3", "1000"}} {
		Known = append(Known, KnownDivergence{
			Case:      "gen/*",
			Reference: `{"N":"` + n[0] + `"}`,
			Subject:   `{"N":"` + n[1] + `"}`,
			Reason:    updateSpelling,
		})
	}
}

// reasonSeveralActionsFail is the reason of the entries for an update of
// which several actions fail on the item.
const reasonSeveralActionsFail = "When several actions of one update fail on the item (a path whose parent is missing or " +
	"not a map or list, an operand attribute that is missing, an operand or ADD/DELETE target of the wrong type), " +
	"DynamoDB Local reports the error of one of them, chosen by an order that depends on the attribute names, not " +
	"on the expression's order alone: SET a = zz, q.p = :n answers the path error and SET c = zz, q.p = :n the " +
	"missing attribute, on the same item, and swapping the two actions of the first swaps the answer. The order " +
	"is close to, but not exactly, the iteration order of a Java HashMap keyed by the top-level names (most of the measured " +
	"cases), and could not be reproduced; DynamoDB documents none. The engine reports the first " +
	"failing action (SET, REMOVE, ADD, DELETE, each in the order written); both answer one of the errors the " +
	"request has, with the same code"

// reasonPathNaming is the reason of the entries for the paths named in
// "Two document paths overlap" and "... conflict".
const reasonPathNaming = "DynamoDB Local names as path two of an overlap or conflict, and sometimes as path one, " +
	"a path chosen by an order that could not be reproduced (often not the path that overlaps: projection " +
	"\"a, a.b, c\" names [a] and [c], \"c, a, a.b\" names [a] and [a, b]); the engine names the first two paths, " +
	"in the order written, that overlap (or conflict). The error, its code and the start of its message are the same"
