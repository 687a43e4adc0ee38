package engine_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/optimist-dynamo/optimist/internal/engine"
)

// TestSparseIndex: an index holds only the items that have its key
// attributes with the types of its definition. An item can have one of
// another type only if it was written before the index was added; DynamoDB
// Local then fails the UpdateTable (InternalFailure), the engine leaves the
// item out of the index.
func TestSparseIndex(t *testing.T) {
	e := engine.New()
	mustCall(t, e, "CreateTable", `{"TableName":"sparse","KeySchema":[{"AttributeName":"pk","KeyType":"HASH"}],"AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"}],"BillingMode":"PAY_PER_REQUEST"}`)
	mustCall(t, e, "PutItem", `{"TableName":"sparse","Item":{"pk":{"S":"text"},"n":{"S":"5"}}}`)
	mustCall(t, e, "PutItem", `{"TableName":"sparse","Item":{"pk":{"S":"number"},"n":{"N":"5"}}}`)
	mustCall(t, e, "PutItem", `{"TableName":"sparse","Item":{"pk":{"S":"none"}}}`)
	mustCall(t, e, "UpdateTable", `{"TableName":"sparse","AttributeDefinitions":[{"AttributeName":"n","AttributeType":"N"}],"GlobalSecondaryIndexUpdates":[{"Create":{"IndexName":"byn","KeySchema":[{"AttributeName":"n","KeyType":"HASH"}],"Projection":{"ProjectionType":"ALL"}}}]}`)
	want := `{"Items":[{"pk":{"S":"number"},"n":{"N":"5"}}],"Count":1,"ScannedCount":1}`
	assert.JSONEq(t, want, mustCall(t, e, "Scan", `{"TableName":"sparse","IndexName":"byn"}`))
	assert.JSONEq(t, want, mustCall(t, e, "Query", `{"TableName":"sparse","IndexName":"byn","KeyConditionExpression":"n = :n","ExpressionAttributeValues":{":n":{"N":"5.0"}}}`))
	// A write that removes the attribute takes the item out of the index.
	mustCall(t, e, "PutItem", `{"TableName":"sparse","Item":{"pk":{"S":"number"}}}`)
	assert.JSONEq(t, `{"Items":[],"Count":0,"ScannedCount":0}`, mustCall(t, e, "Scan", `{"TableName":"sparse","IndexName":"byn"}`))
}
