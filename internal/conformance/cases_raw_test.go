//go:build conformance

package conformance

import "fmt"

// rawCases send bodies the SDK cannot produce, the same to both sides.
//
// raw-serialization/*: a member of the wrong JSON type (a number for a
// string, a list for a map, a string for an attribute value) or a body
// that is not JSON. DynamoDB answers 400 SerializationException; DynamoDB
// Local converts scalars (5 for "5", 1 for true) and answers 500
// InternalFailure to the rest. The engine follows DynamoDB: see the entry
// in known.go. Each case states what the reference answers, so that a
// change of DynamoDB Local shows.
//
// raw-value/*: attribute values that are JSON objects but not one
// attribute value (no member, an unknown one, two, a null one), which both
// answer alike.
func rawCases() []tcase {
	const internal = "InternalFailure"
	hcase := func(name string, steps ...step) tcase { return tc(name, with(fixH(), steps...)...) }
	// put is a PutItem of the item {"pk":{"S":"raw"}, "a": a} to table h.
	put := func(want, a string) step {
		return raw(want, "PutItem", func(n namer) string {
			return fmt.Sprintf(`{"TableName":%q,"Item":{"pk":{"S":"raw"},"a":%s}}`, n.T("h"), a)
		})
	}
	// get is a GetItem of key a in table h with the extra members more.
	get := func(want, key, more string) step {
		return raw(want, "GetItem", func(n namer) string {
			return fmt.Sprintf(`{"TableName":%q,"Key":%s%s}`, n.T("h"), key, more)
		})
	}
	query := func(want, more string) step {
		return raw(want, "Query", func(n namer) string {
			return fmt.Sprintf(`{"TableName":%q,"KeyConditionExpression":"pk = :p","ExpressionAttributeValues":{":p":{"S":"a"}}%s}`, n.T("h"), more)
		})
	}
	key := `{"pk":{"S":"a"}}`
	stored := getKey("h", it("pk", S("raw")))
	return []tcase{
		// A value of the wrong JSON type for a request's member.
		hcase("raw-serialization/table-name-number", raw("ResourceNotFoundException", "GetItem", func(namer) string {
			return `{"TableName":12345,"Key":{"pk":{"S":"a"}}}`
		})),
		hcase("raw-serialization/key-list", get(internal, `[]`, ``)),
		hcase("raw-serialization/key-string", get(internal, `"x"`, ``)),
		hcase("raw-serialization/names-list", get(internal, key, `,"ExpressionAttributeNames":[1]`)),
		hcase("raw-serialization/names-number-value", get(vErr, key, `,"ExpressionAttributeNames":{"#a":5}`)),
		hcase("raw-serialization/consistent-read-string", get(internal, key, `,"ConsistentRead":"x"`)),
		hcase("raw-serialization/limit-string", query(internal, `,"Limit":"x"`)),
		hcase("raw-serialization/limit-object", query(internal, `,"Limit":{}`)),
		hcase("raw-serialization/limit-bool", query(internal, `,"Limit":true`)),
		hcase("raw-serialization/item-string", raw(internal, "PutItem", func(n namer) string {
			return fmt.Sprintf(`{"TableName":%q,"Item":"x"}`, n.T("h"))
		})),
		hcase("raw-serialization/request-items-list", raw(internal, "BatchWriteItem", func(namer) string {
			return `{"RequestItems":[]}`
		})),
		hcase("raw-serialization/transact-items-number", raw(internal, "TransactWriteItems", func(namer) string {
			return `{"TransactItems":[5]}`
		})),
		hcase("raw-serialization/not-json", raw(internal, "PutItem", func(namer) string { return `{"TableName":` })),
		hcase("raw-serialization/body-list", raw(internal, "PutItem", func(namer) string { return `[]` })),
		// An attribute value of the wrong JSON type, or a member of one.
		hcase("raw-serialization/value-string", put("", `""`)),
		hcase("raw-serialization/value-number", put(internal, `5`)),
		hcase("raw-serialization/value-list", put(internal, `[]`)),
		hcase("raw-serialization/s-number", put("", `{"S":5}`)),
		hcase("raw-serialization/s-object", put(internal, `{"S":{}}`)),
		hcase("raw-serialization/n-bool", put(vErr, `{"N":true}`)),
		hcase("raw-serialization/bool-number", put("", `{"BOOL":1}`)),
		hcase("raw-serialization/null-string", put(internal, `{"NULL":"x"}`)),
		hcase("raw-serialization/l-object", put(internal, `{"L":{}}`)),
		hcase("raw-serialization/l-string", put(internal, `{"L":"x"}`)),
		hcase("raw-serialization/m-list", put(internal, `{"M":[]}`)),
		hcase("raw-serialization/ss-string", put(internal, `{"SS":"x"}`)),
		hcase("raw-serialization/b-not-base64", put(internal, `{"B":"!!!"}`)),
		hcase("raw-serialization/bs-not-base64", put(internal, `{"BS":["!!"]}`)),
		hcase("raw-serialization/nested-number", put(internal, `{"L":[5]}`)),

		// Attribute values of the right JSON type that are not one value.
		hcase("raw-value/empty", put(vErr, `{}`), stored),
		hcase("raw-value/two-members", put(vErr, `{"S":"x","N":"1"}`), stored),
		hcase("raw-value/unknown-member", put(vErr, `{"X":"1"}`), stored),
		hcase("raw-value/null-member", put(vErr, `{"S":null}`), stored),
		hcase("raw-value/null-and-string", put("", `{"S":"x","N":null}`), stored),
		hcase("raw-value/unknown-and-string", put("", `{"S":"x","X":"1"}`), stored),
		hcase("raw-value/nested-empty", put(vErr, `{"L":[{}]}`), stored),
		hcase("raw-value/nested-two-members", put(vErr, `{"M":{"b":{"S":"x","BOOL":true}}}`), stored),
		hcase("raw-value/key-empty", get(vErr, `{"pk":{}}`, ``)),
		hcase("raw-value/update-value-empty", raw(vErr, "UpdateItem", func(n namer) string {
			return fmt.Sprintf(`{"TableName":%q,"Key":{"pk":{"S":"a"}},"UpdateExpression":"SET v = :v","ExpressionAttributeValues":{":v":{}}}`, n.T("h"))
		})),
		hcase("raw-value/query-value-unknown", query(vErr, `,"FilterExpression":"n = :x","ExpressionAttributeValues":{":p":{"S":"a"},":x":{"Y":"1"}}`)),
	}
}
