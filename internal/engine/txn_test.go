package engine_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/optimist-dynamo/optimist/internal/engine"
)

// The expected answers in these tests are DynamoDB Local's (1.25.1), measured
// with the same requests, except where a comment names a difference the
// engine keeps on purpose.

// call posts a raw request to e and returns the status and the body.
func call(t testing.TB, e *engine.Engine, op, body string) (int, string) {
	t.Helper()
	return callAs(t, e, "test", op, body)
}

// callAs is call with the access key key.
func callAs(t testing.TB, e *engine.Engine, key, op, body string) (int, string) {
	t.Helper()
	req := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(body))
	req.Header.Set("X-Amz-Target", "DynamoDB_20120810."+op)
	req.Header.Set("Content-Type", "application/x-amz-json-1.0")
	req.Header.Set("Authorization", "AWS4-HMAC-SHA256 Credential="+key+"/20261126/us-east-1/dynamodb/aws4_request, SignedHeaders=host, Signature=x")
	w := httptest.NewRecorder()
	e.ServeHTTP(w, req)
	return w.Code, w.Body.String()
}

// expect posts a raw request and checks the status and the JSON answer.
func expect(t *testing.T, e *engine.Engine, op, body string, status int, want string) {
	t.Helper()
	code, got := call(t, e, op, body)
	assert.Equal(t, status, code, "%s %s: %s", op, body, got)
	assert.JSONEq(t, want, got, "%s %s", op, body)
}

// txnTables makes an engine with the tables "txa" (hash key pk S), "txb" (pk
// S, sk N) and "txg" (pk S, a global index "gix" on gk S).
func txnTables(t *testing.T, opts ...func(*engine.Options)) *engine.Engine {
	t.Helper()
	e := engine.New(opts...)
	for _, body := range []string{
		`{"TableName":"txa","KeySchema":[{"AttributeName":"pk","KeyType":"HASH"}],"AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"}],"BillingMode":"PAY_PER_REQUEST"}`,
		`{"TableName":"txb","KeySchema":[{"AttributeName":"pk","KeyType":"HASH"},{"AttributeName":"sk","KeyType":"RANGE"}],"AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"},{"AttributeName":"sk","AttributeType":"N"}],"BillingMode":"PAY_PER_REQUEST"}`,
		`{"TableName":"txg","KeySchema":[{"AttributeName":"pk","KeyType":"HASH"}],"AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"},{"AttributeName":"gk","AttributeType":"S"}],"GlobalSecondaryIndexes":[{"IndexName":"gix","KeySchema":[{"AttributeName":"gk","KeyType":"HASH"}],"Projection":{"ProjectionType":"ALL"}}],"BillingMode":"PAY_PER_REQUEST"}`,
	} {
		code, out := call(t, e, "CreateTable", body)
		require.Equal(t, http.StatusOK, code, out)
	}
	return e
}

func put(table, item string) string {
	return fmt.Sprintf(`{"Put":{"TableName":%q,"Item":%s}}`, table, item)
}

func txn(actions ...string) string {
	return `{"TransactItems":[` + strings.Join(actions, ",") + `]}`
}

func getItem(t *testing.T, e *engine.Engine, table, key string) string {
	t.Helper()
	code, out := call(t, e, "GetItem", fmt.Sprintf(`{"TableName":%q,"Key":%s}`, table, key))
	require.Equal(t, http.StatusOK, code, out)
	return out
}

func TestTransactWriteItemsAppliesAll(t *testing.T) {
	e := txnTables(t)
	expect(t, e, "TransactWriteItems", `{"TransactItems":[`+
		put("txa", `{"pk":{"S":"x"},"v":{"N":"01.50"}}`)+`,`+
		put("txb", `{"pk":{"S":"x"},"sk":{"N":"1"}}`)+`,`+
		`{"Update":{"TableName":"txa","Key":{"pk":{"S":"u"}}}},`+
		`{"Delete":{"TableName":"txb","Key":{"pk":{"S":"gone"},"sk":{"N":"2"}}}},`+
		`{"ConditionCheck":{"TableName":"txg","Key":{"pk":{"S":"c"}},"ConditionExpression":"attribute_not_exists(pk)"}}`+
		`],"ReturnItemCollectionMetrics":"SIZE"}`, http.StatusOK, `{}`)
	assert.JSONEq(t, `{"Item":{"pk":{"S":"x"},"v":{"N":"1.5"}}}`, getItem(t, e, "txa", `{"pk":{"S":"x"}}`))
	assert.JSONEq(t, `{"Item":{"pk":{"S":"x"},"sk":{"N":"1"}}}`, getItem(t, e, "txb", `{"pk":{"S":"x"},"sk":{"N":"1"}}`))
	assert.JSONEq(t, `{"Item":{"pk":{"S":"u"}}}`, getItem(t, e, "txa", `{"pk":{"S":"u"}}`), "an Update without UpdateExpression creates the item with its key")
	assert.JSONEq(t, `{}`, getItem(t, e, "txg", `{"pk":{"S":"c"}}`), "a ConditionCheck writes nothing")

	expect(t, e, "TransactWriteItems", txn(`{"ConditionCheck":{"TableName":"txa","Key":{"pk":{"S":"x"}},"ConditionExpression":"#v = :v","ExpressionAttributeNames":{"#v":"v"},"ExpressionAttributeValues":{":v":{"N":"1.5"}}}}`,
		`{"Delete":{"TableName":"txb","Key":{"pk":{"S":"x"},"sk":{"N":"1"}},"ConditionExpression":"attribute_exists(pk)"}}`), http.StatusOK, `{}`)
	expect(t, e, "TransactWriteItems", txn(`{"Delete":{"TableName":"txa","Key":{"pk":{"S":"x"}},"ConditionExpression":"attribute_exists(pk)"}}`), http.StatusOK, `{}`)
	assert.JSONEq(t, `{}`, getItem(t, e, "txa", `{"pk":{"S":"x"}}`))
}

func TestTransactWriteItemsCancellation(t *testing.T) {
	e := txnTables(t)
	expect(t, e, "TransactWriteItems", txn(put("txa", `{"pk":{"S":"x"},"v":{"N":"1"}}`), put("txb", `{"pk":{"S":"x"},"sk":{"N":"1"}}`)), http.StatusOK, `{}`)

	// Four actions: a Put whose condition fails without ALL_OLD, a Put that
	// would succeed, a ConditionCheck that fails with ALL_OLD, a Delete whose
	// condition fails with ALL_OLD on a missing item (no Item to return).
	body := `{"TransactItems":[` +
		`{"Put":{"TableName":"txa","Item":{"pk":{"S":"x"},"v":{"N":"2"}},"ConditionExpression":"attribute_not_exists(pk)"}},` +
		`{"Put":{"TableName":"txb","Item":{"pk":{"S":"y"},"sk":{"N":"1"}},"ConditionExpression":"attribute_not_exists(pk)","ReturnValuesOnConditionCheckFailure":"ALL_OLD"}},` +
		`{"ConditionCheck":{"TableName":"txb","Key":{"pk":{"S":"x"},"sk":{"N":"1"}},"ConditionExpression":"attribute_not_exists(pk)","ReturnValuesOnConditionCheckFailure":"ALL_OLD"}},` +
		`{"Delete":{"TableName":"txa","Key":{"pk":{"S":"nope"}},"ConditionExpression":"attribute_exists(pk)","ReturnValuesOnConditionCheckFailure":"ALL_OLD"}}` +
		`]}`
	expect(t, e, "TransactWriteItems", body, http.StatusBadRequest,
		`{"__type":"com.amazonaws.dynamodb.v20120810#TransactionCanceledException","CancellationReasons":[`+
			`{"Code":"ConditionalCheckFailed","Message":"The conditional request failed"},`+
			`{"Code":"None"},`+
			`{"Item":{"sk":{"N":"1"},"pk":{"S":"x"}},"Code":"ConditionalCheckFailed","Message":"The conditional request failed."},`+
			`{"Code":"ConditionalCheckFailed","Message":"The conditional request failed"}],`+
			`"Message":"Transaction cancelled, please refer cancellation reasons for specific reasons [ConditionalCheckFailed, None, ConditionalCheckFailed, ConditionalCheckFailed]"}`)
	assert.JSONEq(t, `{}`, getItem(t, e, "txb", `{"pk":{"S":"y"},"sk":{"N":"1"}}`), "nothing is applied")
	assert.JSONEq(t, `{"Item":{"pk":{"S":"x"},"v":{"N":"1"}}}`, getItem(t, e, "txa", `{"pk":{"S":"x"}}`))

	// Through the SDK: the reasons arrive in order, with the item.
	c := client(e)
	_, err := c.TransactWriteItems(context.Background(), &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
		{Put: &types.Put{TableName: aws.String("txa"), Item: map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: "new"}}}},
		{ConditionCheck: &types.ConditionCheck{TableName: aws.String("txa"), Key: map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: "x"}},
			ConditionExpression: aws.String("attribute_not_exists(v)"), ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld}},
	}})
	var tce *types.TransactionCanceledException
	require.ErrorAs(t, err, &tce)
	require.Len(t, tce.CancellationReasons, 2)
	assert.Equal(t, "None", *tce.CancellationReasons[0].Code)
	assert.Equal(t, "ConditionalCheckFailed", *tce.CancellationReasons[1].Code)
	assert.Equal(t, &types.AttributeValueMemberN{Value: "1"}, tce.CancellationReasons[1].Item["v"])
	assert.JSONEq(t, `{}`, getItem(t, e, "txa", `{"pk":{"S":"new"}}`))
}

func TestTransactWriteItemsValidation(t *testing.T) {
	e := txnTables(t)
	expect(t, e, "TransactWriteItems", txn(put("txa", `{"pk":{"S":"h1"}}`)), http.StatusOK, `{}`)
	const (
		vex = `com.amazon.coral.validate#ValidationException`
		tce = `com.amazonaws.dynamodb.v20120810#TransactionCanceledException`
		rnf = `com.amazonaws.dynamodb.v20120810#ResourceNotFoundException`
	)
	ok := put("txa", `{"pk":{"S":"h1"}}`)
	var hundredOne []string
	for i := range 101 {
		hundredOne = append(hundredOne, put("txa", fmt.Sprintf(`{"pk":{"S":"h%d"}}`, i)))
	}
	for _, c := range []struct {
		name, body, typ, msg string
	}{
		{"no items", `{}`, vex, "Value null at 'transactItems' failed to satisfy constraint: Member must not be null"},
		{"empty items", `{"TransactItems":[]}`, vex, "Value [] at 'transactItems' failed to satisfy constraint: Member must have length greater than or equal to 1"},
		{"101 actions", txn(hundredOne...), vex, "Member must have length less than or equal to 100"},
		{"two on one item", txn(ok, ok), vex, "Transaction request cannot include multiple operations on one item"},
		{"check and put on one item", txn(ok, `{"ConditionCheck":{"TableName":"txa","Key":{"pk":{"S":"h1"}},"ConditionExpression":"attribute_exists(pk)"}}`), vex, "Transaction request cannot include multiple operations on one item"},
		{"missing table", txn(ok, put("nope", `{"pk":{"S":"h1"}}`)), rnf, "Cannot do operations on a non-existent table"},
		{"no table name", txn(`{"Put":{"Item":{"pk":{"S":"h1"}}}}`), vex, "Value null at 'transactItems.1.member.put.tableName' failed to satisfy constraint: Member must not be null"},
		{"bad table name", txn(put("x", `{"pk":{"S":"h1"}}`)), vex, "Invalid table/index name.  Table/index names must be between 3 and 255 characters long, and may contain only the characters a-z, A-Z, 0-9, '_', '-', and '.'"},
		{"two operations", txn(`{"Put":{"TableName":"txa","Item":{"pk":{"S":"h1"}}},"Delete":{"TableName":"txa","Key":{"pk":{"S":"h2"}}}}`), vex, "TransactItems can only contain one of Check, Put, Update or Delete"},
		{"no operation", txn(ok, `{}`), vex, "Invalid Request: TransactWriteRequest should contain Delete or Put or Update request"},
		{"put without item", txn(ok, `{"Put":{"TableName":"txa"}}`), vex, "Value null at 'transactItems.2.member.put.item' failed to satisfy constraint: Member must not be null"},
		{"delete without key", txn(ok, `{"Delete":{"TableName":"txa"}}`), vex, "Value null at 'transactItems.2.member.delete.key' failed to satisfy constraint: Member must not be null"},
		{"check without condition", txn(ok, `{"ConditionCheck":{"TableName":"txa","Key":{"pk":{"S":"h2"}}}}`), vex, "Value null at 'transactItems.2.member.conditionCheck.conditionExpression' failed to satisfy constraint: Member must not be null"},
		{"item without key", txn(ok, put("txa", `{"x":{"N":"1"}}`)), vex, "One of the required keys was not given a value"},
		{"key without key attribute", txn(ok, `{"Delete":{"TableName":"txa","Key":{"x":{"N":"1"}}}}`), vex, "One of the required keys was not given a value"},
		{"key with extra attribute", txn(ok, `{"Delete":{"TableName":"txa","Key":{"pk":{"S":"1"},"x":{"S":"1"}}}}`), vex, "The number of conditions on the keys is invalid"},
		{"key of a set", txn(ok, put("txa", `{"pk":{"SS":["a"]}}`)), vex, "Invalid attribute value type"},
		{"empty key", txn(ok, put("txa", `{"pk":{"S":""}}`)), vex, "One or more parameter values are not valid. The AttributeValue for a key attribute cannot contain an empty string value. Key: pk"},
		{"empty key in delete", txn(ok, `{"Delete":{"TableName":"txa","Key":{"pk":{"S":""}}}}`), vex, "One or more parameter values are not valid. The AttributeValue for a key attribute cannot contain an empty string value. Key: pk"},
		{"empty set", txn(ok, put("txa", `{"pk":{"S":"h2"},"s":{"SS":[]}}`)), vex, "One or more parameter values were invalid: An string set  may not be empty"},
		{"bad number", txn(ok, put("txa", `{"pk":{"S":"h2"},"s":{"N":"x"}}`)), vex, "A value provided cannot be converted into a number"},
		{"null false", txn(ok, put("txa", `{"pk":{"S":"h2"},"s":{"NULL":false}}`)), vex, "One or more parameter values were invalid: Null attribute value types must have the value of true"},
		{"empty value", txn(ok, put("txa", `{"pk":{"S":"h2"},"s":{}}`)), vex, "Supplied AttributeValue is empty, must contain exactly one of the supported datatypes"},
		{"values without expression", txn(ok, `{"Put":{"TableName":"txa","Item":{"pk":{"S":"h2"}},"ExpressionAttributeValues":{":a":{"N":"1"}}}}`), vex, "ExpressionAttributeValues can only be specified when using expressions: ConditionExpression is null"},
		{"unused value", txn(ok, `{"Put":{"TableName":"txa","Item":{"pk":{"S":"h2"}},"ExpressionAttributeValues":{":a":{"N":"1"}},"ConditionExpression":"attribute_exists(pk)"}}`), vex, "Value provided in ExpressionAttributeValues unused in expressions: keys: {:a}"},
		{"unused value before duplicates", txn(ok, ok, `{"Put":{"TableName":"txa","Item":{"pk":{"S":"h2"}},"ExpressionAttributeValues":{":a":{"N":"1"}},"ConditionExpression":"attribute_exists(pk)"}}`), vex, "Value provided in ExpressionAttributeValues unused in expressions: keys: {:a}"},
		{"unused value before a missing table", txn(put("nope", `{"pk":{"S":"h1"}}`), `{"Put":{"TableName":"txa","Item":{"pk":{"S":"h2"}},"ExpressionAttributeValues":{":a":{"N":"1"}},"ConditionExpression":"attribute_exists(pk)"}}`), vex, "Value provided in ExpressionAttributeValues unused in expressions: keys: {:a}"},
		{"names without expression", txn(ok, `{"Delete":{"TableName":"txa","Key":{"pk":{"S":"h2"}},"ExpressionAttributeNames":{"#a":"a"}}}`), vex, "ExpressionAttributeNames can only be specified when using expressions"},
		{"update values without expression", txn(`{"Update":{"TableName":"txa","Key":{"pk":{"S":"h2"}},"ExpressionAttributeValues":{":a":{"N":"1"}}}}`), vex, "Value null at 'transactItems.1.member.update.updateExpression' failed to satisfy constraint: Member must not be null"},
		{"update names without expression", txn(`{"Update":{"TableName":"txa","Key":{"pk":{"S":"h2"}},"ExpressionAttributeNames":{"#a":"a"}}}`), vex, "ExpressionAttributeNames can only be specified when using expressions"},
		{"unused names", txn(`{"ConditionCheck":{"TableName":"txa","Key":{"pk":{"S":"h2"}},"ConditionExpression":"attribute_exists(pk)","ExpressionAttributeNames":{"#a":"a"}}}`), vex, "Value provided in ExpressionAttributeNames unused in expressions: keys: {#a}"},
		{"empty condition", txn(`{"ConditionCheck":{"TableName":"txa","Key":{"pk":{"S":"h2"}},"ConditionExpression":""}}`), vex, "Invalid ConditionExpression: The expression can not be empty;"},
		{"empty update", txn(`{"Update":{"TableName":"txa","Key":{"pk":{"S":"h2"}},"UpdateExpression":""}}`), vex, "Invalid UpdateExpression: The expression can not be empty;"},
		{"blank condition", txn(`{"ConditionCheck":{"TableName":"txa","Key":{"pk":{"S":"h2"}},"ConditionExpression":" "}}`), vex, `Invalid ConditionExpression: Syntax error; token: "<EOF>", near: " "`},
		{"empty values", txn(`{"Put":{"TableName":"txa","Item":{"pk":{"S":"h2"}},"ConditionExpression":"attribute_exists(pk)","ExpressionAttributeValues":{}}}`), vex, "ExpressionAttributeValues must not be empty"},
		{"empty index key", txn(ok, put("txg", `{"pk":{"S":"h2"},"gk":{"S":""}}`)), vex, "One or more parameter values are not valid. A value specified for a secondary index key is not supported. The AttributeValue for a key attribute cannot contain an empty string value. IndexName: gix, IndexKey: gk"},
		{"token too long", `{"ClientRequestToken":"0123456789012345678901234567890123456","TransactItems":[` + ok + `]}`, vex, "Value 0123456789012345678901234567890123456 at 'clientRequestToken' failed to satisfy constraint: Member must have length less than or equal to 36"},
		// Precedence, as Local decides it.
		{"missing table before duplicates", txn(put("nope", `{"pk":{"S":"h1"}}`), ok, ok), rnf, "Cannot do operations on a non-existent table"},
		{"duplicates before key types", txn(put("txa", `{"pk":{"N":"1"}}`), ok, ok), vex, "Transaction request cannot include multiple operations on one item"},
		{"missing table before key types", txn(put("txa", `{"pk":{"N":"1"}}`), put("nope", `{"pk":{"S":"h1"}}`)), rnf, "Cannot do operations on a non-existent table"},
		{"missing table before missing key", txn(put("nope", `{"pk":{"S":"h1"}}`), put("txa", `{"x":{"S":"h1"}}`)), rnf, "Cannot do operations on a non-existent table"},
		{"values before tables", txn(put("nope", `{"pk":{"S":"h1"}}`), put("txa", `{"pk":{"S":"h2"},"s":{"N":"x"}}`)), vex, "A value provided cannot be converted into a number"},
		{"tables before empty keys", txn(put("nope", `{"pk":{"S":"h1"}}`), put("txa", `{"pk":{"S":""}}`)), rnf, "Cannot do operations on a non-existent table"},
		{"token before all", `{"ClientRequestToken":"0123456789012345678901234567890123456","TransactItems":[]}`, vex, "Value 0123456789012345678901234567890123456 at 'clientRequestToken' failed to satisfy constraint: Member must have length less than or equal to 36"},
		// A key of the other scalar type is the action's ValidationError.
		{"key type", txn(ok, put("txa", `{"pk":{"N":"1"}}`), put("txa", `{"pk":{"S":"h3"}}`)), tce, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, got := call(t, e, "TransactWriteItems", c.body)
			assert.Equal(t, http.StatusBadRequest, code, got)
			if c.typ == tce {
				assert.JSONEq(t, `{"__type":"`+tce+`","CancellationReasons":[{"Code":"None"},{"Code":"ValidationError","Message":"One or more parameter values were invalid: Type mismatch for key"},{"Code":"None"}],"Message":"Transaction cancelled, please refer cancellation reasons for specific reasons [None, ValidationError, None]"}`, got)
				return
			}
			assert.JSONEq(t, fmt.Sprintf(`{"__type":%q,"Message":%q}`, c.typ, c.msg), got)
		})
	}
	assert.JSONEq(t, `{}`, getItem(t, e, "txa", `{"pk":{"S":"h3"}}`), "no refused transaction applied anything")
	assert.JSONEq(t, `{}`, getItem(t, e, "txa", `{"pk":{"S":"h2"}}`))
}

func TestTransactWriteItemsReasonsOfKeysAndIndexes(t *testing.T) {
	e := txnTables(t)
	expect(t, e, "TransactWriteItems", txn(put("txa", `{"pk":{"S":"h1"}}`)), http.StatusOK, `{}`)
	const canceled = "com.amazonaws.dynamodb.v20120810#TransactionCanceledException"
	for _, c := range []struct{ name, second, reasons, codes string }{
		{"delete key type", `{"Delete":{"TableName":"txa","Key":{"pk":{"N":"1"}}}}`,
			`{"Code":"ValidationError","Message":"One or more parameter values were invalid: Type mismatch for key"}`, "ValidationError"},
		{"check key type", `{"ConditionCheck":{"TableName":"txa","Key":{"pk":{"N":"1"}},"ConditionExpression":"attribute_exists(pk)"}}`,
			`{"Code":"ValidationError","Message":"One or more parameter values were invalid: Type mismatch for key"}`, "ValidationError"},
		{"index key type", put("txg", `{"pk":{"S":"h2"},"gk":{"N":"1"}}`),
			`{"Code":"ValidationError","Message":"One or more parameter values were invalid: Type mismatch for Index Key"}`, "ValidationError"},
	} {
		t.Run(c.name, func(t *testing.T) {
			expect(t, e, "TransactWriteItems", txn(put("txa", `{"pk":{"S":"h1"}}`), c.second), http.StatusBadRequest,
				`{"__type":"`+canceled+`","CancellationReasons":[{"Code":"None"},`+c.reasons+`],"Message":"Transaction cancelled, please refer cancellation reasons for specific reasons [None, `+c.codes+`]"}`)
		})
	}
	// A failed condition and a key of the wrong type are both reported.
	expect(t, e, "TransactWriteItems", txn(
		`{"Put":{"TableName":"txa","Item":{"pk":{"S":"h1"}},"ConditionExpression":"attribute_not_exists(pk)"}}`,
		put("txa", `{"pk":{"N":"1"}}`)), http.StatusBadRequest,
		`{"__type":"`+canceled+`","CancellationReasons":[{"Code":"ConditionalCheckFailed","Message":"The conditional request failed"},{"Code":"ValidationError","Message":"One or more parameter values were invalid: Type mismatch for key"}],"Message":"Transaction cancelled, please refer cancellation reasons for specific reasons [ConditionalCheckFailed, ValidationError]"}`)
}

func TestTransactWriteItemsPayload(t *testing.T) {
	e := txnTables(t)
	big := strings.Repeat("x", 390000)
	var actions []string
	for i := range 11 {
		actions = append(actions, put("txa", fmt.Sprintf(`{"pk":{"S":"big%d"},"b":{"S":%q}}`, i, big)))
	}
	expect(t, e, "TransactWriteItems", txn(actions...), http.StatusBadRequest,
		`{"__type":"com.amazon.coral.validate#ValidationException","Message":"Transaction payload size cannot exceed 4MB. Payload Size: 4290078"}`)
	expect(t, e, "TransactWriteItems", txn(actions[:10]...), http.StatusOK, `{}`)

	huge := strings.Repeat("x", 410000)
	expect(t, e, "TransactWriteItems", txn(put("txa", `{"pk":{"S":"h1"}}`), put("txa", fmt.Sprintf(`{"pk":{"S":"h2"},"b":{"S":%q}}`, huge))), http.StatusBadRequest,
		`{"__type":"com.amazon.coral.validate#ValidationException","Message":"Item size has exceeded the maximum allowed size"}`)
}

// Transactional writes cost twice the units of plain writes, per table. DynamoDB
// Local reports twice that again (4 for a small Put) and, summing a set,
// counts equal figures of one table once; the engine follows DynamoDB's
// documentation (2 per KB of each item).
func TestTransactWriteItemsCapacity(t *testing.T) {
	e := txnTables(t)
	expect(t, e, "TransactWriteItems", `{"TransactItems":[`+
		put("txa", `{"pk":{"S":"a1"}}`)+`,`+put("txa", `{"pk":{"S":"a2"}}`)+`,`+
		put("txb", fmt.Sprintf(`{"pk":{"S":"b"},"sk":{"N":"1"},"v":{"S":%q}}`, strings.Repeat("v", 3000)))+
		`],"ReturnConsumedCapacity":"TOTAL"}`, http.StatusOK,
		`{"ConsumedCapacity":[{"TableName":"txa","CapacityUnits":4.0,"WriteCapacityUnits":4.0},{"TableName":"txb","CapacityUnits":6.0,"WriteCapacityUnits":6.0}]}`)
	expect(t, e, "TransactWriteItems", `{"TransactItems":[`+
		put("txg", `{"pk":{"S":"g"},"gk":{"S":"z"}}`)+`,`+
		`{"ConditionCheck":{"TableName":"txa","Key":{"pk":{"S":"a1"}},"ConditionExpression":"attribute_exists(pk)"}}`+
		`],"ReturnConsumedCapacity":"INDEXES"}`, http.StatusOK,
		`{"ConsumedCapacity":[`+
			`{"TableName":"txg","CapacityUnits":4.0,"WriteCapacityUnits":4.0,"Table":{"WriteCapacityUnits":2.0,"CapacityUnits":2.0},"GlobalSecondaryIndexes":{"gix":{"WriteCapacityUnits":2.0,"CapacityUnits":2.0}}},`+
			`{"TableName":"txa","CapacityUnits":2.0,"WriteCapacityUnits":2.0,"Table":{"WriteCapacityUnits":2.0,"CapacityUnits":2.0}}]}`)
	expect(t, e, "TransactWriteItems", `{"TransactItems":[`+put("txa", `{"pk":{"S":"a3"}}`)+`],"ReturnConsumedCapacity":"NONE"}`, http.StatusOK, `{}`)
}

// TestTransactWriteItemsToken runs in a testing/synctest bubble: the
// engine's time is the bubble's, and the ten minutes a token lives pass
// in time.Sleep.
func TestTransactWriteItemsToken(t *testing.T) { synctest.Test(t, testTransactWriteItemsToken) }

func testTransactWriteItemsToken(t *testing.T) {
	e := txnTables(t)
	withToken := func(token, body string) string {
		return `{"ClientRequestToken":"` + token + `",` + strings.TrimPrefix(body, "{")
	}
	first := txn(put("txa", `{"pk":{"S":"k1"},"v":{"N":"1"}}`))
	expect(t, e, "TransactWriteItems", withToken("tok", strings.TrimSuffix(first, "}")+`,"ReturnConsumedCapacity":"TOTAL"}`), http.StatusOK,
		`{"ConsumedCapacity":[{"TableName":"txa","CapacityUnits":2.0,"WriteCapacityUnits":2.0}]}`)
	expect(t, e, "PutItem", `{"TableName":"txa","Item":{"pk":{"S":"k1"},"v":{"N":"2"}}}`, http.StatusOK, `{}`)

	// The same parameters: success, nothing applied, the capacity of a read.
	expect(t, e, "TransactWriteItems", withToken("tok", strings.TrimSuffix(first, "}")+`,"ReturnConsumedCapacity":"TOTAL"}`), http.StatusOK,
		`{"ConsumedCapacity":[{"TableName":"txa","CapacityUnits":2.0,"ReadCapacityUnits":2.0}]}`)
	assert.JSONEq(t, `{"Item":{"pk":{"S":"k1"},"v":{"N":"2"}}}`, getItem(t, e, "txa", `{"pk":{"S":"k1"}}`))
	expect(t, e, "TransactWriteItems", withToken("tok", strings.TrimSuffix(first, "}")+`,"ReturnConsumedCapacity":"INDEXES"}`), http.StatusOK,
		`{"ConsumedCapacity":[{"TableName":"txa","CapacityUnits":2.0,"ReadCapacityUnits":2.0,"Table":{"ReadCapacityUnits":2.0,"CapacityUnits":2.0}}]}`)
	// Members in another order, an explicit null, other ReturnConsumedCapacity
	// and ReturnItemCollectionMetrics: still the same parameters.
	for _, same := range []string{
		first,
		`{"TransactItems":[{"Put":{"Item":{"v":{"N":"1"},"pk":{"S":"k1"}},"TableName":"txa"}}]}`,
		`{"TransactItems":[{"Put":{"TableName":"txa","Item":{"pk":{"S":"k1"},"v":{"N":"1"}},"ConditionExpression":null}}],"ReturnItemCollectionMetrics":"SIZE"}`,
	} {
		expect(t, e, "TransactWriteItems", withToken("tok", same), http.StatusOK, `{}`)
	}
	assert.JSONEq(t, `{"Item":{"pk":{"S":"k1"},"v":{"N":"2"}}}`, getItem(t, e, "txa", `{"pk":{"S":"k1"}}`))
	// Other parameters: a number written otherwise, another value, a member
	// given explicitly.
	for _, other := range []string{
		txn(put("txa", `{"pk":{"S":"k1"},"v":{"N":"1.0"}}`)),
		txn(put("txa", `{"pk":{"S":"k1"},"v":{"N":"3"}}`)),
		`{"TransactItems":[{"Put":{"TableName":"txa","Item":{"pk":{"S":"k1"},"v":{"N":"1"}},"ReturnValuesOnConditionCheckFailure":"NONE"}}]}`,
	} {
		expect(t, e, "TransactWriteItems", withToken("tok", other), http.StatusBadRequest,
			`{"__type":"com.amazonaws.dynamodb.v20120810#IdempotentParameterMismatchException","Message":""}`)
	}
	// Still remembered just before ten minutes have passed.
	time.Sleep(10*time.Minute - time.Second)
	expect(t, e, "TransactWriteItems", withToken("tok", first), http.StatusOK, `{}`)
	assert.JSONEq(t, `{"Item":{"pk":{"S":"k1"},"v":{"N":"2"}}}`, getItem(t, e, "txa", `{"pk":{"S":"k1"}}`))
	// Forgotten after ten minutes: the request is a new one, with any
	// parameters. (DynamoDB Local answers success and applies nothing.)
	time.Sleep(time.Second)
	expect(t, e, "TransactWriteItems", withToken("tok", txn(put("txa", `{"pk":{"S":"k1"},"v":{"N":"3"}}`))), http.StatusOK, `{}`)
	assert.JSONEq(t, `{"Item":{"pk":{"S":"k1"},"v":{"N":"3"}}}`, getItem(t, e, "txa", `{"pk":{"S":"k1"}}`))
	expect(t, e, "TransactWriteItems", withToken("tok", first), http.StatusBadRequest,
		`{"__type":"com.amazonaws.dynamodb.v20120810#IdempotentParameterMismatchException","Message":""}`)

	// A cancelled transaction does not take its token: the same request is
	// tried again, and other parameters may use the token.
	cond := txn(`{"Put":{"TableName":"txa","Item":{"pk":{"S":"m1"}},"ConditionExpression":"attribute_exists(pk)"}}`)
	cancelled := `{"__type":"com.amazonaws.dynamodb.v20120810#TransactionCanceledException","CancellationReasons":[{"Code":"ConditionalCheckFailed","Message":"The conditional request failed"}],"Message":"Transaction cancelled, please refer cancellation reasons for specific reasons [ConditionalCheckFailed]"}`
	expect(t, e, "TransactWriteItems", withToken("tok2", cond), http.StatusBadRequest, cancelled)
	expect(t, e, "TransactWriteItems", withToken("tok2", cond), http.StatusBadRequest, cancelled)
	expect(t, e, "PutItem", `{"TableName":"txa","Item":{"pk":{"S":"m1"},"v":{"N":"1"}}}`, http.StatusOK, `{}`)
	expect(t, e, "TransactWriteItems", withToken("tok2", cond), http.StatusOK, `{}`)
	assert.JSONEq(t, `{"Item":{"pk":{"S":"m1"}}}`, getItem(t, e, "txa", `{"pk":{"S":"m1"}}`))
	expect(t, e, "TransactWriteItems", withToken("tok3", txn(put("txa", `{"pk":{"N":"1"}}`))), http.StatusBadRequest,
		`{"__type":"com.amazonaws.dynamodb.v20120810#TransactionCanceledException","CancellationReasons":[{"Code":"ValidationError","Message":"One or more parameter values were invalid: Type mismatch for key"}],"Message":"Transaction cancelled, please refer cancellation reasons for specific reasons [ValidationError]"}`)
	expect(t, e, "TransactWriteItems", withToken("tok3", txn(put("txa", `{"pk":{"S":"m3"}}`))), http.StatusOK, `{}`)
	// Tokens belong to a scope (access key and region), as tables do.
	code, out := callAs(t, e, "other", "CreateTable", `{"TableName":"txa","KeySchema":[{"AttributeName":"pk","KeyType":"HASH"}],"AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"}],"BillingMode":"PAY_PER_REQUEST"}`)
	require.Equal(t, http.StatusOK, code, out)
	code, out = callAs(t, e, "other", "TransactWriteItems", withToken("tok2", txn(put("txa", `{"pk":{"S":"s2"}}`))))
	assert.Equal(t, http.StatusOK, code, out)
	_, out = callAs(t, e, "other", "GetItem", `{"TableName":"txa","Key":{"pk":{"S":"s2"}}}`)
	assert.JSONEq(t, `{"Item":{"pk":{"S":"s2"}}}`, out)
	// An empty token is no token.
	expect(t, e, "TransactWriteItems", withToken("", txn(put("txa", `{"pk":{"S":"m4"}}`))), http.StatusOK, `{}`)
	expect(t, e, "TransactWriteItems", withToken("", txn(put("txa", `{"pk":{"S":"m5"}}`))), http.StatusOK, `{}`)
}

func getTxn(table, key, extra string) string {
	return fmt.Sprintf(`{"Get":{"TableName":%q,"Key":%s%s}}`, table, key, extra)
}

func TestTransactGetItems(t *testing.T) {
	e := txnTables(t)
	mid := strings.Repeat("x", 5000)
	expect(t, e, "TransactWriteItems", txn(put("txa", `{"pk":{"S":"h1"}}`), put("txa", fmt.Sprintf(`{"pk":{"S":"mid"},"b":{"S":%q}}`, mid)),
		put("txb", `{"pk":{"S":"x"},"sk":{"N":"1"}}`)), http.StatusOK, `{}`)
	g := getTxn
	// A missing item is an empty entry. Each read costs twice a consistent
	// read, summed per table, in the order the tables come.
	expect(t, e, "TransactGetItems", `{"TransactItems":[`+
		g("txb", `{"pk":{"S":"x"},"sk":{"N":"1"}}`, "")+`,`+
		g("txa", `{"pk":{"S":"h1"}}`, "")+`,`+
		g("txa", `{"pk":{"S":"nope"}}`, "")+`,`+
		g("txa", `{"pk":{"S":"mid"}}`, "")+
		`],"ReturnConsumedCapacity":"TOTAL"}`, http.StatusOK,
		`{"ConsumedCapacity":[{"TableName":"txb","CapacityUnits":2.0,"ReadCapacityUnits":2.0},{"TableName":"txa","CapacityUnits":8.0,"ReadCapacityUnits":8.0}],`+
			`"Responses":[{"Item":{"sk":{"N":"1"},"pk":{"S":"x"}}},{"Item":{"pk":{"S":"h1"}}},{},{"Item":{"pk":{"S":"mid"},"b":{"S":"`+mid+`"}}}]}`)
	expect(t, e, "TransactGetItems", `{"TransactItems":[`+g("txa", `{"pk":{"S":"h1"}}`, "")+`,`+g("txa", `{"pk":{"S":"nope"}}`, "")+`],"ReturnConsumedCapacity":"INDEXES"}`, http.StatusOK,
		`{"ConsumedCapacity":[{"TableName":"txa","CapacityUnits":4.0,"ReadCapacityUnits":4.0,"Table":{"CapacityUnits":4.0}}],"Responses":[{"Item":{"pk":{"S":"h1"}}},{}]}`)
	expect(t, e, "TransactGetItems", txn(g("txa", `{"pk":{"S":"nope"}}`, "")), http.StatusOK, `{"Responses":[{}]}`)

	const (
		vex = `com.amazon.coral.validate#ValidationException`
		tce = `com.amazonaws.dynamodb.v20120810#TransactionCanceledException`
	)
	var hundredOne []string
	for i := range 101 {
		hundredOne = append(hundredOne, getTxn("txa", fmt.Sprintf(`{"pk":{"S":"h%d"}}`, i), ""))
	}
	for _, c := range []struct{ name, body, typ, msg string }{
		{"no items", `{}`, vex, "Value null at 'transactItems' failed to satisfy constraint: Member must not be null"},
		{"empty items", `{"TransactItems":[]}`, vex, "Value null at 'transactItems' failed to satisfy constraint: Member must not be null"},
		{"empty item", `{"TransactItems":[{}]}`, vex, "Value null at 'transactItems' failed to satisfy constraint: Member must not be null"},
		{"101", txn(hundredOne...), vex, "Member must have length less than or equal to 100"},
		{"duplicates", txn(g("txa", `{"pk":{"S":"h1"}}`, ""), g("txa", `{"pk":{"S":"h1"}}`, "")), vex, "Transaction request cannot include multiple operations on one item"},
		{"missing table", txn(g("nope", `{"pk":{"S":"h1"}}`, "")), "com.amazonaws.dynamodb.v20120810#ResourceNotFoundException", "Cannot do operations on a non-existent table"},
		{"no key", txn(`{"Get":{"TableName":"txa"}}`), vex, "Get Condition for key not in key list"},
		{"no table name", txn(`{"Get":{"Key":{"pk":{"S":"x"}}}}`), vex, "Requested resource not found"},
		{"empty key", txn(getTxn("txa", `{"pk":{"S":""}}`, "")), vex, "One or more parameter values are not valid. The AttributeValue for a key attribute cannot contain an empty string value. Key: pk"},
		{"key with extra attribute", txn(getTxn("txa", `{"pk":{"S":"a"},"x":{"S":"b"}}`, "")), tce, "The number of conditions on the keys is invalid"},
		// Local checks each Get whole before the next.
		{"missing table before a later bad name", txn(getTxn("nope", `{"pk":{"S":"a"}}`, ""), getTxn("x", `{"pk":{"S":"a"}}`, "")), "com.amazonaws.dynamodb.v20120810#ResourceNotFoundException", "Cannot do operations on a non-existent table"},
		{"key type before a later missing table", txn(getTxn("txa", `{"pk":{"N":"1"}}`, ""), getTxn("nope", `{"pk":{"S":"a"}}`, "")), tce, "One or more parameter values were invalid: Type mismatch for key"},
		{"duplicates before a later missing table", txn(getTxn("txa", `{"pk":{"S":"a"}}`, ""), getTxn("txa", `{"pk":{"S":"a"}}`, ""), getTxn("nope", `{"pk":{"S":"a"}}`, "")), vex, "Transaction request cannot include multiple operations on one item"},
		{"key type before later duplicates", txn(getTxn("txa", `{"pk":{"N":"1"}}`, ""), getTxn("txa", `{"pk":{"S":"a"}}`, ""), getTxn("txa", `{"pk":{"S":"a"}}`, "")), tce, "One or more parameter values were invalid: Type mismatch for key"},
		{"unused names before a later missing table", txn(getTxn("txa", `{"pk":{"S":"a"}}`, `,"ExpressionAttributeNames":{"#a":"a"}`), getTxn("nope", `{"pk":{"S":"a"}}`, "")), vex, "ExpressionAttributeNames can only be specified when using expressions"},
		{"unused names", txn(g("txa", `{"pk":{"S":"h1"}}`, `,"ExpressionAttributeNames":{"#a":"a"}`)), vex, "ExpressionAttributeNames can only be specified when using expressions"},
		// Local answers a key that does not fit with a cancellation that
		// carries the message and no reasons.
		{"key type", txn(g("txa", `{"pk":{"S":"h1"}}`, ""), g("txa", `{"pk":{"N":"1"}}`, "")), tce, "One or more parameter values were invalid: Type mismatch for key"},
		{"key attribute missing", txn(g("txa", `{"pk":{"S":"h1"}}`, ""), g("txa", `{"x":{"N":"1"}}`, "")), tce, "One of the required keys was not given a value"},
	} {
		t.Run(c.name, func(t *testing.T) {
			expect(t, e, "TransactGetItems", c.body, http.StatusBadRequest, fmt.Sprintf(`{"__type":%q,"Message":%q}`, c.typ, c.msg))
		})
	}

	out, err := client(e).TransactGetItems(context.Background(), &dynamodb.TransactGetItemsInput{TransactItems: []types.TransactGetItem{
		{Get: &types.Get{TableName: aws.String("txa"), Key: map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: "nope"}}}},
		{Get: &types.Get{TableName: aws.String("txa"), Key: map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: "h1"}}}},
	}})
	require.NoError(t, err)
	require.Len(t, out.Responses, 2)
	assert.Nil(t, out.Responses[0].Item)
	assert.Equal(t, map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: "h1"}}, out.Responses[1].Item)
}

// A projection picks attributes but the read costs the whole item; one
// that matches nothing gives an empty Item.
func TestTransactGetItemsProjection(t *testing.T) {
	e := txnTables(t)
	big := strings.Repeat("x", 300000)
	expect(t, e, "TransactWriteItems", txn(put("txa", `{"pk":{"S":"h1"}}`), put("txa", fmt.Sprintf(`{"pk":{"S":"big1"},"b":{"S":%q}}`, big))), http.StatusOK, `{}`)
	expect(t, e, "TransactGetItems", `{"TransactItems":[`+
		getTxn("txa", `{"pk":{"S":"h1"}}`, "")+`,`+getTxn("txa", `{"pk":{"S":"nope"}}`, "")+`,`+
		getTxn("txa", `{"pk":{"S":"big1"}}`, `,"ProjectionExpression":"pk"`)+
		`],"ReturnConsumedCapacity":"TOTAL"}`, http.StatusOK,
		`{"ConsumedCapacity":[{"TableName":"txa","CapacityUnits":152.0,"ReadCapacityUnits":152.0}],"Responses":[{"Item":{"pk":{"S":"h1"}}},{},{"Item":{"pk":{"S":"big1"}}}]}`)
	expect(t, e, "TransactGetItems", txn(getTxn("txa", `{"pk":{"S":"h1"}}`, `,"ProjectionExpression":"zz"`)), http.StatusOK, `{"Responses":[{"Item":{}}]}`)
	syntax := `{"__type":"com.amazon.coral.validate#ValidationException","Message":"Invalid ProjectionExpression: Syntax error; token: \"<EOF>\", near: \",\""}`
	bad := getTxn("txa", `{"pk":{"S":"h1"}}`, `,"ProjectionExpression":"a,"`)
	expect(t, e, "TransactGetItems", txn(bad), http.StatusBadRequest, syntax)
	// Each Get is checked whole before the next.
	expect(t, e, "TransactGetItems", txn(bad, getTxn("nope", `{"pk":{"S":"a"}}`, "")), http.StatusBadRequest, syntax)
	expect(t, e, "TransactGetItems", txn(bad, getTxn("txa", `{"pk":{"N":"1"}}`, "")), http.StatusBadRequest, syntax)
	expect(t, e, "TransactGetItems", txn(getTxn("nope", `{"pk":{"S":"a"}}`, ""), bad), http.StatusBadRequest,
		`{"__type":"com.amazonaws.dynamodb.v20120810#ResourceNotFoundException","Message":"Cannot do operations on a non-existent table"}`)
}

// FaultTransactionConflict cancels a transaction with TransactionConflict on
// the items its rule names, and applies nothing.
func TestTransactionConflictFault(t *testing.T) {
	faults := engine.NewFaults(1)
	e := txnTables(t, func(o *engine.Options) { o.Faults = faults })
	remove := faults.Add(engine.Rule{Key: map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: "b"}}, Fault: engine.FaultTransactionConflict, Times: 2})
	defer remove()
	conflict := `{"__type":"com.amazonaws.dynamodb.v20120810#TransactionCanceledException","CancellationReasons":[{"Code":"None"},{"Code":"TransactionConflict","Message":"Transaction is ongoing for the item"}],"Message":"Transaction cancelled, please refer cancellation reasons for specific reasons [None, TransactionConflict]"}`
	write := txn(put("txa", `{"pk":{"S":"a"}}`), put("txa", `{"pk":{"S":"b"}}`))
	expect(t, e, "TransactWriteItems", write, http.StatusBadRequest, conflict)
	expect(t, e, "TransactGetItems", txn(`{"Get":{"TableName":"txa","Key":{"pk":{"S":"a"}}}}`, `{"Get":{"TableName":"txa","Key":{"pk":{"S":"b"}}}}`), http.StatusBadRequest, conflict)
	assert.JSONEq(t, `{}`, getItem(t, e, "txa", `{"pk":{"S":"a"}}`), "a conflict applies nothing")
	assert.Equal(t, 2, faults.Count(engine.FaultTransactionConflict))
	expect(t, e, "TransactWriteItems", write, http.StatusOK, `{}`)
	assert.JSONEq(t, `{"Item":{"pk":{"S":"a"}}}`, getItem(t, e, "txa", `{"pk":{"S":"a"}}`))

	// Through the SDK, which does not retry a cancellation.
	faults.Add(engine.Rule{Op: "TransactWriteItems", Fault: engine.FaultTransactionConflict, Times: 1})
	_, err := client(e).TransactWriteItems(context.Background(), &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
		{Delete: &types.Delete{TableName: aws.String("txa"), Key: map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: "a"}}}},
	}})
	var tce *types.TransactionCanceledException
	require.True(t, errors.As(err, &tce), "%v", err)
	assert.Equal(t, "TransactionConflict", *tce.CancellationReasons[0].Code)
	assert.JSONEq(t, `{"Item":{"pk":{"S":"a"}}}`, getItem(t, e, "txa", `{"pk":{"S":"a"}}`))
}

// Transactions racing for one item: exactly one wins, and a reader of two
// items a transaction writes together sees both or neither.
func TestTransactWriteItemsConcurrent(t *testing.T) {
	e := txnTables(t)
	const writers = 16
	var wg sync.WaitGroup
	results := make(chan int, writers)
	for i := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			code, _ := call(t, e, "TransactWriteItems", txn(
				`{"Put":{"TableName":"txa","Item":{"pk":{"S":"lock"},"by":{"N":"`+fmt.Sprint(i)+`"}},"ConditionExpression":"attribute_not_exists(pk)"}}`,
				put("txb", `{"pk":{"S":"w"},"sk":{"N":"`+fmt.Sprint(i)+`"}}`)))
			results <- code
		}()
	}
	stop := make(chan struct{})
	torn := make(chan string, 1)
	var readers sync.WaitGroup
	for range 4 {
		readers.Add(1)
		go func() {
			defer readers.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				for i := range writers {
					_, out := call(t, e, "TransactGetItems", txn(
						getTxn("txa", `{"pk":{"S":"lock"}}`, ""),
						getTxn("txb", `{"pk":{"S":"w"},"sk":{"N":"`+fmt.Sprint(i)+`"}}`, "")))
					lock := strings.Contains(out, `"by":{"N":"`+fmt.Sprint(i)+`"}`)
					row := strings.Contains(out, `"sk":{"N":"`+fmt.Sprint(i)+`"}`)
					if lock != row {
						select {
						case torn <- out:
						default:
						}
					}
				}
			}
		}()
	}
	wg.Wait()
	close(stop)
	readers.Wait()
	close(results)
	counts := map[int]int{}
	for code := range results {
		counts[code]++
	}
	assert.Equal(t, map[int]int{http.StatusOK: 1, http.StatusBadRequest: writers - 1}, counts)
	select {
	case out := <-torn:
		t.Fatalf("a reader saw half a transaction: %s", out)
	default:
	}
}

func TestTransactWriteItemsUpdate(t *testing.T) {
	e := txnTables(t)
	expect(t, e, "PutItem", `{"TableName":"txa","Item":{"pk":{"S":"u1"},"n":{"N":"5"},"s":{"S":"str"}}}`, http.StatusOK, `{}`)
	upd := func(expr, values string) string {
		if values != "" {
			values = `,"ExpressionAttributeValues":` + values
		}
		return fmt.Sprintf(`{"Update":{"TableName":"txa","Key":{"pk":{"S":"u1"}},"UpdateExpression":%q%s}}`, expr, values)
	}
	ok := put("txa", `{"pk":{"S":"h1"}}`)
	expect(t, e, "TransactWriteItems", txn(upd("SET n = n + :one, m = :m", `{":one":{"N":"1"},":m":{"S":"x"}}`),
		`{"Update":{"TableName":"txa","Key":{"pk":{"S":"u2"}},"UpdateExpression":"SET m = :m","ExpressionAttributeValues":{":m":{"S":"y"}}}}`), http.StatusOK, `{}`)
	assert.JSONEq(t, `{"Item":{"s":{"S":"str"},"pk":{"S":"u1"},"m":{"S":"x"},"n":{"N":"6"}}}`, getItem(t, e, "txa", `{"pk":{"S":"u1"}}`))
	assert.JSONEq(t, `{"Item":{"pk":{"S":"u2"},"m":{"S":"y"}}}`, getItem(t, e, "txa", `{"pk":{"S":"u2"}}`), "an Update creates a missing item")

	const vex = `com.amazon.coral.validate#ValidationException`
	for _, c := range []struct{ name, body, msg string }{
		{"operand of the wrong type in the item", txn(ok, upd("SET n = s + :one", `{":one":{"N":"1"}}`)), "An operand in the update expression has an incorrect data type"},
		{"operand of the wrong type in the request", txn(ok, upd("SET n = n + :one", `{":one":{"S":"1"}}`)), "Invalid UpdateExpression: Incorrect operand type for operator or function; operator or function: +, operand type: S"},
		{"missing attribute", txn(ok, upd("SET n = zz + :one", `{":one":{"N":"1"}}`)), "The provided expression refers to an attribute that does not exist in the item"},
		{"overlapping paths", txn(ok, upd("SET n = :one, n = :one", `{":one":{"N":"1"}}`)), "Invalid UpdateExpression: Two document paths overlap with each other; must remove or rewrite one of these paths; path one: [n], path two: [n]"},
		{"index of a string", txn(ok, upd("SET s[1] = :one", `{":one":{"N":"1"}}`)), "The document path provided in the update expression is invalid for update"},
		// An error of an update fails the request even when other actions
		// have reasons to cancel it.
		{"after a failed condition", txn(`{"Put":{"TableName":"txa","Item":{"pk":{"S":"h1"}},"ConditionExpression":"attribute_not_exists(pk)"}}`, upd("SET s[1] = :one", `{":one":{"N":"1"}}`)), "The document path provided in the update expression is invalid for update"},
		{"after a key of the wrong type", txn(put("txa", `{"pk":{"N":"1"}}`), upd("SET n = zz + :one", `{":one":{"N":"1"}}`)), "The provided expression refers to an attribute that does not exist in the item"},
		// Errors in the expression itself come before the tables.
		{"overlap before a missing table", txn(put("nope", `{"pk":{"S":"h1"}}`), upd("SET n = :one, n = :one", `{":one":{"N":"1"}}`)), "Invalid UpdateExpression: Two document paths overlap with each other; must remove or rewrite one of these paths; path one: [n], path two: [n]"},
		{"operand type before a missing table", txn(put("nope", `{"pk":{"S":"h1"}}`), upd("SET n = n + :one", `{":one":{"S":"1"}}`)), "Invalid UpdateExpression: Incorrect operand type for operator or function; operator or function: +, operand type: S"},
		{"undefined value before a missing table", txn(put("nope", `{"pk":{"S":"h1"}}`), upd("SET n = :two", ``)), "Invalid UpdateExpression: An expression attribute value used in expression is not defined; attribute value: :two"},
		{"before a key of the wrong type", txn(upd("SET n = zz + :one", `{":one":{"N":"1"}}`), put("txa", `{"pk":{"N":"1"}}`)), "The provided expression refers to an attribute that does not exist in the item"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if c.name != "after a failed condition" {
				expect(t, e, "TransactWriteItems", txn(ok), http.StatusOK, `{}`)
			}
			expect(t, e, "TransactWriteItems", c.body, http.StatusBadRequest, fmt.Sprintf(`{"__type":%q,"Message":%q}`, vex, c.msg))
		})
	}

	// Updating a key attribute is the action's ValidationError. (DynamoDB
	// Local lists that one reason alone; the engine gives one per action,
	// as DynamoDB documents.)
	const keyMsg = "One or more parameter values were invalid: Cannot update attribute pk. This attribute is part of the key"
	for _, expr := range []string{"SET pk = :m", "REMOVE pk"} {
		values := `{":m":{"S":"x"}}`
		if strings.HasPrefix(expr, "REMOVE") {
			values = ""
		}
		expect(t, e, "TransactWriteItems", txn(put("txa", `{"pk":{"S":"h9"}}`), upd(expr, values)), http.StatusBadRequest,
			`{"__type":"com.amazonaws.dynamodb.v20120810#TransactionCanceledException","CancellationReasons":[{"Code":"None"},{"Code":"ValidationError","Message":"`+keyMsg+`"}],`+
				`"Message":"Transaction cancelled, please refer cancellation reasons for specific reasons [None, ValidationError]"}`)
	}
	assert.JSONEq(t, `{}`, getItem(t, e, "txa", `{"pk":{"S":"h9"}}`))
	// ... after the tables and the duplicates, as Local checks it.
	expect(t, e, "TransactWriteItems", txn(put("nope", `{"pk":{"S":"h9"}}`), upd("SET pk = :m", `{":m":{"S":"x"}}`)), http.StatusBadRequest,
		`{"__type":"com.amazonaws.dynamodb.v20120810#ResourceNotFoundException","Message":"Cannot do operations on a non-existent table"}`)
	expect(t, e, "TransactWriteItems", txn(ok, ok, upd("SET pk = :m", `{":m":{"S":"x"}}`)), http.StatusBadRequest,
		`{"__type":"com.amazon.coral.validate#ValidationException","Message":"Transaction request cannot include multiple operations on one item"}`)

	// An update that makes the item too large.
	expect(t, e, "PutItem", fmt.Sprintf(`{"TableName":"txa","Item":{"pk":{"S":"big1"},"b":{"S":%q}}}`, strings.Repeat("x", 300000)), http.StatusOK, `{}`)
	expect(t, e, "TransactWriteItems", txn(fmt.Sprintf(`{"Update":{"TableName":"txa","Key":{"pk":{"S":"big1"}},"UpdateExpression":"SET c = :c","ExpressionAttributeValues":{":c":{"S":%q}}}}`, strings.Repeat("y", 200000))), http.StatusBadRequest,
		`{"__type":"com.amazonaws.dynamodb.v20120810#TransactionCanceledException","CancellationReasons":[{"Code":"ValidationError","Message":"Item size to update has exceeded the maximum allowed size"}],"Message":"Transaction cancelled, please refer cancellation reasons for specific reasons [ValidationError]"}`)

	// A failed condition of an Update returns the item with ALL_OLD.
	expect(t, e, "TransactWriteItems", txn(`{"Update":{"TableName":"txa","Key":{"pk":{"S":"u2"}},"UpdateExpression":"SET a = :a","ConditionExpression":"attribute_not_exists(pk)","ExpressionAttributeValues":{":a":{"N":"1"}},"ReturnValuesOnConditionCheckFailure":"ALL_OLD"}}`), http.StatusBadRequest,
		`{"__type":"com.amazonaws.dynamodb.v20120810#TransactionCanceledException","CancellationReasons":[{"Item":{"pk":{"S":"u2"},"m":{"S":"y"}},"Code":"ConditionalCheckFailed","Message":"The conditional request failed"}],"Message":"Transaction cancelled, please refer cancellation reasons for specific reasons [ConditionalCheckFailed]"}`)
	assert.JSONEq(t, `{"Item":{"s":{"S":"str"},"pk":{"S":"u1"},"m":{"S":"x"},"n":{"N":"6"}}}`, getItem(t, e, "txa", `{"pk":{"S":"u1"}}`), "no refused update applied")
}

// Transactions that move a unit from one counter to another, in parallel,
// lose no update: the counters end at exactly the number moved.
func TestTransactWriteItemsConcurrentCounters(t *testing.T) {
	e := txnTables(t)
	expect(t, e, "TransactWriteItems", txn(put("txa", `{"pk":{"S":"from"},"n":{"N":"0"}}`), put("txb", `{"pk":{"S":"to"},"sk":{"N":"0"},"n":{"N":"0"}}`)), http.StatusOK, `{}`)
	const workers, each = 8, 25
	move := txn(
		`{"Update":{"TableName":"txa","Key":{"pk":{"S":"from"}},"UpdateExpression":"SET n = n - :one","ExpressionAttributeValues":{":one":{"N":"1"}}}}`,
		`{"Update":{"TableName":"txb","Key":{"pk":{"S":"to"},"sk":{"N":"0"}},"UpdateExpression":"SET n = n + :one","ExpressionAttributeValues":{":one":{"N":"1"}}}}`)
	var wg sync.WaitGroup
	failures := make(chan string, workers*each)
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range each {
				if code, out := call(t, e, "TransactWriteItems", move); code != http.StatusOK {
					failures <- out
				}
			}
		}()
	}
	wg.Wait()
	close(failures)
	for f := range failures {
		t.Error(f)
	}
	assert.JSONEq(t, fmt.Sprintf(`{"Item":{"pk":{"S":"from"},"n":{"N":"%d"}}}`, -workers*each), getItem(t, e, "txa", `{"pk":{"S":"from"}}`))
	assert.JSONEq(t, fmt.Sprintf(`{"Item":{"pk":{"S":"to"},"sk":{"N":"0"},"n":{"N":"%d"}}}`, workers*each), getItem(t, e, "txb", `{"pk":{"S":"to"},"sk":{"N":"0"}}`))
}
