//go:build conformance

package conformance

import (
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// docReply is the developer guide's Reply table: hash Id (S), range
// ReplyDateTime (S), with a global index on PostedBy (KEYS_ONLY) and a local
// index on Votes (N, KEYS_ONLY).
const docReply = "reply"

const docThread1 = "Amazon DynamoDB#DynamoDB Thread 1"

func docReplyFix() []step {
	return []step{
		create(docReply, "Id", tS, "ReplyDateTime", tS,
			gsi("PostedBy-index", "PostedBy", tS, "ReplyDateTime", tS, types.ProjectionTypeKeysOnly),
			lsi("Votes-index", "Votes", tN, types.ProjectionTypeKeysOnly)),
		putAll(docReply,
			it("Id", S(docThread1), "ReplyDateTime", S("2015-09-15T19:58:22.947Z"), "Message", S("DynamoDB Thread 1 Reply 1 text"), "PostedBy", S("User A"), "Votes", N("3")),
			it("Id", S(docThread1), "ReplyDateTime", S("2015-09-22T19:58:22.947Z"), "Message", S("DynamoDB Thread 1 Reply 2 text"), "PostedBy", S("User B"), "Votes", N("10")),
			it("Id", S(docThread1), "ReplyDateTime", S("2015-09-29T19:58:22.947Z"), "Message", S("DynamoDB Thread 1 Reply 3 text"), "PostedBy", S("User A"), "Votes", N("-2")),
			it("Id", S(docThread1), "ReplyDateTime", S("2015-10-05T19:58:22.947Z"), "Message", S("DynamoDB Thread 1 Reply 4 text"), "PostedBy", S("User C")),
			it("Id", S("Amazon DynamoDB#DynamoDB Thread 2"), "ReplyDateTime", S("2015-09-15T19:58:22.947Z"), "Message", S("DynamoDB Thread 2 Reply 1 text"), "PostedBy", S("User A"), "Votes", N("1")),
			it("Id", S("Amazon S3#S3 Thread 1"), "ReplyDateTime", S("2015-09-29T19:58:22.947Z"), "Message", S("S3 Thread 1 Reply 1 text"), "Votes", N("0")),
		),
	}
}

// docScores is a table with a numeric sort key: hash Player (S), range
// Score (N).
const docScores = "scores"

func docScoresFix() []step {
	return []step{
		create(docScores, "Player", tS, "Score", tN),
		putAll(docScores,
			it("Player", S("p"), "Score", N("-5")), it("Player", S("p"), "Score", N("10")),
			it("Player", S("p"), "Score", N("2")), it("Player", S("p"), "Score", N("100")),
			it("Player", S("p"), "Score", N("1.5")), it("Player", S("q"), "Score", N("1")),
		),
	}
}

// query is a Query of table tn with a key condition and expression
// arguments; mods adjust it.
func query(want, tn, kc string, mods func(*dynamodb.QueryInput), kv ...any) step {
	return st(want, func(n namer) any {
		nm, vals := exprArgs(kv...)
		in := &dynamodb.QueryInput{TableName: str(n.T(tn)), ExpressionAttributeNames: nm, ExpressionAttributeValues: vals}
		if kc != "" {
			in.KeyConditionExpression = str(kc)
		}
		if mods != nil {
			mods(in)
		}
		return in
	})
}

func scan(want, tn string, mods func(*dynamodb.ScanInput), kv ...any) step {
	return st(want, func(n namer) any {
		nm, vals := exprArgs(kv...)
		in := &dynamodb.ScanInput{TableName: str(n.T(tn)), ExpressionAttributeNames: nm, ExpressionAttributeValues: vals}
		if mods != nil {
			mods(in)
		}
		return in
	})
}

func docReadCases() []tcase {
	r := func(name string, steps ...step) tcase { return tc("doc/"+name, with(docReplyFix(), steps...)...) }
	sc := func(name string, steps ...step) tcase { return tc("doc/"+name, with(docScoresFix(), steps...)...) }
	id := func(kv ...any) []any { return append([]any{":id", S(docThread1)}, kv...) }
	const kc = "Id = :id"
	limit := func(l int32) func(*dynamodb.QueryInput) {
		return func(in *dynamodb.QueryInput) { in.Limit = aws.Int32(l) }
	}
	back := func(in *dynamodb.QueryInput) { in.ScanIndexForward = aws.Bool(false) }
	index := func(ix string) func(*dynamodb.QueryInput) {
		return func(in *dynamodb.QueryInput) { in.IndexName = str(ix) }
	}
	cs := []tcase{
		// Query.KeyConditionExpressions.
		r("KeyConditions/partition-only", query("", docReply, kc, nil, id()...)),
		r("KeyConditions/no-match-empty", query("", docReply, kc, nil, ":id", S("nothing"))),
		r("KeyConditions/sort-eq", query("", docReply, kc+" AND ReplyDateTime = :d", nil, id(":d", S("2015-09-22T19:58:22.947Z"))...)),
		r("KeyConditions/sort-lt", query("", docReply, kc+" AND ReplyDateTime < :d", nil, id(":d", S("2015-09-29"))...)),
		r("KeyConditions/sort-le", query("", docReply, kc+" AND ReplyDateTime <= :d", nil, id(":d", S("2015-09-22T19:58:22.947Z"))...)),
		r("KeyConditions/sort-gt", query("", docReply, kc+" AND ReplyDateTime > :d", nil, id(":d", S("2015-09-22T19:58:22.947Z"))...)),
		r("KeyConditions/sort-ge", query("", docReply, kc+" AND ReplyDateTime >= :d", nil, id(":d", S("2015-09-22T19:58:22.947Z"))...)),
		r("KeyConditions/sort-between", query("", docReply, kc+" AND ReplyDateTime BETWEEN :a AND :b", nil, id(":a", S("2015-09-16"), ":b", S("2015-09-30"))...)),
		r("KeyConditions/sort-begins_with", query("", docReply, kc+" AND begins_with(ReplyDateTime, :p)", nil, id(":p", S("2015-09"))...)),
		r("KeyConditions/sort-first", query("", docReply, "ReplyDateTime > :d AND Id = :id", nil, id(":d", S("2015-09-22"))...)),
		r("KeyConditions/ne-refused", query(vErr, docReply, kc+" AND ReplyDateTime <> :d", nil, id(":d", S("x"))...)),
		r("KeyConditions/in-refused", query(vErr, docReply, kc+" AND ReplyDateTime IN (:d)", nil, id(":d", S("x"))...)),
		r("KeyConditions/contains-refused", query(vErr, docReply, kc+" AND contains(ReplyDateTime, :d)", nil, id(":d", S("x"))...)),
		r("KeyConditions/or-refused", query(vErr, docReply, kc+" OR ReplyDateTime = :d", nil, id(":d", S("x"))...)),
		r("KeyConditions/partition-range-refused", query(vErr, docReply, "Id > :id", nil, id()...)),
		r("KeyConditions/partition-missing", query(vErr, docReply, "ReplyDateTime = :d", nil, ":d", S("x"))),
		r("KeyConditions/non-key-refused", query(vErr, docReply, kc+" AND PostedBy = :u", nil, id(":u", S("User A"))...)),
		r("KeyConditions/two-sort-conditions", query(vErr, docReply, kc+" AND ReplyDateTime > :a AND ReplyDateTime < :b", nil, id(":a", S("a"), ":b", S("b"))...)),
		r("KeyConditions/type-mismatch", query(vErr, docReply, kc, nil, ":id", N("1"))),
		r("KeyConditions/forward-false", query("", docReply, kc, back, id()...)),
		r("KeyConditions/missing-expression", query(vErr, docReply, "", nil)),
		sc("KeyConditions/number-order", query("", docScores, "Player = :p", nil, ":p", S("p"))),
		sc("KeyConditions/number-order-backward", query("", docScores, "Player = :p", func(in *dynamodb.QueryInput) { in.ScanIndexForward = aws.Bool(false) }, ":p", S("p"))),
		sc("KeyConditions/number-between", query("", docScores, "Player = :p AND Score BETWEEN :a AND :b", nil, ":p", S("p"), ":a", N("1.5"), ":b", N("10"))),
		sc("KeyConditions/begins_with-number-refused", query(vErr, docScores, "Player = :p AND begins_with(Score, :a)", nil, ":p", S("p"), ":a", N("1"))),
		// Query.FilterExpression.
		r("QueryFilter/filter", query("", docReply, kc, func(in *dynamodb.QueryInput) { in.FilterExpression = str("PostedBy = :u") }, id(":u", S("User A"))...)),
		r("QueryFilter/filter-key-refused", query(vErr, docReply, kc, func(in *dynamodb.QueryInput) { in.FilterExpression = str("ReplyDateTime > :d") }, id(":d", S("x"))...)),
		r("QueryFilter/filter-after-limit", query("", docReply, kc, func(in *dynamodb.QueryInput) {
			in.Limit = aws.Int32(2)
			in.FilterExpression = str("PostedBy = :u")
		}, id(":u", S("User C"))...)),
		r("QueryFilter/select-count", query("", docReply, kc, func(in *dynamodb.QueryInput) {
			in.Select = types.SelectCount
			in.FilterExpression = str("Votes > :v")
		}, id(":v", N("0"))...)),
		// Query.Pagination.
		r("Pagination/query-limit", query("", docReply, kc, limit(2), id()...)),
		r("Pagination/query-limit-exact", query("", docReply, kc, limit(4), id()...)),
		r("Pagination/query-next-page", query("", docReply, kc, func(in *dynamodb.QueryInput) {
			in.Limit = aws.Int32(2)
			in.ExclusiveStartKey = it("Id", S(docThread1), "ReplyDateTime", S("2015-09-22T19:58:22.947Z"))
		}, id()...)),
		r("Pagination/query-backward-limit", query("", docReply, kc, func(in *dynamodb.QueryInput) {
			in.Limit = aws.Int32(1)
			in.ScanIndexForward = aws.Bool(false)
		}, id()...)),
		r("Pagination/limit-zero-refused", query(vErr, docReply, kc, limit(0), id()...)),
		r("Pagination/start-key-wrong-schema", query(vErr, docReply, kc, func(in *dynamodb.QueryInput) {
			in.ExclusiveStartKey = it("Id", S(docThread1))
		}, id()...)),
		// API_Query: Select, indexes.
		r("API_Query/select-specific-without-projection", query(vErr, docReply, kc, func(in *dynamodb.QueryInput) { in.Select = types.SelectSpecificAttributes }, id()...)),
		r("API_Query/select-all-with-projection", query(vErr, docReply, kc, func(in *dynamodb.QueryInput) {
			in.Select = types.SelectAllAttributes
			in.ProjectionExpression = str("Message")
		}, id()...)),
		r("API_Query/select-projected-on-table", query(vErr, docReply, kc, func(in *dynamodb.QueryInput) { in.Select = types.SelectAllProjectedAttributes }, id()...)),
		r("API_Query/gsi", query("", docReply, "PostedBy = :u", index("PostedBy-index"), ":u", S("User A"))),
		r("API_Query/gsi-consistent-refused", query(vErr, docReply, "PostedBy = :u", func(in *dynamodb.QueryInput) {
			in.IndexName = str("PostedBy-index")
			in.ConsistentRead = aws.Bool(true)
		}, ":u", S("User A"))),
		r("API_Query/gsi-keys-only-all-attributes-refused", query(vErr, docReply, "PostedBy = :u", func(in *dynamodb.QueryInput) {
			in.IndexName = str("PostedBy-index")
			in.Select = types.SelectAllAttributes
		}, ":u", S("User A"))),
		r("API_Query/lsi-order", query("", docReply, kc+" AND Votes > :v", index("Votes-index"), id(":v", N("-5"))...)),
		r("API_Query/lsi-fetches-all-attributes", query("", docReply, kc, func(in *dynamodb.QueryInput) {
			in.IndexName = str("Votes-index")
			in.Select = types.SelectAllAttributes
		}, id()...)),
		r("API_Query/lsi-consistent", query("", docReply, kc, func(in *dynamodb.QueryInput) {
			in.IndexName = str("Votes-index")
			in.ConsistentRead = aws.Bool(true)
		}, id()...)),
		r("API_Query/index-missing", query(vErr, docReply, kc, index("Nope-index"), id()...)),
		tc("doc/API_Query/table-missing", query(rnf, "nope", "Id = :id", nil, id()...)),
		r("API_Query/capacity", query("", docReply, kc, func(in *dynamodb.QueryInput) {
			in.ReturnConsumedCapacity = types.ReturnConsumedCapacityTotal
		}, id()...)),
		// Scan and its pagination.
		r("API_Scan/all", scan("", docReply, nil)),
		r("API_Scan/filter", scan("", docReply, func(in *dynamodb.ScanInput) { in.FilterExpression = str("Votes >= :v") }, ":v", N("3"))),
		r("API_Scan/filter-key-allowed", scan("", docReply, func(in *dynamodb.ScanInput) { in.FilterExpression = str("begins_with(Id, :p)") }, ":p", S("Amazon S3"))),
		r("API_Scan/count", scan("", docReply, func(in *dynamodb.ScanInput) {
			in.Select = types.SelectCount
			in.FilterExpression = str("attribute_exists(Votes)")
		})),
		r("API_Scan/limit-pages", ok(func(n namer) any {
			return &pagedScan{&dynamodb.ScanInput{TableName: str(n.T(docReply)), Limit: aws.Int32(2), FilterExpression: str("PostedBy = :u"),
				ExpressionAttributeValues: it(":u", S("User A"))}}
		})),
		r("API_Scan/gsi-sparse", scan("", docReply, func(in *dynamodb.ScanInput) { in.IndexName = str("PostedBy-index") })),
		r("API_Scan/gsi-consistent-refused", scan(vErr, docReply, func(in *dynamodb.ScanInput) {
			in.IndexName = str("PostedBy-index")
			in.ConsistentRead = aws.Bool(true)
		})),
		r("API_Scan/segments", ok(func(n namer) any {
			return &pagedScan{&dynamodb.ScanInput{TableName: str(n.T(docReply)), TotalSegments: aws.Int32(3)}}
		})),
		r("API_Scan/segment-without-total", scan(vErr, docReply, func(in *dynamodb.ScanInput) { in.Segment = aws.Int32(0) })),
		r("API_Scan/segment-out-of-range", scan(vErr, docReply, func(in *dynamodb.ScanInput) {
			in.Segment = aws.Int32(3)
			in.TotalSegments = aws.Int32(3)
		})),
		r("API_Scan/total-segments-too-many", scan(vErr, docReply, func(in *dynamodb.ScanInput) {
			in.Segment = aws.Int32(0)
			in.TotalSegments = aws.Int32(1000001)
		})),
		r("API_Scan/limit-zero-refused", scan(vErr, docReply, func(in *dynamodb.ScanInput) { in.Limit = aws.Int32(0) })),
		r("API_Scan/capacity-consistent", scan("", docReply, func(in *dynamodb.ScanInput) {
			in.ConsistentRead = aws.Bool(true)
			in.ReturnConsumedCapacity = types.ReturnConsumedCapacityTotal
		})),
		r("API_Scan/projection-and-filter", scan("", docReply, func(in *dynamodb.ScanInput) {
			in.ProjectionExpression = str("Message")
			in.FilterExpression = str("PostedBy = :u")
		}, ":u", S("User B"))),
	}
	return cs
}
