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
		Case:    "*",
		Subject: "ValidationException: The engine does not support the legacy parameter",
		Reason: "the engine does not implement the legacy parameters AttributeUpdates, Expected, ConditionalOperator, " +
			"KeyConditions, QueryFilter and ScanFilter (dynamolocal's package documentation says so), which DynamoDB " +
			"and DynamoDB Local still accept; the expression parameters replace them. Mixed with expressions, both refuse " +
			"them alike (\"Can not use both expression and non-expression parameters\")",
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
