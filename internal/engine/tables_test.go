package engine_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/optimist-dynamo/optimist/internal/engine"
)

// validationErr is DynamoDB Local's answer of a ValidationException.
func validationErr(msg string) string {
	b, _ := json.Marshal(map[string]string{"__type": "com.amazon.coral.validate#ValidationException", "Message": msg})
	return string(b)
}

// TestCreateTableValidation: each faulty CreateTable gets DynamoDB Local's
// message, the checks running in its order (measured on DynamoDB Local
// 1.25.1).
func TestCreateTableValidation(t *testing.T) {
	e := engine.New()
	const (
		pkS = `{"AttributeName":"pk","AttributeType":"S"}`
		skN = `{"AttributeName":"sk","AttributeType":"N"}`
		xS  = `{"AttributeName":"x","AttributeType":"S"}`
		h   = `{"AttributeName":"pk","KeyType":"HASH"}`
		r   = `{"AttributeName":"sk","KeyType":"RANGE"}`
	)
	table := func(defs, keys, rest string) string {
		return `{"TableName":"tt1","BillingMode":"PAY_PER_REQUEST","AttributeDefinitions":[` + defs + `],"KeySchema":[` + keys + `]` + rest + `}`
	}
	gsi := func(keys, proj string) string {
		return `,"GlobalSecondaryIndexes":[{"IndexName":"gx1","KeySchema":[` + keys + `],"Projection":` + proj + `}]`
	}
	lsi := func(keys string) string {
		return `,"LocalSecondaryIndexes":[{"IndexName":"lx1","KeySchema":[` + keys + `],"Projection":{"ProjectionType":"ALL"}}]`
	}
	xh := `{"AttributeName":"x","KeyType":"HASH"}`
	xr := `{"AttributeName":"x","KeyType":"RANGE"}`
	for _, c := range []struct{ body, msg string }{
		{table(pkS+","+skN, h+","+r+","+r, ""), "Key Schema too big.  Key Schema must at most consist of the hash and range key of a table"},
		{table(pkS+","+skN, r+","+h, ""), "Invalid key order. Hash Key must be specified first in key schema, Range Key must be specifed second"},
		{table(pkS+","+skN, h+","+h, ""), "Too many hash keys specified.  All Dynamo DB tables must have exactly one hash key"},
		{table(pkS+","+skN, r+","+r, ""), "No Hash Key specified in schema.  All Dynamo DB tables must have exactly one hash key"},
		{table(pkS, h+`,{"AttributeName":"pk","KeyType":"RANGE"}`, ""), "Two keys can not have the same name"},
		{table(pkS+`,{"AttributeName":"pk","AttributeType":"N"}`, r+","+h, ""), "Invalid key order. Hash Key must be specified first in key schema, Range Key must be specifed second"},
		{table(pkS+`,{"AttributeName":"pk","AttributeType":"N"}`, h+`,{"AttributeName":"zz","KeyType":"RANGE"}`, ""), "Cannot have two attributes with the same name"},
		{table(pkS+","+skN, h+`,{"AttributeName":"zz","KeyType":"RANGE"}`, ""), "Range Key not specified in Attribute Definitions.  Type unknown."},
		{table(pkS+","+xS, h, lsi(h+","+xr)), "Local Secondary indices are not allowed on hash tables, only hash and range tables"},
		{table(pkS+","+skN, h+","+r, lsi(h)), "Local secondary indices must have a range key"},
		{table(pkS+","+skN+","+xS, h+","+r, lsi(xh+","+r)), "Local Secondary indices must have the same hash key as the main table"},
		{table(pkS+","+skN+","+xS, h+","+r, lsi(h+`,{"AttributeName":"y","KeyType":"RANGE"}`)), "Local Secondary Index range key not specified in Attribute Definitions.Type unknown."},
		{table(pkS+","+skN, h+","+r, gsi(xh, `{"ProjectionType":"ALL"}`)), "Global Secondary Index hash key not specified in Attribute Definitions.Type unknown."},
		{table(pkS+","+skN+","+xS, h+","+r, gsi(xh+`,{"AttributeName":"y","KeyType":"RANGE"}`, `{"ProjectionType":"ALL"}`)), "Global Secondary Index range key not specified in Attribute Definitions.Type unknown."},
		{table(pkS+","+skN+","+xS, h+","+r, `,"GlobalSecondaryIndexes":[{"IndexName":"gx1","KeySchema":[`+xh+`]}]`), "Indexes must have a projection specified"},
		{table(pkS+","+skN+","+xS, h+","+r, gsi(xh, `{"ProjectionType":"INCLUDE"}`)), "If Projection type INCLUDE is specified, some non-key attributes to include in the projection must be specified as well"},
		{table(pkS+","+skN+","+xS, h+","+r, gsi(xh, `{"ProjectionType":"KEYS_ONLY","NonKeyAttributes":["a"]}`)), "No attributes should be specified to be projected unless projection type is INCLUDE"},
		{table(pkS+","+skN+","+xS, h+","+r, gsi(xh, `{"ProjectionType":"INCLUDE","NonKeyAttributes":["a","a"]}`)), "Cannot have two attributes with the same name"},
		{table(pkS+","+skN+","+xS, h+","+r, ""), "The number of attributes in key schema must match the number of attributes defined in attribute definitions."},
		{strings.Replace(table(pkS+","+skN, h+","+r, `,"ProvisionedThroughput":{"ReadCapacityUnits":0,"WriteCapacityUnits":1}`), "PAY_PER_REQUEST", "PROVISIONED", 1), "Table read and write throughput must be at least 1, and cannot be null"},
		{strings.Replace(table(pkS+","+skN+","+xS, h+","+r, `,"ProvisionedThroughput":{"ReadCapacityUnits":1,"WriteCapacityUnits":1}`+gsi(xh, `{"ProjectionType":"ALL"}`)), "PAY_PER_REQUEST", "PROVISIONED", 1), "No provisioned throughput specified for the global secondary index"},
		{`{"TableName":"tt1","BillingMode":"PAY_PER_REQUEST","KeySchema":[` + h + `]}`, "No Attribute Schema Defined"},
		{table(pkS, h, `,"ProvisionedThroughput":{"ReadCapacityUnits":1,"WriteCapacityUnits":1}`), "One or more parameter values were invalid: Neither ReadCapacityUnits nor WriteCapacityUnits can be specified when BillingMode is PAY_PER_REQUEST"},
		{table(pkS, h, `,"StreamSpecification":{"StreamEnabled":true}`), "Invalid StreamViewType: Stream ViewType must not be null or empty when enabling streams."},
	} {
		expect(t, e, "CreateTable", c.body, http.StatusBadRequest, validationErr(c.msg))
	}
	var six []string
	defs := pkS + "," + skN
	for _, n := range []string{"a", "b", "c", "d", "e", "f"} {
		defs += `,{"AttributeName":"` + n + `","AttributeType":"S"}`
		six = append(six, `{"IndexName":"l`+n+`","KeySchema":[`+h+`,{"AttributeName":"`+n+`","KeyType":"RANGE"}],"Projection":{"ProjectionType":"ALL"}}`)
	}
	expect(t, e, "CreateTable", table(defs, h+","+r, `,"LocalSecondaryIndexes":[`+strings.Join(six, ",")+`]`), http.StatusBadRequest,
		validationErr("Cannot have more than 5 local secondary indexes per table"))
	dupG := `,"GlobalSecondaryIndexes":[{"IndexName":"gx1","KeySchema":[` + xh + `],"Projection":{"ProjectionType":"ALL"}},{"IndexName":"gx1","KeySchema":[` + xh + `],"Projection":{"ProjectionType":"ALL"}}]`
	expect(t, e, "CreateTable", table(pkS+","+skN+","+xS, h+","+r, dupG), http.StatusBadRequest, validationErr("Two global secondary indices have the same name"))
	sameName := `,"GlobalSecondaryIndexes":[{"IndexName":"lx1","KeySchema":[` + xh + `],"Projection":{"ProjectionType":"ALL"}}]` + lsi(h+","+xr)
	expect(t, e, "CreateTable", table(pkS+","+skN+","+xS, h+","+r, sameName), http.StatusBadRequest,
		validationErr("Local Secondary Indices AND Global Secondary Indices must have different names"))
}

// TestUpdateTableValidation: UpdateTable, ListTables and UpdateTimeToLive
// refusals in DynamoDB Local's words, and a deleted index shown DELETING.
func TestUpdateTableValidation(t *testing.T) {
	e := engine.New()
	mustCall(t, e, "CreateTable", `{"TableName":"tt1","BillingMode":"PAY_PER_REQUEST","AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"},{"AttributeName":"g","AttributeType":"S"}],"KeySchema":[{"AttributeName":"pk","KeyType":"HASH"}],"GlobalSecondaryIndexes":[{"IndexName":"gx1","KeySchema":[{"AttributeName":"g","KeyType":"HASH"}],"Projection":{"ProjectionType":"KEYS_ONLY"}}]}`)
	expect(t, e, "UpdateTable", `{"TableName":"tt1"}`, http.StatusBadRequest, validationErr("Nothing to update"))
	expect(t, e, "UpdateTable", `{"TableName":"tt1","StreamSpecification":{"StreamEnabled":true}}`, http.StatusBadRequest,
		validationErr("Invalid StreamViewType: Stream ViewType must not be null or empty when enabling streams."))
	create := `"GlobalSecondaryIndexUpdates":[{"Create":{"IndexName":"gx1","KeySchema":[{"AttributeName":"g","KeyType":"HASH"}],"Projection":{"ProjectionType":"ALL"}}}]`
	expect(t, e, "UpdateTable", `{"TableName":"tt1","AttributeDefinitions":[{"AttributeName":"g","AttributeType":"S"}],`+create+`}`, http.StatusBadRequest,
		validationErr("Attempting to create an index which already exists"))
	expect(t, e, "UpdateTable", `{"TableName":"tt1",`+strings.Replace(create, "gx1", "gx2", 1)+`}`, http.StatusBadRequest, validationErr("No Attribute Schema Defined"))

	out := mustCall(t, e, "UpdateTable", `{"TableName":"tt1","GlobalSecondaryIndexUpdates":[{"Delete":{"IndexName":"gx1"}}]}`)
	assert.Contains(t, out, `"IndexStatus":"DELETING"`)
	out = mustCall(t, e, "DescribeTable", `{"TableName":"tt1"}`)
	assert.NotContains(t, out, "GlobalSecondaryIndexes")
	out = mustCall(t, e, "UpdateTable", `{"TableName":"tt1","BillingMode":"PROVISIONED","ProvisionedThroughput":{"ReadCapacityUnits":3,"WriteCapacityUnits":4}}`)
	assert.Contains(t, out, `"BillingModeSummary":{"BillingMode":"PROVISIONED"}`)

	expect(t, e, "ListTables", `{"Limit":0}`, http.StatusBadRequest, validationErr("Limit must be greater than or equal to 1"))
	expect(t, e, "ListTables", `{"Limit":101}`, http.StatusBadRequest, validationErr("Limit in ListTables must be <= 100"))

	expect(t, e, "UpdateTimeToLive", `{"TableName":"tt1","TimeToLiveSpecification":{"Enabled":true}}`, http.StatusBadRequest,
		validationErr("Names of key attributes and attributes projected into an index must be between 1 and 255 characters, inclusive"))
	mustCall(t, e, "UpdateTimeToLive", `{"TableName":"tt1","TimeToLiveSpecification":{"Enabled":true,"AttributeName":"exp"}}`)
	expect(t, e, "UpdateTimeToLive", `{"TableName":"tt1","TimeToLiveSpecification":{"Enabled":false,"AttributeName":"other"}}`, http.StatusBadRequest,
		validationErr("TimeToLive is active on a different AttributeName"))
}

// TestSizes: TableSizeBytes and IndexSizeBytes as DynamoDB Local counts
// them. Numbers take a byte and one per base-100 digit (a negative one
// more), a map 3 bytes and 1 per element, and an index the whole size of
// every item that carries one of its keys other than the table's hash key.
func TestSizes(t *testing.T) {
	e := engine.New()
	mustCall(t, e, "CreateTable", `{"TableName":"sz1","BillingMode":"PAY_PER_REQUEST","AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"}],"KeySchema":[{"AttributeName":"pk","KeyType":"HASH"}]}`)
	size := func(table string) float64 {
		var d struct {
			Table struct{ TableSizeBytes float64 }
		}
		require.NoError(t, json.Unmarshal([]byte(mustCall(t, e, "DescribeTable", `{"TableName":"`+table+`"}`)), &d))
		return d.Table.TableSizeBytes
	}
	for _, c := range []struct {
		attr string
		want float64 // DynamoDB Local's TableSizeBytes with pk "a" (3 bytes)
	}{
		{`"n":{"N":"1"}`, 6}, {`"n":{"N":"12"}`, 6}, {`"n":{"N":"123"}`, 7}, {`"n":{"N":"-1"}`, 7},
		{`"n":{"N":"-123"}`, 8}, {`"n":{"N":"3.5"}`, 7}, {`"n":{"N":"0.5"}`, 6}, {`"n":{"N":"100"}`, 6},
		{`"n":{"N":"1E+10"}`, 6}, {`"n":{"N":"0.001"}`, 6}, {`"n":{"N":"0"}`, 5},
		{`"n":{"N":"123456789012345678901234567890"}`, 20}, {`"n":{"N":"-123456789012345678901234567890"}`, 21},
		{`"m":{"M":{}}`, 7}, {`"m":{"M":{"a":{"N":"1"}}}`, 11}, {`"m":{"M":{"b":{"M":{"c":{"S":"d"}}}}}`, 15},
		{`"l":{"L":[{"L":[{"N":"2"}]}]}`, 14}, {`"ns":{"NS":["1","2"]}`, 9},
	} {
		mustCall(t, e, "PutItem", `{"TableName":"sz1","Item":{"pk":{"S":"a"},`+c.attr+`}}`)
		assert.Equal(t, c.want, size("sz1"), c.attr)
	}

	mustCall(t, e, "CreateTable", `{"TableName":"ix1","BillingMode":"PAY_PER_REQUEST","AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"},{"AttributeName":"sk","AttributeType":"S"},{"AttributeName":"g","AttributeType":"S"}],"KeySchema":[{"AttributeName":"pk","KeyType":"HASH"},{"AttributeName":"sk","KeyType":"RANGE"}],"GlobalSecondaryIndexes":[{"IndexName":"gsx","KeySchema":[{"AttributeName":"g","KeyType":"HASH"},{"AttributeName":"sk","KeyType":"RANGE"}],"Projection":{"ProjectionType":"KEYS_ONLY"}},{"IndexName":"g1x","KeySchema":[{"AttributeName":"g","KeyType":"HASH"}],"Projection":{"ProjectionType":"KEYS_ONLY"}}]}`)
	mustCall(t, e, "PutItem", `{"TableName":"ix1","Item":{"pk":{"S":"a"},"sk":{"S":"b"},"g":{"S":"c"},"zzzz":{"S":"0123456789"}}}`)
	mustCall(t, e, "PutItem", `{"TableName":"ix1","Item":{"pk":{"S":"b"},"sk":{"S":"b"}}}`)
	var d struct {
		Table struct {
			TableSizeBytes         int
			GlobalSecondaryIndexes []struct {
				IndexName                 string
				IndexSizeBytes, ItemCount int
			}
		}
	}
	require.NoError(t, json.Unmarshal([]byte(mustCall(t, e, "DescribeTable", `{"TableName":"ix1"}`)), &d))
	assert.Equal(t, 28, d.Table.TableSizeBytes)
	got := map[string][2]int{}
	for _, ix := range d.Table.GlobalSecondaryIndexes {
		got[ix.IndexName] = [2]int{ix.IndexSizeBytes, ix.ItemCount}
	}
	assert.Equal(t, map[string][2]int{"gsx": {28, 1}, "g1x": {22, 1}}, got)
}

// TestItemValidationMessages: item refusals in DynamoDB Local's words.
func TestItemValidationMessages(t *testing.T) {
	e := engine.New()
	mustCall(t, e, "CreateTable", `{"TableName":"hh1","BillingMode":"PAY_PER_REQUEST","AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"}],"KeySchema":[{"AttributeName":"pk","KeyType":"HASH"}]}`)
	for _, c := range []struct{ op, body, msg string }{
		{"PutItem", `"Item":{"pk":{"S":"` + strings.Repeat("x", 2049) + `"}}`, "Hash primary key values must be under 2048 bytes, and range primary key values must be under 1024 bytes"},
		{"PutItem", `"Item":{"pk":{"S":"a"},"` + strings.Repeat("n", 65536) + `":{"S":"x"}}`, "Attribute name is too large, must be less than 65536 bytes"},
		{"UpdateItem", `"Key":{"pk":{"S":"a"}},"ExpressionAttributeValues":{":a":{"S":"a"}}`, "ExpressionAttributeValues can only be specified when using expressions: UpdateExpression and ConditionExpression are null"},
		{"DeleteItem", `"Key":{"pk":{"S":"a"}},"ExpressionAttributeValues":{":a":{"S":"a"}}`, "ExpressionAttributeValues can only be specified when using expressions: ConditionExpression is null"},
		{"PutItem", `"Item":{"pk":{"S":"a"}},"ConditionExpression":"#a-b = :a","ExpressionAttributeNames":{"#a-b":"a"},"ExpressionAttributeValues":{":a":{"S":"a"}}`, `ExpressionAttributeNames contains invalid key: Syntax error; key: "#a-b"`},
		{"PutItem", `"Item":{"pk":{"S":"a"}},"ConditionExpression":"a = :a","ExpressionAttributeValues":{":a":{"S":"a"},":":{"S":"a"}}`, `ExpressionAttributeValues contains invalid key: Syntax error; key: ":"`},
		{"PutItem", `"Item":{"pk":{"S":"a"}},"ConditionExpression":"a = :a","ExpressionAttributeValues":{":a":{"S":"a"},":b":{"NS":[]}}`, "ExpressionAttributeValues contains invalid value: One or more parameter values were invalid: An number set  may not be empty for key :b"},
		{"PutItem", `"Item":{"pk":{"S":"a"}},"ConditionExpression":"a = :a","ExpressionAttributeValues":{":a":{"S":"a"},":b":{"NS":["1","1.0"]}}`, "ExpressionAttributeValues contains invalid value: Input collection contains duplicates for key :b"},
		{"UpdateItem", `"Key":{"pk":{"S":"a"}},"AttributeUpdates":{"a":{"Action":"DELETE"}},"Expected":{"a":{"Exists":false}},"UpdateExpression":"SET a = :a","ConditionExpression":"a = :a","ExpressionAttributeValues":{":a":{"S":"a"}}`, "Can not use both expression and non-expression parameters in the same request: Non-expression parameters: {AttributeUpdates, Expected} Expression parameters: {UpdateExpression, ConditionExpression}"},
		{"GetItem", `"Key":{"pk":{"S":"a"}},"AttributesToGet":["a"],"ProjectionExpression":"#a","ExpressionAttributeNames":{"#a":"a"}`, "Can not use both expression and non-expression parameters in the same request: Non-expression parameters: {AttributesToGet} Expression parameters: {ProjectionExpression}"},
		{"GetItem", `"Key":{"pk":{"S":"a"}},"AttributesToGet":[]`, "AttributesToGet cannot be empty"},
		{"GetItem", `"Key":{"pk":{"S":"a"}},"AttributesToGet":["a","a"]`, "Cannot have two attributes with the same name"},
	} {
		expect(t, e, c.op, `{"TableName":"hh1",`+c.body+`}`, http.StatusBadRequest, validationErr(c.msg))
	}
	mustCall(t, e, "PutItem", `{"TableName":"hh1","Item":{"pk":{"S":"a"},"n":{"N":"1"},"s":{"S":"x"},"m":{"M":{}}}}`)
	expect(t, e, "GetItem", `{"TableName":"hh1","Key":{"pk":{"S":"a"}},"AttributesToGet":["n","s","zz"]}`, http.StatusOK, `{"Item":{"n":{"N":"1"},"s":{"S":"x"}}}`)
}

// TestBatchDeleteMissingUnits: DynamoDB Local charges a BatchWriteItem's
// delete of a missing item 2 write units, of an existing small item 1.
func TestBatchDeleteMissingUnits(t *testing.T) {
	e := engine.New()
	mustCall(t, e, "CreateTable", `{"TableName":"bw1","BillingMode":"PAY_PER_REQUEST","AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"}],"KeySchema":[{"AttributeName":"pk","KeyType":"HASH"}]}`)
	for _, k := range []string{"a", "b"} {
		mustCall(t, e, "PutItem", `{"TableName":"bw1","Item":{"pk":{"S":"`+k+`"}}}`)
	}
	del := func(k string) string { return `{"DeleteRequest":{"Key":{"pk":{"S":"` + k + `"}}}}` }
	for _, c := range []struct {
		reqs []string
		want string
	}{
		{[]string{del("zz")}, "2"},
		{[]string{del("a")}, "1"},
		{[]string{`{"PutRequest":{"Item":{"pk":{"S":"n1"}}}}`, del("zy")}, "3"},
		{[]string{del("b"), del("zq"), del("zw")}, "5"},
	} {
		expect(t, e, "BatchWriteItem", `{"ReturnConsumedCapacity":"TOTAL","RequestItems":{"bw1":[`+strings.Join(c.reqs, ",")+`]}}`, http.StatusOK,
			`{"UnprocessedItems":{},"ConsumedCapacity":[{"TableName":"bw1","CapacityUnits":`+c.want+`}]}`)
	}
}
