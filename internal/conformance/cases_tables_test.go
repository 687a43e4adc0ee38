//go:build conformance

package conformance

import (
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// catalogue returns every named case.
func catalogue() []tcase {
	var all []tcase
	for _, part := range [][]tcase{tableCases(), itemCases(), updateCases(), readCases(), batchCases(), txnCases(), validationCases(), legacyCases(), limitCases(), rawCases(), docsetCases()} {
		all = append(all, part...)
	}
	return all
}

// describe is a DescribeTable once the table and its indexes are settled
// (no index CREATING, UPDATING or DELETING, none backfilling), since both
// sides take their own time.
func describe(tn string) step {
	s := ok(func(n namer) any { return &dynamodb.DescribeTableInput{TableName: str(n.T(tn))} })
	s.until = func(a answer) bool {
		j := compact(a.out)
		return !strings.Contains(j, `"Backfilling":true`) && !strings.Contains(j, `"CREATING"`) &&
			!strings.Contains(j, `"UPDATING"`) && !strings.Contains(j, `"DELETING"`)
	}
	return s
}

// tableCases: CreateTable, DescribeTable, UpdateTable, DeleteTable,
// ListTables, UpdateTimeToLive, DescribeTimeToLive.
func tableCases() []tcase {
	badCreate := func(name string, f func(in *dynamodb.CreateTableInput)) tcase {
		return tc("table/create-invalid/"+name, st(vErr, func(n namer) any {
			in := createIn(n, "t", "pk", tS, "sk", tN)
			f(in)
			return in
		}))
	}
	var cs []tcase
	for _, kt := range []types.ScalarAttributeType{tS, tN, tB} {
		cs = append(cs,
			tc("table/create-hash-"+string(kt), create("t", "pk", kt, "", ""), describe("t")),
			tc("table/create-range-"+string(kt), create("t", "pk", tS, "sk", kt), describe("t")),
		)
	}
	cs = append(cs,
		tc("table/create-gsi-lsi", with(fixR(), describe("r"))...),
		tc("table/create-provisioned", ok(func(n namer) any {
			in := createIn(n, "t", "pk", tS, "", "")
			in.BillingMode = types.BillingModeProvisioned
			in.ProvisionedThroughput = &types.ProvisionedThroughput{ReadCapacityUnits: aws.Int64(5), WriteCapacityUnits: aws.Int64(7)}
			return in
		}), describe("t")),
		tc("table/create-provisioned-gsi", ok(func(n namer) any {
			in := createIn(n, "t", "pk", tS, "", "", gsi("gx1", "g", tS, "", "", types.ProjectionTypeAll))
			in.BillingMode = ""
			in.ProvisionedThroughput = &types.ProvisionedThroughput{ReadCapacityUnits: aws.Int64(1), WriteCapacityUnits: aws.Int64(1)}
			in.GlobalSecondaryIndexes[0].ProvisionedThroughput = &types.ProvisionedThroughput{ReadCapacityUnits: aws.Int64(2), WriteCapacityUnits: aws.Int64(3)}
			return in
		}), describe("t")),
		tc("table/create-duplicate", create("t", "pk", tS, "", ""), st(inUse, func(n namer) any { return createIn(n, "t", "pk", tS, "", "") })),
		tc("table/describe-missing", st(rnf, func(n namer) any { return &dynamodb.DescribeTableInput{TableName: str(n.T("nope"))} })),
		tc("table/delete", create("t", "pk", tS, "", ""),
			ok(func(n namer) any { return &dynamodb.DeleteTableInput{TableName: str(n.T("t"))} }),
			st(rnf, func(n namer) any { return &dynamodb.DescribeTableInput{TableName: str(n.T("t"))} }),
			st(rnf, func(n namer) any { return &dynamodb.GetItemInput{TableName: str(n.T("t")), Key: it("pk", S("a"))} })),
		tc("table/delete-missing", st(rnf, func(n namer) any { return &dynamodb.DeleteTableInput{TableName: str(n.T("nope"))} })),
		tc("table/delete-with-items", with(fixH(), ok(func(n namer) any { return &dynamodb.DeleteTableInput{TableName: str(n.T("h"))} }))...),
		tc("table/list", create("t1", "pk", tS, "", ""), create("t2", "pk", tN, "", ""),
			ok(func(n namer) any { return &dynamodb.ListTablesInput{} })),
		tc("table/list-limit-invalid", st(vErr, func(n namer) any { return &dynamodb.ListTablesInput{Limit: aws.Int32(0)} })),
		tc("table/list-limit-101", st(vErr, func(n namer) any { return &dynamodb.ListTablesInput{Limit: aws.Int32(101)} })),
		tc("table/name-too-short", st(vErr, func(n namer) any {
			in := createIn(n, "t", "pk", tS, "", "")
			in.TableName = str("ab")
			return in
		})),
		tc("table/name-bad-char", st(vErr, func(n namer) any {
			in := createIn(n, "t", "pk", tS, "", "")
			in.TableName = str("a b c")
			return in
		})),
		tc("table/name-too-long", st(vErr, func(n namer) any {
			in := createIn(n, "t", "pk", tS, "", "")
			in.TableName = str(strings.Repeat("x", 256))
			return in
		})),
		tc("table/get-bad-name", st(vErr, func(n namer) any { return &dynamodb.GetItemInput{TableName: str("a"), Key: it("pk", S("a"))} })),
		tc("table/name-255", ok(func(n namer) any { return createIn(n, strings.Repeat("x", 255-len(n.prefix)), "pk", tS, "", "") })),
		badCreate("key-attr-undefined", func(in *dynamodb.CreateTableInput) { in.AttributeDefinitions = in.AttributeDefinitions[:1] }),
		badCreate("extra-attr-def", func(in *dynamodb.CreateTableInput) {
			in.AttributeDefinitions = append(in.AttributeDefinitions, types.AttributeDefinition{AttributeName: str("x"), AttributeType: tS})
		}),
		badCreate("bool-key", func(in *dynamodb.CreateTableInput) { in.AttributeDefinitions[0].AttributeType = "BOOL" }),
		badCreate("two-hash", func(in *dynamodb.CreateTableInput) { in.KeySchema[1].KeyType = types.KeyTypeHash }),
		badCreate("range-first", func(in *dynamodb.CreateTableInput) {
			in.KeySchema[0], in.KeySchema[1] = in.KeySchema[1], in.KeySchema[0]
		}),
		badCreate("three-keys", func(in *dynamodb.CreateTableInput) {
			in.KeySchema = append(in.KeySchema, types.KeySchemaElement{AttributeName: str("z"), KeyType: types.KeyTypeRange})
			in.AttributeDefinitions = append(in.AttributeDefinitions, types.AttributeDefinition{AttributeName: str("z"), AttributeType: tS})
		}),
		badCreate("same-attr-hash-range", func(in *dynamodb.CreateTableInput) { in.KeySchema[1].AttributeName = str("pk") }),
		badCreate("dup-attr-def", func(in *dynamodb.CreateTableInput) {
			in.AttributeDefinitions = append(in.AttributeDefinitions, types.AttributeDefinition{AttributeName: str("pk"), AttributeType: tN})
		}),
		// DynamoDB documents a ValidationException here; DynamoDB Local
		// accepts it.
		tc("table/create-ppr-with-throughput", ok(func(n namer) any {
			in := createIn(n, "t", "pk", tS, "", "")
			in.ProvisionedThroughput = &types.ProvisionedThroughput{ReadCapacityUnits: aws.Int64(1), WriteCapacityUnits: aws.Int64(1)}
			return in
		}), describe("t")),
		badCreate("provisioned-without-throughput", func(in *dynamodb.CreateTableInput) { in.BillingMode = types.BillingModeProvisioned }),
		badCreate("throughput-zero", func(in *dynamodb.CreateTableInput) {
			in.BillingMode = types.BillingModeProvisioned
			in.ProvisionedThroughput = &types.ProvisionedThroughput{ReadCapacityUnits: aws.Int64(0), WriteCapacityUnits: aws.Int64(1)}
		}),
		badCreate("lsi-on-hash-only", func(in *dynamodb.CreateTableInput) {
			in.KeySchema = in.KeySchema[:1]
			in.AttributeDefinitions = in.AttributeDefinitions[:1]
			lsi("lx1", "x", tS, types.ProjectionTypeAll)(in)
		}),
		badCreate("lsi-other-hash", func(in *dynamodb.CreateTableInput) {
			addDef(in, "x", tS)
			in.LocalSecondaryIndexes = []types.LocalSecondaryIndex{{IndexName: str("lx1"), KeySchema: keySchema("x", "sk"), Projection: projection(types.ProjectionTypeAll)}}
		}),
		badCreate("lsi-hash-only", func(in *dynamodb.CreateTableInput) {
			in.LocalSecondaryIndexes = []types.LocalSecondaryIndex{{IndexName: str("lx1"), KeySchema: keySchema("pk", ""), Projection: projection(types.ProjectionTypeAll)}}
		}),
		badCreate("six-lsi", func(in *dynamodb.CreateTableInput) {
			for _, x := range []string{"a", "b", "c", "d", "e", "f"} {
				lsi("lx"+x, x, tS, types.ProjectionTypeKeysOnly)(in)
			}
		}),
		badCreate("gsi-dup-name", func(in *dynamodb.CreateTableInput) {
			gsi("gx1", "x", tS, "", "", types.ProjectionTypeAll)(in)
			gsi("gx1", "y", tS, "", "", types.ProjectionTypeAll)(in)
		}),
		badCreate("gsi-lsi-same-name", func(in *dynamodb.CreateTableInput) {
			gsi("gx1", "x", tS, "", "", types.ProjectionTypeAll)(in)
			lsi("gx1", "y", tS, types.ProjectionTypeAll)(in)
		}),
		badCreate("include-without-attrs", func(in *dynamodb.CreateTableInput) {
			gsi("gx1", "x", tS, "", "", types.ProjectionTypeInclude)(in)
		}),
		badCreate("keys-only-with-attrs", func(in *dynamodb.CreateTableInput) {
			gsi("gx1", "x", tS, "", "", types.ProjectionTypeKeysOnly, "a")(in)
		}),
		badCreate("gsi-no-projection", func(in *dynamodb.CreateTableInput) {
			gsi("gx1", "x", tS, "", "", types.ProjectionTypeAll)(in)
			in.GlobalSecondaryIndexes[0].Projection = nil
		}),
		badCreate("gsi-key-undefined", func(in *dynamodb.CreateTableInput) {
			in.GlobalSecondaryIndexes = []types.GlobalSecondaryIndex{{IndexName: str("gx1"), KeySchema: keySchema("x", ""), Projection: projection(types.ProjectionTypeAll)}}
		}),
		badCreate("index-name-short", func(in *dynamodb.CreateTableInput) {
			gsi("gx1", "x", tS, "", "", types.ProjectionTypeAll)(in)
			in.GlobalSecondaryIndexes[0].IndexName = str("ab")
		}),
		badCreate("include-dup-attrs", func(in *dynamodb.CreateTableInput) {
			gsi("gx1", "x", tS, "", "", types.ProjectionTypeInclude, "a", "a")(in)
		}),
		tc("table/create-include-key-attr", ok(func(n namer) any {
			return createIn(n, "t", "pk", tS, "sk", tN, gsi("gx1", "x", tS, "", "", types.ProjectionTypeInclude, "pk"))
		}), describe("t")),
		tc("table/gsi-same-keys-as-table", ok(func(n namer) any {
			return createIn(n, "t", "pk", tS, "sk", tN, gsi("gx1", "pk", tS, "sk", tN, types.ProjectionTypeKeysOnly))
		}), describe("t")),
		tc("table/gsi-range-only-hash-of-table", ok(func(n namer) any {
			return createIn(n, "t", "pk", tS, "sk", tN, gsi("gx1", "sk", tN, "pk", tS, types.ProjectionTypeInclude, "x", "y"))
		}), describe("t")),

		// UpdateTable.
		tc("table/update-add-gsi", create("t", "pk", tS, "", ""), putAll("t", it("pk", S("a"), "g", S("x")), it("pk", S("b"))),
			ok(func(n namer) any {
				return &dynamodb.UpdateTableInput{TableName: str(n.T("t")),
					AttributeDefinitions: []types.AttributeDefinition{{AttributeName: str("g"), AttributeType: tS}},
					GlobalSecondaryIndexUpdates: []types.GlobalSecondaryIndexUpdate{{Create: &types.CreateGlobalSecondaryIndexAction{
						IndexName: str("gx1"), KeySchema: keySchema("g", ""), Projection: projection(types.ProjectionTypeAll)}}}}
			}), describe("t")),
		tc("table/update-delete-gsi", with(fixR(),
			ok(func(n namer) any {
				return &dynamodb.UpdateTableInput{TableName: str(n.T("r")),
					GlobalSecondaryIndexUpdates: []types.GlobalSecondaryIndexUpdate{{Delete: &types.DeleteGlobalSecondaryIndexAction{IndexName: str("gKeys")}}}}
			}), describe("r"))...),
		tc("table/update-delete-missing-gsi", with(fixR(),
			st(rnf, func(n namer) any {
				return &dynamodb.UpdateTableInput{TableName: str(n.T("r")),
					GlobalSecondaryIndexUpdates: []types.GlobalSecondaryIndexUpdate{{Delete: &types.DeleteGlobalSecondaryIndexAction{IndexName: str("nope")}}}}
			}))...),
		tc("table/update-add-existing-gsi", with(fixR(),
			st(vErr, func(n namer) any {
				return &dynamodb.UpdateTableInput{TableName: str(n.T("r")),
					AttributeDefinitions: []types.AttributeDefinition{{AttributeName: str("g"), AttributeType: tS}},
					GlobalSecondaryIndexUpdates: []types.GlobalSecondaryIndexUpdate{{Create: &types.CreateGlobalSecondaryIndexAction{
						IndexName: str("gAll"), KeySchema: keySchema("g", ""), Projection: projection(types.ProjectionTypeAll)}}}}
			}))...),
		tc("table/update-add-gsi-undefined-attr", create("t", "pk", tS, "", ""),
			st(vErr, func(n namer) any {
				return &dynamodb.UpdateTableInput{TableName: str(n.T("t")),
					GlobalSecondaryIndexUpdates: []types.GlobalSecondaryIndexUpdate{{Create: &types.CreateGlobalSecondaryIndexAction{
						IndexName: str("gx1"), KeySchema: keySchema("g", ""), Projection: projection(types.ProjectionTypeAll)}}}}
			})),
		tc("table/update-nothing", create("t", "pk", tS, "", ""),
			st(vErr, func(n namer) any { return &dynamodb.UpdateTableInput{TableName: str(n.T("t"))} })),
		tc("table/update-missing-table", st(rnf, func(n namer) any {
			return &dynamodb.UpdateTableInput{TableName: str(n.T("nope")), BillingMode: types.BillingModePayPerRequest}
		})),
		tc("table/update-billing-provisioned", create("t", "pk", tS, "", ""),
			ok(func(n namer) any {
				return &dynamodb.UpdateTableInput{TableName: str(n.T("t")), BillingMode: types.BillingModeProvisioned,
					ProvisionedThroughput: &types.ProvisionedThroughput{ReadCapacityUnits: aws.Int64(3), WriteCapacityUnits: aws.Int64(4)}}
			}), describe("t")),

		// Global tables: DynamoDB Local has no replicas; the engine keeps
		// them (known.go says why), and the library reads them from
		// DescribeTable to refuse what a global table cannot promise.
		tc("table/update-replicas", create("t", "pk", tS, "", ""),
			st(vErr, func(n namer) any {
				return &dynamodb.UpdateTableInput{TableName: str(n.T("t")),
					ReplicaUpdates: []types.ReplicationGroupUpdate{{Create: &types.CreateReplicationGroupMemberAction{RegionName: str("us-west-2")}}}}
			}), describe("t")),

		// Time to live.
		tc("ttl/enable-describe", create("t", "pk", tS, "", ""),
			ok(func(n namer) any { return &dynamodb.DescribeTimeToLiveInput{TableName: str(n.T("t"))} }),
			ok(func(n namer) any {
				return &dynamodb.UpdateTimeToLiveInput{TableName: str(n.T("t")), TimeToLiveSpecification: &types.TimeToLiveSpecification{AttributeName: str("exp"), Enabled: aws.Bool(true)}}
			}),
			ok(func(n namer) any { return &dynamodb.DescribeTimeToLiveInput{TableName: str(n.T("t"))} }),
			st(vErr, func(n namer) any {
				return &dynamodb.UpdateTimeToLiveInput{TableName: str(n.T("t")), TimeToLiveSpecification: &types.TimeToLiveSpecification{AttributeName: str("exp"), Enabled: aws.Bool(true)}}
			}),
			st(vErr, func(n namer) any {
				return &dynamodb.UpdateTimeToLiveInput{TableName: str(n.T("t")), TimeToLiveSpecification: &types.TimeToLiveSpecification{AttributeName: str("other"), Enabled: aws.Bool(false)}}
			}),
			ok(func(n namer) any {
				return &dynamodb.UpdateTimeToLiveInput{TableName: str(n.T("t")), TimeToLiveSpecification: &types.TimeToLiveSpecification{AttributeName: str("exp"), Enabled: aws.Bool(false)}}
			}),
			ok(func(n namer) any { return &dynamodb.DescribeTimeToLiveInput{TableName: str(n.T("t"))} }),
		),
		tc("ttl/disable-when-disabled", create("t", "pk", tS, "", ""),
			st(vErr, func(n namer) any {
				return &dynamodb.UpdateTimeToLiveInput{TableName: str(n.T("t")), TimeToLiveSpecification: &types.TimeToLiveSpecification{AttributeName: str("exp"), Enabled: aws.Bool(false)}}
			})),
		tc("ttl/empty-attr", create("t", "pk", tS, "", ""),
			st(vErr, func(n namer) any {
				return &dynamodb.UpdateTimeToLiveInput{TableName: str(n.T("t")), TimeToLiveSpecification: &types.TimeToLiveSpecification{AttributeName: str(""), Enabled: aws.Bool(true)}}
			})),
		tc("ttl/missing-table",
			st(rnf, func(n namer) any { return &dynamodb.DescribeTimeToLiveInput{TableName: str(n.T("nope"))} }),
			st(rnf, func(n namer) any {
				return &dynamodb.UpdateTimeToLiveInput{TableName: str(n.T("nope")), TimeToLiveSpecification: &types.TimeToLiveSpecification{AttributeName: str("exp"), Enabled: aws.Bool(true)}}
			})),
	)
	return cs
}
