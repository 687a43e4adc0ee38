//go:build conformance

package conformance

import (
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// updIn is an UpdateItem on table "h", item key.
func updIn(n namer, key, expr string, nm map[string]string, vals item) *dynamodb.UpdateItemInput {
	in := &dynamodb.UpdateItemInput{TableName: str(n.T("h")), Key: it("pk", S(key)), UpdateExpression: str(expr),
		ReturnValues: types.ReturnValueAllNew}
	if len(nm) > 0 {
		in.ExpressionAttributeNames = nm
	}
	if len(vals) > 0 {
		in.ExpressionAttributeValues = vals
	}
	return in
}

// updateCases: the update-expression language and UpdateItem's return
// values.
func updateCases() []tcase {
	var cs []tcase
	hcase := func(name string, steps ...step) tcase { return tc(name, with(fixH(), steps...)...) }
	exprs := []struct {
		name, expr string
		nm         map[string]string
		vals       item
		want       string
	}{
		{"set-new", "SET z = :v", nil, it(":v", S("z")), ""},
		{"set-two", "SET z = :v, y = :w", nil, it(":v", S("z"), ":w", N("2")), ""},
		{"set-copy", "SET z = s", nil, nil, ""},
		{"set-copy-missing", "SET z = nope", nil, nil, vErr},
		{"set-plus", "SET n = n + :v", nil, it(":v", N("2.5")), ""},
		{"set-minus", "SET n = n - :v", nil, it(":v", N("10")), ""},
		{"set-plus-two-attrs", "SET z = n + n", nil, nil, ""},
		{"set-plus-string", "SET n = n + :v", nil, it(":v", S("1")), vErr},
		{"set-plus-missing", "SET z = nope + :v", nil, it(":v", N("1")), vErr},
		{"set-plus-precision-lost", "SET n = n + :v", nil, it(":v", N("9.9999999999999999999999999999999999999E+125")), vErr},
		{"set-plus-overflow2", "SET z = :v + :v", nil, it(":v", N("9.9999999999999999999999999999999999999E+125")), vErr},
		{"set-plus-precision", "SET z = :a + :b", nil, it(":a", N("1E+20"), ":b", N("0.000000000000000000001")), vErr},
		{"set-plus-precision-ok", "SET z = :a + :b", nil, it(":a", N("1E+10"), ":b", N("0.000000000000000000001")), ""},
		{"set-minus-underflow", "SET z = :a - :b", nil, it(":a", N("1E-130"), ":b", N("0.9E-130")), vErr},
		{"set-minus-to-zero", "SET z = :a - :a", nil, it(":a", N("1E-130")), ""},
		{"set-minus-tiny", "SET z = :a - :b", nil, it(":a", N("2E-130"), ":b", N("1E-130")), ""},
		{"set-arith-three", "SET n = n + :v - :v", nil, it(":v", N("1")), vErr},
		{"set-paren-arith", "SET n = (n + :v)", nil, it(":v", N("1")), ""},
		{"list-append", "SET l = list_append(l, :v)", nil, it(":v", L(S("new"))), ""},
		{"list-prepend", "SET l = list_append(:v, l)", nil, it(":v", L(S("new"), N("0"))), ""},
		{"list-append-missing", "SET z = list_append(z, :v)", nil, it(":v", L(S("new"))), vErr},
		{"list-append-ifne", "SET z = list_append(if_not_exists(z, :e), :v)", nil, it(":v", L(S("new")), ":e", L()), ""},
		{"list-append-not-list", "SET l = list_append(s, :v)", nil, it(":v", L(S("new"))), vErr},
		{"list-append-empty", "SET l = list_append(l, :v)", nil, it(":v", L()), ""},
		{"if-not-exists-present", "SET n = if_not_exists(n, :v)", nil, it(":v", N("7")), ""},
		{"if-not-exists-absent", "SET z = if_not_exists(z, :v)", nil, it(":v", N("7")), ""},
		{"if-not-exists-plus", "SET z = if_not_exists(z, :v) + :v", nil, it(":v", N("7")), ""},
		{"if-not-exists-value-first", "SET z = if_not_exists(:v, z)", nil, it(":v", N("7")), vErr},
		{"if-not-exists-other-path", "SET z = if_not_exists(n, :v)", nil, it(":v", N("7")), ""},
		{"nested-set", "SET m.b.c = :v, m.a = :w", nil, it(":v", S("e"), ":w", N("5")), ""},
		{"nested-new-key", "SET m.z = :v", nil, it(":v", S("e")), ""},
		{"nested-missing-parent", "SET m.zz.c = :v", nil, it(":v", S("e")), vErr},
		{"nested-on-scalar", "SET s.c = :v", nil, it(":v", S("e")), vErr},
		{"list-index-set", "SET l[1] = :v", nil, it(":v", S("e")), ""},
		{"list-index-past-end", "SET l[10] = :v", nil, it(":v", S("e")), ""},
		{"list-index-nested", "SET l[2][0] = :v", nil, it(":v", S("e")), ""},
		{"list-index-on-map", "SET m[0] = :v", nil, it(":v", S("e")), vErr},
		{"remove", "REMOVE s, n", nil, nil, ""},
		{"remove-missing", "REMOVE zz", nil, nil, ""},
		{"remove-list-index", "REMOVE l[0]", nil, nil, ""},
		{"remove-list-indexes", "REMOVE l[0], l[2]", nil, nil, ""},
		{"remove-list-past-end", "REMOVE l[9]", nil, nil, ""},
		{"remove-nested", "REMOVE m.b.c", nil, nil, ""},
		{"remove-nested-missing-parent", "REMOVE m.zz.c", nil, nil, vErr},
		{"remove-key", "REMOVE pk", nil, nil, vErr},
		{"set-key", "SET pk = :v", nil, it(":v", S("q")), vErr},
		{"add-number", "ADD n :v", nil, it(":v", N("5")), ""},
		{"add-number-missing", "ADD z :v", nil, it(":v", N("5")), ""},
		{"add-to-string", "ADD s :v", nil, it(":v", N("5")), vErr},
		{"add-string", "ADD z :v", nil, it(":v", S("x")), vErr},
		{"add-ss", "ADD ss :v", nil, it(":v", SS("c", "a")), ""},
		{"add-ns", "ADD ns :v", nil, it(":v", NS("3", "1.0")), ""},
		{"add-bs", "ADD bs :v", nil, it(":v", BS("c")), ""},
		{"add-set-missing", "ADD z :v", nil, it(":v", SS("c")), ""},
		{"add-set-wrong-type", "ADD ss :v", nil, it(":v", NS("1")), vErr},
		{"add-nested", "ADD m.a :v", nil, it(":v", N("1")), ""},
		{"add-list", "ADD l :v", nil, it(":v", L(N("1"))), vErr},
		{"delete-ss", "DELETE ss :v", nil, it(":v", SS("a")), ""},
		{"delete-ss-all", "DELETE ss :v", nil, it(":v", SS("a", "b")), ""},
		{"delete-ns", "DELETE ns :v", nil, it(":v", NS("2", "9")), ""},
		{"delete-missing", "DELETE z :v", nil, it(":v", SS("a")), ""},
		{"delete-wrong-type", "DELETE ss :v", nil, it(":v", NS("1")), vErr},
		{"delete-scalar", "DELETE ss :v", nil, it(":v", S("a")), vErr},
		{"delete-from-string", "DELETE s :v", nil, it(":v", SS("x")), vErr},
		{"all-four", "SET z = :v REMOVE s ADD n :one DELETE ss :d", nil, it(":v", S("z"), ":one", N("1"), ":d", SS("a")), ""},
		{"clauses-any-order", "REMOVE s SET z = :v", nil, it(":v", S("z")), ""},
		{"clause-twice", "SET z = :v SET y = :v", nil, it(":v", S("z")), vErr},
		{"overlap", "SET m.a = :v REMOVE m", nil, it(":v", S("z")), vErr},
		{"overlap-same", "SET z = :v, z = :v", nil, it(":v", S("z")), vErr},
		{"overlap-list", "SET l[0] = :v REMOVE l[0]", nil, it(":v", S("z")), vErr},
		{"disjoint-list", "SET l[0] = :v REMOVE l[1]", nil, it(":v", S("z")), ""},
		{"names", "SET #a = :v, #b.#c = :v", names("#a", "name", "#b", "m", "#c", "a"), it(":v", S("z")), ""},
		{"reserved", "SET name = :v", nil, it(":v", S("z")), vErr},
		{"unused-name", "SET z = :v", names("#a", "a"), it(":v", S("z")), vErr},
		{"unused-value", "SET z = :v", nil, it(":v", S("z"), ":w", S("w")), vErr},
		{"missing-value", "SET z = :v", nil, nil, vErr},
		{"syntax", "SET z := :v", nil, it(":v", S("z")), vErr},
		{"empty", "", nil, nil, vErr},
		{"set-empty-string", "SET z = :v", nil, it(":v", S("")), ""},
		{"set-empty-set", "SET z = :v", nil, it(":v", SS()), vErr},
		{"set-dup-set", "SET z = :v", nil, it(":v", SS("a", "a")), vErr},
		{"set-dup-ns", "SET z = :v", nil, it(":v", NS("1", "1.0")), vErr},
		{"function-unknown", "SET z = foo(:v)", nil, it(":v", S("z")), vErr},
		{"size-in-set", "SET z = size(l)", nil, nil, vErr},
		{"case-insensitive-keywords", "set z = :v remove s", nil, it(":v", S("z")), ""},
		{"deep-nesting", "SET m.b.d = :v", nil, it(":v", M("e", L(M("f", N("1"))))), ""},
	}
	for _, e := range exprs {
		for _, key := range []string{"a", "new"} {
			want := e.want
			cs = append(cs, hcase("update/"+e.name+"-"+key, st("*", func(n namer) any { return updIn(n, key, e.expr, e.nm, e.vals) })))
			if key == "a" {
				cs[len(cs)-1].steps[len(cs[len(cs)-1].steps)-1].want = want
			}
		}
	}
	for _, rv := range []types.ReturnValue{"", types.ReturnValueNone, types.ReturnValueAllOld, types.ReturnValueUpdatedOld, types.ReturnValueAllNew, types.ReturnValueUpdatedNew, "bogus"} {
		for _, key := range []string{"a", "new"} {
			want := ""
			if rv == "bogus" {
				want = vErr
			}
			cs = append(cs, hcase("update/rv-"+string(rv)+"-"+key, st(want, func(n namer) any {
				in := updIn(n, key, "SET n = :v, m.b.c = :w, z = :w REMOVE s ADD ss :ss", nil, it(":v", N("4"), ":w", S("w"), ":ss", SS("q")))
				in.ReturnValues = rv
				if key == "new" {
					in.UpdateExpression = str("SET n = :v, z = :w ADD ss :ss")
					in.ExpressionAttributeValues = it(":v", N("4"), ":w", S("w"), ":ss", SS("q"))
				}
				return in
			})))
		}
	}
	for _, rv := range []types.ReturnValue{types.ReturnValueUpdatedOld, types.ReturnValueUpdatedNew} {
		cs = append(cs,
			hcase("update/rv-list-element-"+string(rv), ok(func(n namer) any {
				in := updIn(n, "a", "SET l[1] = :v REMOVE m.b.c", nil, it(":v", S("e")))
				in.ReturnValues = rv
				return in
			})),
			hcase("update/rv-unchanged-"+string(rv), ok(func(n namer) any {
				in := updIn(n, "a", "SET n = n", nil, nil)
				in.ReturnValues = rv
				return in
			})),
		)
	}
	for _, rvf := range []types.ReturnValuesOnConditionCheckFailure{"", types.ReturnValuesOnConditionCheckFailureAllOld} {
		cs = append(cs,
			hcase("update/cond-fail-"+string(rvf), st(ccf, func(n namer) any {
				in := updIn(n, "a", "SET z = :v", nil, it(":v", S("z"), ":n", N("100")))
				in.ConditionExpression = str("n > :n")
				in.ReturnValuesOnConditionCheckFailure = rvf
				return in
			})),
			hcase("update/cond-fail-new-"+string(rvf), st(ccf, func(n namer) any {
				in := updIn(n, "new", "SET z = :v", nil, it(":v", S("z")))
				in.ConditionExpression = str("attribute_exists(pk)")
				in.ReturnValuesOnConditionCheckFailure = rvf
				return in
			}), scanAll("h")),
		)
	}
	cs = append(cs,
		hcase("update/cond-ok", ok(func(n namer) any {
			in := updIn(n, "a", "SET z = :v", nil, it(":v", S("z"), ":n", N("1")))
			in.ConditionExpression = str("n = :n")
			return in
		})),
		hcase("update/cond-uses-value-of-update", ok(func(n namer) any {
			in := updIn(n, "a", "SET n = :n", nil, it(":n", N("1")))
			in.ConditionExpression = str("n = :n")
			return in
		})),
		hcase("update/no-expression", ok(func(n namer) any {
			return &dynamodb.UpdateItemInput{TableName: str(n.T("h")), Key: it("pk", S("zz")), ReturnValues: types.ReturnValueAllNew}
		}), scanAll("h")),
		hcase("update/key-wrong-type", st(vErr, func(n namer) any {
			in := updIn(n, "a", "SET z = :v", nil, it(":v", S("z")))
			in.Key = it("pk", N("1"))
			return in
		})),
		tc("update/missing-table", st(rnf, func(n namer) any { return updIn(n, "a", "SET z = :v", nil, it(":v", S("z"))) })),
		// DynamoDB refuses an index key of the wrong type; DynamoDB Local
		// takes it on UpdateItem (not on PutItem).
		tc("update/index-key-wrong-type", with(fixR(), st("*", func(n namer) any {
			return &dynamodb.UpdateItemInput{TableName: str(n.T("r")), Key: it("pk", S("p1"), "sk", N("1")),
				UpdateExpression: str("SET g = :v"), ExpressionAttributeValues: it(":v", N("1"))}
		}))...),
		tc("update/index-key-empty", with(fixR(), st(vErr, func(n namer) any {
			return &dynamodb.UpdateItemInput{TableName: str(n.T("r")), Key: it("pk", S("p1"), "sk", N("1")),
				UpdateExpression: str("SET g = :v"), ExpressionAttributeValues: it(":v", S(""))}
		}))...),
		tc("update/index-key-moves", with(fixR(), ok(func(n namer) any {
			return &dynamodb.UpdateItemInput{TableName: str(n.T("r")), Key: it("pk", S("p1"), "sk", N("2")),
				UpdateExpression: str("SET g = :v REMOVE l"), ExpressionAttributeValues: it(":v", S("g9")), ReturnConsumedCapacity: types.ReturnConsumedCapacityIndexes}
		}), ok(func(n namer) any {
			return &dynamodb.QueryInput{TableName: str(n.T("r")), IndexName: str("gKeys"), KeyConditionExpression: str("g = :g"), ExpressionAttributeValues: it(":g", S("g9"))}
		}), ok(func(n namer) any {
			return &dynamodb.QueryInput{TableName: str(n.T("r")), IndexName: str("lAll"), KeyConditionExpression: str("pk = :p"), ExpressionAttributeValues: it(":p", S("p1"))}
		}))...),
		hcase("update/legacy-attribute-updates", ok(func(n namer) any {
			return &dynamodb.UpdateItemInput{TableName: str(n.T("h")), Key: it("pk", S("a")), ReturnValues: types.ReturnValueAllNew,
				AttributeUpdates: map[string]types.AttributeValueUpdate{"n": {Action: types.AttributeActionAdd, Value: N("1")}}}
		})),
		hcase("update/legacy-and-expression", st(vErr, func(n namer) any {
			in := updIn(n, "a", "SET z = :v", nil, it(":v", S("z")))
			in.AttributeUpdates = map[string]types.AttributeValueUpdate{"n": {Action: types.AttributeActionAdd, Value: N("1")}}
			return in
		})),
	)
	return cs
}
