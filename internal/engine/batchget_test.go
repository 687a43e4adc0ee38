package engine_test

import (
	"testing"

	"github.com/optimist-dynamo/optimist/internal/engine"
)

// DynamoDB Local's answers to BatchGetItem on readsFixture's table.
func TestBatchGetItem(t *testing.T) {
	e := engine.New()
	readsFixture(t, e, "reads")
	runRaw(t, e, "reads", []rawCase{
		{name: "two items", op: "BatchGetItem", body: `{"RequestItems":{"$T":{"Keys":[{"pk":{"S":"a"},"sk":{"N":"1"}},{"pk":{"S":"b"},"sk":{"N":"2"}}]}},"ReturnConsumedCapacity":"TOTAL"}`, want: `{"Responses":{"$T":[{"sk":{"N":"1"},"x":{"S":"x1"},"y":{"N":"1"},"pk":{"S":"a"},"l":{"S":"L3"},"g":{"S":"G"}},{"sk":{"N":"2"},"x":{"S":"x2"},"y":{"N":"2"},"pk":{"S":"b"},"l":{"S":"L2"},"g":{"S":"G"}}]},"UnprocessedKeys":{},"ConsumedCapacity":[{"TableName":"$T","CapacityUnits":1.0}]}`, unordered: true},
		{name: "missing item", op: "BatchGetItem", body: `{"RequestItems":{"$T":{"Keys":[{"pk":{"S":"zz"},"sk":{"N":"2"}}]}},"ReturnConsumedCapacity":"INDEXES"}`, want: `{"Responses":{"$T":[]},"UnprocessedKeys":{},"ConsumedCapacity":[{"TableName":"$T","CapacityUnits":0.0,"Table":{"CapacityUnits":0.0}}]}`},
		{name: "found and missing", op: "BatchGetItem", body: `{"RequestItems":{"$T":{"Keys":[{"pk":{"S":"a"},"sk":{"N":"1"}},{"pk":{"S":"a"},"sk":{"N":"9"}}],"ProjectionExpression":"x"}},"ReturnConsumedCapacity":"TOTAL"}`, want: `{"Responses":{"$T":[{"x":{"S":"x1"}}]},"UnprocessedKeys":{},"ConsumedCapacity":[{"TableName":"$T","CapacityUnits":0.5}]}`},
		{name: "consistent", op: "BatchGetItem", body: `{"RequestItems":{"$T":{"Keys":[{"pk":{"S":"a"},"sk":{"N":"1"}},{"pk":{"S":"a"},"sk":{"N":"2"}}],"ConsistentRead":true}},"ReturnConsumedCapacity":"INDEXES"}`, want: `{"Responses":{"$T":[{"sk":{"N":"2"},"x":{"S":"x2"},"y":{"N":"2"},"pk":{"S":"a"},"l":{"S":"L2"},"g":{"S":"G"}},{"sk":{"N":"1"},"x":{"S":"x1"},"y":{"N":"1"},"pk":{"S":"a"},"l":{"S":"L3"},"g":{"S":"G"}}]},"UnprocessedKeys":{},"ConsumedCapacity":[{"TableName":"$T","CapacityUnits":2.0,"Table":{"CapacityUnits":2.0}}]}`, unordered: true},
		{name: "projection names", op: "BatchGetItem", body: `{"RequestItems":{"$T":{"Keys":[{"pk":{"S":"a"},"sk":{"N":"3"}}],"ProjectionExpression":"#x, sk","ExpressionAttributeNames":{"#x":"x"}}}}`, want: `{"Responses":{"$T":[{"sk":{"N":"3"},"x":{"S":"x3"}}]},"UnprocessedKeys":{}}`},
		{name: "values ignored", op: "BatchGetItem", body: `{"RequestItems":{"$T":{"Keys":[{"pk":{"S":"a"},"sk":{"N":"1"}}],"ExpressionAttributeValues":{":a":{"S":"x"}}}}}`, want: `{"Responses":{"$T":[{"sk":{"N":"1"},"x":{"S":"x1"},"y":{"N":"1"},"pk":{"S":"a"},"l":{"S":"L3"},"g":{"S":"G"}}]},"UnprocessedKeys":{}}`},
		{name: "same number, other text", op: "BatchGetItem", body: `{"RequestItems":{"$T":{"Keys":[{"pk":{"S":"a"},"sk":{"N":"1"}},{"pk":{"S":"a"},"sk":{"N":"01"}}]}}}`, want: `{"Responses":{"$T":[{"sk":{"N":"1"},"x":{"S":"x1"},"y":{"N":"1"},"pk":{"S":"a"},"l":{"S":"L3"},"g":{"S":"G"}},{"sk":{"N":"1"},"x":{"S":"x1"},"y":{"N":"1"},"pk":{"S":"a"},"l":{"S":"L3"},"g":{"S":"G"}}]},"UnprocessedKeys":{}}`},
		{name: "duplicates", op: "BatchGetItem", body: `{"RequestItems":{"$T":{"Keys":[{"pk":{"S":"a"},"sk":{"N":"1"}},{"pk":{"S":"a"},"sk":{"N":"1"}}]}}}`, want: `{"__type":"com.amazon.coral.validate#ValidationException","Message":"Provided list of item keys contains duplicates"}`},
		{name: "empty keys", op: "BatchGetItem", body: `{"RequestItems":{"$T":{"Keys":[]}}}`, want: `{"__type":"com.amazon.coral.validate#ValidationException","Message":"The list of keys in RequestItems for BatchGetItem is required: $T has empty list"}`},
		{name: "no keys", op: "BatchGetItem", body: `{"RequestItems":{"$T":{}}}`, want: `{"__type":"com.amazon.coral.validate#ValidationException","Message":"The list of keys in RequestItems for BatchGetItem is required: $T has empty list"}`},
		{name: "no requests", op: "BatchGetItem", body: `{"RequestItems":{}}`, want: `{"__type":"com.amazon.coral.validate#ValidationException","Message":"BatchGetItem must have some requests set"}`},
		{name: "missing table", op: "BatchGetItem", body: `{"RequestItems":{"$Tnope":{"Keys":[{"pk":{"S":"a"},"sk":{"N":"1"}}]}}}`, want: `{"__type":"com.amazonaws.dynamodb.v20120810#ResourceNotFoundException","Message":"Cannot do operations on a non-existent table"}`},
		{name: "bad table name", op: "BatchGetItem", body: `{"RequestItems":{"x":{"Keys":[{"pk":{"S":"a"},"sk":{"N":"1"}}]}}}`, want: `{"__type":"com.amazon.coral.validate#ValidationException","Message":"Invalid table/index name.  Table/index names must be between 3 and 255 characters long, and may contain only the characters a-z, A-Z, 0-9, '_', '-', and '.'"}`},
		{name: "short key", op: "BatchGetItem", body: `{"RequestItems":{"$T":{"Keys":[{"pk":{"S":"a"}}]}}}`, want: `{"__type":"com.amazon.coral.validate#ValidationException","Message":"The number of conditions on the keys is invalid"}`},
		{name: "long key", op: "BatchGetItem", body: `{"RequestItems":{"$T":{"Keys":[{"pk":{"S":"a"},"sk":{"N":"1"},"x":{"S":"1"}}]}}}`, want: `{"__type":"com.amazon.coral.validate#ValidationException","Message":"The number of conditions on the keys is invalid"}`},
		{name: "key type", op: "BatchGetItem", body: `{"RequestItems":{"$T":{"Keys":[{"pk":{"S":"a"},"sk":{"S":"1"}}]}}}`, want: `{"__type":"com.amazon.coral.validate#ValidationException","Message":"One or more parameter values were invalid: Type mismatch for key"}`},
		{name: "unused name", op: "BatchGetItem", body: `{"RequestItems":{"$T":{"Keys":[{"pk":{"S":"a"},"sk":{"N":"1"}}],"ProjectionExpression":"#a","ExpressionAttributeNames":{"#a":"x","#b":"y"}}}}`, want: `{"__type":"com.amazon.coral.validate#ValidationException","Message":"Value provided in ExpressionAttributeNames unused in expressions: keys: {#b}"}`},
		{name: "names without projection", op: "BatchGetItem", body: `{"RequestItems":{"$T":{"Keys":[{"pk":{"S":"a"},"sk":{"N":"1"}}],"ExpressionAttributeNames":{"#a":"x"}}}}`, want: `{"__type":"com.amazon.coral.validate#ValidationException","Message":"ExpressionAttributeNames can only be specified when using expressions"}`},
		{name: "empty projection", op: "BatchGetItem", body: `{"RequestItems":{"$T":{"Keys":[{"pk":{"S":"a"},"sk":{"N":"1"}}],"ProjectionExpression":""}}}`, want: `{"__type":"com.amazon.coral.validate#ValidationException","Message":"Invalid ProjectionExpression: The expression can not be empty;"}`},
	})
}
