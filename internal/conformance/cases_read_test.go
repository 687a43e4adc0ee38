//go:build conformance

package conformance

import (
	"fmt"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// qIn is a Query on table "r".
func qIn(n namer, index, kc string, vals item, mods ...func(*dynamodb.QueryInput)) *dynamodb.QueryInput {
	in := &dynamodb.QueryInput{TableName: str(n.T("r")), KeyConditionExpression: str(kc)}
	if index != "" {
		in.IndexName = str(index)
	}
	if len(vals) > 0 {
		in.ExpressionAttributeValues = vals
	}
	for _, m := range mods {
		m(in)
	}
	return in
}

// bigItems writes n items of about 100 KB each under pk "big" in table
// "r", so that reads cross the 1 MB page.
func bigItems(count int) []step {
	var steps []step
	for i := 0; i < count; i += 5 {
		var items []item
		for j := i; j < min(i+5, count); j++ {
			items = append(items, it("pk", S("big"), "sk", N(fmt.Sprint(j)), "g", S("gbig"), "pad", S(strings.Repeat("p", 100_000))))
		}
		steps = append(steps, putAll("r", items...))
	}
	return steps
}

// readCases: Query and Scan, on tables and indexes.
func readCases() []tcase {
	var cs []tcase
	p1 := func(extra ...any) item { return it(append([]any{":p", S("p1")}, extra...)...) }
	queries := []struct {
		name, index, kc string
		vals            item
		want            string
		mods            []func(*dynamodb.QueryInput)
	}{
		{"hash", "", "pk = :p", p1(), "", nil},
		{"hash-missing", "", "pk = :p", it(":p", S("zz")), "", nil},
		{"eq", "", "pk = :p AND sk = :s", p1(":s", N("3")), "", nil},
		{"lt", "", "pk = :p AND sk < :s", p1(":s", N("3")), "", nil},
		{"le", "", "pk = :p AND sk <= :s", p1(":s", N("3")), "", nil},
		{"gt", "", "pk = :p AND sk > :s", p1(":s", N("3")), "", nil},
		{"ge", "", "pk = :p AND sk >= :s", p1(":s", N("3")), "", nil},
		{"between", "", "pk = :p AND sk BETWEEN :a AND :b", p1(":a", N("2"), ":b", N("4")), "", nil},
		{"between-reversed", "", "pk = :p AND sk BETWEEN :b AND :a", p1(":a", N("2"), ":b", N("4")), vErr, nil},
		{"begins-number", "", "pk = :p AND begins_with(sk, :a)", p1(":a", N("2")), vErr, nil},
		{"reversed-operands", "", ":p = pk", p1(), "", nil},
		{"range-first", "", "sk = :s AND pk = :p", p1(":s", N("1")), "", nil},
		{"paren", "", "(pk = :p) AND (sk > :s)", p1(":s", N("1")), "", nil},
		{"ne", "", "pk = :p AND sk <> :s", p1(":s", N("1")), vErr, nil},
		{"or", "", "pk = :p OR sk = :s", p1(":s", N("1")), vErr, nil},
		{"in", "", "pk IN (:p)", p1(), vErr, nil},
		{"no-hash", "", "sk = :s", it(":s", N("1")), vErr, nil},
		{"hash-range-op", "", "pk > :p", p1(), vErr, nil},
		{"non-key", "", "pk = :p AND a = :a", p1(":a", N("10")), vErr, nil},
		{"two-range", "", "pk = :p AND sk > :a AND sk < :b", p1(":a", N("1"), ":b", N("4")), vErr, nil},
		{"wrong-type", "", "pk = :p", it(":p", N("1")), vErr, nil},
		{"function-size", "", "pk = :p AND size(sk) > :s", p1(":s", N("1")), vErr, nil},
		{"reverse", "", "pk = :p", p1(), "", []func(*dynamodb.QueryInput){func(in *dynamodb.QueryInput) { in.ScanIndexForward = aws.Bool(false) }}},
		{"limit", "", "pk = :p", p1(), "", []func(*dynamodb.QueryInput){func(in *dynamodb.QueryInput) { in.Limit = aws.Int32(2) }}},
		{"limit-exact", "", "pk = :p", p1(), "", []func(*dynamodb.QueryInput){func(in *dynamodb.QueryInput) { in.Limit = aws.Int32(6) }}},
		{"limit-zero", "", "pk = :p", p1(), vErr, []func(*dynamodb.QueryInput){func(in *dynamodb.QueryInput) { in.Limit = aws.Int32(0) }}},
		{"limit-reverse", "", "pk = :p", p1(), "", []func(*dynamodb.QueryInput){func(in *dynamodb.QueryInput) { in.Limit = aws.Int32(2); in.ScanIndexForward = aws.Bool(false) }}},
		{"start-key", "", "pk = :p", p1(), "", []func(*dynamodb.QueryInput){func(in *dynamodb.QueryInput) { in.ExclusiveStartKey = it("pk", S("p1"), "sk", N("2")) }}},
		{"start-key-reverse", "", "pk = :p", p1(), "", []func(*dynamodb.QueryInput){func(in *dynamodb.QueryInput) {
			in.ExclusiveStartKey = it("pk", S("p1"), "sk", N("4"))
			in.ScanIndexForward = aws.Bool(false)
		}}},
		{"start-key-other-hash", "", "pk = :p", p1(), vErr, []func(*dynamodb.QueryInput){func(in *dynamodb.QueryInput) { in.ExclusiveStartKey = it("pk", S("p2"), "sk", N("2")) }}},
		{"start-key-missing-item", "", "pk = :p", p1(), "", []func(*dynamodb.QueryInput){func(in *dynamodb.QueryInput) { in.ExclusiveStartKey = it("pk", S("p1"), "sk", N("2.5")) }}},
		{"start-key-bad", "", "pk = :p", p1(), vErr, []func(*dynamodb.QueryInput){func(in *dynamodb.QueryInput) { in.ExclusiveStartKey = it("pk", S("p1")) }}},
		{"count", "", "pk = :p", p1(), "", []func(*dynamodb.QueryInput){func(in *dynamodb.QueryInput) { in.Select = types.SelectCount }}},
		{"count-limit", "", "pk = :p", p1(), "", []func(*dynamodb.QueryInput){func(in *dynamodb.QueryInput) { in.Select = types.SelectCount; in.Limit = aws.Int32(4) }}},
		{"count-filter", "", "pk = :p", p1(":a", N("30")), "", []func(*dynamodb.QueryInput){func(in *dynamodb.QueryInput) {
			in.Select = types.SelectCount
			in.FilterExpression = str("a > :a")
		}}},
		{"filter", "", "pk = :p", p1(":a", N("30")), "", []func(*dynamodb.QueryInput){func(in *dynamodb.QueryInput) { in.FilterExpression = str("a > :a") }}},
		{"filter-limit", "", "pk = :p", p1(":a", N("30")), "", []func(*dynamodb.QueryInput){func(in *dynamodb.QueryInput) {
			in.FilterExpression = str("a > :a")
			in.Limit = aws.Int32(3)
		}}},
		{"filter-on-key", "", "pk = :p", p1(":a", N("3")), vErr, []func(*dynamodb.QueryInput){func(in *dynamodb.QueryInput) { in.FilterExpression = str("sk > :a") }}},
		{"filter-on-hash", "", "pk = :p", p1(), vErr, []func(*dynamodb.QueryInput){func(in *dynamodb.QueryInput) { in.FilterExpression = str("pk = :p") }}},
		{"projection", "", "pk = :p", p1(), "", []func(*dynamodb.QueryInput){func(in *dynamodb.QueryInput) { in.ProjectionExpression = str("b, sk") }}},
		{"select-specific-no-projection", "", "pk = :p", p1(), vErr, []func(*dynamodb.QueryInput){func(in *dynamodb.QueryInput) { in.Select = types.SelectSpecificAttributes }}},
		{"select-all-with-projection", "", "pk = :p", p1(), vErr, []func(*dynamodb.QueryInput){func(in *dynamodb.QueryInput) {
			in.Select = types.SelectAllAttributes
			in.ProjectionExpression = str("b")
		}}},
		{"select-all-projected-table", "", "pk = :p", p1(), vErr, []func(*dynamodb.QueryInput){func(in *dynamodb.QueryInput) { in.Select = types.SelectAllProjectedAttributes }}},
		{"consistent", "", "pk = :p", p1(), "", []func(*dynamodb.QueryInput){func(in *dynamodb.QueryInput) {
			in.ConsistentRead = aws.Bool(true)
			in.ReturnConsumedCapacity = types.ReturnConsumedCapacityTotal
		}}},
		{"capacity-indexes", "", "pk = :p", p1(), "", []func(*dynamodb.QueryInput){func(in *dynamodb.QueryInput) { in.ReturnConsumedCapacity = types.ReturnConsumedCapacityIndexes }}},
		{"gsi-all", "gAll", "g = :g", it(":g", S("g0")), "", nil},
		{"gsi-all-range", "gAll", "g = :g AND sk > :s", it(":g", S("g2"), ":s", N("1")), "", nil},
		{"gsi-all-reverse-limit", "gAll", "g = :g", it(":g", S("g0")), "", []func(*dynamodb.QueryInput){func(in *dynamodb.QueryInput) {
			in.ScanIndexForward = aws.Bool(false)
			in.Limit = aws.Int32(2)
		}}},
		{"gsi-all-start-key", "gAll", "g = :g", it(":g", S("g0")), "", []func(*dynamodb.QueryInput){func(in *dynamodb.QueryInput) {
			in.ExclusiveStartKey = it("g", S("g0"), "sk", N("6"), "pk", S("p1"))
		}}},
		{"gsi-keys", "gKeys", "g = :g", it(":g", S("g2")), "", nil},
		{"gsi-keys-capacity", "gKeys", "g = :g", it(":g", S("g2")), "", []func(*dynamodb.QueryInput){func(in *dynamodb.QueryInput) { in.ReturnConsumedCapacity = types.ReturnConsumedCapacityIndexes }}},
		{"gsi-keys-select-all", "gKeys", "g = :g", it(":g", S("g2")), vErr, []func(*dynamodb.QueryInput){func(in *dynamodb.QueryInput) { in.Select = types.SelectAllAttributes }}},
		{"gsi-keys-projected", "gKeys", "g = :g", it(":g", S("g2")), "", []func(*dynamodb.QueryInput){func(in *dynamodb.QueryInput) { in.Select = types.SelectAllProjectedAttributes }}},
		{"gsi-keys-project-nonkey", "gKeys", "g = :g", it(":g", S("g2")), vErr, []func(*dynamodb.QueryInput){func(in *dynamodb.QueryInput) { in.ProjectionExpression = str("a") }}},
		{"gsi-keys-filter-nonkey", "gKeys", "g = :g", it(":g", S("g2"), ":a", N("1")), vErr, []func(*dynamodb.QueryInput){func(in *dynamodb.QueryInput) { in.FilterExpression = str("a > :a") }}},
		{"gsi-inc", "gInc", "gn = :g", it(":g", N("6")), "", nil},
		{"gsi-inc-project-a", "gInc", "gn = :g", it(":g", N("6")), "", []func(*dynamodb.QueryInput){func(in *dynamodb.QueryInput) { in.ProjectionExpression = str("a, pk") }}},
		{"gsi-inc-project-b", "gInc", "gn = :g", it(":g", N("6")), vErr, []func(*dynamodb.QueryInput){func(in *dynamodb.QueryInput) { in.ProjectionExpression = str("b") }}},
		{"gsi-consistent", "gAll", "g = :g", it(":g", S("g0")), vErr, []func(*dynamodb.QueryInput){func(in *dynamodb.QueryInput) { in.ConsistentRead = aws.Bool(true) }}},
		{"gsi-missing", "nope", "g = :g", it(":g", S("g0")), vErr, nil},
		{"gsi-wrong-key", "gAll", "pk = :p", p1(), vErr, nil},
		{"lsi-all", "lAll", "pk = :p", p1(), "", nil},
		{"lsi-all-range", "lAll", "pk = :p AND l > :l", p1(":l", S("l3")), "", nil},
		{"lsi-all-begins", "lAll", "pk = :p AND begins_with(l, :l)", p1(":l", S("l")), "", nil},
		{"lsi-all-consistent", "lAll", "pk = :p", p1(), "", []func(*dynamodb.QueryInput){func(in *dynamodb.QueryInput) {
			in.ConsistentRead = aws.Bool(true)
			in.ReturnConsumedCapacity = types.ReturnConsumedCapacityIndexes
		}}},
		{"lsi-keys", "lKeys", "pk = :p", p1(), "", nil},
		{"lsi-keys-select-all", "lKeys", "pk = :p", p1(), "", []func(*dynamodb.QueryInput){func(in *dynamodb.QueryInput) {
			in.Select = types.SelectAllAttributes
			in.ReturnConsumedCapacity = types.ReturnConsumedCapacityIndexes
		}}},
		{"lsi-keys-project-nonkey", "lKeys", "pk = :p", p1(), "", []func(*dynamodb.QueryInput){func(in *dynamodb.QueryInput) { in.ProjectionExpression = str("b") }}},
		{"lsi-keys-filter-nonkey", "lKeys", "pk = :p", p1(":a", N("20")), vErr, []func(*dynamodb.QueryInput){func(in *dynamodb.QueryInput) { in.FilterExpression = str("a > :a") }}},
		{"lsi-keys-limit", "lKeys", "pk = :p", p1(), "", []func(*dynamodb.QueryInput){func(in *dynamodb.QueryInput) { in.Limit = aws.Int32(2) }}},
		{"lsi-keys-start-key", "lKeys", "pk = :p", p1(), "", []func(*dynamodb.QueryInput){func(in *dynamodb.QueryInput) {
			in.ExclusiveStartKey = it("pk", S("p1"), "sk", N("1"), "ln", N("1"))
		}}},
	}
	// The read-only cases share one table "r" (its indexes make it slow to
	// create), one named step each.
	var qs, ss []step
	for _, q := range queries {
		qs = append(qs, named(q.name, st(q.want, func(n namer) any {
			in := qIn(n, q.index, q.kc, q.vals, q.mods...)
			if in.IndexName != nil && in.Limit != nil {
				// Items that tie on the index's key come in the
				// implementation's order, so which a page holds is its
				// choice: compare the pages together.
				return &pagedQuery{in}
			}
			return in
		})))
	}
	cs = append(cs,
		tc("query/missing-table", st(rnf, func(n namer) any { return qIn(n, "", "pk = :p", p1()) })),
		tc("query/hash-only-table", with(fixH(), st(vErr, func(n namer) any {
			return &dynamodb.QueryInput{TableName: str(n.T("h")), KeyConditionExpression: str("pk = :p AND sk = :s"), ExpressionAttributeValues: it(":p", S("a"), ":s", N("1"))}
		}), ok(func(n namer) any {
			return &dynamodb.QueryInput{TableName: str(n.T("h")), KeyConditionExpression: str("#k = :p"), ExpressionAttributeNames: names("#k", "pk"), ExpressionAttributeValues: it(":p", S("a"))}
		}))...),
		tc("query/string-range-order", create("t", "pk", tS, "sk", tS),
			putAll("t", it("pk", S("a"), "sk", S("b")), it("pk", S("a"), "sk", S("B")), it("pk", S("a"), "sk", S("é")), it("pk", S("a"), "sk", S("😀")),
				it("pk", S("a"), "sk", S("\uffff")), it("pk", S("a"), "sk", S("a b")), it("pk", S("a"), "sk", S("ab")), it("pk", S("a"), "sk", S("a"))),
			ok(func(n namer) any {
				return &dynamodb.QueryInput{TableName: str(n.T("t")), KeyConditionExpression: str("pk = :p"), ExpressionAttributeValues: it(":p", S("a"))}
			}),
			ok(func(n namer) any {
				return &dynamodb.QueryInput{TableName: str(n.T("t")), KeyConditionExpression: str("pk = :p AND begins_with(sk, :b)"), ExpressionAttributeValues: it(":p", S("a"), ":b", S("a"))}
			})),
		tc("query/binary-range-order", create("t", "pk", tB, "sk", tB),
			putAll("t", it("pk", B("a"), "sk", B("\x00")), it("pk", B("a"), "sk", B("\xff")), it("pk", B("a"), "sk", B("\x7f")), it("pk", B("a"), "sk", B("\x80\x00")), it("pk", B("a"), "sk", B("a"))),
			ok(func(n namer) any {
				return &dynamodb.QueryInput{TableName: str(n.T("t")), KeyConditionExpression: str("pk = :p AND sk > :s"), ExpressionAttributeValues: it(":p", B("a"), ":s", B("\x01"))}
			})),
		tc("query/number-range-order", create("t", "pk", tS, "sk", tN),
			putAll("t", it("pk", S("a"), "sk", N("-1E+100")), it("pk", S("a"), "sk", N("1E-130")), it("pk", S("a"), "sk", N("0")), it("pk", S("a"), "sk", N("-0.5")),
				it("pk", S("a"), "sk", N("9.9999999999999999999999999999999999999E+125")), it("pk", S("a"), "sk", N("12345678901234567890123456789012345678"))),
			ok(func(n namer) any {
				return &dynamodb.QueryInput{TableName: str(n.T("t")), KeyConditionExpression: str("pk = :p"), ExpressionAttributeValues: it(":p", S("a"))}
			})),
		tc("query/page-1mb", with(append(fixR(), bigItems(14)...),
			ok(func(n namer) any {
				return qIn(n, "", "pk = :p", it(":p", S("big")), func(in *dynamodb.QueryInput) { in.ProjectionExpression = str("sk") })
			}),
			ok(func(n namer) any {
				return qIn(n, "", "pk = :p", it(":p", S("big")), func(in *dynamodb.QueryInput) {
					in.Select = types.SelectCount
					in.ReturnConsumedCapacity = types.ReturnConsumedCapacityTotal
				})
			}),
			ok(func(n namer) any {
				return qIn(n, "gAll", "g = :p", it(":p", S("gbig")), func(in *dynamodb.QueryInput) {
					in.ProjectionExpression = str("sk")
					in.ReturnConsumedCapacity = types.ReturnConsumedCapacityIndexes
				})
			}),
			// A Scan's order is the implementation's (DynamoDB Local's follows
			// a hash of the partition key), so which items fill the 1 MB page
			// is too: compare the pages together.
			ok(func(n namer) any {
				return &pagedScan{&dynamodb.ScanInput{TableName: str(n.T("r")), ProjectionExpression: str("pk, sk")}}
			}))...),
	)

	// Scan.
	scans := []struct {
		name string
		want string
		mod  func(*dynamodb.ScanInput)
	}{
		{"all", "", func(in *dynamodb.ScanInput) {}},
		{"consistent-capacity", "", func(in *dynamodb.ScanInput) {
			in.ConsistentRead = aws.Bool(true)
			in.ReturnConsumedCapacity = types.ReturnConsumedCapacityIndexes
		}},
		{"filter", "", func(in *dynamodb.ScanInput) {
			in.FilterExpression = str("a >= :a AND attribute_exists(g)")
			in.ExpressionAttributeValues = it(":a", N("30"))
		}},
		{"filter-on-key", "", func(in *dynamodb.ScanInput) {
			in.FilterExpression = str("pk = :p")
			in.ExpressionAttributeValues = it(":p", S("p2"))
		}},
		{"count", "", func(in *dynamodb.ScanInput) { in.Select = types.SelectCount }},
		{"count-filter", "", func(in *dynamodb.ScanInput) {
			in.Select = types.SelectCount
			in.FilterExpression = str("sk > :s")
			in.ExpressionAttributeValues = it(":s", N("3"))
		}},
		{"projection", "", func(in *dynamodb.ScanInput) { in.ProjectionExpression = str("pk, sk, g") }},
		{"segments-bad", vErr, func(in *dynamodb.ScanInput) { in.Segment = aws.Int32(2); in.TotalSegments = aws.Int32(2) }},
		{"segment-without-total", vErr, func(in *dynamodb.ScanInput) { in.Segment = aws.Int32(0) }},
		{"total-without-segment", vErr, func(in *dynamodb.ScanInput) { in.TotalSegments = aws.Int32(2) }},
		{"segments-too-many", vErr, func(in *dynamodb.ScanInput) { in.Segment = aws.Int32(0); in.TotalSegments = aws.Int32(1000001) }},
		{"segments-one", "", func(in *dynamodb.ScanInput) { in.Segment = aws.Int32(0); in.TotalSegments = aws.Int32(1) }},
		{"gsi-all", "", func(in *dynamodb.ScanInput) { in.IndexName = str("gAll") }},
		{"gsi-keys", "", func(in *dynamodb.ScanInput) { in.IndexName = str("gKeys") }},
		{"gsi-inc", "", func(in *dynamodb.ScanInput) { in.IndexName = str("gInc") }},
		{"gsi-consistent", vErr, func(in *dynamodb.ScanInput) { in.IndexName = str("gAll"); in.ConsistentRead = aws.Bool(true) }},
		{"lsi-keys", "", func(in *dynamodb.ScanInput) { in.IndexName = str("lKeys") }},
		{"lsi-keys-select-all", "", func(in *dynamodb.ScanInput) { in.IndexName = str("lKeys"); in.Select = types.SelectAllAttributes }},
		{"gsi-missing", vErr, func(in *dynamodb.ScanInput) { in.IndexName = str("nope") }},
		{"select-specific-no-projection", vErr, func(in *dynamodb.ScanInput) { in.Select = types.SelectSpecificAttributes }},
		{"limit-zero", vErr, func(in *dynamodb.ScanInput) { in.Limit = aws.Int32(0) }},
		{"filter-bad", vErr, func(in *dynamodb.ScanInput) { in.FilterExpression = str("a >") }},
		{"filter-unused-value", vErr, func(in *dynamodb.ScanInput) {
			in.FilterExpression = str("a > :a")
			in.ExpressionAttributeValues = it(":a", N("1"), ":b", N("2"))
		}},
	}
	for _, s := range scans {
		ss = append(ss, named(s.name, st(s.want, func(n namer) any {
			in := &dynamodb.ScanInput{TableName: str(n.T("r"))}
			s.mod(in)
			return in
		})))
	}
	// Which segment holds which items, and which items a page of a Limit
	// holds, are the implementation's choice (DynamoDB Local's order and
	// segments follow a hash of the partition key): a parallel Scan is
	// compared over all its segments, a Scan with a Limit over all its
	// pages. Where a Scan from an ExclusiveStartKey resumes depends on that
	// order, so it is not compared.
	for _, total := range []int32{2, 3, 7} {
		ss = append(ss, named(fmt.Sprintf("segments-%d", total), ok(func(n namer) any {
			return &pagedScan{&dynamodb.ScanInput{TableName: str(n.T("r")), Segment: aws.Int32(0), TotalSegments: aws.Int32(total), ProjectionExpression: str("pk, sk")}}
		})))
	}
	for _, limit := range []int32{1, 5, 7} {
		ss = append(ss, named(fmt.Sprintf("limit-%d", limit), ok(func(n namer) any {
			return &pagedScan{&dynamodb.ScanInput{TableName: str(n.T("r")), Limit: aws.Int32(limit)}}
		})))
	}
	cs = append(cs, group("query", fixR(), qs), group("scan", fixR(), ss))
	cs = append(cs,
		tc("scan/missing-table", st(rnf, func(n namer) any { return &dynamodb.ScanInput{TableName: str(n.T("nope"))} })),
		// A Scan's order is the implementation's: DynamoDB documents none
		// (DynamoDB Local's follows a hash of the partition key); these
		// compare the items as a multiset.
		tc("scan/order-hash-table", with(fixH(), ok(func(n namer) any { return &dynamodb.ScanInput{TableName: str(n.T("h"))} }))...),
		tc("scan/order-range-table", with(fixR(), ok(func(n namer) any { return &dynamodb.ScanInput{TableName: str(n.T("r"))} }))...),
	)
	return cs
}
