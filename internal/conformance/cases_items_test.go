//go:build conformance

package conformance

import (
	"strconv"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// putIn is a PutItem on table "h".
func putIn(n namer, x item, mods ...func(*dynamodb.PutItemInput)) *dynamodb.PutItemInput {
	in := &dynamodb.PutItemInput{TableName: str(n.T("h")), Item: x}
	for _, m := range mods {
		m(in)
	}
	return in
}

func putCond(expr string, nm map[string]string, vals item) func(*dynamodb.PutItemInput) {
	return func(in *dynamodb.PutItemInput) {
		in.ConditionExpression = str(expr)
		if len(nm) > 0 {
			in.ExpressionAttributeNames = nm
		}
		if len(vals) > 0 {
			in.ExpressionAttributeValues = vals
		}
	}
}

// itemCases: PutItem, GetItem and DeleteItem, with conditions, return
// values and consumed capacity.
func itemCases() []tcase {
	var cs []tcase
	hcase := func(name string, steps ...step) tcase { return tc(name, with(fixH(), steps...)...) }

	// PutItem and ReturnValues.
	for _, rv := range []types.ReturnValue{"", types.ReturnValueNone, types.ReturnValueAllOld} {
		for _, key := range []string{"a", "new"} {
			cs = append(cs, hcase("put/rv-"+string(rv)+"-"+key, ok(func(n namer) any {
				return putIn(n, it("pk", S(key), "v", N("9")), func(in *dynamodb.PutItemInput) { in.ReturnValues = rv })
			}), getKey("h", it("pk", S(key)))))
		}
	}
	for _, rv := range []types.ReturnValue{types.ReturnValueAllNew, types.ReturnValueUpdatedOld, types.ReturnValueUpdatedNew, "BOGUS"} {
		cs = append(cs, hcase("put/rv-invalid-"+string(rv), st(vErr, func(n namer) any {
			return putIn(n, it("pk", S("a")), func(in *dynamodb.PutItemInput) { in.ReturnValues = rv })
		})))
	}
	for _, rcc := range []types.ReturnConsumedCapacity{types.ReturnConsumedCapacityTotal, types.ReturnConsumedCapacityIndexes, types.ReturnConsumedCapacityNone} {
		cs = append(cs,
			hcase("put/capacity-"+string(rcc), ok(func(n namer) any {
				return putIn(n, it("pk", S("a"), "big", S(strings.Repeat("x", 3000))), func(in *dynamodb.PutItemInput) { in.ReturnConsumedCapacity = rcc })
			})),
			tc("put/capacity-indexes-"+string(rcc), with(fixR(), ok(func(n namer) any {
				return &dynamodb.PutItemInput{TableName: str(n.T("r")), Item: it("pk", S("p1"), "sk", N("1"), "g", S("new"), "gn", N("5"), "l", S("x")), ReturnConsumedCapacity: rcc}
			}))...),
			tc("get/capacity-indexes-"+string(rcc), with(fixR(), ok(func(n namer) any {
				return &dynamodb.GetItemInput{TableName: str(n.T("r")), Key: it("pk", S("p1"), "sk", N("1")), ReturnConsumedCapacity: rcc}
			}))...),
			tc("delete/capacity-"+string(rcc), with(fixR(), ok(func(n namer) any {
				return &dynamodb.DeleteItemInput{TableName: str(n.T("r")), Key: it("pk", S("p1"), "sk", N("6")), ReturnConsumedCapacity: rcc}
			}))...),
		)
	}
	for _, size := range []int{1000, 1024, 1025, 4096, 4097, 10000, 100000} {
		cs = append(cs, hcase("put/capacity-size-"+strconv.Itoa(size), ok(func(n namer) any {
			return putIn(n, it("pk", S("z"), "x", S(strings.Repeat("x", size))), func(in *dynamodb.PutItemInput) { in.ReturnConsumedCapacity = types.ReturnConsumedCapacityTotal })
		}), ok(func(n namer) any {
			return &dynamodb.GetItemInput{TableName: str(n.T("h")), Key: it("pk", S("z")), ReturnConsumedCapacity: types.ReturnConsumedCapacityTotal, ProjectionExpression: str("pk")}
		}), ok(func(n namer) any {
			return &dynamodb.GetItemInput{TableName: str(n.T("h")), Key: it("pk", S("z")), ReturnConsumedCapacity: types.ReturnConsumedCapacityTotal, ConsistentRead: aws.Bool(true)}
		}), ok(func(n namer) any {
			return &dynamodb.DeleteItemInput{TableName: str(n.T("h")), Key: it("pk", S("z")), ReturnConsumedCapacity: types.ReturnConsumedCapacityTotal}
		})))
	}

	// Conditions on PutItem.
	conds := []struct {
		name, expr string
		nm         map[string]string
		vals       item
		want       string
	}{
		{"not-exists", "attribute_not_exists(pk)", nil, nil, ccf},
		{"exists", "attribute_exists(pk)", nil, nil, ""},
		{"eq", "n = :v", nil, it(":v", N("1")), ""},
		{"eq-respelled", "n = :v", nil, it(":v", N("1.000E0")), ""},
		{"ne", "n <> :v", nil, it(":v", N("1")), ccf},
		{"lt-type-mismatch", "n < :v", nil, it(":v", S("1")), ccf},
		{"between", "n BETWEEN :a AND :b", nil, it(":a", N("0"), ":b", N("5")), ""},
		{"between-reversed", "n BETWEEN :b AND :a", nil, it(":a", N("0"), ":b", N("5")), vErr},
		{"in", "s IN (:a, :b)", nil, it(":a", S("y"), ":b", S("x")), ""},
		{"begins", "begins_with(s, :p)", nil, it(":p", S("x")), ""},
		{"begins-number", "begins_with(n, :p)", nil, it(":p", N("1")), vErr},
		{"contains-set", "contains(ss, :e)", nil, it(":e", S("b")), ""},
		{"contains-list", "contains(l, :e)", nil, it(":e", S("x")), ""},
		{"contains-string", "contains(s, :e)", nil, it(":e", S("x")), ""},
		{"size-list", "size(l) = :n", nil, it(":n", N("3")), ""},
		{"size-map", "size(m) > :n", nil, it(":n", N("1")), ""},
		{"size-number", "size(n) = :n", nil, it(":n", N("1")), ccf},
		{"type", "attribute_type(ns, :t)", nil, it(":t", S("NS")), ""},
		{"type-bad", "attribute_type(ns, :t)", nil, it(":t", S("XX")), vErr},
		{"nested", "m.b.c = :v AND l[2][0] = :n", nil, it(":v", S("d"), ":n", N("2")), ""},
		{"nested-missing", "attribute_exists(m.z.c)", nil, nil, ccf},
		{"names", "#n = :v", names("#n", "n"), it(":v", N("1")), ""},
		{"reserved-word", "name = :v", nil, it(":v", N("1")), vErr},
		{"reserved-word-placeholder", "attribute_not_exists(#n)", names("#n", "name"), nil, ""},
		{"unused-name", "n = :v", names("#x", "n"), it(":v", N("1")), vErr},
		{"unused-value", "n = :v", nil, it(":v", N("1"), ":w", N("2")), vErr},
		{"missing-name", "#x = :v", nil, it(":v", N("1")), vErr},
		{"missing-value", "n = :v", nil, nil, vErr},
		{"syntax", "n = = :v", nil, it(":v", N("1")), vErr},
		{"empty", "", nil, nil, vErr},
		{"bool-operand", ":t", nil, it(":t", BOOL(true)), vErr},
		{"not", "NOT (n = :v)", nil, it(":v", N("1")), ccf},
		{"or-and", "n = :a OR s = :b AND n = :c", nil, it(":a", N("1"), ":b", S("x"), ":c", N("5")), ""},
		{"value-empty-set", "n = :v", nil, it(":v", SS()), vErr},
		{"compare-maps", "m = :m", nil, it(":m", M("a", N("1"), "b", M("c", S("d")))), ""},
		{"compare-lists", "l = :l", nil, it(":l", L(N("1"), S("x"), L(N("2")))), ""},
		{"compare-sets-order", "ss = :s", nil, it(":s", SS("b", "a")), ""},
		{"compare-binary", "bin > :b", nil, it(":b", B("xy")), ""},
		{"size-binary", "size(bin) = :n", nil, it(":n", N("3")), ""},
		{"function-unknown", "foo(n)", nil, nil, vErr},
		{"path-in-function-value", "attribute_exists(:v)", nil, it(":v", N("1")), vErr},
		{"long-in", "n IN (:a,:a,:a,:a,:a,:a,:a,:a,:a,:a,:a,:a,:a,:a,:a,:a,:a,:a,:a,:a,:a,:a,:a,:a,:a,:a,:a,:a,:a,:a,:a,:a,:a,:a,:a,:a,:a,:a,:a,:a,:a,:a,:a,:a,:a,:a,:a,:a,:a,:a,:a,:a,:a,:a,:a,:a,:a,:a,:a,:a,:a,:a,:a,:a,:a,:a,:a,:a,:a,:a,:a,:a,:a,:a,:a,:a,:a,:a,:a,:a,:a,:a,:a,:a,:a,:a,:a,:a,:a,:a,:a,:a,:a,:a,:a,:a,:a,:a,:a,:a,:a)", nil, it(":a", N("1")), vErr},
	}
	for _, c := range conds {
		for _, rvf := range []types.ReturnValuesOnConditionCheckFailure{"", types.ReturnValuesOnConditionCheckFailureAllOld} {
			name := "put/cond-" + c.name
			if rvf != "" {
				name += "-allold"
			}
			cs = append(cs, hcase(name, st(c.want, func(n namer) any {
				return putIn(n, it("pk", S("a"), "w", S("new")), putCond(c.expr, c.nm, c.vals), func(in *dynamodb.PutItemInput) { in.ReturnValuesOnConditionCheckFailure = rvf })
			})))
		}
	}
	cs = append(cs,
		hcase("put/cond-fail-allold-missing-item", st(ccf, func(n namer) any {
			return putIn(n, it("pk", S("zz")), putCond("attribute_exists(pk)", nil, nil),
				func(in *dynamodb.PutItemInput) {
					in.ReturnValuesOnConditionCheckFailure = types.ReturnValuesOnConditionCheckFailureAllOld
				})
		})),
		hcase("put/cond-fail-rvf-bogus", st(vErr, func(n namer) any {
			return putIn(n, it("pk", S("a")), putCond("attribute_not_exists(pk)", nil, nil),
				func(in *dynamodb.PutItemInput) { in.ReturnValuesOnConditionCheckFailure = "BOGUS" })
		})),
		hcase("put/names-without-expression", st(vErr, func(n namer) any {
			return putIn(n, it("pk", S("a")), func(in *dynamodb.PutItemInput) { in.ExpressionAttributeNames = names("#a", "a") })
		})),
		hcase("put/values-without-expression", st(vErr, func(n namer) any {
			return putIn(n, it("pk", S("a")), func(in *dynamodb.PutItemInput) { in.ExpressionAttributeValues = it(":a", S("a")) })
		})),
		hcase("put/value-name-bad", st(vErr, func(n namer) any {
			return putIn(n, it("pk", S("a")), putCond("n = :a-b", nil, it(":a-b", N("1"))))
		})),
		hcase("put/cond-legacy-and-expression", st(vErr, func(n namer) any {
			return putIn(n, it("pk", S("a")), putCond("attribute_exists(pk)", nil, nil), func(in *dynamodb.PutItemInput) {
				in.Expected = map[string]types.ExpectedAttributeValue{"pk": {Exists: aws.Bool(true)}}
			})
		})),
	)

	// GetItem.
	for _, key := range []string{"a", "b", "missing"} {
		cs = append(cs, hcase("get/"+key, ok(func(n namer) any {
			return &dynamodb.GetItemInput{TableName: str(n.T("h")), Key: it("pk", S(key))}
		}), ok(func(n namer) any {
			return &dynamodb.GetItemInput{TableName: str(n.T("h")), Key: it("pk", S(key)), ConsistentRead: aws.Bool(true), ReturnConsumedCapacity: types.ReturnConsumedCapacityTotal}
		})))
	}
	projs := []struct {
		name, expr string
		nm         map[string]string
		want       string
	}{
		{"top", "n, s, absent", nil, ""},
		{"reserved-missing", "missing", nil, vErr},
		{"nested", "m.b.c, l[2][0], l[0], m.a", nil, ""},
		{"list-out-of-range", "l[7]", nil, ""},
		{"overlap", "m, m.a", nil, vErr},
		{"dup", "n, n", nil, vErr},
		{"names", "#a, #b.#c", names("#a", "n", "#b", "m", "#c", "b"), ""},
		{"reserved", "name", nil, vErr},
		{"unused-name", "n", names("#z", "z"), vErr},
		{"syntax", "n,, s", nil, vErr},
		{"index-on-map", "m[0]", nil, ""},
		{"key-only", "pk", nil, ""},
		{"dotted-name", "#d", names("#d", "a.b"), ""},
	}
	for _, p := range projs {
		cs = append(cs, hcase("get/projection-"+p.name, st(p.want, func(n namer) any {
			in := &dynamodb.GetItemInput{TableName: str(n.T("h")), Key: it("pk", S("a")), ProjectionExpression: str(p.expr)}
			if p.nm != nil {
				in.ExpressionAttributeNames = p.nm
			}
			return in
		})))
	}
	cs = append(cs,
		hcase("get/key-extra-attr", st(vErr, func(n namer) any {
			return &dynamodb.GetItemInput{TableName: str(n.T("h")), Key: it("pk", S("a"), "n", N("1"))}
		})),
		hcase("get/key-wrong-type", st(vErr, func(n namer) any {
			return &dynamodb.GetItemInput{TableName: str(n.T("h")), Key: it("pk", N("1"))}
		})),
		hcase("get/key-wrong-name", st(vErr, func(n namer) any {
			return &dynamodb.GetItemInput{TableName: str(n.T("h")), Key: it("id", S("a"))}
		})),
		hcase("get/key-empty-string", st(vErr, func(n namer) any {
			return &dynamodb.GetItemInput{TableName: str(n.T("h")), Key: it("pk", S(""))}
		})),
		tc("get/missing-range", with(fixR(), st(vErr, func(n namer) any {
			return &dynamodb.GetItemInput{TableName: str(n.T("r")), Key: it("pk", S("p1"))}
		}))...),
		tc("get/range", with(fixR(), ok(func(n namer) any {
			return &dynamodb.GetItemInput{TableName: str(n.T("r")), Key: it("pk", S("p1"), "sk", N("3.0"))}
		}))...),
		tc("get/missing-table", st(rnf, func(n namer) any {
			return &dynamodb.GetItemInput{TableName: str(n.T("nope")), Key: it("pk", S("a"))}
		})),
		hcase("get/attributes-to-get", ok(func(n namer) any {
			return &dynamodb.GetItemInput{TableName: str(n.T("h")), Key: it("pk", S("a")), AttributesToGet: []string{"n", "s"}}
		})),
		hcase("get/attributes-to-get-and-projection", st(vErr, func(n namer) any {
			return &dynamodb.GetItemInput{TableName: str(n.T("h")), Key: it("pk", S("a")), AttributesToGet: []string{"n"}, ProjectionExpression: str("s")}
		})),
	)

	// DeleteItem.
	for _, rv := range []types.ReturnValue{"", types.ReturnValueNone, types.ReturnValueAllOld} {
		for _, key := range []string{"a", "missing"} {
			cs = append(cs, hcase("delete/rv-"+string(rv)+"-"+key, ok(func(n namer) any {
				return &dynamodb.DeleteItemInput{TableName: str(n.T("h")), Key: it("pk", S(key)), ReturnValues: rv}
			}), scanAll("h")))
		}
	}
	for _, rv := range []types.ReturnValue{types.ReturnValueAllNew, types.ReturnValueUpdatedOld, types.ReturnValueUpdatedNew} {
		cs = append(cs, hcase("delete/rv-invalid-"+string(rv), st(vErr, func(n namer) any {
			return &dynamodb.DeleteItemInput{TableName: str(n.T("h")), Key: it("pk", S("a")), ReturnValues: rv}
		})))
	}
	for _, rvf := range []types.ReturnValuesOnConditionCheckFailure{"", types.ReturnValuesOnConditionCheckFailureNone, types.ReturnValuesOnConditionCheckFailureAllOld} {
		cs = append(cs,
			hcase("delete/cond-fail-"+string(rvf), st(ccf, func(n namer) any {
				return &dynamodb.DeleteItemInput{TableName: str(n.T("h")), Key: it("pk", S("a")), ConditionExpression: str("n > :v"),
					ExpressionAttributeValues: it(":v", N("5")), ReturnValuesOnConditionCheckFailure: rvf, ReturnValues: types.ReturnValueAllOld}
			}), scanAll("h")),
			hcase("delete/cond-fail-missing-"+string(rvf), st(ccf, func(n namer) any {
				return &dynamodb.DeleteItemInput{TableName: str(n.T("h")), Key: it("pk", S("zz")), ConditionExpression: str("attribute_exists(pk)"),
					ReturnValuesOnConditionCheckFailure: rvf}
			})),
		)
	}
	cs = append(cs,
		hcase("delete/cond-ok", ok(func(n namer) any {
			return &dynamodb.DeleteItemInput{TableName: str(n.T("h")), Key: it("pk", S("a")), ConditionExpression: str("contains(ss, :v)"),
				ExpressionAttributeValues: it(":v", S("a")), ReturnValues: types.ReturnValueAllOld}
		}), scanAll("h")),
		hcase("delete/key-extra", st(vErr, func(n namer) any {
			return &dynamodb.DeleteItemInput{TableName: str(n.T("h")), Key: it("pk", S("a"), "x", N("1"))}
		})),
		tc("delete/missing-table", st(rnf, func(n namer) any {
			return &dynamodb.DeleteItemInput{TableName: str(n.T("nope")), Key: it("pk", S("a"))}
		})),
		tc("delete/indexes", with(fixR(), ok(func(n namer) any {
			return &dynamodb.DeleteItemInput{TableName: str(n.T("r")), Key: it("pk", S("p1"), "sk", N("6")), ReturnValues: types.ReturnValueAllOld}
		}), ok(func(n namer) any {
			return &dynamodb.QueryInput{TableName: str(n.T("r")), IndexName: str("gAll"), KeyConditionExpression: str("g = :g"), ExpressionAttributeValues: it(":g", S("g0"))}
		}))...),
	)
	// Modify's turn (mapper/turn.go): taken with a conditional UpdateItem
	// that returns the item, refused to a second taker with the item as
	// stored, honoured by a Put that names its holder and drops it, and
	// taken over once expired.
	turnNames := map[string]string{"#h": "pk", "#lk": "optimist_unit", "#t": "optimist_turn", "#u": "u"}
	take := func(owner, until, now, want string) step {
		return st(want, func(n namer) any {
			return &dynamodb.UpdateItemInput{TableName: str(n.T("h")), Key: it("pk", S("a")),
				UpdateExpression:                    str("SET #t = :t"),
				ConditionExpression:                 str("attribute_exists(#h) AND attribute_not_exists(#lk) AND (attribute_not_exists(#t) OR #t.#u < :now)"),
				ExpressionAttributeNames:            turnNames,
				ExpressionAttributeValues:           it(":t", M("o", S(owner), "u", N(until)), ":now", N(now)),
				ReturnValues:                        types.ReturnValueAllNew,
				ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld,
			}
		})
	}
	cs = append(cs, hcase("update/modify-turn",
		ok(func(n namer) any { return putIn(n, it("pk", S("a"), "v", N("1"))) }),
		take("w1", "2000", "1000", ""),
		take("w2", "2500", "1500", ccf),
		st(ccf, func(n namer) any {
			return putIn(n, it("pk", S("a"), "v", N("2")), putCond("#v = :v AND #t.#o = :me",
				map[string]string{"#v": "v", "#t": "optimist_turn", "#o": "o"}, it(":v", N("1"), ":me", S("w2"))),
				func(in *dynamodb.PutItemInput) {
					in.ReturnValuesOnConditionCheckFailure = types.ReturnValuesOnConditionCheckFailureAllOld
				})
		}),
		take("w2", "3500", "2500", ""),
		ok(func(n namer) any {
			return putIn(n, it("pk", S("a"), "v", N("2")), putCond("#v = :v AND #t.#o = :me",
				map[string]string{"#v": "v", "#t": "optimist_turn", "#o": "o"}, it(":v", N("1"), ":me", S("w2"))))
		}),
		getKey("h", it("pk", S("a"))),
	))
	return cs
}
