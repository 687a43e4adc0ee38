//go:build conformance

package conformance

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// DynamoDB's legacy (pre-expression) parameters: KeyConditions,
// QueryFilter, ScanFilter, ConditionalOperator, AttributesToGet, Expected
// and AttributeUpdates, and their refusal beside expressions.

// cnd is a Condition (KeyConditions, QueryFilter, ScanFilter).
func cnd(op string, vals ...av) types.Condition {
	return types.Condition{ComparisonOperator: types.ComparisonOperator(op), AttributeValueList: vals}
}

// fixV is table "v": hash key pk (S), one item per type of the attribute
// v, and one without it.
func fixV() []step {
	return []step{
		create("v", "pk", tS, "", ""),
		putAll("v", vItems()...),
	}
}

func vItems() []item {
	vs := map[string]av{
		"s": S("abc"), "s-empty": S(""), "n": N("5"), "n-neg": N("-1.5"), "b": B("abc"), "bool": BOOL(true),
		"null": NULL(), "ss": SS("abc", "x"), "ns": NS("5", "7"), "bs": BS("abc"),
		"l": L(S("abc"), N("5"), BOOL(true), NULL()), "m": M("abc", N("5")),
	}
	out := []item{it("pk", S("missing"))}
	for _, k := range sortedNames(vs) {
		out = append(out, it("pk", S(k), "v", vs[k]))
	}
	return out
}

func sortedNames(m map[string]av) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// legacyRule is what a ComparisonOperator takes, as measured on DynamoDB
// Local: how many values (-1: one or more) and of which types ("": any).
var legacyRules = map[string]struct {
	count int
	types string
}{
	"EQ": {1, ""}, "NE": {1, ""}, "LE": {1, "S N B"}, "LT": {1, "S N B"}, "GE": {1, "S N B"}, "GT": {1, "S N B"},
	"NOT_NULL": {0, ""}, "NULL": {0, ""}, "CONTAINS": {1, "S N B BOOL NULL"}, "NOT_CONTAINS": {1, "S N B BOOL NULL"},
	"BEGINS_WITH": {1, "S B"}, "IN": {-1, "S N B"}, "BETWEEN": {2, "S N B"},
}

// typeCode is the type code of a value.
func typeCode(v av) string {
	switch v.(type) {
	case *types.AttributeValueMemberS:
		return "S"
	case *types.AttributeValueMemberN:
		return "N"
	case *types.AttributeValueMemberB:
		return "B"
	case *types.AttributeValueMemberBOOL:
		return "BOOL"
	case *types.AttributeValueMemberNULL:
		return "NULL"
	case *types.AttributeValueMemberSS:
		return "SS"
	case *types.AttributeValueMemberNS:
		return "NS"
	case *types.AttributeValueMemberBS:
		return "BS"
	case *types.AttributeValueMemberL:
		return "L"
	}
	return "M"
}

// legacyWant is the reference's outcome of a condition: "" when the
// operator takes the values, else a ValidationException (BETWEEN's bounds
// in order is left to the reference, so cases state it themselves).
func legacyWant(op string, vals []av) string {
	r := legacyRules[op]
	if (r.count >= 0 && len(vals) != r.count) || (r.count < 0 && len(vals) == 0) {
		return vErr
	}
	for _, v := range vals {
		if r.types != "" && !slices.Contains(strings.Fields(r.types), typeCode(v)) {
			return vErr
		}
		if typeCode(v) != typeCode(vals[0]) {
			return vErr
		}
	}
	return ""
}

// legacyCases returns the catalogue's cases of the legacy parameters.
func legacyCases() []tcase {
	var cs []tcase
	cs = append(cs, legacyFilterCases()...)
	cs = append(cs, legacyQueryCases()...)
	cs = append(cs, legacyExpectedCases()...)
	cs = append(cs, legacyUpdateCases()...)
	cs = append(cs, legacyProjectionCases()...)
	cs = append(cs, legacyMixCases()...)
	cs = append(cs, legacyRandomCases()...)
	return cs
}

// legacyFilterCases: every ComparisonOperator with lists of every count
// and type, as a ScanFilter on an attribute of every type (and missing).
func legacyFilterCases() []tcase {
	ones := []av{S("abc"), S("b"), S(""), N("5"), N("-1.5"), B("abc"), B("a"), BOOL(true), NULL(),
		SS("abc", "x"), NS("5", "7"), BS("abc"), L(S("abc"), N("5"), BOOL(true), NULL()), M("abc", N("5"))}
	lists := [][]av{nil, {S("a"), S("z")}, {N("-2"), N("5")}, {N("5"), N("1")}, {B("a"), B("b")}, {S("a"), N("1")},
		{N("1"), BOOL(true)}, {BOOL(true), BOOL(false)}, {SS("a"), SS("b")}, {S("abc"), S("x"), S("")}, {N("5"), N("7"), N("-1.5")}}
	for _, v := range ones {
		lists = append(lists, []av{v})
	}
	var steps []step
	for _, op := range []string{"EQ", "NE", "LE", "LT", "GE", "GT", "NOT_NULL", "NULL", "CONTAINS", "NOT_CONTAINS", "BEGINS_WITH", "IN", "BETWEEN"} {
		for i, vals := range lists {
			want := legacyWant(op, vals)
			if op == "BETWEEN" && i == 3 {
				want = vErr // bounds out of order
			}
			steps = append(steps, named(fmt.Sprintf("%s-%d", op, i), st(want, func(n namer) any {
				return &dynamodb.ScanInput{TableName: str(n.T("v")), ScanFilter: map[string]types.Condition{"v": cnd(op, vals...)}}
			})))
		}
	}
	scan := func(name, want string, f func(in *dynamodb.ScanInput)) step {
		return named(name, st(want, func(n namer) any {
			in := &dynamodb.ScanInput{TableName: str(n.T("v"))}
			f(in)
			return in
		}))
	}
	two := map[string]types.Condition{"v": cnd("NOT_NULL"), "pk": cnd("BEGINS_WITH", S("n"))}
	steps = append(steps,
		scan("unknown-op", vErr, func(in *dynamodb.ScanInput) { in.ScanFilter = map[string]types.Condition{"v": cnd("gt", N("1"))} }),
		scan("no-op", vErr, func(in *dynamodb.ScanInput) {
			in.ScanFilter = map[string]types.Condition{"v": {AttributeValueList: []av{N("1")}}}
		}),
		scan("empty-name", vErr, func(in *dynamodb.ScanInput) { in.ScanFilter = map[string]types.Condition{"": cnd("EQ", N("1"))} }),
		scan("bad-number", vErr, func(in *dynamodb.ScanInput) { in.ScanFilter = map[string]types.Condition{"v": cnd("GT", N("2x"))} }),
		scan("empty-set", vErr, func(in *dynamodb.ScanInput) { in.ScanFilter = map[string]types.Condition{"v": cnd("EQ", SS())} }),
		scan("dup-set", vErr, func(in *dynamodb.ScanInput) { in.ScanFilter = map[string]types.Condition{"v": cnd("EQ", SS("a", "a"))} }),
		scan("null-false", vErr, func(in *dynamodb.ScanInput) { in.ScanFilter = map[string]types.Condition{"v": cnd("EQ", &nullFalse)} }),
		scan("in-150", "", func(in *dynamodb.ScanInput) {
			var vals []av
			for i := range 150 {
				vals = append(vals, N(fmt.Sprint(i)))
			}
			in.ScanFilter = map[string]types.Condition{"v": cnd("IN", vals...)}
		}),
		scan("key-attribute", "", func(in *dynamodb.ScanInput) {
			in.ScanFilter = map[string]types.Condition{"pk": cnd("BEGINS_WITH", S("n"))}
		}),
		scan("and-default", "", func(in *dynamodb.ScanInput) { in.ScanFilter = two }),
		scan("and", "", func(in *dynamodb.ScanInput) {
			in.ScanFilter, in.ConditionalOperator = two, types.ConditionalOperatorAnd
		}),
		scan("or", "", func(in *dynamodb.ScanInput) { in.ScanFilter, in.ConditionalOperator = two, types.ConditionalOperatorOr }),
		scan("or-one", vErr, func(in *dynamodb.ScanInput) {
			in.ScanFilter, in.ConditionalOperator = map[string]types.Condition{"v": cnd("NOT_NULL")}, types.ConditionalOperatorOr
		}),
		scan("or-none", vErr, func(in *dynamodb.ScanInput) { in.ConditionalOperator = types.ConditionalOperatorOr }),
		scan("or-empty", vErr, func(in *dynamodb.ScanInput) {
			in.ScanFilter, in.ConditionalOperator = map[string]types.Condition{}, types.ConditionalOperatorOr
		}),
		scan("empty", "", func(in *dynamodb.ScanInput) { in.ScanFilter = map[string]types.Condition{} }),
		scan("xor", "*", func(in *dynamodb.ScanInput) { in.ScanFilter, in.ConditionalOperator = two, "XOR" }),
		scan("count", "", func(in *dynamodb.ScanInput) { in.ScanFilter, in.Select = two, types.SelectCount }),
		scan("with-names", vErr, func(in *dynamodb.ScanInput) { in.ScanFilter, in.ExpressionAttributeNames = two, names("#v", "v") }),
		scan("with-values", vErr, func(in *dynamodb.ScanInput) { in.ScanFilter, in.ExpressionAttributeValues = two, it(":v", N("1")) }),
	)
	return []tcase{group("legacy/scan-filter", fixV(), steps)}
}

// legacyQueryCases: KeyConditions on tables and indexes, with the
// expression parameters DynamoDB takes beside them, QueryFilter.
func legacyQueryCases() []tcase {
	hash := func(v string) map[string]types.Condition { return map[string]types.Condition{"pk": cnd("EQ", S(v))} }
	with2 := func(op string, vals ...av) map[string]types.Condition {
		m := hash("p1")
		m["sk"] = cnd(op, vals...)
		return m
	}
	q := func(name, want, index string, kc map[string]types.Condition, f func(in *dynamodb.QueryInput)) step {
		return named(name, st(want, func(n namer) any {
			in := &dynamodb.QueryInput{TableName: str(n.T("r")), KeyConditions: kc}
			if index != "" {
				in.IndexName = str(index)
			}
			if f != nil {
				f(in)
			}
			return in
		}))
	}
	steps := []step{
		q("hash", "", "", hash("p1"), nil),
		q("hash-missing", "", "", hash("zz"), nil),
		q("eq", "", "", with2("EQ", N("3")), nil),
		q("lt", "", "", with2("LT", N("3")), nil),
		q("le", "", "", with2("LE", N("3")), nil),
		q("gt", "", "", with2("GT", N("3")), nil),
		q("ge", "", "", with2("GE", N("3")), nil),
		q("between", "", "", with2("BETWEEN", N("2"), N("4")), nil),
		q("between-reversed", vErr, "", with2("BETWEEN", N("4"), N("2")), nil),
		q("begins-number", vErr, "", with2("BEGINS_WITH", N("2")), nil),
		q("range-wrong-type", vErr, "", with2("LT", S("2")), nil),
		q("range-bool", vErr, "", with2("LT", BOOL(true)), nil),
		q("range-in", vErr, "", with2("IN", N("2")), nil),
		q("range-contains", vErr, "", with2("CONTAINS", N("2")), nil),
		q("range-in-wrong-type", vErr, "", with2("IN", S("2")), nil),
		q("range-contains-bool", vErr, "", with2("CONTAINS", BOOL(true)), nil),
		q("range-not-contains", vErr, "", with2("NOT_CONTAINS", N("2")), nil),
		q("range-not-null", vErr, "", with2("NOT_NULL"), nil),
		q("range-null", vErr, "", with2("NULL"), nil),
		q("range-ne", "*", "", with2("NE", N("2")), nil),
		q("range-unknown-op", vErr, "", with2("FOO", N("2")), nil),
		q("range-two-values", vErr, "", with2("EQ", N("2"), N("3")), nil),
		q("hash-begins", vErr, "", map[string]types.Condition{"pk": cnd("BEGINS_WITH", S("p"))}, nil),
		q("hash-gt", vErr, "", map[string]types.Condition{"pk": cnd("GT", S("p"))}, nil),
		q("hash-wrong-type", vErr, "", map[string]types.Condition{"pk": cnd("EQ", N("1"))}, nil),
		q("hash-empty", vErr, "", map[string]types.Condition{"pk": cnd("EQ", S(""))}, nil),
		q("no-hash", vErr, "", map[string]types.Condition{"sk": cnd("EQ", N("1"))}, nil),
		q("empty", vErr, "", map[string]types.Condition{}, nil),
		q("non-key", vErr, "", map[string]types.Condition{"pk": cnd("EQ", S("p1")), "a": cnd("EQ", N("10"))}, nil),
		q("three", vErr, "", map[string]types.Condition{"pk": cnd("EQ", S("p1")), "sk": cnd("GT", N("1")), "a": cnd("EQ", N("10"))}, nil),
		q("reverse-limit", "", "", hash("p1"), func(in *dynamodb.QueryInput) { in.ScanIndexForward, in.Limit = aws.Bool(false), aws.Int32(2) }),
		q("start-key", "", "", hash("p1"), func(in *dynamodb.QueryInput) { in.ExclusiveStartKey = it("pk", S("p1"), "sk", N("2")) }),
		q("start-key-outside", vErr, "", with2("GT", N("3")), func(in *dynamodb.QueryInput) { in.ExclusiveStartKey = it("pk", S("p1"), "sk", N("2")) }),
		q("le-bound-limit", "", "", with2("LE", N("3")), func(in *dynamodb.QueryInput) { in.Limit = aws.Int32(3) }),
		q("count", "", "", hash("p1"), func(in *dynamodb.QueryInput) { in.Select = types.SelectCount }),
		q("gsi", "", "gAll", map[string]types.Condition{"g": cnd("EQ", S("g2"))}, nil),
		q("gsi-range", "", "gAll", map[string]types.Condition{"g": cnd("EQ", S("g2")), "sk": cnd("GE", N("4"))}, nil),
		q("gsi-table-key", vErr, "gAll", hash("p1"), nil),
		q("gsi-keys-only-filter", vErr, "gKeys", map[string]types.Condition{"g": cnd("EQ", S("g2"))}, func(in *dynamodb.QueryInput) {
			in.QueryFilter = map[string]types.Condition{"a": cnd("GT", N("1"))}
		}),
		q("lsi-keys-only-filter", vErr, "lKeys", map[string]types.Condition{"pk": cnd("EQ", S("p1"))}, func(in *dynamodb.QueryInput) {
			in.QueryFilter = map[string]types.Condition{"a": cnd("GT", N("25"))}
		}),
		q("lsi-keys-only-filter-all", vErr, "lKeys", map[string]types.Condition{"pk": cnd("EQ", S("p1"))}, func(in *dynamodb.QueryInput) {
			in.QueryFilter, in.Select = map[string]types.Condition{"a": cnd("GT", N("25"))}, types.SelectAllAttributes
		}),
		q("lsi", "", "lAll", map[string]types.Condition{"pk": cnd("EQ", S("p1")), "l": cnd("BEGINS_WITH", S("l"))}, nil),
		q("lsi-keys-attributes", "", "lKeys", map[string]types.Condition{"pk": cnd("EQ", S("p1"))}, func(in *dynamodb.QueryInput) {
			in.AttributesToGet = []string{"a", "ln"}
		}),
		q("filter-expression", "", "", hash("p1"), func(in *dynamodb.QueryInput) {
			in.FilterExpression, in.ExpressionAttributeValues = str("a > :v"), it(":v", N("25"))
		}),
		q("filter-expression-names", "", "", hash("p1"), func(in *dynamodb.QueryInput) {
			in.FilterExpression, in.ExpressionAttributeNames, in.ExpressionAttributeValues = str("#a > :v"), names("#a", "a"), it(":v", N("25"))
		}),
		q("projection-expression", "", "", hash("p1"), func(in *dynamodb.QueryInput) {
			in.ProjectionExpression, in.ExpressionAttributeNames = str("#b, sk"), names("#b", "b")
		}),
		q("values-unused", vErr, "", hash("p1"), func(in *dynamodb.QueryInput) {
			in.FilterExpression, in.ExpressionAttributeValues = str("a > :v"), it(":v", N("25"), ":w", N("1"))
		}),
		q("values-alone", vErr, "", hash("p1"), func(in *dynamodb.QueryInput) { in.ExpressionAttributeValues = it(":v", N("25")) }),
		q("names-alone", vErr, "", hash("p1"), func(in *dynamodb.QueryInput) { in.ExpressionAttributeNames = names("#a", "a") }),
		q("query-filter", "", "", hash("p1"), func(in *dynamodb.QueryInput) {
			in.QueryFilter = map[string]types.Condition{"a": cnd("GT", N("25"))}
		}),
		q("query-filter-limit", "", "", hash("p1"), func(in *dynamodb.QueryInput) {
			in.QueryFilter, in.Limit = map[string]types.Condition{"a": cnd("GT", N("25"))}, aws.Int32(3)
		}),
		q("query-filter-or", "", "", hash("p1"), func(in *dynamodb.QueryInput) {
			in.QueryFilter = map[string]types.Condition{"a": cnd("GT", N("45")), "b": cnd("EQ", S("b"))}
			in.ConditionalOperator = types.ConditionalOperatorOr
		}),
		q("query-filter-and", "", "", hash("p1"), func(in *dynamodb.QueryInput) {
			in.QueryFilter = map[string]types.Condition{"a": cnd("GT", N("5")), "b": cnd("BEGINS_WITH", S("bb"))}
			in.ConditionalOperator = types.ConditionalOperatorAnd
		}),
		q("query-filter-range-key", vErr, "", hash("p1"), func(in *dynamodb.QueryInput) {
			in.QueryFilter = map[string]types.Condition{"sk": cnd("GT", N("2"))}
		}),
		q("query-filter-hash-key", vErr, "", hash("p1"), func(in *dynamodb.QueryInput) {
			in.QueryFilter = map[string]types.Condition{"pk": cnd("GT", S("a"))}
		}),
		q("query-filter-index-key", vErr, "gAll", map[string]types.Condition{"g": cnd("EQ", S("g2"))}, func(in *dynamodb.QueryInput) {
			in.QueryFilter = map[string]types.Condition{"g": cnd("NOT_NULL")}
		}),
		q("query-filter-gsi-table-key", "", "gAll", map[string]types.Condition{"g": cnd("EQ", S("g2"))}, func(in *dynamodb.QueryInput) {
			in.QueryFilter = map[string]types.Condition{"pk": cnd("EQ", S("p2"))}
		}),
		q("query-filter-empty", "", "", hash("p1"), func(in *dynamodb.QueryInput) { in.QueryFilter = map[string]types.Condition{} }),
		q("query-filter-count", "", "", hash("p1"), func(in *dynamodb.QueryInput) {
			in.QueryFilter, in.Select = map[string]types.Condition{"a": cnd("GT", N("25"))}, types.SelectCount
		}),
		q("conditional-operator-alone", vErr, "", hash("p1"), func(in *dynamodb.QueryInput) { in.ConditionalOperator = types.ConditionalOperatorOr }),
		q("none", vErr, "", nil, nil),
	}
	hq := func(name, want string, kc map[string]types.Condition) step {
		return named(name, st(want, func(n namer) any {
			return &dynamodb.QueryInput{TableName: str(n.T("h")), KeyConditions: kc, AttributesToGet: []string{"pk", "s"}}
		}))
	}
	hashOnly := []step{
		hq("hash-only", "", map[string]types.Condition{"pk": cnd("EQ", S("a"))}),
		hq("hash-only-missing", "", map[string]types.Condition{"pk": cnd("EQ", S("zz"))}),
		hq("hash-only-two", vErr, map[string]types.Condition{"pk": cnd("EQ", S("a")), "s": cnd("EQ", S("x"))}),
		hq("hash-only-other", vErr, map[string]types.Condition{"s": cnd("EQ", S("x"))}),
		hq("hash-only-in", vErr, map[string]types.Condition{"pk": cnd("IN", S("a"), S("b"))}),
	}
	return []tcase{group("legacy/query", fixR(), steps), group("legacy/query-hash-only", fixH(), hashOnly)}
}

// exp is an ExpectedAttributeValue.
type exp = types.ExpectedAttributeValue

// legacyExpectedCases: Expected with Exists and Value, with
// ComparisonOperator, ConditionalOperator, on PutItem, DeleteItem and
// UpdateItem, and each of DynamoDB's refusals.
func legacyExpectedCases() []tcase {
	a := it("pk", S("a"), "n", N("1"), "s", S("x"), "ss", SS("a", "b"))
	put := func(name, want string, e map[string]exp, f func(in *dynamodb.PutItemInput)) step {
		return named(name, st(want, func(n namer) any {
			in := &dynamodb.PutItemInput{TableName: str(n.T("h")), Item: a, Expected: e}
			if f != nil {
				f(in)
			}
			return in
		}))
	}
	eq := func(v av) exp { return exp{Value: v} }
	steps := []step{
		put("create", "", nil, nil),
		put("value", "", map[string]exp{"n": eq(N("1"))}, nil),
		put("value-respelled", "", map[string]exp{"n": eq(N("1.0"))}, nil),
		put("value-differs", ccf, map[string]exp{"n": eq(N("2"))}, nil),
		put("value-other-type", ccf, map[string]exp{"n": eq(S("1"))}, nil),
		put("value-bool", ccf, map[string]exp{"n": eq(BOOL(true))}, nil),
		put("value-set", "", map[string]exp{"ss": eq(SS("b", "a"))}, nil),
		put("value-missing-attribute", ccf, map[string]exp{"zz": eq(N("1"))}, nil),
		put("exists-true-value", "", map[string]exp{"n": {Exists: aws.Bool(true), Value: N("1")}}, nil),
		put("exists-true-no-value", vErr, map[string]exp{"n": {Exists: aws.Bool(true)}}, nil),
		put("exists-false", ccf, map[string]exp{"n": {Exists: aws.Bool(false)}}, nil),
		put("exists-false-missing", "", map[string]exp{"zz": {Exists: aws.Bool(false)}}, nil),
		put("exists-false-value", vErr, map[string]exp{"n": {Exists: aws.Bool(false), Value: N("1")}}, nil),
		put("nothing", vErr, map[string]exp{"n": {}}, nil),
		put("empty", "", map[string]exp{}, nil),
		put("op-eq", "", map[string]exp{"n": {ComparisonOperator: "EQ", AttributeValueList: []av{N("1")}}}, nil),
		put("op-value", "", map[string]exp{"n": {ComparisonOperator: "EQ", Value: N("1")}}, nil),
		put("op-value-differs", ccf, map[string]exp{"n": {ComparisonOperator: "EQ", Value: N("2")}}, nil),
		put("op-value-and-list", vErr, map[string]exp{"n": {ComparisonOperator: "EQ", Value: N("1"), AttributeValueList: []av{N("1")}}}, nil),
		put("op-exists", vErr, map[string]exp{"n": {ComparisonOperator: "EQ", Exists: aws.Bool(true), AttributeValueList: []av{N("1")}}}, nil),
		put("op-null-exists-false", vErr, map[string]exp{"n": {ComparisonOperator: "NULL", Exists: aws.Bool(false)}}, nil),
		put("op-null-value", vErr, map[string]exp{"n": {ComparisonOperator: "NULL", Value: N("1")}}, nil),
		put("list-no-op", vErr, map[string]exp{"n": {AttributeValueList: []av{N("1")}}}, nil),
		put("op-no-list", vErr, map[string]exp{"n": {ComparisonOperator: "LT"}}, nil),
		put("op-no-list-in", vErr, map[string]exp{"n": {ComparisonOperator: "IN"}}, nil),
		put("op-unknown-no-list", vErr, map[string]exp{"n": {ComparisonOperator: "FOO"}}, nil),
		put("op-unknown", vErr, map[string]exp{"n": {ComparisonOperator: "FOO", AttributeValueList: []av{N("1")}}}, nil),
		put("op-empty-list", vErr, map[string]exp{"n": {ComparisonOperator: "EQ", AttributeValueList: []av{}}}, nil),
		put("op-not-null-no-list", "", map[string]exp{"n": {ComparisonOperator: "NOT_NULL"}}, nil),
		put("op-null-empty-list", ccf, map[string]exp{"n": {ComparisonOperator: "NULL", AttributeValueList: []av{}}}, nil),
		put("op-gt", ccf, map[string]exp{"n": {ComparisonOperator: "GT", AttributeValueList: []av{N("5")}}}, nil),
		put("op-lt", "", map[string]exp{"n": {ComparisonOperator: "LT", AttributeValueList: []av{N("5")}}}, nil),
		put("op-gt-bool", vErr, map[string]exp{"n": {ComparisonOperator: "GT", AttributeValueList: []av{BOOL(true)}}}, nil),
		put("op-between-reversed", vErr, map[string]exp{"n": {ComparisonOperator: "BETWEEN", AttributeValueList: []av{N("5"), N("1")}}}, nil),
		put("op-contains-set", "", map[string]exp{"ss": {ComparisonOperator: "CONTAINS", AttributeValueList: []av{S("a")}}}, nil),
		put("op-not-contains", ccf, map[string]exp{"ss": {ComparisonOperator: "NOT_CONTAINS", AttributeValueList: []av{S("a")}}}, nil),
		put("op-in", "", map[string]exp{"s": {ComparisonOperator: "IN", AttributeValueList: []av{S("y"), S("x")}}}, nil),
		put("op-key", "", map[string]exp{"pk": {ComparisonOperator: "BEGINS_WITH", AttributeValueList: []av{S("a")}}}, nil),
		put("on-fail-all-old", ccf, map[string]exp{"n": {ComparisonOperator: "GT", AttributeValueList: []av{N("5")}}}, func(in *dynamodb.PutItemInput) {
			in.ReturnValuesOnConditionCheckFailure = types.ReturnValuesOnConditionCheckFailureAllOld
		}),
		put("and", ccf, map[string]exp{"n": eq(N("1")), "s": eq(S("y"))}, nil),
		put("and-explicit", "", map[string]exp{"n": eq(N("1")), "zz": {Exists: aws.Bool(false)}}, func(in *dynamodb.PutItemInput) {
			in.ConditionalOperator = types.ConditionalOperatorAnd
		}),
		put("or", "", map[string]exp{"n": eq(N("2")), "s": eq(S("x"))}, func(in *dynamodb.PutItemInput) {
			in.ConditionalOperator = types.ConditionalOperatorOr
		}),
		put("or-fails", ccf, map[string]exp{"n": eq(N("2")), "s": eq(S("y"))}, func(in *dynamodb.PutItemInput) {
			in.ConditionalOperator = types.ConditionalOperatorOr
		}),
		put("or-one", vErr, map[string]exp{"n": eq(N("1"))}, func(in *dynamodb.PutItemInput) { in.ConditionalOperator = types.ConditionalOperatorOr }),
		put("or-none", vErr, nil, func(in *dynamodb.PutItemInput) { in.ConditionalOperator = types.ConditionalOperatorOr }),
		put("xor", "*", map[string]exp{"n": eq(N("1")), "s": eq(S("x"))}, func(in *dynamodb.PutItemInput) { in.ConditionalOperator = "XOR" }),
		put("with-names", vErr, map[string]exp{"n": eq(N("1"))}, func(in *dynamodb.PutItemInput) { in.ExpressionAttributeNames = names("#n", "n") }),
		put("with-values", vErr, map[string]exp{"n": eq(N("1"))}, func(in *dynamodb.PutItemInput) { in.ExpressionAttributeValues = it(":n", N("1")) }),
		named("delete-missing-eq", st(ccf, func(n namer) any {
			return &dynamodb.DeleteItemInput{TableName: str(n.T("h")), Key: it("pk", S("nope")), Expected: map[string]exp{"n": eq(N("1"))}}
		})),
		named("delete-missing-ne", ok(func(n namer) any {
			return &dynamodb.DeleteItemInput{TableName: str(n.T("h")), Key: it("pk", S("nope")),
				Expected: map[string]exp{"n": {ComparisonOperator: "NE", AttributeValueList: []av{N("1")}}}, ReturnConsumedCapacity: types.ReturnConsumedCapacityTotal}
		})),
		named("delete-missing-not-contains", st(ccf, func(n namer) any {
			return &dynamodb.DeleteItemInput{TableName: str(n.T("h")), Key: it("pk", S("nope")),
				Expected: map[string]exp{"n": {ComparisonOperator: "NOT_CONTAINS", AttributeValueList: []av{N("1")}}}}
		})),
		named("update-expected", ok(func(n namer) any {
			return &dynamodb.UpdateItemInput{TableName: str(n.T("h")), Key: it("pk", S("a")), Expected: map[string]exp{"n": eq(N("1"))},
				UpdateExpression: nil, ReturnValues: types.ReturnValueAllNew}
		})),
		named("update-expected-fails", st(ccf, func(n namer) any {
			return &dynamodb.UpdateItemInput{TableName: str(n.T("h")), Key: it("pk", S("a")), Expected: map[string]exp{"n": eq(N("9"))},
				AttributeUpdates: map[string]types.AttributeValueUpdate{"n": {Action: "ADD", Value: N("1")}}}
		})),
		named("update-expected-fails-before-updates", st(ccf, func(n namer) any {
			return &dynamodb.UpdateItemInput{TableName: str(n.T("h")), Key: it("pk", S("a")), Expected: map[string]exp{"n": eq(N("9"))},
				AttributeUpdates: map[string]types.AttributeValueUpdate{"b": avu("ADD", S("z")), "pk": avu("PUT", S("k")), "c": avu("FOO", N("1")),
					"d": avu("PUT", nil), "e": avu("PUT", SS()), "f": avu("PUT", N("x"))}}
		})),
		named("delete", ok(func(n namer) any {
			return &dynamodb.DeleteItemInput{TableName: str(n.T("h")), Key: it("pk", S("a")), Expected: map[string]exp{"s": eq(S("x"))},
				ReturnValues: types.ReturnValueAllOld}
		})),
		scanAll("h"),
	}
	return []tcase{{name: "legacy/expected", steps: with(fixH(), steps...), count: len(steps)}}
}

// avu is an AttributeValueUpdate.
func avu(action string, v av) types.AttributeValueUpdate {
	return types.AttributeValueUpdate{Action: types.AttributeAction(action), Value: v}
}

// legacyUpdateCases: AttributeUpdates, each Action on each type, and
// DynamoDB's refusals.
func legacyUpdateCases() []tcase {
	base := it("pk", S("u"), "n", N("1"), "s", S("x"), "ss", SS("a", "b"), "ns", NS("1", "2"), "bs", BS("a"),
		"l", L(N("1")), "m", M("k", N("1")))
	upd := func(name, want, rv string, u map[string]types.AttributeValueUpdate) step {
		return named(name, st(want, func(n namer) any {
			return &dynamodb.UpdateItemInput{TableName: str(n.T("h")), Key: it("pk", S("u")), AttributeUpdates: u, ReturnValues: types.ReturnValue(rv)}
		}))
	}
	one := func(attr, action string, v av) map[string]types.AttributeValueUpdate {
		return map[string]types.AttributeValueUpdate{attr: avu(action, v)}
	}
	steps := []step{
		put("h", base),
		upd("add-number", "", "ALL_NEW", one("n", "ADD", N("2.5"))),
		upd("add-number-new", "", "ALL_NEW", one("new", "ADD", N("2"))),
		upd("add-set", "", "UPDATED_NEW", one("ss", "ADD", SS("c", "a"))),
		upd("add-set-new", "", "UPDATED_NEW", one("newset", "ADD", SS("q"))),
		upd("add-ns", "", "UPDATED_NEW", one("ns", "ADD", NS("3", "1.0"))),
		upd("add-bs", "", "UPDATED_NEW", one("bs", "ADD", BS("b"))),
		upd("add-list", "", "UPDATED_NEW", one("l", "ADD", L(S("z"), N("2")))),
		upd("add-list-new", "", "UPDATED_NEW", one("newl", "ADD", L(S("z")))),
		upd("add-string", vErr, "", one("s", "ADD", S("z"))),
		upd("add-string-to-number", vErr, "", one("n", "ADD", S("z"))),
		upd("add-map", vErr, "", one("m", "ADD", M())),
		upd("add-bool", vErr, "", one("b", "ADD", BOOL(true))),
		upd("add-null", vErr, "", one("b", "ADD", NULL())),
		upd("add-binary", vErr, "", one("b", "ADD", B("x"))),
		upd("add-number-to-set", vErr, "", one("ss", "ADD", N("1"))),
		upd("add-set-to-number", vErr, "", one("n", "ADD", SS("z"))),
		upd("add-ns-to-ss", vErr, "", one("ss", "ADD", NS("1"))),
		upd("add-list-to-number", vErr, "", one("n", "ADD", L(N("1")))),
		upd("add-number-to-list", vErr, "", one("l", "ADD", N("1"))),
		upd("add-number-to-string", vErr, "", one("s", "ADD", N("1"))),
		upd("add-number-to-map", vErr, "", one("m", "ADD", N("1"))),
		upd("add-overflow", vErr, "", one("n", "ADD", N("9.9999999999999999999999999999999999999E+125"))),
		upd("add-precision", vErr, "", one("n", "ADD", N("0.0000000000000000000000000000000000000001"))),
		upd("add-no-value", vErr, "", one("n", "ADD", nil)),
		upd("delete-set", "", "UPDATED_OLD", one("ss", "DELETE", SS("a", "zz"))),
		upd("delete-ns", "", "UPDATED_NEW", one("ns", "DELETE", NS("2.0"))),
		upd("delete-set-last", "", "UPDATED_NEW", one("bs", "DELETE", BS("a", "b"))),
		upd("delete-set-missing", "", "ALL_NEW", one("nothere", "DELETE", NS("1"))),
		upd("delete-set-other-type", vErr, "", one("ns", "DELETE", SS("b"))),
		upd("delete-set-from-string", vErr, "", one("s", "DELETE", SS("x"))),
		upd("delete-number", vErr, "", one("ns", "DELETE", N("1"))),
		upd("delete-list", vErr, "", one("l", "DELETE", L(N("1")))),
		upd("delete-attribute", "", "UPDATED_OLD", one("m", "DELETE", nil)),
		upd("delete-attribute-missing", "", "ALL_NEW", one("nothere", "DELETE", nil)),
		upd("put", "", "UPDATED_OLD", one("s", "PUT", S("new"))),
		upd("put-new", "", "UPDATED_NEW", one("p", "PUT", M("a", L(N("01.50"))))),
		upd("put-ns", "", "UPDATED_NEW", one("pns", "PUT", NS("1.50", "2E1"))),
		upd("put-empty-string", "", "UPDATED_NEW", one("e", "PUT", S(""))),
		upd("put-no-value", vErr, "", one("s", "PUT", nil)),
		upd("put-empty-set", vErr, "", one("s", "PUT", SS())),
		upd("put-bad-number", vErr, "", one("s", "PUT", N("x"))),
		upd("no-action", "", "UPDATED_NEW", map[string]types.AttributeValueUpdate{"s": {Value: S("def")}}),
		upd("no-action-no-value", vErr, "", map[string]types.AttributeValueUpdate{"s": {}}),
		upd("unknown-action", vErr, "", one("s", "FOO", S("x"))),
		upd("key", vErr, "", one("pk", "PUT", S("x"))),
		upd("key-delete", vErr, "", one("pk", "DELETE", nil)),
		upd("empty", "", "ALL_NEW", map[string]types.AttributeValueUpdate{}),
		upd("several", "", "UPDATED_OLD", map[string]types.AttributeValueUpdate{
			"n": avu("ADD", N("5")), "s": avu("PUT", S("q")), "gone": avu("DELETE", nil), "ss": avu("DELETE", SS("c"))}),
		upd("several-new", "", "UPDATED_NEW", map[string]types.AttributeValueUpdate{
			"n": avu("ADD", N("5")), "s": avu("PUT", S("r")), "ns": avu("DELETE", nil)}),
		named("create-item", ok(func(n namer) any {
			return &dynamodb.UpdateItemInput{TableName: str(n.T("h")), Key: it("pk", S("new1")), ReturnValues: types.ReturnValueAllNew,
				AttributeUpdates: map[string]types.AttributeValueUpdate{"n": avu("DELETE", nil)}}
		})),
		named("create-item-add", ok(func(n namer) any {
			return &dynamodb.UpdateItemInput{TableName: str(n.T("h")), Key: it("pk", S("new2")), ReturnValues: types.ReturnValueAllNew,
				AttributeUpdates: map[string]types.AttributeValueUpdate{"n": avu("ADD", N("3")), "l": avu("ADD", L(N("1")))},
				Expected:         map[string]exp{"n": {Exists: aws.Bool(false)}}}
		})),
		named("with-names", st(vErr, func(n namer) any {
			return &dynamodb.UpdateItemInput{TableName: str(n.T("h")), Key: it("pk", S("u")),
				AttributeUpdates: one("s", "PUT", S("x")), ExpressionAttributeNames: names("#a", "a")}
		})),
		named("with-values", st(vErr, func(n namer) any {
			return &dynamodb.UpdateItemInput{TableName: str(n.T("h")), Key: it("pk", S("u")),
				AttributeUpdates: one("s", "PUT", S("x")), ExpressionAttributeValues: it(":a", N("1"))}
		})),
		named("item-too-big", st(vErr, func(n namer) any {
			return &dynamodb.UpdateItemInput{TableName: str(n.T("h")), Key: it("pk", S("u")),
				AttributeUpdates: one("big", "PUT", S(strings.Repeat("x", 400*1024)))}
		})),
		scanAll("h"),
	}
	return []tcase{{name: "legacy/attribute-updates", steps: with(fixH(), steps...), count: len(steps)}}
}

// legacyProjectionCases: AttributesToGet on GetItem, Query, Scan and
// BatchGetItem, with Select.
func legacyProjectionCases() []tcase {
	scan := func(name, want string, f func(in *dynamodb.ScanInput)) step {
		return named(name, st(want, func(n namer) any {
			in := &dynamodb.ScanInput{TableName: str(n.T("r"))}
			f(in)
			return in
		}))
	}
	query := func(name, want string, f func(in *dynamodb.QueryInput)) step {
		return named(name, st(want, func(n namer) any {
			in := &dynamodb.QueryInput{TableName: str(n.T("r")), KeyConditions: map[string]types.Condition{"pk": cnd("EQ", S("p1"))}}
			f(in)
			return in
		}))
	}
	batch := func(name, want string, f func(ka *types.KeysAndAttributes)) step {
		return named(name, st(want, func(n namer) any {
			ka := types.KeysAndAttributes{Keys: []item{it("pk", S("p1"), "sk", N("1")), it("pk", S("p2"), "sk", N("2"))}}
			f(&ka)
			return &dynamodb.BatchGetItemInput{RequestItems: map[string]types.KeysAndAttributes{n.T("r"): ka}}
		}))
	}
	get := func(name, want string, atg []string) step {
		return named(name, st(want, func(n namer) any {
			return &dynamodb.GetItemInput{TableName: str(n.T("r")), Key: it("pk", S("p1"), "sk", N("2")), AttributesToGet: atg}
		}))
	}
	steps := []step{
		get("get", "", []string{"a", "sk", "zz"}),
		get("get-empty", vErr, []string{}),
		get("get-dup", vErr, []string{"a", "a"}),
		scan("scan", "", func(in *dynamodb.ScanInput) { in.AttributesToGet = []string{"a", "g"} }),
		scan("scan-specific", "", func(in *dynamodb.ScanInput) {
			in.AttributesToGet, in.Select = []string{"a"}, types.SelectSpecificAttributes
		}),
		scan("scan-all", vErr, func(in *dynamodb.ScanInput) { in.AttributesToGet, in.Select = []string{"a"}, types.SelectAllAttributes }),
		scan("scan-count", vErr, func(in *dynamodb.ScanInput) { in.AttributesToGet, in.Select = []string{"a"}, types.SelectCount }),
		scan("scan-empty", "", func(in *dynamodb.ScanInput) { in.AttributesToGet = []string{} }),
		scan("scan-dup", vErr, func(in *dynamodb.ScanInput) { in.AttributesToGet = []string{"a", "a"} }),
		scan("scan-gsi", "", func(in *dynamodb.ScanInput) { in.AttributesToGet, in.IndexName = []string{"a", "gn"}, str("gInc") }),
		scan("scan-gsi-unprojected", vErr, func(in *dynamodb.ScanInput) { in.AttributesToGet, in.IndexName = []string{"b"}, str("gInc") }),
		scan("scan-all-projected", vErr, func(in *dynamodb.ScanInput) {
			in.AttributesToGet, in.IndexName, in.Select = []string{"a"}, str("gInc"), types.SelectAllProjectedAttributes
		}),
		scan("scan-filter-gsi-unprojected", "", func(in *dynamodb.ScanInput) {
			in.ScanFilter, in.IndexName = map[string]types.Condition{"b": cnd("BEGINS_WITH", S("bbb"))}, str("gInc")
		}),
		scan("scan-filter-and-attributes", "", func(in *dynamodb.ScanInput) {
			in.ScanFilter, in.AttributesToGet = map[string]types.Condition{"a": cnd("BETWEEN", N("20"), N("40"))}, []string{"b"}
		}),
		query("query", "", func(in *dynamodb.QueryInput) { in.AttributesToGet = []string{"a", "sk"} }),
		query("query-empty", "", func(in *dynamodb.QueryInput) { in.AttributesToGet = []string{} }),
		query("query-specific-none", vErr, func(in *dynamodb.QueryInput) { in.Select = types.SelectSpecificAttributes }),
		query("query-all-projected", vErr, func(in *dynamodb.QueryInput) {
			in.AttributesToGet, in.Select, in.IndexName = []string{"a"}, types.SelectAllProjectedAttributes, str("lAll")
			in.KeyConditions["l"] = cnd("GT", S("a"))
		}),
		batch("batch", "", func(ka *types.KeysAndAttributes) { ka.AttributesToGet = []string{"a", "pk"} }),
		batch("batch-empty", vErr, func(ka *types.KeysAndAttributes) { ka.AttributesToGet = []string{} }),
		batch("batch-dup", vErr, func(ka *types.KeysAndAttributes) { ka.AttributesToGet = []string{"a", "a"} }),
		batch("batch-mixed", vErr, func(ka *types.KeysAndAttributes) {
			ka.AttributesToGet, ka.ProjectionExpression = []string{"a"}, str("a")
		}),
	}
	return []tcase{group("legacy/attributes-to-get", fixR(), steps)}
}

// legacyMixCases: the refusal of legacy parameters beside expressions,
// which lists the parameters of each kind the request has.
func legacyMixCases() []tcase {
	kc := map[string]types.Condition{"pk": cnd("EQ", S("p1"))}
	qf := map[string]types.Condition{"a": cnd("GT", N("1"))}
	query := func(name string, f func(in *dynamodb.QueryInput)) step {
		return named(name, st(vErr, func(n namer) any {
			in := &dynamodb.QueryInput{TableName: str(n.T("r"))}
			f(in)
			return in
		}))
	}
	scan := func(name string, f func(in *dynamodb.ScanInput)) step {
		return named(name, st(vErr, func(n namer) any {
			in := &dynamodb.ScanInput{TableName: str(n.T("r"))}
			f(in)
			return in
		}))
	}
	write := func(name string, f func(in *dynamodb.UpdateItemInput)) step {
		return named(name, st(vErr, func(n namer) any {
			in := &dynamodb.UpdateItemInput{TableName: str(n.T("r")), Key: it("pk", S("p1"), "sk", N("1"))}
			f(in)
			return in
		}))
	}
	v := it(":v", N("1"))
	steps := []step{
		query("kc-kce", func(in *dynamodb.QueryInput) {
			in.KeyConditions, in.KeyConditionExpression, in.ExpressionAttributeValues = kc, str("pk = :p"), it(":p", S("p1"))
		}),
		query("kc-empty-kce", func(in *dynamodb.QueryInput) {
			in.KeyConditions, in.KeyConditionExpression, in.ExpressionAttributeValues = map[string]types.Condition{}, str("pk = :p"), it(":p", S("p1"))
		}),
		query("kc-kce-projection", func(in *dynamodb.QueryInput) {
			in.KeyConditions, in.KeyConditionExpression, in.ExpressionAttributeValues = kc, str("pk = :p"), it(":p", S("p1"))
			in.ProjectionExpression = str("a")
		}),
		query("query-filter-filter", func(in *dynamodb.QueryInput) {
			in.KeyConditions, in.QueryFilter, in.FilterExpression, in.ExpressionAttributeValues = kc, qf, str("a > :v"), v
		}),
		query("query-filter-projection", func(in *dynamodb.QueryInput) {
			in.KeyConditions, in.QueryFilter, in.ProjectionExpression = kc, qf, str("a")
		}),
		query("query-filter-kce", func(in *dynamodb.QueryInput) {
			in.QueryFilter, in.KeyConditionExpression, in.ExpressionAttributeValues = qf, str("pk = :p"), it(":p", S("p1"))
		}),
		query("attributes-projection", func(in *dynamodb.QueryInput) {
			in.KeyConditions, in.AttributesToGet, in.ProjectionExpression = kc, []string{"a"}, str("a")
		}),
		query("attributes-filter", func(in *dynamodb.QueryInput) {
			in.KeyConditions, in.AttributesToGet, in.FilterExpression, in.ExpressionAttributeValues = kc, []string{"a"}, str("a > :v"), v
		}),
		query("attributes-kce", func(in *dynamodb.QueryInput) {
			in.AttributesToGet, in.KeyConditionExpression, in.ExpressionAttributeValues = []string{"a"}, str("pk = :p"), it(":p", S("p1"))
		}),
		query("operator-filter", func(in *dynamodb.QueryInput) {
			in.KeyConditions, in.ConditionalOperator, in.FilterExpression, in.ExpressionAttributeValues = kc, "OR", str("a > :v"), v
		}),
		query("all", func(in *dynamodb.QueryInput) {
			in.KeyConditions, in.QueryFilter, in.AttributesToGet, in.ConditionalOperator = kc, qf, []string{"a"}, "OR"
			in.KeyConditionExpression, in.FilterExpression, in.ProjectionExpression = str("pk = :p"), str("a > :v"), str("a")
			in.ExpressionAttributeValues = it(":p", S("p1"), ":v", N("1"))
		}),
		query("all-but-kce", func(in *dynamodb.QueryInput) {
			in.KeyConditions, in.QueryFilter, in.AttributesToGet, in.ConditionalOperator = kc, qf, []string{"a"}, "OR"
			in.FilterExpression, in.ProjectionExpression, in.ExpressionAttributeValues = str("a > :v"), str("a"), v
		}),
		scan("scan-filter-filter", func(in *dynamodb.ScanInput) {
			in.ScanFilter, in.FilterExpression, in.ExpressionAttributeValues = qf, str("a > :v"), v
		}),
		scan("scan-empty-filter-filter", func(in *dynamodb.ScanInput) {
			in.ScanFilter, in.FilterExpression, in.ExpressionAttributeValues = map[string]types.Condition{}, str("a > :v"), v
		}),
		scan("scan-filter-projection", func(in *dynamodb.ScanInput) { in.ScanFilter, in.ProjectionExpression = qf, str("a") }),
		scan("scan-all", func(in *dynamodb.ScanInput) {
			in.AttributesToGet, in.ScanFilter, in.ConditionalOperator = []string{"a"}, qf, "AND"
			in.ProjectionExpression, in.FilterExpression, in.ExpressionAttributeValues = str("a"), str("a > :v"), v
		}),
		scan("scan-empty-attributes", func(in *dynamodb.ScanInput) { in.AttributesToGet, in.ProjectionExpression = []string{}, str("a") }),
		write("updates-update-expression", func(in *dynamodb.UpdateItemInput) {
			in.AttributeUpdates, in.UpdateExpression, in.ExpressionAttributeValues = map[string]types.AttributeValueUpdate{"a": avu("PUT", N("1"))}, str("SET a = :v"), v
		}),
		write("updates-condition", func(in *dynamodb.UpdateItemInput) {
			in.AttributeUpdates, in.ConditionExpression = map[string]types.AttributeValueUpdate{"a": avu("PUT", N("1"))}, str("attribute_exists(a)")
		}),
		write("expected-update-expression", func(in *dynamodb.UpdateItemInput) {
			in.Expected, in.UpdateExpression, in.ExpressionAttributeValues = map[string]exp{"a": {Exists: aws.Bool(false)}}, str("SET a = :v"), v
		}),
		write("all", func(in *dynamodb.UpdateItemInput) {
			in.AttributeUpdates, in.Expected, in.ConditionalOperator = map[string]types.AttributeValueUpdate{"a": avu("PUT", N("1"))}, map[string]exp{"a": {Exists: aws.Bool(false)}}, "OR"
			in.UpdateExpression, in.ConditionExpression, in.ExpressionAttributeValues = str("SET a = :v"), str("attribute_exists(a)"), v
		}),
		named("put-expected-condition", st(vErr, func(n namer) any {
			return &dynamodb.PutItemInput{TableName: str(n.T("r")), Item: it("pk", S("p1"), "sk", N("1")),
				Expected: map[string]exp{"a": {Exists: aws.Bool(false)}}, ConditionExpression: str("attribute_exists(a)")}
		})),
		named("delete-expected-condition", st(vErr, func(n namer) any {
			return &dynamodb.DeleteItemInput{TableName: str(n.T("r")), Key: it("pk", S("p1"), "sk", N("1")),
				Expected: map[string]exp{"a": {Exists: aws.Bool(false)}}, ConditionalOperator: "AND", ConditionExpression: str("attribute_exists(a)")}
		})),
		named("get-attributes-projection", st(vErr, func(n namer) any {
			return &dynamodb.GetItemInput{TableName: str(n.T("r")), Key: it("pk", S("p1"), "sk", N("1")),
				AttributesToGet: []string{"a"}, ProjectionExpression: str("a")}
		})),
	}
	return []tcase{group("legacy/mixed", fixR(), steps)}
}

// legacyNumbers are numbers as DynamoDB stores them: DynamoDB Local keeps
// the spelling of a number that an update writes to a missing attribute
// (see known.go), which this case leaves to the generator's own cases.
var legacyNumbers = []string{"0", "1", "-1", "2", "10", "0.5", "-5.5", "123456789012345678901234567890"}

// legacyGen draws the values, conditions and updates of legacyRandomCases.
type legacyGen struct{ g *generator }

// scalar is an S, N or B value.
func (lg legacyGen) scalar() av {
	g := lg.g
	switch g.r.IntN(3) {
	case 0:
		return S(gpick(g, genStrings))
	case 1:
		return N(gpick(g, legacyNumbers))
	}
	return B(gpick(g, genBinary))
}

// value is any value, nested up to depth 1.
func (lg legacyGen) value(depth int) av {
	g := lg.g
	switch k := g.r.IntN(10); {
	case k < 4 || depth > 0 && k >= 7:
		return lg.scalar()
	case k == 4:
		return BOOL(g.chance(0.5))
	case k == 5:
		return NULL()
	case k == 6:
		switch g.r.IntN(3) {
		case 0:
			return SS(distinct(g, genStrings[1:], 1+g.r.IntN(3))...)
		case 1:
			return NS(distinct(g, legacyNumbers, 1+g.r.IntN(3))...)
		}
		return BS(distinct(g, genBinary, 1+g.r.IntN(2))...)
	case k == 7:
		var l []av
		for range g.r.IntN(3) {
			l = append(l, lg.value(depth+1))
		}
		return L(l...)
	}
	m := item{}
	for _, nm := range genNested {
		if g.chance(0.5) {
			m[nm] = lg.value(depth + 1)
		}
	}
	return &types.AttributeValueMemberM{Value: m}
}

var legacyOps = []string{"EQ", "NE", "LE", "LT", "GE", "GT", "NOT_NULL", "NULL", "CONTAINS", "NOT_CONTAINS", "BEGINS_WITH", "IN", "BETWEEN"}

// condition is a ComparisonOperator and a list that it takes (valid), or
// any list of up to three values.
func (lg legacyGen) condition(valid bool) (string, []av) {
	g := lg.g
	op := gpick(g, legacyOps)
	if !valid {
		var vals []av
		for range g.r.IntN(4) {
			vals = append(vals, lg.value(0))
		}
		return op, vals
	}
	for {
		n := legacyRules[op].count
		if n < 0 {
			n = 1 + g.r.IntN(3)
		}
		var vals []av
		first := lg.scalar()
		for i := range n {
			v := first
			if i > 0 || g.chance(0.3) {
				v = lg.value(0)
				if op == "IN" || op == "BETWEEN" {
					v = lg.sameType(first)
				}
			}
			vals = append(vals, v)
		}
		if op == "BETWEEN" {
			if c, ok := compareScalars(vals[0], vals[1]); ok && c > 0 {
				vals[0], vals[1] = vals[1], vals[0]
			}
		}
		if legacyWant(op, vals) == "" {
			return op, vals
		}
	}
}

// sameType is a value of v's type (S, N or B).
func (lg legacyGen) sameType(v av) av {
	g := lg.g
	switch v.(type) {
	case *types.AttributeValueMemberN:
		return N(gpick(g, legacyNumbers))
	case *types.AttributeValueMemberB:
		return B(gpick(g, genBinary))
	}
	return S(gpick(g, genStrings))
}

// compareScalars orders two values of one type S or B by their bytes, N
// by value (the pool's numbers parse as float64 well enough to order).
func compareScalars(a, b av) (int, bool) {
	switch a := a.(type) {
	case *types.AttributeValueMemberS:
		return strings.Compare(a.Value, b.(*types.AttributeValueMemberS).Value), true
	case *types.AttributeValueMemberB:
		return strings.Compare(string(a.Value), string(b.(*types.AttributeValueMemberB).Value)), true
	case *types.AttributeValueMemberN:
		var x, y float64
		fmt.Sscan(a.Value, &x)
		fmt.Sscan(b.(*types.AttributeValueMemberN).Value, &y)
		switch {
		case x < y:
			return -1, true
		case x > y:
			return 1, true
		}
		return 0, true
	}
	return 0, false
}

// conditions are one to three conditions on attributes a, b, c and zz
// (never written); with more than one, all valid, so that which invalid
// one DynamoDB names does not depend on its order of the map.
func (lg legacyGen) conditions() map[string]types.Condition {
	g := lg.g
	n := 1 + g.r.IntN(3)
	out := map[string]types.Condition{}
	for _, attr := range distinct(g, []string{"a", "b", "c", "zz"}, n) {
		op, vals := lg.condition(n > 1 || g.chance(0.8))
		out[attr] = cnd(op, vals...)
	}
	return out
}

// expected is an Expected of one to three entries, in every form.
func (lg legacyGen) expected() map[string]exp {
	out := map[string]exp{}
	g := lg.g
	conds := lg.conditions()
	attrs := make([]string, 0, len(conds))
	for a := range conds {
		attrs = append(attrs, a)
	}
	slices.Sort(attrs) // the draws below must not follow a map's order
	for _, attr := range attrs {
		c := conds[attr]
		switch g.r.IntN(4) {
		case 0:
			if len(c.AttributeValueList) == 0 {
				out[attr] = exp{Exists: aws.Bool(false)}
			} else {
				out[attr] = exp{Value: c.AttributeValueList[0]}
			}
		case 1:
			out[attr] = exp{Exists: aws.Bool(false)}
		default:
			out[attr] = exp{ComparisonOperator: c.ComparisonOperator, AttributeValueList: c.AttributeValueList}
		}
	}
	return out
}

// operator is a ConditionalOperator for n conditions.
func (lg legacyGen) operator(n int) types.ConditionalOperator {
	if n < 2 {
		return ""
	}
	return gpick(lg.g, []types.ConditionalOperator{"", types.ConditionalOperatorAnd, types.ConditionalOperatorOr})
}

// updates are one to three AttributeUpdates on a, b, c and d, each of an
// Action its Value suits, or anything when one alone.
func (lg legacyGen) updates() map[string]types.AttributeValueUpdate {
	g := lg.g
	n := 1 + g.r.IntN(3)
	out := map[string]types.AttributeValueUpdate{}
	for _, attr := range distinct(g, []string{"a", "b", "c", "d"}, n) {
		for {
			action := gpick(g, []string{"PUT", "ADD", "DELETE"})
			var v av
			if action != "DELETE" || g.chance(0.6) {
				v = lg.value(0)
			}
			ok := true
			switch typeCode(v) {
			case "N", "SS", "NS", "BS", "L":
			default:
				ok = action != "ADD"
			}
			if action == "DELETE" && v != nil && !slices.Contains([]string{"SS", "NS", "BS"}, typeCode(v)) {
				ok = false
			}
			if ok || (n == 1 && g.chance(0.3)) {
				out[attr] = avu(action, v)
				break
			}
		}
	}
	return out
}

// legacyRandomCases: random ScanFilters, Expected and AttributeUpdates
// (from a fixed seed) on random items, valid and not, so that both engines
// meet conditions and updates on values of every type.
func legacyRandomCases() []tcase {
	lg := legacyGen{&generator{r: rand.New(rand.NewPCG(20261129, 1))}}
	g := lg.g
	keys := []string{"i0", "i1", "i2", "i3", "i4", "i5", "i6", "i7"}
	randomItem := func() item {
		x := it("pk", S(gpick(g, keys)))
		for _, nm := range []string{"a", "b", "c", "d"} {
			if g.chance(0.7) {
				x[nm] = lg.value(0)
			}
		}
		return x
	}
	steps := []step{create("w", "pk", tS, "", "")}
	for range 10 {
		steps = append(steps, put("w", randomItem()))
	}
	for i := range 400 {
		var in any
		switch k := g.r.IntN(100); {
		case k < 40:
			f := lg.conditions()
			in = &dynamodb.ScanInput{ScanFilter: f, ConditionalOperator: lg.operator(len(f))}
		case k < 60:
			e := lg.expected()
			p := &dynamodb.PutItemInput{Item: randomItem(), Expected: e, ConditionalOperator: lg.operator(len(e))}
			if g.chance(0.5) {
				p.ReturnValues = types.ReturnValueAllOld
			}
			in = p
		case k < 90:
			u := &dynamodb.UpdateItemInput{Key: it("pk", S(gpick(g, keys))), AttributeUpdates: lg.updates(),
				ReturnValues: gpick(g, []types.ReturnValue{"", types.ReturnValueAllOld, types.ReturnValueAllNew, types.ReturnValueUpdatedOld, types.ReturnValueUpdatedNew})}
			if g.chance(0.3) {
				u.Expected = lg.expected()
				u.ConditionalOperator = lg.operator(len(u.Expected))
			}
			in = u
		default:
			e := lg.expected()
			in = &dynamodb.DeleteItemInput{Key: it("pk", S(gpick(g, keys))), Expected: e, ConditionalOperator: lg.operator(len(e)),
				ReturnValues: types.ReturnValueAllOld}
		}
		// The name ends with the operation, as the generator's do, for
		// the entries of known.go that name it.
		op := strings.TrimSuffix(strings.TrimPrefix(fmt.Sprintf("%T", in), "*dynamodb."), "Input")
		steps = append(steps, named(fmt.Sprintf("r%d-%s", i, op), st("*", func(n namer) any { return withTable(in, n.T("w")) })))
		if i%50 == 49 {
			steps = append(steps, scanAll("w"))
		}
	}
	return []tcase{{name: "legacy/random", steps: steps, count: 400}, legacyRandomQueries()}
}

// legacyRandomQueries: random KeyConditions on the range key (any
// operator, valid or not), QueryFilter, AttributesToGet, Limit and order,
// on table "r" and its indexes. The hash key's condition is valid, so
// that one condition at most is faulty.
func legacyRandomQueries() tcase {
	lg := legacyGen{&generator{r: rand.New(rand.NewPCG(20261129, 2))}}
	g := lg.g
	indexes := []struct{ name, hash, rng string }{{"", "pk", "sk"}, {"gAll", "g", "sk"}, {"lAll", "pk", "l"}, {"lKeys", "pk", "ln"}, {"gInc", "gn", ""}}
	hashes := map[string][]av{"pk": {S("p1"), S("p2"), S("zz")}, "g": {S("g0"), S("g1"), S("g2")}, "gn": {N("3"), N("6")}}
	ranges := map[string][]av{"sk": {N("1"), N("3"), N("4"), N("6"), N("0.5")}, "l": {S("l1"), S("l3"), S("l"), S("l6")}, "ln": {N("0"), N("1"), N("3")}}
	var steps []step
	for i := range 150 {
		ix := gpick(g, indexes)
		kc := map[string]types.Condition{ix.hash: cnd("EQ", gpick(g, hashes[ix.hash]))}
		if ix.rng != "" && g.chance(0.8) {
			// Not NE: DynamoDB Local fails it with an internal error, at a
			// point of its checks of its own (legacy/query/*-range-ne).
			op := gpick(g, legacyOps)
			for op == "NE" {
				op = gpick(g, legacyOps)
			}
			var vals []av
			switch n := legacyRules[op].count; {
			case g.chance(0.1):
				vals = []av{lg.value(0)}
			case n < 0:
				vals = []av{gpick(g, ranges[ix.rng]), gpick(g, ranges[ix.rng])}
			default:
				for range n {
					vals = append(vals, gpick(g, ranges[ix.rng]))
				}
			}
			if op == "BETWEEN" && len(vals) == 2 {
				if c, ok := compareScalars(vals[0], vals[1]); ok && c > 0 {
					vals[0], vals[1] = vals[1], vals[0]
				}
			}
			kc[ix.rng] = cnd(op, vals...)
		}
		in := &dynamodb.QueryInput{KeyConditions: kc}
		if ix.name != "" {
			in.IndexName = str(ix.name)
		}
		if g.chance(0.4) {
			f := map[string]types.Condition{}
			for _, attr := range distinct(g, []string{"a", "b", "zz"}, 1+g.r.IntN(2)) {
				op, vals := lg.condition(true)
				f[attr] = cnd(op, vals...)
			}
			in.QueryFilter, in.ConditionalOperator = f, lg.operator(len(f))
		}
		if g.chance(0.3) {
			in.AttributesToGet = distinct(g, []string{"pk", "sk", "a", "b", "g", "l"}, 1+g.r.IntN(3))
		}
		// Items that tie on an index's key come in an order of the
		// implementation's (see known.go): a page of them is not compared,
		// so Limit only where keys are unique (the table, lAll).
		if g.chance(0.3) && (ix.name == "" || ix.name == "lAll") {
			in.Limit = aws.Int32(int32(1 + g.r.IntN(4)))
		}
		if g.chance(0.3) {
			in.ScanIndexForward = aws.Bool(false)
		}
		steps = append(steps, named(fmt.Sprintf("q%d-Query", i), st("*", func(n namer) any {
			c := *in
			c.TableName = str(n.T("r"))
			return &c
		})))
	}
	return group("legacy/random-queries", fixR(), steps)
}

// withTable is a copy of a request of legacyRandomCases on table tn.
func withTable(in any, tn string) any {
	switch in := in.(type) {
	case *dynamodb.ScanInput:
		c := *in
		c.TableName = str(tn)
		return &c
	case *dynamodb.PutItemInput:
		c := *in
		c.TableName = str(tn)
		return &c
	case *dynamodb.UpdateItemInput:
		c := *in
		c.TableName = str(tn)
		return &c
	case *dynamodb.DeleteItemInput:
		c := *in
		c.TableName = str(tn)
		return &c
	}
	panic(fmt.Sprintf("withTable: %T", in))
}
