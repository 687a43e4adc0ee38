//go:build conformance

package conformance

import (
	"fmt"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

const limitExc = "LimitExceededException"

// nest wraps v in k lists (list true) or maps.
func nest(k int, list bool, v av) av {
	for range k {
		if list {
			v = L(v)
		} else {
			v = M("a", v)
		}
	}
	return v
}

// gsis adds k KEYS_ONLY GSIs on g, named gix0..; inc, when not zero, makes
// each INCLUDE inc attributes of its own (prefix a).
func gsis(k, inc int, prefix string) tableMod {
	return func(in *dynamodb.CreateTableInput) {
		addDef(in, "g", tS)
		for i := range k {
			p := projection(types.ProjectionTypeKeysOnly)
			if inc > 0 {
				var nk []string
				for j := range inc {
					nk = append(nk, fmt.Sprintf("%s%d", prefix, i*inc+j))
				}
				p = projection(types.ProjectionTypeInclude, nk...)
			}
			in.GlobalSecondaryIndexes = append(in.GlobalSecondaryIndexes, types.GlobalSecondaryIndex{
				IndexName: str(fmt.Sprintf("gix%d", i)), KeySchema: keySchema("g", ""), Projection: p})
		}
	}
}

// provisioned makes a CreateTable provisioned with 5 units, its GSIs
// without throughput.
func provisioned(in *dynamodb.CreateTableInput) {
	in.BillingMode = ""
	in.ProvisionedThroughput = &types.ProvisionedThroughput{ReadCapacityUnits: aws.Int64(5), WriteCapacityUnits: aws.Int64(5)}
}

func units(r, w int64) *types.ProvisionedThroughput {
	return &types.ProvisionedThroughput{ReadCapacityUnits: aws.Int64(r), WriteCapacityUnits: aws.Int64(w)}
}

// limitCases: DynamoDB's limits and the order of its checks, as DynamoDB
// Local applies them.
func limitCases() []tcase {
	var cs []tcase
	cs = append(cs, nestingCases()...)
	cs = append(cs, createLimitCases()...)
	cs = append(cs, updateTableLimitCases()...)
	cs = append(cs, orderCases()...)
	cs = append(cs, txnLimitCases()...)
	cs = append(cs, tagCases()...)
	return cs
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

func nestingCases() []tcase {
	h := func(name string, steps ...step) tcase { return tc("limits/nesting-"+name, with(fixH(), steps...)...) }
	putV := func(want string, v av) step {
		return st(want, func(n namer) any { return putIn(n, it("pk", S("deep"), "v", v)) })
	}
	set := func(want, expr string, v av) step {
		return st(want, func(n namer) any {
			return &dynamodb.UpdateItemInput{TableName: str(n.T("h")), Key: it("pk", S("deep")),
				UpdateExpression: str(expr), ExpressionAttributeValues: it(":v", v)}
		})
	}
	return []tcase{
		h("put-31-maps", putV("", nest(31, false, S("x"))), getKey("h", it("pk", S("deep")))),
		h("put-31-lists", putV("", nest(31, true, S("x")))),
		h("put-32-maps", putV(vErr, nest(32, false, S("x")))),
		h("put-32-lists", putV(vErr, nest(32, true, S("x")))),
		h("put-31-maps-empty-map", putV(vErr, nest(31, false, M()))),
		h("put-31-maps-set", putV("", nest(31, false, SS("a")))),
		h("put-32-missing-key", st(vErr, func(n namer) any { return putIn(n, it("v", nest(32, false, S("x")))) })),
		// DynamoDB Local meets a bad number and a value nested too deep in
		// the order the request's JSON holds them, which a map of the SDK
		// leaves to chance: no case has both.
		h("put-32-bad-condition", st(vErr, func(n namer) any {
			in := putIn(n, it("pk", S("deep"), "v", nest(32, false, S("x"))))
			in.ConditionExpression = str("a = ")
			return in
		})),
		h("put-32-condition-fails", st(vErr, func(n namer) any {
			in := putIn(n, it("pk", S("a"), "v", nest(32, false, S("x"))))
			in.ConditionExpression = str("attribute_not_exists(pk)")
			return in
		})),
		h("update-31", set("", "SET v = :v", nest(31, false, S("x"))), getKey("h", it("pk", S("deep")))),
		h("update-32", set(vErr, "SET v = :v", nest(32, false, S("x")))),
		h("update-deeper", set("", "SET v = :v", nest(31, false, S("x"))), set(vErr, "SET v.a = :v", nest(31, false, S("x")))),
		h("update-32-condition-fails", st(ccf, func(n namer) any {
			return &dynamodb.UpdateItemInput{TableName: str(n.T("h")), Key: it("pk", S("a")), UpdateExpression: str("SET v = :v"),
				ConditionExpression: str("attribute_not_exists(pk)"), ExpressionAttributeValues: it(":v", nest(32, false, S("x")))}
		})),
		h("condition-value-32", st("", func(n namer) any {
			in := putIn(n, it("pk", S("deep")))
			in.ConditionExpression = str("v <> :v")
			in.ExpressionAttributeValues = it(":v", nest(32, false, S("x")))
			return in
		})),
		h("batch-put-32", st(vErr, func(n namer) any {
			return &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{
				n.T("h"): {{PutRequest: &types.PutRequest{Item: it("pk", S("deep"), "v", nest(32, true, S("x")))}}}}}
		})),
		h("batch-put-32-missing-table", st(vErr, func(n namer) any {
			return &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{
				n.T("nope"): {{PutRequest: &types.PutRequest{Item: it("pk", S("deep"), "v", nest(32, true, S("x")))}}}}}
		})),
		h("txn-put-32", st(vErr, tx("", txPut(it("pk", S("deep"), "v", nest(32, false, S("x"))), "", nil, "")))),
		h("txn-update-32", st(vErr, tx("", txUpd("deep", "SET v = :v", "", it(":v", nest(32, false, S("x"))), "")))),
		h("txn-update-32-condition-fails", st(txCanc, tx("", txUpd("a", "SET v = :v", "attribute_not_exists(pk)", it(":v", nest(32, false, S("x"))), "")))),
	}
}

func createLimitCases() []tcase {
	bad := func(name, want string, mods ...tableMod) tcase {
		return tc("limits/create-"+name, st(want, func(n namer) any { return createIn(n, "t", "pk", tS, "sk", tS, mods...) }))
	}
	good := func(name string, mods ...tableMod) tcase {
		return tc("limits/create-"+name, ok(func(n namer) any { return createIn(n, "t", "pk", tS, "sk", tS, mods...) }), describe("t"))
	}
	edit := func(f func(in *dynamodb.CreateTableInput)) tableMod { return f }
	long := strings.Repeat("k", 256)
	noDefG := edit(func(in *dynamodb.CreateTableInput) {
		var defs []types.AttributeDefinition
		for _, d := range in.AttributeDefinitions {
			if *d.AttributeName != "g" {
				defs = append(defs, d)
			}
		}
		in.AttributeDefinitions = defs
	})
	gsiEdit := func(i int, f func(g *types.GlobalSecondaryIndex)) tableMod {
		return func(in *dynamodb.CreateTableInput) { f(&in.GlobalSecondaryIndexes[i]) }
	}
	return []tcase{
		good("20-gsis", gsis(20, 0, "")),
		bad("21-gsis", vErr, gsis(21, 0, "")),
		bad("21-gsis-undefined-key", vErr, gsis(21, 0, ""), noDefG),
		bad("21-gsis-bad-index-name", vErr, gsis(21, 0, ""), gsiEdit(0, func(g *types.GlobalSecondaryIndex) { g.IndexName = str("x") })),
		bad("21-gsis-no-projection", vErr, gsis(21, 0, ""), gsiEdit(3, func(g *types.GlobalSecondaryIndex) { g.Projection = nil })),
		bad("21-gsis-provisioned", vErr, gsis(21, 0, ""), provisioned),
		bad("21-gsis-6-lsis", vErr, gsis(21, 0, ""), lsi("l0x", "l0", tS, types.ProjectionTypeKeysOnly),
			lsi("l1x", "l1", tS, types.ProjectionTypeKeysOnly), lsi("l2x", "l2", tS, types.ProjectionTypeKeysOnly),
			lsi("l3x", "l3", tS, types.ProjectionTypeKeysOnly), lsi("l4x", "l4", tS, types.ProjectionTypeKeysOnly),
			lsi("l5x", "l5", tS, types.ProjectionTypeKeysOnly)),
		bad("21-gsis-lsi-same-name", vErr, lsi("gix0", "l0", tS, types.ProjectionTypeKeysOnly), gsis(21, 0, "")),
		good("projected-100", gsis(2, 50, "a")),
		bad("projected-102", vErr, gsis(3, 34, "a")),
		bad("projected-101-one-index", vErr, gsis(1, 101, "a")),
		bad("projected-lsi-and-gsi", vErr, lsi("lix", "l0", tS, types.ProjectionTypeInclude, "b1", "b2"), gsis(1, 99, "a")),
		bad("projected-same-attrs-twice", vErr, gsis(2, 60, "a"), gsiEdit(1, func(g *types.GlobalSecondaryIndex) { g.Projection.NonKeyAttributes = []string{"a0", "a1"} }),
			gsiEdit(0, func(g *types.GlobalSecondaryIndex) {
				for i := 2; i < 100; i++ {
					g.Projection.NonKeyAttributes = append(g.Projection.NonKeyAttributes, fmt.Sprintf("a%d", 100+i))
				}
			})),
		bad("projected-101-undefined-key", vErr, gsis(1, 101, "a"), noDefG),
		bad("projected-then-undefined-key", vErr, gsis(3, 51, "a"), gsiEdit(1, func(g *types.GlobalSecondaryIndex) { g.KeySchema = keySchema("zz", "") })),
		bad("projected-undefined-key-first", vErr, gsis(2, 51, "a"), noDefG),
		bad("projected-then-no-projection", vErr, gsis(3, 51, "a"), gsiEdit(2, func(g *types.GlobalSecondaryIndex) { g.Projection = nil })),
		bad("projected-provisioned", vErr, gsis(2, 51, "a"), provisioned),
		bad("undefined-key-no-projection", vErr, gsis(1, 0, ""), noDefG, gsiEdit(0, func(g *types.GlobalSecondaryIndex) { g.Projection = nil })),
		bad("gsi-no-throughput-undefined-key", vErr, gsis(1, 0, ""), noDefG, provisioned),
		bad("gsi-no-throughput-no-projection", vErr, gsis(1, 0, ""), provisioned, gsiEdit(0, func(g *types.GlobalSecondaryIndex) { g.Projection = nil })),
		bad("gsi-no-throughput-table-none", vErr, gsis(2, 0, ""), provisioned, edit(func(in *dynamodb.CreateTableInput) { in.ProvisionedThroughput = nil })),
		bad("gsi-throughput-40001", vErr, gsis(1, 0, ""), provisioned, gsiEdit(0, func(g *types.GlobalSecondaryIndex) { g.ProvisionedThroughput = units(40001, 1) })),
		bad("gsi-throughput-0", vErr, gsis(1, 0, ""), provisioned, gsiEdit(0, func(g *types.GlobalSecondaryIndex) { g.ProvisionedThroughput = units(0, 1) })),
		bad("throughput-40001", vErr, provisioned, edit(func(in *dynamodb.CreateTableInput) { in.ProvisionedThroughput = units(1, 40001) })),
		good("throughput-40000", provisioned, edit(func(in *dynamodb.CreateTableInput) { in.ProvisionedThroughput = units(40000, 40000) })),
		bad("attr-name-256", vErr, edit(func(in *dynamodb.CreateTableInput) { addDef(in, long, tS) })),
		bad("attr-name-empty", vErr, edit(func(in *dynamodb.CreateTableInput) { addDef(in, "", tS) })),
		bad("attr-name-256-then-bad-type", vErr, edit(func(in *dynamodb.CreateTableInput) {
			in.AttributeDefinitions = append([]types.AttributeDefinition{{AttributeName: str(long), AttributeType: tS}}, in.AttributeDefinitions...)
			in.AttributeDefinitions[1].AttributeType = "X"
		})),
		bad("attr-bad-type-then-name-256", vErr, edit(func(in *dynamodb.CreateTableInput) {
			in.AttributeDefinitions[0].AttributeType = "X"
			addDef(in, long, tS)
		})),
		good("key-name-255", edit(func(in *dynamodb.CreateTableInput) {
			name := strings.Repeat("k", 255)
			in.KeySchema[1].AttributeName = str(name)
			in.AttributeDefinitions[1].AttributeName = str(name)
		})),
		bad("key-name-256", vErr, edit(func(in *dynamodb.CreateTableInput) {
			in.KeySchema[1].AttributeName = str(long)
			in.AttributeDefinitions[1].AttributeName = str(long)
		})),
		bad("gsi-key-name-256", vErr, gsis(1, 0, ""), edit(func(in *dynamodb.CreateTableInput) {
			in.GlobalSecondaryIndexes[0].KeySchema = keySchema(long, "")
			addDef(in, long, tS)
		})),
		bad("projected-name-256", vErr, gsis(1, 1, "a"), gsiEdit(0, func(g *types.GlobalSecondaryIndex) { g.Projection.NonKeyAttributes = []string{long} })),
		bad("projected-name-empty", vErr, gsis(1, 1, "a"), gsiEdit(0, func(g *types.GlobalSecondaryIndex) { g.Projection.NonKeyAttributes = []string{""} })),
		tc("limits/put-attr-name-256", with(fixH(), st("", func(n namer) any { return putIn(n, it("pk", S("x"), long, S("v"))) }))...),
	}
}

func updateTableLimitCases() []tcase {
	// Table "p": provisioned, 5 units, with a GSI "gix" of 5 units on g.
	fixP := []step{ok(func(n namer) any {
		in := createIn(n, "p", "pk", tS, "", "", gsis(1, 0, ""), provisioned)
		in.GlobalSecondaryIndexes[0].IndexName = str("gix")
		in.GlobalSecondaryIndexes[0].ProvisionedThroughput = units(5, 5)
		return in
	})}
	upd := func(name, want string, f func(in *dynamodb.UpdateTableInput)) tcase {
		return tc("limits/update-table-"+name, with(fixP, st(want, func(n namer) any {
			in := &dynamodb.UpdateTableInput{TableName: str(n.T("p"))}
			f(in)
			return in
		}))...)
	}
	create := func(name string) types.GlobalSecondaryIndexUpdate {
		return types.GlobalSecondaryIndexUpdate{Create: &types.CreateGlobalSecondaryIndexAction{
			IndexName: str(name), KeySchema: keySchema("g", ""), Projection: projection(types.ProjectionTypeAll), ProvisionedThroughput: units(1, 1)}}
	}
	del := func(name string) types.GlobalSecondaryIndexUpdate {
		return types.GlobalSecondaryIndexUpdate{Delete: &types.DeleteGlobalSecondaryIndexAction{IndexName: str(name)}}
	}
	update := func(name string, tp *types.ProvisionedThroughput) types.GlobalSecondaryIndexUpdate {
		return types.GlobalSecondaryIndexUpdate{Update: &types.UpdateGlobalSecondaryIndexAction{IndexName: str(name), ProvisionedThroughput: tp}}
	}
	defG := []types.AttributeDefinition{{AttributeName: str("g"), AttributeType: tS}}
	ups := func(defs bool, u ...types.GlobalSecondaryIndexUpdate) func(in *dynamodb.UpdateTableInput) {
		return func(in *dynamodb.UpdateTableInput) {
			in.GlobalSecondaryIndexUpdates = u
			if defs {
				in.AttributeDefinitions = defG
			}
		}
	}
	tp := func(p *types.ProvisionedThroughput) func(in *dynamodb.UpdateTableInput) {
		return func(in *dynamodb.UpdateTableInput) { in.ProvisionedThroughput = p }
	}
	both := func(fs ...func(in *dynamodb.UpdateTableInput)) func(in *dynamodb.UpdateTableInput) {
		return func(in *dynamodb.UpdateTableInput) {
			for _, f := range fs {
				f(in)
			}
		}
	}
	cs := []tcase{
		upd("throughput-0", vErr, tp(units(0, 5))),
		upd("throughput-negative", vErr, tp(units(-1, 5))),
		upd("throughput-write-0", vErr, tp(units(5, 0))),
		upd("throughput-40001", vErr, tp(units(40001, 5))),
		upd("throughput-huge", vErr, tp(units(100000000000000, 5))),
		upd("throughput-read-only", vErr, tp(&types.ProvisionedThroughput{ReadCapacityUnits: aws.Int64(5)})),
		upd("throughput-empty", vErr, tp(&types.ProvisionedThroughput{})),
		upd("throughput-unchanged", vErr, tp(units(5, 5))),
		upd("throughput-unchanged-and-protection", vErr, both(tp(units(5, 5)), func(in *dynamodb.UpdateTableInput) { in.DeletionProtectionEnabled = aws.Bool(false) })),
		upd("gsi-throughput-unchanged", vErr, ups(false, update("gix", units(5, 5)))),
		tc("limits/update-table-throughput-40000", with(fixP, ok(func(n namer) any {
			return &dynamodb.UpdateTableInput{TableName: str(n.T("p")), ProvisionedThroughput: units(40000, 6)}
		}), describe("p"))...),
		tc("limits/update-table-gsi-throughput-40000", with(fixP, ok(func(n namer) any {
			return &dynamodb.UpdateTableInput{TableName: str(n.T("p")), GlobalSecondaryIndexUpdates: []types.GlobalSecondaryIndexUpdate{update("gix", units(6, 40000))}}
		}), describe("p"))...),
		upd("gsi-update-missing", vErr, ups(false, update("nox", units(3, 3)))),
		upd("gsi-update-missing-throughput-0", vErr, ups(false, update("nox", units(0, 3)))),
		upd("gsi-update-no-throughput", vErr, ups(false, update("gix", nil))),
		upd("gsi-update-missing-no-throughput", vErr, ups(false, update("nox", nil))),
		upd("gsi-delete-missing-then-empty", rnf, ups(false, del("nox"), types.GlobalSecondaryIndexUpdate{})),
		upd("gsi-update-then-empty", vErr, ups(false, update("gix", units(3, 3)), types.GlobalSecondaryIndexUpdate{})),
		upd("gsi-create-key-name-256", vErr, func(in *dynamodb.UpdateTableInput) {
			long := strings.Repeat("h", 256)
			in.AttributeDefinitions = []types.AttributeDefinition{{AttributeName: str(long), AttributeType: tS}}
			in.GlobalSecondaryIndexUpdates = []types.GlobalSecondaryIndexUpdate{{Create: &types.CreateGlobalSecondaryIndexAction{
				IndexName: str("gi5"), KeySchema: keySchema(long, ""), Projection: projection(types.ProjectionTypeAll), ProvisionedThroughput: units(1, 1)}}}
		}),
		upd("gsi-create-projected-name-256", vErr, func(in *dynamodb.UpdateTableInput) {
			in.AttributeDefinitions = defG
			in.GlobalSecondaryIndexUpdates = []types.GlobalSecondaryIndexUpdate{{Create: &types.CreateGlobalSecondaryIndexAction{
				IndexName: str("gi5"), KeySchema: keySchema("g", ""), Projection: projection(types.ProjectionTypeInclude, strings.Repeat("h", 256)), ProvisionedThroughput: units(1, 1)}}}
		}),
		upd("unused-attr-name-256", "", func(in *dynamodb.UpdateTableInput) {
			in.AttributeDefinitions = []types.AttributeDefinition{{AttributeName: str(strings.Repeat("h", 256)), AttributeType: tS}}
			in.DeletionProtectionEnabled = aws.Bool(false)
		}),
		upd("gsi-throughput-0", vErr, ups(false, update("gix", units(0, 5)))),
		upd("gsi-throughput-negative", vErr, ups(false, update("gix", units(-1, 5)))),
		upd("gsi-throughput-huge", vErr, ups(false, update("gix", units(100000000000000, 5)))),
		upd("gsi-throughput-read-only", vErr, ups(false, update("gix", &types.ProvisionedThroughput{ReadCapacityUnits: aws.Int64(5)}))),
		upd("gsi-empty-update", vErr, ups(false, types.GlobalSecondaryIndexUpdate{})),
		upd("gsi-empty-update-first", vErr, ups(true, types.GlobalSecondaryIndexUpdate{}, create("gi2"))),
		upd("gsi-empty-update-after-create", vErr, ups(true, create("gi2"), types.GlobalSecondaryIndexUpdate{})),
		upd("gsi-empty-update-after-existing", vErr, ups(true, create("gix"), types.GlobalSecondaryIndexUpdate{})),
		upd("gsi-empty-update-throughput-0", vErr, both(tp(units(0, 5)), ups(false, types.GlobalSecondaryIndexUpdate{}))),
		upd("gsi-two-creates", limitExc, ups(true, create("gi2"), create("gi3"))),
		upd("gsi-two-creates-bad", limitExc, ups(false, create("x"), create("y"))),
		upd("gsi-create-and-delete", limitExc, ups(true, create("gi2"), del("gix"))),
		upd("gsi-two-deletes-missing", limitExc, ups(false, del("nox"), del("noy"))),
		upd("gsi-two-deletes-same", vErr, ups(false, del("gix"), del("gix"))),
		upd("gsi-two-creates-empty", limitExc, ups(true, create("gi2"), create("gi3"), types.GlobalSecondaryIndexUpdate{})),
		upd("gsi-same-create-twice-and-delete", vErr, ups(true, create("gi2"), create("gi2"), del("gix"))),
		upd("gsi-create-and-update-same", vErr, ups(true, create("gix"), update("gix", units(3, 3)))),
		upd("gsi-two-creates-throughput-0", limitExc, both(tp(units(0, 5)), ups(true, create("gi2"), create("gi3")))),
		upd("gsi-update-0-two-deletes", limitExc, ups(false, update("gix", units(0, 3)), del("nox"), del("noy"))),
	}
	// 20 GSIs, then a 21st.
	cs = append(cs, tc("limits/update-table-21st-gsi",
		ok(func(n namer) any { return createIn(n, "t", "pk", tS, "sk", tS, gsis(20, 0, "")) }),
		st(limitExc, func(n namer) any {
			return &dynamodb.UpdateTableInput{TableName: str(n.T("t")), AttributeDefinitions: []types.AttributeDefinition{{AttributeName: str("h"), AttributeType: tS}},
				GlobalSecondaryIndexUpdates: []types.GlobalSecondaryIndexUpdate{{Create: &types.CreateGlobalSecondaryIndexAction{
					IndexName: str("gix20"), KeySchema: keySchema("h", ""), Projection: projection(types.ProjectionTypeKeysOnly)}}}}
		})))
	list := func(name string, f func(in *dynamodb.ListTablesInput)) tcase {
		return tc("limits/list-tables-"+name, st(vErr, func(n namer) any {
			in := &dynamodb.ListTablesInput{}
			f(in)
			return in
		}))
	}
	cs = append(cs,
		list("start-2", func(in *dynamodb.ListTablesInput) { in.ExclusiveStartTableName = str("ab") }),
		list("start-empty", func(in *dynamodb.ListTablesInput) { in.ExclusiveStartTableName = str("") }),
		list("start-256", func(in *dynamodb.ListTablesInput) { in.ExclusiveStartTableName = str(strings.Repeat("t", 256)) }),
		list("start-bad-chars", func(in *dynamodb.ListTablesInput) { in.ExclusiveStartTableName = str("a b!") }),
		list("limit-0-start-2", func(in *dynamodb.ListTablesInput) { in.Limit = aws.Int32(0); in.ExclusiveStartTableName = str("ab") }),
		list("limit-101-start-2", func(in *dynamodb.ListTablesInput) { in.Limit = aws.Int32(101); in.ExclusiveStartTableName = str("ab") }),
	)
	return cs
}

func orderCases() []tcase {
	// Table "k": hash pk (S), range sk (S), one item.
	fixK := []step{create("k", "pk", tS, "sk", tS), put("k", it("pk", S("a"), "sk", S("b"), "m", M("x", S("1"))))}
	key := it("pk", S("a"), "sk", S("b"))
	k := func(name, want string, f func(n namer) any) tcase {
		return tc("limits/key-path-"+name, with(fixK, st(want, f))...)
	}
	vals := func(kv ...any) map[string]types.AttributeValue { return it(kv...) }
	cs := []tcase{
		k("query-key-condition", vErr, func(n namer) any {
			return &dynamodb.QueryInput{TableName: str(n.T("k")), KeyConditionExpression: str("pk.x = :v"), ExpressionAttributeValues: vals(":v", S("a"))}
		}),
		k("get-projection", vErr, func(n namer) any {
			return &dynamodb.GetItemInput{TableName: str(n.T("k")), Key: key, ProjectionExpression: str("pk.x")}
		}),
		k("get-projection-name", vErr, func(n namer) any {
			return &dynamodb.GetItemInput{TableName: str(n.T("k")), Key: key, ProjectionExpression: str("#p[0]"), ExpressionAttributeNames: names("#p", "sk")}
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
			return &dynamodb.PutItemInput{TableName: str(n.T("k")), Item: key, ConditionExpression: str("attribute_not_exists(pk.x)")}
		}),
		k("update-condition", vErr, func(n namer) any {
			return &dynamodb.UpdateItemInput{TableName: str(n.T("k")), Key: key, UpdateExpression: str("SET z = :v"),
				ConditionExpression: str("pk.x = :v"), ExpressionAttributeValues: vals(":v", S("a"))}
		}),
		k("delete-condition", vErr, func(n namer) any {
			return &dynamodb.DeleteItemInput{TableName: str(n.T("k")), Key: it("pk", S("q"), "sk", S("b")),
				ConditionExpression: str("size(sk[1]) > :n"), ExpressionAttributeValues: vals(":n", N("1"))}
		}),
		k("update-set-target", vErr, func(n namer) any {
			return &dynamodb.UpdateItemInput{TableName: str(n.T("k")), Key: key, UpdateExpression: str("SET pk.x = :v"), ExpressionAttributeValues: vals(":v", S("a"))}
		}),
		k("update-remove-target", vErr, func(n namer) any {
			return &dynamodb.UpdateItemInput{TableName: str(n.T("k")), Key: key, UpdateExpression: str("REMOVE sk[0]")}
		}),
		k("update-operand", vErr, func(n namer) any {
			return &dynamodb.UpdateItemInput{TableName: str(n.T("k")), Key: key, UpdateExpression: str("SET z = pk.x")}
		}),
	}
	cs = append(cs,
		k("txn-put-condition", vErr, func(n namer) any {
			return &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{{Put: &types.Put{
				TableName: str(n.T("k")), Item: key, ConditionExpression: str("attribute_exists(pk.x)")}}}}
		}),
		k("txn-condition-check", txCanc, func(n namer) any {
			return &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{{ConditionCheck: &types.ConditionCheck{
				TableName: str(n.T("k")), Key: key, ConditionExpression: str("attribute_exists(pk.x)")}}}}
		}),
		k("txn-update-operand", vErr, func(n namer) any {
			return &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{{Update: &types.Update{
				TableName: str(n.T("k")), Key: key, UpdateExpression: str("SET z = pk.x")}}}}
		}),
		k("txn-get-projection", vErr, func(n namer) any {
			return &dynamodb.TransactGetItemsInput{TransactItems: []types.TransactGetItem{{Get: &types.Get{
				TableName: str(n.T("k")), Key: key, ProjectionExpression: str("pk.x")}}}}
		}),
		k("batch-get-projection", vErr, func(n namer) any {
			return &dynamodb.BatchGetItemInput{RequestItems: map[string]types.KeysAndAttributes{
				n.T("k"): {Keys: []item{key}, ProjectionExpression: str("pk.x")}}}
		}),
	)
	// Names or values without an expression, before the item or the key.
	w := func(name string, f func(n namer) any) tcase {
		return tc("limits/write-order-"+name, with(fixK, st(vErr, f))...)
	}
	cs = append(cs,
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
		w("put-values-null-item", func(n namer) any {
			return &dynamodb.PutItemInput{TableName: str(n.T("k")), ExpressionAttributeValues: vals(":a", S("x"))}
		}),
		w("put-values-nesting", func(n namer) any {
			return &dynamodb.PutItemInput{TableName: str(n.T("k")), Item: it("pk", S("a"), "sk", S("b"), "v", nest(32, false, S("x"))),
				ExpressionAttributeValues: vals(":a", S("x"))}
		}),
	)
	get := func(name string, f func(in *dynamodb.GetItemInput)) tcase {
		return tc("limits/get-order-"+name, with(fixK, st(vErr, func(n namer) any {
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
		tc("limits/ttl-enable-other", with(fixK, enable, ttl("ttl2", true))...),
		tc("limits/ttl-enable-same", with(fixK, enable, ttl("ttl", true))...),
		tc("limits/ttl-disable-other", with(fixK, enable, ttl("ttl2", false))...),
		tc("limits/ttl-name-empty", with(fixK, ttl("", true))...),
		tc("limits/ttl-name-256", with(fixK, enable, ttl(strings.Repeat("a", 256), true))...),
	)
	// Filters with several faults.
	f := func(name, filter string, nm map[string]string, vs item) tcase {
		return tc("limits/filter-order-"+name, with(fixK, st(vErr, func(n namer) any {
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
