//go:build conformance

package conformance

import (
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// docsetCases is the documentation set (see docset_expr_test.go).
func docsetCases() []tcase {
	var all []tcase
	for _, part := range [][]tcase{docExprCases(), docReadCases(), docItemCases(), docBatchCases(), docTxnCases(), docTableCases(), docMoreCases()} {
		all = append(all, part...)
	}
	return all
}

// docTableCases: API_CreateTable, API_DescribeTable, API_UpdateTable,
// API_DeleteTable, API_ListTables, API_UpdateTimeToLive,
// API_DescribeTimeToLive and the naming rules (HowItWorks.NamingRulesDataTypes).
func docTableCases() []tcase {
	mk := func(want string, f func(in *dynamodb.CreateTableInput)) step {
		return st(want, func(n namer) any {
			in := createIn(n, "t", "pk", tS, "", "")
			f(in)
			return in
		})
	}
	name := func(s string) func(in *dynamodb.CreateTableInput) {
		return func(in *dynamodb.CreateTableInput) { in.TableName = str(s) }
	}
	t := func(name string, steps ...step) tcase { return tc("doc/"+name, steps...) }
	lsi5 := func(count int) func(in *dynamodb.CreateTableInput) {
		return func(in *dynamodb.CreateTableInput) {
			*in = *createIn(namer{strings.TrimSuffix(*in.TableName, "t")}, "t", "pk", tS, "sk", tS)
			for i := range count {
				lsi("lsi-"+string(rune('a'+i)), "a"+string(rune('a'+i)), tS, types.ProjectionTypeKeysOnly)(in)
			}
		}
	}
	ttl := func(want, tn, attr string, enabled bool) step {
		return st(want, func(n namer) any {
			return &dynamodb.UpdateTimeToLiveInput{TableName: str(n.T(tn)), TimeToLiveSpecification: &types.TimeToLiveSpecification{
				AttributeName: str(attr), Enabled: aws.Bool(enabled)}}
		})
	}
	dttl := func(want, tn string) step {
		return st(want, func(n namer) any { return &dynamodb.DescribeTimeToLiveInput{TableName: str(n.T(tn))} })
	}
	return []tcase{
		// API_CreateTable.
		t("API_CreateTable/on-demand", mk("", func(in *dynamodb.CreateTableInput) {}), describe("t")),
		t("API_CreateTable/provisioned", mk("", func(in *dynamodb.CreateTableInput) {
			in.BillingMode = types.BillingModeProvisioned
			in.ProvisionedThroughput = &types.ProvisionedThroughput{ReadCapacityUnits: aws.Int64(5), WriteCapacityUnits: aws.Int64(5)}
		}), describe("t")),
		t("API_CreateTable/provisioned-without-throughput", mk(vErr, func(in *dynamodb.CreateTableInput) { in.BillingMode = types.BillingModeProvisioned })),
		// The reference says ProvisionedThroughput cannot be given with
		// PAY_PER_REQUEST; DynamoDB Local accepts it (listed in known.go).
		t("API_CreateTable/on-demand-with-throughput", mk("", func(in *dynamodb.CreateTableInput) {
			in.ProvisionedThroughput = &types.ProvisionedThroughput{ReadCapacityUnits: aws.Int64(5), WriteCapacityUnits: aws.Int64(5)}
		})),
		t("API_CreateTable/unused-attribute-definition", mk(vErr, func(in *dynamodb.CreateTableInput) { addDef(in, "extra", tS) })),
		t("API_CreateTable/missing-attribute-definition", mk(vErr, func(in *dynamodb.CreateTableInput) { in.AttributeDefinitions = nil })),
		t("API_CreateTable/two-hash-keys", mk(vErr, func(in *dynamodb.CreateTableInput) {
			in.KeySchema = append(in.KeySchema, types.KeySchemaElement{AttributeName: str("sk"), KeyType: types.KeyTypeHash})
			addDef(in, "sk", tS)
		})),
		t("API_CreateTable/range-first", mk(vErr, func(in *dynamodb.CreateTableInput) {
			in.KeySchema = []types.KeySchemaElement{{AttributeName: str("sk"), KeyType: types.KeyTypeRange}, {AttributeName: str("pk"), KeyType: types.KeyTypeHash}}
			addDef(in, "sk", tS)
		})),
		t("API_CreateTable/key-type-bool", mk(vErr, func(in *dynamodb.CreateTableInput) { in.AttributeDefinitions[0].AttributeType = "BOOL" })),
		t("API_CreateTable/exists", mk("", func(in *dynamodb.CreateTableInput) {}), mk(inUse, func(in *dynamodb.CreateTableInput) {})),
		t("API_CreateTable/lsi-without-range-key", mk(vErr, func(in *dynamodb.CreateTableInput) {
			lsi("lsi-1", "a", tS, types.ProjectionTypeAll)(in)
		})),
		t("API_CreateTable/lsi-other-hash-key", mk(vErr, func(in *dynamodb.CreateTableInput) {
			lsi5(0)(in)
			addDef(in, "other", tS)
			in.LocalSecondaryIndexes = []types.LocalSecondaryIndex{{IndexName: str("lsi-1"), Projection: projection(types.ProjectionTypeAll),
				KeySchema: keySchema("other", "sk")}}
		})),
		t("API_CreateTable/five-lsis", mk("", lsi5(5)), describe("t")),
		t("API_CreateTable/six-lsis-refused", mk(vErr, lsi5(6))),
		t("API_CreateTable/gsi-include-without-attributes", mk(vErr, gsi("gsi-1", "a", tS, "", "", types.ProjectionTypeInclude))),
		t("API_CreateTable/gsi-keys-only-with-attributes", mk(vErr, gsi("gsi-1", "a", tS, "", "", types.ProjectionTypeKeysOnly, "x"))),
		t("API_CreateTable/gsi-duplicate-names", mk(vErr, func(in *dynamodb.CreateTableInput) {
			gsi("gsi-1", "a", tS, "", "", types.ProjectionTypeAll)(in)
			gsi("gsi-1", "b", tS, "", "", types.ProjectionTypeAll)(in)
		})),
		t("API_CreateTable/gsi-hash-is-table-range", mk("", func(in *dynamodb.CreateTableInput) {
			lsi5(0)(in)
			gsi("gsi-1", "sk", tS, "pk", tS, types.ProjectionTypeAll)(in)
		}), describe("t")),
		// Naming rules.
		t("NamingRules/table-name-255", mk("", func(in *dynamodb.CreateTableInput) {
			prefix := strings.TrimSuffix(*in.TableName, "t")
			in.TableName = str(prefix + strings.Repeat("a", 255-len(prefix)))
		})),
		t("NamingRules/table-name-2-refused", mk(vErr, name("ab"))),
		t("NamingRules/table-name-256-refused", mk(vErr, name(strings.Repeat("a", 256)))),
		t("NamingRules/table-name-bad-character", mk(vErr, name("a b c"))),
		t("NamingRules/index-name-2-refused", mk(vErr, gsi("gg", "a", tS, "", "", types.ProjectionTypeAll))),
		// API_DescribeTable, API_DeleteTable, API_ListTables, API_UpdateTable.
		t("API_DescribeTable/missing", st(rnf, func(n namer) any { return &dynamodb.DescribeTableInput{TableName: str(n.T("nope"))} })),
		t("API_DescribeTable/item-count", create("t", "pk", tS, "", ""), putAll("t", it("pk", S("a")), it("pk", S("b"))), describe("t")),
		t("API_DeleteTable/missing", st(rnf, func(n namer) any { return &dynamodb.DeleteTableInput{TableName: str(n.T("nope"))} })),
		t("API_DeleteTable/then-gone", create("t", "pk", tS, "", ""),
			ok(func(n namer) any { return &dynamodb.DeleteTableInput{TableName: str(n.T("t"))} }),
			st(rnf, func(n namer) any { return &dynamodb.GetItemInput{TableName: str(n.T("t")), Key: it("pk", S("a"))} })),
		t("API_ListTables/limit-zero-refused", st(vErr, func(n namer) any { return &dynamodb.ListTablesInput{Limit: aws.Int32(0)} })),
		t("API_ListTables/limit-101-refused", st(vErr, func(n namer) any { return &dynamodb.ListTablesInput{Limit: aws.Int32(101)} })),
		t("API_UpdateTable/billing-mode", create("t", "pk", tS, "", ""), st("", func(n namer) any {
			return &dynamodb.UpdateTableInput{TableName: str(n.T("t")), BillingMode: types.BillingModeProvisioned,
				ProvisionedThroughput: &types.ProvisionedThroughput{ReadCapacityUnits: aws.Int64(1), WriteCapacityUnits: aws.Int64(1)}}
		}), describe("t")),
		t("API_UpdateTable/missing", st(rnf, func(n namer) any {
			return &dynamodb.UpdateTableInput{TableName: str(n.T("nope")), BillingMode: types.BillingModePayPerRequest}
		})),
		t("API_UpdateTable/add-gsi", create("t", "pk", tS, "", ""), st("", func(n namer) any {
			return &dynamodb.UpdateTableInput{TableName: str(n.T("t")), AttributeDefinitions: []types.AttributeDefinition{{AttributeName: str("g"), AttributeType: tS}},
				GlobalSecondaryIndexUpdates: []types.GlobalSecondaryIndexUpdate{{Create: &types.CreateGlobalSecondaryIndexAction{
					IndexName: str("g-index"), KeySchema: keySchema("g", ""), Projection: projection(types.ProjectionTypeAll)}}}}
		}), describe("t")),
		t("API_UpdateTable/delete-missing-gsi", create("t", "pk", tS, "", ""), st(rnf, func(n namer) any {
			return &dynamodb.UpdateTableInput{TableName: str(n.T("t")), GlobalSecondaryIndexUpdates: []types.GlobalSecondaryIndexUpdate{
				{Delete: &types.DeleteGlobalSecondaryIndexAction{IndexName: str("nope")}}}}
		})),
		// Time to live.
		t("API_DescribeTimeToLive/default-disabled", create("t", "pk", tS, "", ""), dttl("", "t")),
		t("API_UpdateTimeToLive/enable", create("t", "pk", tS, "", ""), ttl("", "t", "expires", true), dttl("", "t")),
		t("API_UpdateTimeToLive/disable", create("t", "pk", tS, "", ""), ttl("", "t", "expires", true), ttl("", "t", "expires", false), dttl("", "t")),
		t("API_UpdateTimeToLive/already-enabled", create("t", "pk", tS, "", ""), ttl("", "t", "expires", true), ttl(vErr, "t", "expires", true)),
		t("API_UpdateTimeToLive/disable-when-disabled", create("t", "pk", tS, "", ""), ttl(vErr, "t", "expires", false)),
		t("API_UpdateTimeToLive/empty-name", create("t", "pk", tS, "", ""), ttl(vErr, "t", "", true)),
		t("API_UpdateTimeToLive/missing-table", ttl(rnf, "nope", "expires", true)),
		t("API_DescribeTimeToLive/missing-table", dttl(rnf, "nope")),
	}
}
