//go:build conformance

package conformance

import (
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// Cases of limitCases: the order of DynamoDB Local's checks, transactions
// at the limits, and tagging.

// fixK is table "k": hash pk (S), range sk (S), one item.
func fixK() []step {
	return []step{create("k", "pk", tS, "sk", tS), put("k", it("pk", S("a"), "sk", S("b"), "m", M("x", S("1"))))}
}

var keyK = it("pk", S("a"), "sk", S("b"))

func vals(kv ...any) map[string]types.AttributeValue { return it(kv...) }

func orderCases() []tcase {
	var cs []tcase
	for _, part := range [][]tcase{keyPathCases(), writeOrderCases(), readOrderCases(), indexKeyCases(), filterOrderCases()} {
		cs = append(cs, part...)
	}
	return cs
}

// keyPathCases: nested paths into key attributes, and names or values given without an expression.
func keyPathCases() []tcase {
	k := func(name, want string, f func(n namer) any) tcase {
		return tc("limits/key-path-"+name, with(fixK(), st(want, f))...)
	}
	cs := []tcase{
		k("query-key-condition", vErr, func(n namer) any {
			return &dynamodb.QueryInput{TableName: str(n.T("k")), KeyConditionExpression: str("pk.x = :v"), ExpressionAttributeValues: vals(":v", S("a"))}
		}),
		k("get-projection", vErr, func(n namer) any {
			return &dynamodb.GetItemInput{TableName: str(n.T("k")), Key: keyK, ProjectionExpression: str("pk.x")}
		}),
		k("get-projection-name", vErr, func(n namer) any {
			return &dynamodb.GetItemInput{TableName: str(n.T("k")), Key: keyK, ProjectionExpression: str("#p[0]"), ExpressionAttributeNames: names("#p", "sk")}
		}),
		k("get-projection-empty-key", vErr, func(n namer) any {
			return &dynamodb.GetItemInput{TableName: str(n.T("k")), Key: item{}, ProjectionExpression: str("pk.x")}
		}),
		k("scan-projection", vErr, func(n namer) any {
			return &dynamodb.ScanInput{TableName: str(n.T("k")), ProjectionExpression: str("sk[0]")}
		}),
		k("query-projection", vErr, func(n namer) any {
			return &dynamodb.QueryInput{TableName: str(n.T("k")), KeyConditionExpression: str("pk = :v"), ProjectionExpression: str("pk.x, m"), ExpressionAttributeValues: vals(":v", S("a"))}
		}),
		k("scan-filter", vErr, func(n namer) any {
			return &dynamodb.ScanInput{TableName: str(n.T("k")), FilterExpression: str("pk.x = :v"), ExpressionAttributeValues: vals(":v", S("a"))}
		}),
		k("scan-filter-unused-value", vErr, func(n namer) any {
			return &dynamodb.ScanInput{TableName: str(n.T("k")), FilterExpression: str("pk.x = :v"), ExpressionAttributeValues: vals(":v", S("a"), ":u", S("x"))}
		}),
		k("put-condition", vErr, func(n namer) any {
			return &dynamodb.PutItemInput{TableName: str(n.T("k")), Item: keyK, ConditionExpression: str("attribute_not_exists(pk.x)")}
		}),
		k("update-condition", vErr, func(n namer) any {
			return &dynamodb.UpdateItemInput{TableName: str(n.T("k")), Key: keyK, UpdateExpression: str("SET z = :v"),
				ConditionExpression: str("pk.x = :v"), ExpressionAttributeValues: vals(":v", S("a"))}
		}),
		k("delete-condition", vErr, func(n namer) any {
			return &dynamodb.DeleteItemInput{TableName: str(n.T("k")), Key: it("pk", S("q"), "sk", S("b")),
				ConditionExpression: str("size(sk[1]) > :n"), ExpressionAttributeValues: vals(":n", N("1"))}
		}),
		k("update-set-target", vErr, func(n namer) any {
			return &dynamodb.UpdateItemInput{TableName: str(n.T("k")), Key: keyK, UpdateExpression: str("SET pk.x = :v"), ExpressionAttributeValues: vals(":v", S("a"))}
		}),
		k("update-remove-target", vErr, func(n namer) any {
			return &dynamodb.UpdateItemInput{TableName: str(n.T("k")), Key: keyK, UpdateExpression: str("REMOVE sk[0]")}
		}),
		k("update-operand", vErr, func(n namer) any {
			return &dynamodb.UpdateItemInput{TableName: str(n.T("k")), Key: keyK, UpdateExpression: str("SET z = pk.x")}
		}),
	}
	cs = append(cs,
		k("txn-put-condition", vErr, func(n namer) any {
			return &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{{Put: &types.Put{
				TableName: str(n.T("k")), Item: keyK, ConditionExpression: str("attribute_exists(pk.x)")}}}}
		}),
		k("txn-condition-check", txCanc, func(n namer) any {
			return &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{{ConditionCheck: &types.ConditionCheck{
				TableName: str(n.T("k")), Key: keyK, ConditionExpression: str("attribute_exists(pk.x)")}}}}
		}),
		k("txn-update-operand", vErr, func(n namer) any {
			return &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{{Update: &types.Update{
				TableName: str(n.T("k")), Key: keyK, UpdateExpression: str("SET z = pk.x")}}}}
		}),
		k("txn-get-projection", vErr, func(n namer) any {
			return &dynamodb.TransactGetItemsInput{TransactItems: []types.TransactGetItem{{Get: &types.Get{
				TableName: str(n.T("k")), Key: keyK, ProjectionExpression: str("pk.x")}}}}
		}),
		k("batch-get-projection", vErr, func(n namer) any {
			return &dynamodb.BatchGetItemInput{RequestItems: map[string]types.KeysAndAttributes{
				n.T("k"): {Keys: []item{keyK}, ProjectionExpression: str("pk.x")}}}
		}),
	)
	return cs
}

// readOrderCases: GetItem and BatchGetItem requests with several faults.
func readOrderCases() []tcase {
	var cs []tcase
	get := func(name string, f func(in *dynamodb.GetItemInput)) tcase {
		return tc("limits/get-order-"+name, with(fixK(), st(vErr, func(n namer) any {
			in := &dynamodb.GetItemInput{TableName: str(n.T("k")), Key: item{}}
			f(in)
			return in
		}))...)
	}
	cs = append(cs,
		get("bad-projection", func(in *dynamodb.GetItemInput) { in.ProjectionExpression = str("a..") }),
		get("null-key-bad-projection", func(in *dynamodb.GetItemInput) { in.Key = nil; in.ProjectionExpression = str("a..") }),
		get("unused-names", func(in *dynamodb.GetItemInput) { in.ExpressionAttributeNames = names("#a", "x") }),
		get("undefined-name", func(in *dynamodb.GetItemInput) { in.ProjectionExpression = str("#a") }),
	)
	bg := func(name, want string, tables map[string]types.KeysAndAttributes) tcase {
		return tc("limits/batch-get-order-"+name, with(fixH(), st(want, func(n namer) any {
			in := &dynamodb.BatchGetItemInput{RequestItems: map[string]types.KeysAndAttributes{}}
			for t, ka := range tables {
				in.RequestItems[n.T(t)] = ka
			}
			return in
		}))...)
	}
	ka := func(keys ...item) types.KeysAndAttributes { return types.KeysAndAttributes{Keys: keys} }
	pk := func(v av) item { return it("pk", v) }
	withNames := ka(pk(S("a")), pk(S("a")))
	withNames.ExpressionAttributeNames = names("#a", "x")
	badProj := ka(it("pk", S("a"), "zz", S("b")))
	badProj.ProjectionExpression = str("a..")
	namesOnly := ka(it("pk", S("a"), "zz", S("b")))
	namesOnly.ExpressionAttributeNames = names("#a", "x")
	cs = append(cs,
		bg("missing-table-duplicates", vErr, map[string]types.KeysAndAttributes{"nope": ka(pk(S("a")), pk(S("a")))}),
		bg("missing-table-empty-keys", vErr, map[string]types.KeysAndAttributes{"nope": ka()}),
		bg("missing-table-bad-number", vErr, map[string]types.KeysAndAttributes{"nope": ka(pk(N("x")))}),
		bg("missing-table-names-and-duplicates", vErr, map[string]types.KeysAndAttributes{"nope": withNames}),
		bg("missing-table-duplicate-then-bad-number", vErr, map[string]types.KeysAndAttributes{"nope": ka(pk(S("a")), pk(S("a")), pk(N("x")))}),
		bg("missing-table-numbers-respelled", rnf, map[string]types.KeysAndAttributes{"nope": ka(pk(N("1")), pk(N("1.0")))}),
		bg("missing-table-empty-string", rnf, map[string]types.KeysAndAttributes{"nope": ka(pk(S("")))}),
		bg("missing-table-and-duplicates", vErr, map[string]types.KeysAndAttributes{"aaa": ka(pk(S("a"))), "h": ka(pk(S("a")), pk(S("a")))}),
		bg("key-then-projection", vErr, map[string]types.KeysAndAttributes{"h": badProj}),
		bg("names-then-key", vErr, map[string]types.KeysAndAttributes{"h": namesOnly}),
	)
	return cs
}

// indexKeyCases: a set or a list as an index key, and UpdateTimeToLive.
func indexKeyCases() []tcase {
	var cs []tcase
	// A set or a list as an index key.
	fixS := []step{create("s", "pk", tS, "", "", gsi("gix", "g", tS, "", "", types.ProjectionTypeAll))}
	sk := func(name string, f func(n namer) any) tcase {
		return tc("limits/index-key-"+name, with(fixS, st(vErr, f))...)
	}
	cs = append(cs,
		sk("ss", func(n namer) any {
			return &dynamodb.PutItemInput{TableName: str(n.T("s")), Item: it("pk", S("a"), "g", SS("x"))}
		}),
		sk("list", func(n namer) any {
			return &dynamodb.PutItemInput{TableName: str(n.T("s")), Item: it("pk", S("a"), "g", L())}
		}),
		sk("number", func(n namer) any {
			return &dynamodb.PutItemInput{TableName: str(n.T("s")), Item: it("pk", S("a"), "g", N("1"))}
		}),
		sk("ss-bad-condition", func(n namer) any {
			return &dynamodb.PutItemInput{TableName: str(n.T("s")), Item: it("pk", S("a"), "g", SS("x")), ConditionExpression: str("a = ")}
		}),
		sk("update-ss", func(n namer) any {
			return &dynamodb.UpdateItemInput{TableName: str(n.T("s")), Key: it("pk", S("a")), UpdateExpression: str("SET g = :v"), ExpressionAttributeValues: it(":v", SS("x"))}
		}),
		sk("table-key-ss", func(n namer) any { return &dynamodb.PutItemInput{TableName: str(n.T("s")), Item: it("pk", SS("a"))} }),
	)
	ttl := func(attr string, enabled bool) step {
		return st(vErr, func(n namer) any {
			return &dynamodb.UpdateTimeToLiveInput{TableName: str(n.T("k")), TimeToLiveSpecification: &types.TimeToLiveSpecification{AttributeName: str(attr), Enabled: aws.Bool(enabled)}}
		})
	}
	enable := ok(func(n namer) any {
		return &dynamodb.UpdateTimeToLiveInput{TableName: str(n.T("k")), TimeToLiveSpecification: &types.TimeToLiveSpecification{AttributeName: str("ttl"), Enabled: aws.Bool(true)}}
	})
	cs = append(cs,
		tc("limits/ttl-enable-other", with(fixK(), enable, ttl("ttl2", true))...),
		tc("limits/ttl-enable-same", with(fixK(), enable, ttl("ttl", true))...),
		tc("limits/ttl-disable-other", with(fixK(), enable, ttl("ttl2", false))...),
		tc("limits/ttl-name-empty", with(fixK(), ttl("", true))...),
		tc("limits/ttl-name-256", with(fixK(), enable, ttl(strings.Repeat("a", 256), true))...),
	)
	return cs
}

// filterOrderCases: filters with several faults.
func filterOrderCases() []tcase {
	var cs []tcase
	// Filters with several faults.
	f := func(name, filter string, nm map[string]string, vs item) tcase {
		return tc("limits/filter-order-"+name, with(fixK(), st(vErr, func(n namer) any {
			in := &dynamodb.ScanInput{TableName: str(n.T("k")), FilterExpression: str(filter)}
			if len(nm) > 0 {
				in.ExpressionAttributeNames = nm
			}
			if len(vs) > 0 {
				in.ExpressionAttributeValues = vs
			}
			return in
		}))...)
	}
	cs = append(cs,
		f("syntax-unused-value", "a = ", nil, it(":u", S("x"))),
		f("syntax-undefined-name", "#a = ", nil, it(":u", S("x"))),
		f("undefined-name-unused-value", "#a = :v", nil, it(":u", S("x"), ":v", S("x"))),
		f("undefined-value-unused-name", "a = :w", names("#n", "x"), nil),
		f("undefined-value-undefined-name", "#a = :w", nil, nil),
		f("bad-function-unused-value", "foo(a)", nil, it(":u", S("x"))),
		f("bad-type-name-unused-value", "attribute_type(a, :v)", nil, it(":u", S("x"), ":v", S("ZZ"))),
		f("operand-type-unused-name", "begins_with(a, :v)", names("#n", "x"), it(":v", N("1"))),
		f("reserved-word-unused-value", "size = :v", nil, it(":u", S("x"), ":v", S("x"))),
		f("between-order-unused-value", "a BETWEEN :b AND :a", nil, it(":u", S("x"), ":a", N("1"), ":b", N("2"))),
		f("same-operands-unused-value", "a = a", nil, it(":u", S("x"))),
	)
	return cs
}

func txnLimitCases() []tcase {
	big := put("h", it("pk", S("big"), "v", S(strings.Repeat("x", 300*1024))))
	fixN := []step{create("n", "pk", tN, "", "")}
	txN := func(f func(n namer) []types.TransactWriteItem) func(n namer) any {
		return func(n namer) any { return &dynamodb.TransactWriteItemsInput{TransactItems: f(n)} }
	}
	return []tcase{
		tc("limits/txn-update-too-large", with(fixH(), big, st(txCanc, tx("", txUpd("big", "SET w = v", "", nil, ""))))...),
		tc("limits/txn-update-too-large-other-fails", with(fixH(), big, st(txCanc, tx("",
			txCheck("x", "attribute_exists(pk)", nil, ""), txUpd("big", "SET w = v", "", nil, ""))))...),
		tc("limits/txn-update-too-large-own-fails", with(fixH(), big, st(txCanc, tx("", txUpd("big", "SET w = v", "attribute_not_exists(pk)", nil, ""))))...),
		tc("limits/update-too-large", with(fixH(), big, st(vErr, func(n namer) any {
			return &dynamodb.UpdateItemInput{TableName: str(n.T("h")), Key: it("pk", S("big")), UpdateExpression: str("SET w = v")}
		}))...),
		tc("limits/txn-update-key", with(fixH(), st(txCanc, tx("", txUpd("a", "SET pk = :v", "", it(":v", S("q")), ""))))...),
		tc("limits/txn-put-1-delete-1.0", with(fixN, st("", txN(func(n namer) []types.TransactWriteItem {
			return []types.TransactWriteItem{
				{Put: &types.Put{TableName: str(n.T("n")), Item: it("pk", N("1"))}},
				{Delete: &types.Delete{TableName: str(n.T("n")), Key: it("pk", N("1.0"))}},
			}
		})))...),
		tc("limits/txn-put-1-delete-1", with(fixN, st(vErr, txN(func(n namer) []types.TransactWriteItem {
			return []types.TransactWriteItem{
				{Put: &types.Put{TableName: str(n.T("n")), Item: it("pk", N("1"))}},
				{Delete: &types.Delete{TableName: str(n.T("n")), Key: it("pk", N("1"))}},
			}
		})))...),
		tc("limits/txn-get-1-get-1.0", with(fixN, st(vErr, func(n namer) any {
			return &dynamodb.TransactGetItemsInput{TransactItems: []types.TransactGetItem{
				{Get: &types.Get{TableName: str(n.T("n")), Key: it("pk", N("1"))}},
				{Get: &types.Get{TableName: str(n.T("n")), Key: it("pk", N("1.0"))}},
			}}
		}))...),
	}
}

// tagCases: TagResource, UntagResource and ListTagsOfResource, which
// DynamoDB Local does not support (known.go lists the difference; the
// engine's tests hold DynamoDB's behaviour), and the Tags of CreateTable,
// which DynamoDB Local ignores.
func tagCases() []tcase {
	const unknownOp = "UnknownOperationException"
	arn := func(n namer, tn string) *string {
		return str("arn:aws:dynamodb:ddblocal:000000000000:table/" + n.T(tn))
	}
	withTags := func(tags ...types.Tag) tableMod {
		return func(in *dynamodb.CreateTableInput) { in.Tags = tags }
	}
	tg := func(k, v string) types.Tag { return types.Tag{Key: str(k), Value: str(v)} }
	return []tcase{
		tc("limits/tags-tag-resource", create("t", "pk", tS, "", ""), st(unknownOp, func(n namer) any {
			return &dynamodb.TagResourceInput{ResourceArn: arn(n, "t"), Tags: []types.Tag{tg("team", "core")}}
		})),
		tc("limits/tags-untag-resource", create("t", "pk", tS, "", ""), st(unknownOp, func(n namer) any {
			return &dynamodb.UntagResourceInput{ResourceArn: arn(n, "t"), TagKeys: []string{"team"}}
		})),
		tc("limits/tags-list", create("t", "pk", tS, "", ""), st(unknownOp, func(n namer) any {
			return &dynamodb.ListTagsOfResourceInput{ResourceArn: arn(n, "t")}
		})),
		tc("limits/tags-missing-table", st(unknownOp, func(n namer) any {
			return &dynamodb.TagResourceInput{ResourceArn: arn(n, "nope"), Tags: []types.Tag{tg("team", "core")}}
		})),
		tc("limits/tags-create-table", ok(func(n namer) any {
			return createIn(n, "t", "pk", tS, "", "", withTags(tg("team", "core"), tg("env", "")))
		}), describe("t")),
		tc("limits/tags-create-table-aws-prefix", ok(func(n namer) any {
			return createIn(n, "t", "pk", tS, "", "", withTags(tg("aws:team", "core")))
		})),
	}
}

// writeOrderCases: names or values without an expression, before the
// item or the key.
func writeOrderCases() []tcase {
	w := func(name string, f func(n namer) any) tcase {
		return tc("limits/write-order-"+name, with(fixK(), st(vErr, f))...)
	}
	return []tcase{
		w("delete-values-bad-key", func(n namer) any {
			return &dynamodb.DeleteItemInput{TableName: str(n.T("k")), Key: item{}, ExpressionAttributeValues: vals(":a", S("x"))}
		}),
		w("delete-names-bad-key", func(n namer) any {
			return &dynamodb.DeleteItemInput{TableName: str(n.T("k")), Key: item{}, ExpressionAttributeNames: names("#a", "x")}
		}),
		w("update-values-bad-key", func(n namer) any {
			return &dynamodb.UpdateItemInput{TableName: str(n.T("k")), Key: item{}, ExpressionAttributeValues: vals(":a", S("x"))}
		}),
		w("put-names-values-no-key", func(n namer) any {
			return &dynamodb.PutItemInput{TableName: str(n.T("k")), Item: item{}, ExpressionAttributeValues: vals(":a", S("x")), ExpressionAttributeNames: names("#a", "x")}
		}),
		w("put-values-bad-return-values", func(n namer) any {
			return &dynamodb.PutItemInput{TableName: str(n.T("k")), Item: item{}, ExpressionAttributeValues: vals(":a", S("x")), ReturnValues: types.ReturnValueAllNew}
		}),
		w("put-condition-empty-values-bad-return-values", func(n namer) any {
			return &dynamodb.PutItemInput{TableName: str(n.T("k")), Item: keyK, ConditionExpression: str("a = :a"),
				ExpressionAttributeValues: vals(), ReturnValues: types.ReturnValueAllNew}
		}),
		w("put-condition-bad-value-key-bad-return-values", func(n namer) any {
			return &dynamodb.PutItemInput{TableName: str(n.T("k")), Item: keyK, ConditionExpression: str("a = :a"),
				ExpressionAttributeValues: vals("a", S("x")), ReturnValues: types.ReturnValueAllNew}
		}),
		w("put-empty-values", func(n namer) any {
			return &dynamodb.PutItemInput{TableName: str(n.T("k")), Item: keyK, ExpressionAttributeValues: vals()}
		}),
		w("put-empty-names", func(n namer) any {
			return &dynamodb.PutItemInput{TableName: str(n.T("k")), Item: keyK, ExpressionAttributeNames: names()}
		}),
		w("put-bad-value", func(n namer) any {
			return &dynamodb.PutItemInput{TableName: str(n.T("k")), Item: keyK, ExpressionAttributeValues: vals(":a", N("x"))}
		}),
		w("delete-bad-value-key-bad-on-failure", func(n namer) any {
			return &dynamodb.DeleteItemInput{TableName: str(n.T("k")), Key: keyK, ExpressionAttributeValues: vals("a", S("x")),
				ReturnValuesOnConditionCheckFailure: "X"}
		}),
		w("put-values-null-item", func(n namer) any {
			return &dynamodb.PutItemInput{TableName: str(n.T("k")), ExpressionAttributeValues: vals(":a", S("x"))}
		}),
		w("put-values-nesting", func(n namer) any {
			return &dynamodb.PutItemInput{TableName: str(n.T("k")), Item: it("pk", S("a"), "sk", S("b"), "v", nest(32, false, S("x"))),
				ExpressionAttributeValues: vals(":a", S("x"))}
		}),
	}
}
