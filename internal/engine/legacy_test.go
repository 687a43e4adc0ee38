package engine_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/optimist-dynamo/optimist/internal/engine"
)

// legacyTables makes an engine with table "lh1" (hash pk S) holding items
// a and b, and table "lr1" (hash pk S, range sk N) holding p/1..p/4.
func legacyTables(t *testing.T) *engine.Engine {
	t.Helper()
	e := engine.New()
	mustCall(t, e, "CreateTable", `{"TableName":"lh1","BillingMode":"PAY_PER_REQUEST","AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"}],"KeySchema":[{"AttributeName":"pk","KeyType":"HASH"}]}`)
	mustCall(t, e, "CreateTable", `{"TableName":"lr1","BillingMode":"PAY_PER_REQUEST","AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"},{"AttributeName":"sk","AttributeType":"N"}],"KeySchema":[{"AttributeName":"pk","KeyType":"HASH"},{"AttributeName":"sk","KeyType":"RANGE"}]}`)
	mustCall(t, e, "PutItem", `{"TableName":"lh1","Item":{"pk":{"S":"a"},"n":{"N":"1"},"ss":{"SS":["x","y"]},"l":{"L":[{"N":"1"}]}}}`)
	mustCall(t, e, "PutItem", `{"TableName":"lh1","Item":{"pk":{"S":"b"},"n":{"S":"1"}}}`)
	for _, sk := range []string{"1", "2", "3", "4"} {
		mustCall(t, e, "PutItem", `{"TableName":"lr1","Item":{"pk":{"S":"p"},"sk":{"N":"`+sk+`"},"a":{"N":"`+sk+`0"}}}`)
	}
	return e
}

// TestLegacyReads: KeyConditions, QueryFilter, ScanFilter,
// ConditionalOperator and AttributesToGet translate to what their
// expressions do (answers measured on DynamoDB Local).
func TestLegacyReads(t *testing.T) {
	e := legacyTables(t)
	const kc = `"KeyConditions":{"pk":{"ComparisonOperator":"EQ","AttributeValueList":[{"S":"p"}]}`
	for _, c := range []struct{ name, op, body, want string }{
		{"range between", "Query", `"TableName":"lr1",` + kc + `,"sk":{"ComparisonOperator":"BETWEEN","AttributeValueList":[{"N":"2"},{"N":"3"}]}},"AttributesToGet":["sk"]`,
			`{"Items":[{"sk":{"N":"2"}},{"sk":{"N":"3"}}],"Count":2,"ScannedCount":2}`},
		{"with a filter expression", "Query", `"TableName":"lr1",` + kc + `},"FilterExpression":"a > :v","ExpressionAttributeValues":{":v":{"N":"25"}},"ProjectionExpression":"a"`,
			`{"Items":[{"a":{"N":"30"}},{"a":{"N":"40"}}],"Count":2,"ScannedCount":4}`},
		{"query filter on a key", "Query", `"TableName":"lr1",` + kc + `},"QueryFilter":{"a":{"ComparisonOperator":"LT","AttributeValueList":[{"N":"15"}]},"sk":{"ComparisonOperator":"EQ","AttributeValueList":[{"N":"4"}]}},"ConditionalOperator":"OR"`,
			validationErr("QueryFilter can only contain non-primary key attributes: Primary key attribute: sk")},
		{"query filter count", "Query", `"TableName":"lr1",` + kc + `},"QueryFilter":{"a":{"ComparisonOperator":"IN","AttributeValueList":[{"N":"10"},{"N":"40"}]}},"Select":"COUNT"`,
			`{"Count":2,"ScannedCount":4}`},
		{"scan not contains", "Scan", `"TableName":"lh1","ScanFilter":{"ss":{"ComparisonOperator":"NOT_CONTAINS","AttributeValueList":[{"S":"z"}]}},"AttributesToGet":["pk"]`,
			`{"Items":[{"pk":{"S":"a"}}],"Count":1,"ScannedCount":2}`},
		{"scan ne on missing", "Scan", `"TableName":"lh1","ScanFilter":{"l":{"ComparisonOperator":"NE","AttributeValueList":[{"L":[{"N":"1"}]}]}},"AttributesToGet":["pk"]`,
			`{"Items":[{"pk":{"S":"b"}}],"Count":1,"ScannedCount":2}`},
		{"scan type mismatch", "Scan", `"TableName":"lh1","ScanFilter":{"n":{"ComparisonOperator":"GE","AttributeValueList":[{"N":"0"}]},"pk":{"ComparisonOperator":"NOT_NULL"}},"ConditionalOperator":"AND","AttributesToGet":["pk"]`,
			`{"Items":[{"pk":{"S":"a"}}],"Count":1,"ScannedCount":2}`},
		{"hash not eq", "Query", `"TableName":"lr1","KeyConditions":{"pk":{"ComparisonOperator":"BEGINS_WITH","AttributeValueList":[{"S":"p"}]}}`,
			validationErr("Query key condition not supported")},
		{"range in", "Query", `"TableName":"lr1",` + kc + `,"sk":{"ComparisonOperator":"IN","AttributeValueList":[{"N":"2"}]}}`,
			validationErr("Attempted conditional constraint is not an indexable operation")},
		{"count", "Scan", `"TableName":"lh1","ScanFilter":{"n":{"ComparisonOperator":"EQ","AttributeValueList":[]}}`,
			validationErr("One or more parameter values were invalid: Invalid number of argument(s) for the EQ ComparisonOperator")},
		{"type", "Scan", `"TableName":"lh1","ScanFilter":{"n":{"ComparisonOperator":"LT","AttributeValueList":[{"BOOL":true}]}}`,
			validationErr("One or more parameter values were invalid: ComparisonOperator LT is not valid for BOOL AttributeValue type")},
		{"same type", "Scan", `"TableName":"lh1","ScanFilter":{"n":{"ComparisonOperator":"IN","AttributeValueList":[{"N":"1"},{"S":"1"}]}}`,
			validationErr("One or more parameter values were invalid: AttributeValues inside AttributeValueList must be of same type")},
		{"between order", "Scan", `"TableName":"lh1","ScanFilter":{"n":{"ComparisonOperator":"BETWEEN","AttributeValueList":[{"N":"2"},{"N":"1"}]}}`,
			validationErr("The BETWEEN condition was provided a range where the lower bound is greater than the upper bound")},
		{"operator alone", "Scan", `"TableName":"lh1","ScanFilter":{"n":{"ComparisonOperator":"NOT_NULL"}},"ConditionalOperator":"OR"`,
			validationErr("ConditionalOperator can only be used when Filter or Expected has two or more elements")},
		{"mixed", "Query", `"TableName":"lr1",` + kc + `},"QueryFilter":{"a":{"ComparisonOperator":"NOT_NULL"}},"ProjectionExpression":"a"`,
			validationErr("Can not use both expression and non-expression parameters in the same request: Non-expression parameters: {QueryFilter} Expression parameters: {ProjectionExpression}")},
		{"mixed keys", "Query", `"TableName":"lr1",` + kc + `},"KeyConditionExpression":"pk = :p","ExpressionAttributeValues":{":p":{"S":"p"}}`,
			validationErr("Can not use both expression and non-expression parameters in the same request: Non-expression parameters: {KeyConditions} Expression parameters: {KeyConditionExpression}")},
		{"select all", "Scan", `"TableName":"lh1","AttributesToGet":["n"],"Select":"ALL_ATTRIBUTES"`,
			validationErr("Cannot specify the AttributesToGet when choosing to get ALL_ATTRIBUTES")},
		{"batch", "BatchGetItem", `"RequestItems":{"lh1":{"Keys":[{"pk":{"S":"a"}}],"AttributesToGet":["n"]}}`,
			`{"Responses":{"lh1":[{"n":{"N":"1"}}]},"UnprocessedKeys":{}}`},
	} {
		t.Run(c.name, func(t *testing.T) {
			status := http.StatusOK
			if strings.Contains(c.want, "__type") {
				status = http.StatusBadRequest
			}
			expect(t, e, c.op, "{"+c.body+"}", status, c.want)
		})
	}
}

// TestLegacyWrites: Expected and AttributeUpdates, in DynamoDB Local's
// words.
func TestLegacyWrites(t *testing.T) {
	e := legacyTables(t)
	upd := func(body string) string { return `{"TableName":"lh1","Key":{"pk":{"S":"a"}},` + body + `}` }
	ccf := `{"__type":"com.amazonaws.dynamodb.v20120810#ConditionalCheckFailedException","Message":"The conditional request failed"}`
	for _, c := range []struct {
		name, body string
		status     int
		want       string
	}{
		{"exists false fails", `"Expected":{"n":{"Exists":false}},"AttributeUpdates":{"n":{"Action":"ADD","Value":{"N":"1"}}}`, 400, ccf},
		{"value and or", `"Expected":{"n":{"Value":{"N":"5"}},"zz":{"Exists":false}},"ConditionalOperator":"OR","AttributeUpdates":{"n":{"Action":"ADD","Value":{"N":"1.5"}}},"ReturnValues":"UPDATED_NEW"`,
			200, `{"Attributes":{"n":{"N":"2.5"}}}`},
		{"add list and set, delete", `"AttributeUpdates":{"l":{"Action":"ADD","Value":{"L":[{"S":"z"}]}},"ss":{"Action":"DELETE","Value":{"SS":["x","y"]}},"new":{"Action":"ADD","Value":{"NS":["2"]}}},"ReturnValues":"ALL_NEW"`,
			200, `{"Attributes":{"pk":{"S":"a"},"n":{"N":"2.5"},"l":{"L":[{"N":"1"},{"S":"z"}]},"new":{"NS":["2"]}}}`},
		{"put and remove", `"Expected":{"n":{"ComparisonOperator":"GT","AttributeValueList":[{"N":"2"}]}},"AttributeUpdates":{"n":{"Action":"DELETE"},"s":{"Value":{"S":"v"}}},"ReturnValues":"UPDATED_OLD"`,
			200, `{"Attributes":{"n":{"N":"2.5"}}}`},
		{"type mismatch", `"AttributeUpdates":{"l":{"Action":"ADD","Value":{"N":"1"}}}`, 400, validationErr("Type mismatch for attribute to update")},
		{"add string", `"AttributeUpdates":{"s":{"Action":"ADD","Value":{"S":"x"}}}`, 400, validationErr("One or more parameter values were invalid: ADD action is not supported for the type STRING")},
		{"delete number", `"AttributeUpdates":{"s":{"Action":"DELETE","Value":{"N":"1"}}}`, 400, validationErr("One or more parameter values were invalid: DELETE action with value is not supported for the type NUMBER")},
		{"no value", `"AttributeUpdates":{"s":{"Action":"PUT"}}`, 400, validationErr("One or more parameter values were invalid: Only DELETE action is allowed when no attribute value is specified")},
		{"key", `"AttributeUpdates":{"pk":{"Action":"DELETE"}}`, 400, validationErr("One or more parameter values were invalid: Cannot update attribute pk. This attribute is part of the key")},
		{"exists true without value", `"Expected":{"s":{"Exists":true}}`, 400, validationErr("One or more parameter values were invalid: Value must be provided when Exists is true for Attribute: s")},
		{"exists false with value", `"Expected":{"s":{"Exists":false,"Value":{"S":"v"}}}`, 400, validationErr("One or more parameter values were invalid: Value cannot be used when Exists is false for Attribute: s")},
		{"condition before updates", `"Expected":{"s":{"Value":{"S":"nope"}}},"AttributeUpdates":{"pk":{"Action":"PUT","Value":{"S":"k"}},"b":{"Action":"FOO"},"c":{"Action":"ADD","Value":{"S":"x"}}}`, 400, ccf},
		{"operator without values", `"Expected":{"s":{"ComparisonOperator":"BEGINS_WITH"}}`, 400,
			validationErr("One or more parameter values were invalid: Value or AttributeValueList must be used with ComparisonOperator: BEGINS_WITH for Attribute: s")},
		{"exists and operator", `"Expected":{"s":{"Exists":true,"ComparisonOperator":"NOT_NULL"}}`, 400, validationErr("One or more parameter values were invalid: Exists and ComparisonOperator cannot be used together for Attribute: s")},
		{"mixed", `"Expected":{"s":{"Exists":false}},"ConditionExpression":"attribute_exists(s)"`, 400,
			validationErr("Can not use both expression and non-expression parameters in the same request: Non-expression parameters: {Expected} Expression parameters: {ConditionExpression}")},
		{"values without expressions", `"AttributeUpdates":{"s":{"Value":{"S":"v"}}},"ExpressionAttributeValues":{":v":{"S":"v"}}`, 400,
			validationErr("ExpressionAttributeValues can only be specified when using expressions: UpdateExpression and ConditionExpression are null")},
	} {
		t.Run(c.name, func(t *testing.T) {
			expect(t, e, "UpdateItem", upd(c.body), c.status, c.want)
		})
	}
	expect(t, e, "DeleteItem", `{"TableName":"lh1","Key":{"pk":{"S":"b"}},"Expected":{"n":{"ComparisonOperator":"NOT_CONTAINS","AttributeValueList":[{"S":"z"}]}},"ReturnValues":"ALL_OLD"}`,
		200, `{"Attributes":{"pk":{"S":"b"},"n":{"S":"1"}}}`)
	expect(t, e, "PutItem", `{"TableName":"lh1","Item":{"pk":{"S":"b"}},"Expected":{"n":{"ComparisonOperator":"NOT_CONTAINS","AttributeValueList":[{"S":"z"}]}}}`, 400, ccf)
	// AttributeUpdates is UpdateItem's: PutItem ignores it, as DynamoDB
	// Local does, even beside a ConditionExpression.
	expect(t, e, "PutItem", `{"TableName":"lh1","Item":{"pk":{"S":"c"}},"AttributeUpdates":{"a":{"Action":"PUT","Value":{"N":"1"}}},"ConditionExpression":"attribute_not_exists(pk)"}`, 200, `{}`)
	expect(t, e, "GetItem", `{"TableName":"lh1","Key":{"pk":{"S":"c"}}}`, 200, `{"Item":{"pk":{"S":"c"}}}`)
	// TransactGetItems has no AttributesToGet, nor TransactWriteItems
	// Expected: both ignore them, as DynamoDB Local does.
	expect(t, e, "TransactGetItems", `{"TransactItems":[{"Get":{"TableName":"lh1","Key":{"pk":{"S":"c"}},"AttributesToGet":["zz"]}}]}`, 200, `{"Responses":[{"Item":{"pk":{"S":"c"}}}]}`)
	expect(t, e, "TransactWriteItems", `{"TransactItems":[{"Put":{"TableName":"lh1","Item":{"pk":{"S":"c"},"a":{"N":"1"}},"Expected":{"a":{"Value":{"N":"5"}}}}}]}`, 200, `{}`)
}
