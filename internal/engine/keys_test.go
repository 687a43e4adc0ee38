package engine_test

import (
	"testing"

	"github.com/optimist-dynamo/optimist/internal/engine"
)

// DynamoDB Local's answers on tables of other key shapes: a table without
// a range key, number range keys (ordered by value, compared whatever
// their text), and a binary hash key with string range keys (ordered by
// their UTF-8 bytes).
func TestQueryKeyShapes(t *testing.T) {
	e := engine.New()
	mustCall(t, e, "CreateTable", `{"TableName":"hash","KeySchema":[{"AttributeName":"pk","KeyType":"HASH"}],"AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"}],"BillingMode":"PAY_PER_REQUEST"}`)
	for _, p := range []string{"a", "b", "c"} {
		mustCall(t, e, "PutItem", `{"TableName":"hash","Item":{"pk":{"S":"`+p+`"},"v":{"N":"1"}}}`)
	}
	mustCall(t, e, "CreateTable", `{"TableName":"num","KeySchema":[{"AttributeName":"pk","KeyType":"HASH"},{"AttributeName":"sk","KeyType":"RANGE"}],"AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"},{"AttributeName":"sk","AttributeType":"N"}],"BillingMode":"PAY_PER_REQUEST"}`)
	for _, n := range []string{"-10", "-1.5", "0", "0.25", "2", "10", "1e3", "1000.5"} {
		mustCall(t, e, "PutItem", `{"TableName":"num","Item":{"pk":{"S":"a"},"sk":{"N":"`+n+`"}}}`)
	}
	mustCall(t, e, "CreateTable", `{"TableName":"bin","KeySchema":[{"AttributeName":"pk","KeyType":"HASH"},{"AttributeName":"sk","KeyType":"RANGE"}],"AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"B"},{"AttributeName":"sk","AttributeType":"S"}],"BillingMode":"PAY_PER_REQUEST"}`)
	for _, s := range []string{"a", "B", "ab", "é", "abc", "Z", "a b"} {
		mustCall(t, e, "PutItem", `{"TableName":"bin","Item":{"pk":{"B":"AQI="},"sk":{"S":"`+s+`"}}}`)
	}
	t.Run("hash", func(t *testing.T) {
		runRaw(t, e, "hash", []rawCase{
			{name: "hash only table", body: `"KeyConditionExpression":"pk = :v","ExpressionAttributeValues":{":v":{"S":"a"}},"ReturnConsumedCapacity":"TOTAL"`, want: `{"Items":[{"v":{"N":"1"},"pk":{"S":"a"}}],"Count":1,"ScannedCount":1,"ConsumedCapacity":{"TableName":"$T","CapacityUnits":0.5}}`},
			{name: "hash only table limit", body: `"KeyConditionExpression":"pk = :v","Limit":1,"ExpressionAttributeValues":{":v":{"S":"a"}}`, want: `{"Items":[{"v":{"N":"1"},"pk":{"S":"a"}}],"Count":1,"ScannedCount":1}`},
			{name: "hash only table start key", body: `"KeyConditionExpression":"pk = :v","ExclusiveStartKey":{"pk":{"S":"a"}},"ExpressionAttributeValues":{":v":{"S":"a"}}`, want: `{"Items":[],"Count":0,"ScannedCount":0}`},
			{name: "hash only table other start key", body: `"KeyConditionExpression":"pk = :v","ExclusiveStartKey":{"pk":{"S":"b"}},"ExpressionAttributeValues":{":v":{"S":"a"}}`, want: `{"__type":"com.amazon.coral.validate#ValidationException","Message":"The provided starting key does not match the range key predicate"}`},
			{name: "hash only table range condition", body: `"KeyConditionExpression":"pk = :v AND sk = :w","ExpressionAttributeValues":{":v":{"S":"a"},":w":{"N":"1"}}`, want: `{"__type":"com.amazon.coral.validate#ValidationException","Message":"Query key condition not supported"}`},
			{name: "hash only table missing", body: `"KeyConditionExpression":"pk = :v","Limit":1,"ExpressionAttributeValues":{":v":{"S":"zz"}}`, want: `{"Items":[],"Count":0,"ScannedCount":0}`},
			{name: "hash only scan start key with range", op: "Scan", body: `"ExclusiveStartKey":{"pk":{"S":"c"},"sk":{"N":"1"}}`, want: `{"__type":"com.amazon.coral.validate#ValidationException","Message":"Exclusive Start Key must have same size as table's key schema"}`},
		})
	})
	t.Run("num", func(t *testing.T) {
		runRaw(t, e, "num", []rawCase{
			{name: "numbers in order", body: `"KeyConditionExpression":"pk = :v","ExpressionAttributeValues":{":v":{"S":"a"}}`, want: `{"Items":[{"sk":{"N":"-10"},"pk":{"S":"a"}},{"sk":{"N":"-1.5"},"pk":{"S":"a"}},{"sk":{"N":"0"},"pk":{"S":"a"}},{"sk":{"N":"0.25"},"pk":{"S":"a"}},{"sk":{"N":"2"},"pk":{"S":"a"}},{"sk":{"N":"10"},"pk":{"S":"a"}},{"sk":{"N":"1000"},"pk":{"S":"a"}},{"sk":{"N":"1000.5"},"pk":{"S":"a"}}],"Count":8,"ScannedCount":8}`},
			{name: "numbers backward", body: `"KeyConditionExpression":"pk = :v","ScanIndexForward":false,"ExpressionAttributeValues":{":v":{"S":"a"}}`, want: `{"Items":[{"sk":{"N":"1000.5"},"pk":{"S":"a"}},{"sk":{"N":"1000"},"pk":{"S":"a"}},{"sk":{"N":"10"},"pk":{"S":"a"}},{"sk":{"N":"2"},"pk":{"S":"a"}},{"sk":{"N":"0.25"},"pk":{"S":"a"}},{"sk":{"N":"0"},"pk":{"S":"a"}},{"sk":{"N":"-1.5"},"pk":{"S":"a"}},{"sk":{"N":"-10"},"pk":{"S":"a"}}],"Count":8,"ScannedCount":8}`},
			{name: "numbers between", body: `"KeyConditionExpression":"pk = :v AND sk BETWEEN :a AND :b","ExpressionAttributeValues":{":v":{"S":"a"},":a":{"N":"-1.50"},":b":{"N":"1E1"}}`, want: `{"Items":[{"sk":{"N":"-1.5"},"pk":{"S":"a"}},{"sk":{"N":"0"},"pk":{"S":"a"}},{"sk":{"N":"0.25"},"pk":{"S":"a"}},{"sk":{"N":"2"},"pk":{"S":"a"}},{"sk":{"N":"10"},"pk":{"S":"a"}}],"Count":5,"ScannedCount":5}`},
			{name: "numbers gt", body: `"KeyConditionExpression":"pk = :v AND sk > :a","ExpressionAttributeValues":{":v":{"S":"a"},":a":{"N":"1000"}}`, want: `{"Items":[{"sk":{"N":"1000.5"},"pk":{"S":"a"}}],"Count":1,"ScannedCount":1}`},
			{name: "numbers eq other text", body: `"KeyConditionExpression":"pk = :v AND sk = :a","ExpressionAttributeValues":{":v":{"S":"a"},":a":{"N":"0.250"}}`, want: `{"Items":[{"sk":{"N":"0.25"},"pk":{"S":"a"}}],"Count":1,"ScannedCount":1}`},
			{name: "numbers start key other text", body: `"KeyConditionExpression":"pk = :v","ExclusiveStartKey":{"pk":{"S":"a"},"sk":{"N":"1E1"}},"ExpressionAttributeValues":{":v":{"S":"a"}}`, want: `{"Items":[{"sk":{"N":"1000"},"pk":{"S":"a"}},{"sk":{"N":"1000.5"},"pk":{"S":"a"}}],"Count":2,"ScannedCount":2}`},
		})
	})
	t.Run("bin", func(t *testing.T) {
		runRaw(t, e, "bin", []rawCase{
			{name: "strings in byte order", body: `"KeyConditionExpression":"pk = :v","ExpressionAttributeValues":{":v":{"B":"AQI="}}`, want: `{"Items":[{"sk":{"S":"B"},"pk":{"B":"AQI="}},{"sk":{"S":"Z"},"pk":{"B":"AQI="}},{"sk":{"S":"a"},"pk":{"B":"AQI="}},{"sk":{"S":"a b"},"pk":{"B":"AQI="}},{"sk":{"S":"ab"},"pk":{"B":"AQI="}},{"sk":{"S":"abc"},"pk":{"B":"AQI="}},{"sk":{"S":"é"},"pk":{"B":"AQI="}}],"Count":7,"ScannedCount":7}`},
			{name: "begins_with string", body: `"KeyConditionExpression":"pk = :v AND begins_with(sk, :s)","ExpressionAttributeValues":{":v":{"B":"AQI="},":s":{"S":"a"}}`, want: `{"Items":[{"sk":{"S":"a"},"pk":{"B":"AQI="}},{"sk":{"S":"a b"},"pk":{"B":"AQI="}},{"sk":{"S":"ab"},"pk":{"B":"AQI="}},{"sk":{"S":"abc"},"pk":{"B":"AQI="}}],"Count":4,"ScannedCount":4}`},
			{name: "string lt", body: `"KeyConditionExpression":"pk = :v AND sk < :s","ExpressionAttributeValues":{":v":{"B":"AQI="},":s":{"S":"a"}}`, want: `{"Items":[{"sk":{"S":"B"},"pk":{"B":"AQI="}},{"sk":{"S":"Z"},"pk":{"B":"AQI="}}],"Count":2,"ScannedCount":2}`},
			{name: "string ge multibyte", body: `"KeyConditionExpression":"pk = :v AND sk >= :s","ExpressionAttributeValues":{":v":{"B":"AQI="},":s":{"S":"z"}}`, want: `{"Items":[{"sk":{"S":"é"},"pk":{"B":"AQI="}}],"Count":1,"ScannedCount":1}`},
			{name: "binary hash mismatch", body: `"KeyConditionExpression":"pk = :v","ExpressionAttributeValues":{":v":{"B":"AQM="}}`, want: `{"Items":[],"Count":0,"ScannedCount":0}`},
			{name: "empty binary hash", body: `"KeyConditionExpression":"pk = :v","ExpressionAttributeValues":{":v":{"B":""}}`, want: `{"__type":"com.amazon.coral.validate#ValidationException","Message":"One or more parameter values are not valid. The AttributeValue for a key attribute cannot contain an empty binary value. Key: pk"}`},
		})
	})
}
