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

// Known lists the accepted divergences. An entry that matched nothing in a
// run is listed as unused in the summary, so stale entries show.
var Known = []KnownDivergence{
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
}
