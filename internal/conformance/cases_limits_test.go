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
	cs = append(cs, tableQuotaCases()...)
	cs = append(cs, attrNameCases()...)
	cs = append(cs, orderCases()...)
	cs = append(cs, txnLimitCases()...)
	cs = append(cs, tagCases()...)
	return cs
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
	}
}

// fixP is table "p": provisioned, 5 units, with a GSI "gix" of 5 units
// on g.
func fixP() []step {
	return []step{ok(func(n namer) any {
		in := createIn(n, "p", "pk", tS, "", "", gsis(1, 0, ""), provisioned)
		in.GlobalSecondaryIndexes[0].IndexName = str("gix")
		in.GlobalSecondaryIndexes[0].ProvisionedThroughput = units(5, 5)
		return in
	})}
}

type tableUpdate = func(in *dynamodb.UpdateTableInput)

// upd is a case of one UpdateTable of table "p".
func upd(name, want string, f tableUpdate) tcase {
	return tc("limits/update-table-"+name, with(fixP(), st(want, func(n namer) any {
		in := &dynamodb.UpdateTableInput{TableName: str(n.T("p"))}
		f(in)
		return in
	}))...)
}

func gsiCreate(name string) types.GlobalSecondaryIndexUpdate {
	return types.GlobalSecondaryIndexUpdate{Create: &types.CreateGlobalSecondaryIndexAction{
		IndexName: str(name), KeySchema: keySchema("g", ""), Projection: projection(types.ProjectionTypeAll), ProvisionedThroughput: units(1, 1)}}
}

func gsiDelete(name string) types.GlobalSecondaryIndexUpdate {
	return types.GlobalSecondaryIndexUpdate{Delete: &types.DeleteGlobalSecondaryIndexAction{IndexName: str(name)}}
}

func gsiUpdate(name string, tp *types.ProvisionedThroughput) types.GlobalSecondaryIndexUpdate {
	return types.GlobalSecondaryIndexUpdate{Update: &types.UpdateGlobalSecondaryIndexAction{IndexName: str(name), ProvisionedThroughput: tp}}
}

var defG = []types.AttributeDefinition{{AttributeName: str("g"), AttributeType: tS}}

// gsiUpdates sets GlobalSecondaryIndexUpdates, and with defs the
// definition of g.
func gsiUpdates(defs bool, u ...types.GlobalSecondaryIndexUpdate) tableUpdate {
	return func(in *dynamodb.UpdateTableInput) {
		in.GlobalSecondaryIndexUpdates = u
		if defs {
			in.AttributeDefinitions = defG
		}
	}
}

func tableUnits(p *types.ProvisionedThroughput) tableUpdate {
	return func(in *dynamodb.UpdateTableInput) { in.ProvisionedThroughput = p }
}

func both(fs ...tableUpdate) tableUpdate {
	return func(in *dynamodb.UpdateTableInput) {
		for _, f := range fs {
			f(in)
		}
	}
}

// updateTableLimitCases: UpdateTable's throughput and its
// GlobalSecondaryIndexUpdates.
func updateTableLimitCases() []tcase {
	return append(throughputCases(), gsiUpdateCases()...)
}

func throughputCases() []tcase {
	return []tcase{
		upd("throughput-0", vErr, tableUnits(units(0, 5))),
		upd("throughput-negative", vErr, tableUnits(units(-1, 5))),
		upd("throughput-write-0", vErr, tableUnits(units(5, 0))),
		upd("throughput-40001", vErr, tableUnits(units(40001, 5))),
		upd("throughput-huge", vErr, tableUnits(units(100000000000000, 5))),
		upd("throughput-read-only", vErr, tableUnits(&types.ProvisionedThroughput{ReadCapacityUnits: aws.Int64(5)})),
		upd("throughput-empty", vErr, tableUnits(&types.ProvisionedThroughput{})),
		upd("throughput-unchanged", vErr, tableUnits(units(5, 5))),
		upd("throughput-unchanged-and-protection", vErr, both(tableUnits(units(5, 5)), func(in *dynamodb.UpdateTableInput) { in.DeletionProtectionEnabled = aws.Bool(false) })),
		upd("gsi-throughput-unchanged", vErr, gsiUpdates(false, gsiUpdate("gix", units(5, 5)))),
		tc("limits/update-table-throughput-40000", with(fixP(), ok(func(n namer) any {
			return &dynamodb.UpdateTableInput{TableName: str(n.T("p")), ProvisionedThroughput: units(40000, 6)}
		}), describe("p"))...),
		tc("limits/update-table-gsi-throughput-40000", with(fixP(), ok(func(n namer) any {
			return &dynamodb.UpdateTableInput{TableName: str(n.T("p")), GlobalSecondaryIndexUpdates: []types.GlobalSecondaryIndexUpdate{gsiUpdate("gix", units(6, 40000))}}
		}), describe("p"))...),
	}
}

func gsiUpdateCases() []tcase {
	return []tcase{
		upd("gsi-update-missing", vErr, gsiUpdates(false, gsiUpdate("nox", units(3, 3)))),
		upd("gsi-update-missing-throughput-0", vErr, gsiUpdates(false, gsiUpdate("nox", units(0, 3)))),
		upd("gsi-update-no-throughput", vErr, gsiUpdates(false, gsiUpdate("gix", nil))),
		upd("gsi-update-missing-no-throughput", vErr, gsiUpdates(false, gsiUpdate("nox", nil))),
		upd("gsi-delete-missing-then-empty", rnf, gsiUpdates(false, gsiDelete("nox"), types.GlobalSecondaryIndexUpdate{})),
		upd("gsi-update-then-empty", vErr, gsiUpdates(false, gsiUpdate("gix", units(3, 3)), types.GlobalSecondaryIndexUpdate{})),
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
		upd("gsi-throughput-0", vErr, gsiUpdates(false, gsiUpdate("gix", units(0, 5)))),
		upd("gsi-throughput-negative", vErr, gsiUpdates(false, gsiUpdate("gix", units(-1, 5)))),
		upd("gsi-throughput-huge", vErr, gsiUpdates(false, gsiUpdate("gix", units(100000000000000, 5)))),
		upd("gsi-throughput-read-only", vErr, gsiUpdates(false, gsiUpdate("gix", &types.ProvisionedThroughput{ReadCapacityUnits: aws.Int64(5)}))),
		upd("gsi-empty-update", vErr, gsiUpdates(false, types.GlobalSecondaryIndexUpdate{})),
		upd("gsi-empty-update-first", vErr, gsiUpdates(true, types.GlobalSecondaryIndexUpdate{}, gsiCreate("gi2"))),
		upd("gsi-empty-update-after-create", vErr, gsiUpdates(true, gsiCreate("gi2"), types.GlobalSecondaryIndexUpdate{})),
		upd("gsi-empty-update-after-existing", vErr, gsiUpdates(true, gsiCreate("gix"), types.GlobalSecondaryIndexUpdate{})),
		upd("gsi-empty-update-throughput-0", vErr, both(tableUnits(units(0, 5)), gsiUpdates(false, types.GlobalSecondaryIndexUpdate{}))),
		upd("gsi-two-creates", limitExc, gsiUpdates(true, gsiCreate("gi2"), gsiCreate("gi3"))),
		upd("gsi-two-creates-bad", limitExc, gsiUpdates(false, gsiCreate("x"), gsiCreate("y"))),
		upd("gsi-create-and-delete", limitExc, gsiUpdates(true, gsiCreate("gi2"), gsiDelete("gix"))),
		upd("gsi-two-deletes-missing", limitExc, gsiUpdates(false, gsiDelete("nox"), gsiDelete("noy"))),
		upd("gsi-two-deletes-same", vErr, gsiUpdates(false, gsiDelete("gix"), gsiDelete("gix"))),
		upd("gsi-two-creates-empty", limitExc, gsiUpdates(true, gsiCreate("gi2"), gsiCreate("gi3"), types.GlobalSecondaryIndexUpdate{})),
		upd("gsi-same-create-twice-and-delete", vErr, gsiUpdates(true, gsiCreate("gi2"), gsiCreate("gi2"), gsiDelete("gix"))),
		upd("gsi-create-and-update-same", vErr, gsiUpdates(true, gsiCreate("gix"), gsiUpdate("gix", units(3, 3)))),
		upd("gsi-two-creates-throughput-0", limitExc, both(tableUnits(units(0, 5)), gsiUpdates(true, gsiCreate("gi2"), gsiCreate("gi3")))),
		upd("gsi-update-0-two-deletes", limitExc, gsiUpdates(false, gsiUpdate("gix", units(0, 3)), gsiDelete("nox"), gsiDelete("noy"))),
	}
}

// tableQuotaCases: a 21st GSI by UpdateTable, and ListTables' ExclusiveStartTableName.
func tableQuotaCases() []tcase {
	// 20 GSIs, then a 21st.
	cs := []tcase{tc("limits/update-table-21st-gsi",
		ok(func(n namer) any { return createIn(n, "t", "pk", tS, "sk", tS, gsis(20, 0, "")) }),
		st(limitExc, func(n namer) any {
			return &dynamodb.UpdateTableInput{TableName: str(n.T("t")), AttributeDefinitions: []types.AttributeDefinition{{AttributeName: str("h"), AttributeType: tS}},
				GlobalSecondaryIndexUpdates: []types.GlobalSecondaryIndexUpdate{{Create: &types.CreateGlobalSecondaryIndexAction{
					IndexName: str("gix20"), KeySchema: keySchema("h", ""), Projection: projection(types.ProjectionTypeKeysOnly)}}}}
		}))}
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

// attrNameCases: attribute names of 1 to 255 characters where a table or
// an index names them; an item's attribute names may be longer.
func attrNameCases() []tcase {
	bad := func(name, want string, mods ...tableMod) tcase {
		return tc("limits/create-"+name, st(want, func(n namer) any { return createIn(n, "t", "pk", tS, "sk", tS, mods...) }))
	}
	good := func(name string, mods ...tableMod) tcase {
		return tc("limits/create-"+name, ok(func(n namer) any { return createIn(n, "t", "pk", tS, "sk", tS, mods...) }), describe("t"))
	}
	edit := func(f func(in *dynamodb.CreateTableInput)) tableMod { return f }
	gsiEdit := func(i int, f func(g *types.GlobalSecondaryIndex)) tableMod {
		return func(in *dynamodb.CreateTableInput) { f(&in.GlobalSecondaryIndexes[i]) }
	}
	long := strings.Repeat("k", 256)
	return []tcase{
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
