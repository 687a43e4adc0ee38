package engine_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/optimist-dynamo/optimist/internal/engine"
)

func putReq(item string) string { return `{"PutRequest":{"Item":` + item + `}}` }
func delReq(key string) string  { return `{"DeleteRequest":{"Key":` + key + `}}` }

// batch renders RequestItems from table, requests, table, requests...
func batch(extra string, tables ...any) string {
	var b strings.Builder
	b.WriteString(`{"RequestItems":{`)
	for i := 0; i < len(tables); i += 2 {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, "%q:[%s]", tables[i], strings.Join(tables[i+1].([]string), ","))
	}
	b.WriteString("}" + extra + "}")
	return b.String()
}

func TestBatchWriteItem(t *testing.T) {
	e := txnTables(t)
	expect(t, e, "BatchWriteItem", batch(``, "txa", []string{putReq(`{"pk":{"S":"h1"}}`), putReq(`{"pk":{"S":"h2"},"n":{"N":"01.0"}}`)}), http.StatusOK, `{"UnprocessedItems":{}}`)
	assert.JSONEq(t, `{"Item":{"pk":{"S":"h2"},"n":{"N":"1"}}}`, getItem(t, e, "txa", `{"pk":{"S":"h2"}}`))

	// Capacity per table, as for the single writes: a unit per KB of the
	// larger of the old and new item. The same key in two tables is no
	// duplicate.
	expect(t, e, "BatchWriteItem", batch(`,"ReturnConsumedCapacity":"TOTAL","ReturnItemCollectionMetrics":"SIZE"`,
		"txa", []string{putReq(`{"pk":{"S":"w1"}}`), putReq(`{"pk":{"S":"w2"}}`), delReq(`{"pk":{"S":"h1"}}`)},
		"txb", []string{putReq(`{"pk":{"S":"w1"},"sk":{"N":"2"}}`)}), http.StatusOK,
		`{"UnprocessedItems":{},"ConsumedCapacity":[{"TableName":"txa","CapacityUnits":3.0},{"TableName":"txb","CapacityUnits":1.0}]}`)
	assert.JSONEq(t, `{}`, getItem(t, e, "txa", `{"pk":{"S":"h1"}}`))
	expect(t, e, "BatchWriteItem", batch(`,"ReturnConsumedCapacity":"INDEXES"`,
		"txa", []string{putReq(`{"pk":{"S":"w1"}}`), delReq(`{"pk":{"S":"w2"}}`)},
		"txg", []string{putReq(`{"pk":{"S":"w"},"gk":{"S":"2"}}`)}), http.StatusOK,
		`{"UnprocessedItems":{},"ConsumedCapacity":[{"TableName":"txa","CapacityUnits":2.0,"Table":{"CapacityUnits":2.0}},{"TableName":"txg","CapacityUnits":2.0,"Table":{"CapacityUnits":1.0},"GlobalSecondaryIndexes":{"gix":{"CapacityUnits":1.0}}}]}`)
	expect(t, e, "BatchWriteItem", batch(`,"ReturnConsumedCapacity":"NONE"`, "txa", []string{putReq(`{"pk":{"S":"w1"}}`)}), http.StatusOK, `{"UnprocessedItems":{}}`)

	// Through the SDK.
	c := client(e)
	out, err := c.BatchWriteItem(context.Background(), &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{
		"txa": {{DeleteRequest: &types.DeleteRequest{Key: map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: "w1"}}}}},
		"txb": {{PutRequest: &types.PutRequest{Item: map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: "s"}, "sk": &types.AttributeValueMemberN{Value: "5"}}}}},
	}})
	require.NoError(t, err)
	assert.Empty(t, out.UnprocessedItems)
	assert.JSONEq(t, `{}`, getItem(t, e, "txa", `{"pk":{"S":"w1"}}`))
	assert.JSONEq(t, `{"Item":{"pk":{"S":"s"},"sk":{"N":"5"}}}`, getItem(t, e, "txb", `{"pk":{"S":"s"},"sk":{"N":"5"}}`))
}

func TestBatchWriteItemValidation(t *testing.T) {
	e := txnTables(t)
	const (
		vex = `com.amazon.coral.validate#ValidationException`
		rnf = `com.amazonaws.dynamodb.v20120810#ResourceNotFoundException`
	)
	ok := putReq(`{"pk":{"S":"w1"}}`)
	var many []string
	for i := range 26 {
		many = append(many, putReq(fmt.Sprintf(`{"pk":{"S":"z%d"}}`, i)))
	}
	huge := strings.Repeat("x", 410000)
	for _, c := range []struct{ name, body, typ, msg string }{
		{"no requests", `{}`, vex, "BatchWriteItem cannot have a null or no requests set"},
		{"empty requests", `{"RequestItems":{}}`, vex, "BatchWriteItem cannot have a null or no requests set"},
		{"empty list", `{"RequestItems":{"txa":[]}}`, vex, "The batch write request list for a table cannot be null or empty: txa"},
		{"26", batch(``, "txa", many), vex, "Too many items requested for the BatchWriteItem call"},
		{"26 before missing table", batch(``, "nope", many), vex, "Too many items requested for the BatchWriteItem call"},
		{"put and delete of one key", batch(``, "txa", []string{ok, delReq(`{"pk":{"S":"w1"}}`)}), vex, "Provided list of item keys contains duplicates"},
		{"two puts of one key", batch(``, "txa", []string{ok, putReq(`{"pk":{"S":"w1"},"x":{"N":"1"}}`)}), vex, "Provided list of item keys contains duplicates"},
		{"one number written twice", batch(``, "txb", []string{putReq(`{"pk":{"S":"1"},"sk":{"N":"1"}}`), delReq(`{"pk":{"S":"1"},"sk":{"N":"1.0"}}`)}), vex, "Provided list of item keys contains duplicates"},
		{"missing table", batch(``, "nope", []string{ok}), rnf, "Cannot do operations on a non-existent table"},
		{"bad table name", batch(``, "x", []string{ok}), vex, "Invalid table/index name.  Table/index names must be between 3 and 255 characters long, and may contain only the characters a-z, A-Z, 0-9, '_', '-', and '.'"},
		{"key type", batch(``, "txa", []string{ok, putReq(`{"pk":{"N":"1"}}`)}), vex, "One or more parameter values were invalid: Type mismatch for key"},
		{"key missing", batch(``, "txa", []string{ok, putReq(`{"x":{"N":"1"}}`)}), vex, "One of the required keys was not given a value"},
		{"delete key missing", batch(``, "txa", []string{ok, delReq(`{"x":{"N":"1"}}`)}), vex, "One of the required keys was not given a value"},
		{"delete extra key", batch(``, "txa", []string{delReq(`{"pk":{"S":"1"},"x":{"S":"1"}}`)}), vex, "The number of conditions on the keys is invalid"},
		{"key of a set", batch(``, "txa", []string{putReq(`{"pk":{"SS":["1"]}}`)}), vex, "Invalid attribute value type"},
		{"empty key", batch(``, "txa", []string{putReq(`{"pk":{"S":""}}`)}), vex, "One or more parameter values are not valid. The AttributeValue for a key attribute cannot contain an empty string value. Key: pk"},
		{"both", `{"RequestItems":{"txa":[{"PutRequest":{"Item":{"pk":{"S":"1"}}},"DeleteRequest":{"Key":{"pk":{"S":"2"}}}}]}}`, vex, "Supplied AttributeValue has more than one datatypes set, must contain exactly one of the supported datatypes"},
		{"neither", `{"RequestItems":{"txa":[{}]}}`, vex, "Supplied AttributeValue has more than one datatypes set, must contain exactly one of the supported datatypes"},
		{"put without item", `{"RequestItems":{"txa":[{"PutRequest":{}}]}}`, vex, "The supplied Item contains a null AttributeValue"},
		{"delete without key", `{"RequestItems":{"txa":[{"DeleteRequest":{}}]}}`, vex, "The supplied Item contains a null AttributeValue"},
		{"bad number", batch(``, "txa", []string{putReq(`{"pk":{"S":"w5"},"n":{"N":"x"}}`)}), vex, "A value provided cannot be converted into a number"},
		{"too big", batch(``, "txa", []string{putReq(`{"pk":{"S":"bb"},"b":{"S":"` + huge + `"}}`)}), vex, "Item size has exceeded the maximum allowed size"},
		{"index key type", batch(``, "txg", []string{putReq(`{"pk":{"S":"w"},"gk":{"N":"2"}}`)}), vex, "One or more parameter values were invalid: Type mismatch for Index Key"},
		// Precedence, as Local decides it: values of every table first,
		// then table by table its existence, keys and duplicates.
		{"values before tables", batch(``, "nope", []string{ok}, "txa", []string{putReq(`{"pk":{"S":"w5"},"n":{"N":"x"}}`)}), vex, "A value provided cannot be converted into a number"},
		{"tables in order", batch(``, "txa", []string{putReq(`{"pk":{"N":"1"}}`)}, "nope", []string{ok}), vex, "One or more parameter values were invalid: Type mismatch for key"},
		{"key type before later duplicates", batch(``, "txa", []string{putReq(`{"pk":{"N":"1"}}`), ok, ok}), vex, "One or more parameter values were invalid: Type mismatch for key"},
		{"duplicates before later key type", batch(``, "txa", []string{ok, ok, putReq(`{"pk":{"N":"1"}}`)}), vex, "Provided list of item keys contains duplicates"},
	} {
		t.Run(c.name, func(t *testing.T) {
			expect(t, e, "BatchWriteItem", c.body, http.StatusBadRequest, fmt.Sprintf(`{"__type":%q,"Message":%q}`, c.typ, c.msg))
		})
	}
	assert.JSONEq(t, `{}`, getItem(t, e, "txa", `{"pk":{"S":"w1"}}`), "no refused batch applied anything")
}

// A FaultThrottled rule that names a key leaves the requests it matches
// unprocessed and applies the others; one that matches every request
// throttles the call.
func TestBatchWriteItemUnprocessedByFault(t *testing.T) {
	faults := engine.NewFaults(7)
	e := txnTables(t, func(o *engine.Options) { o.Faults = faults })
	remove := faults.Add(engine.Rule{Op: "BatchWriteItem", Key: map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: "b"}}, Fault: engine.FaultThrottled})
	expect(t, e, "BatchWriteItem", batch(`,"ReturnConsumedCapacity":"TOTAL"`,
		"txa", []string{putReq(`{"pk":{"S":"a"}}`), putReq(`{"pk":{"S":"b"},"n":{"N":"01"}}`)},
		"txb", []string{putReq(`{"pk":{"S":"b"},"sk":{"N":"1"}}`), delReq(`{"pk":{"S":"c"},"sk":{"N":"1"}}`)}), http.StatusOK,
		`{"UnprocessedItems":{"txa":[{"PutRequest":{"Item":{"pk":{"S":"b"},"n":{"N":"01"}}}}],"txb":[{"PutRequest":{"Item":{"pk":{"S":"b"},"sk":{"N":"1"}}}}]},`+
			`"ConsumedCapacity":[{"TableName":"txa","CapacityUnits":1.0},{"TableName":"txb","CapacityUnits":2.0}]}`) // the delete of a missing item: 2
	assert.JSONEq(t, `{"Item":{"pk":{"S":"a"}}}`, getItem(t, e, "txa", `{"pk":{"S":"a"}}`))
	assert.JSONEq(t, `{}`, getItem(t, e, "txa", `{"pk":{"S":"b"}}`))
	assert.Equal(t, 1, faults.Count(engine.FaultThrottled))

	expect(t, e, "BatchWriteItem", batch(``, "txa", []string{putReq(`{"pk":{"S":"b"}}`)}), http.StatusBadRequest,
		`{"__type":"com.amazonaws.dynamodb.v20120810#ProvisionedThroughputExceededException","Message":"The level of configured provisioned throughput for the table was exceeded. Consider increasing your provisioning level with the UpdateTable API."}`)
	assert.JSONEq(t, `{}`, getItem(t, e, "txa", `{"pk":{"S":"b"}}`))

	// A refused batch stays refused whole, fault or not.
	expect(t, e, "BatchWriteItem", batch(``, "txa", []string{putReq(`{"pk":{"S":"c"}}`), putReq(`{"pk":{"S":"b"},"n":{"N":"x"}}`)}), http.StatusBadRequest,
		`{"__type":"com.amazon.coral.validate#ValidationException","Message":"A value provided cannot be converted into a number"}`)
	assert.JSONEq(t, `{}`, getItem(t, e, "txa", `{"pk":{"S":"c"}}`))
	remove()

	// A rule by table, through the SDK, which hands back the unprocessed
	// requests to send again.
	remove = faults.Add(engine.Rule{Op: "BatchWriteItem", Table: "txb", Fault: engine.FaultThrottled, Times: 1})
	defer remove()
	c := client(e)
	in := &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{
		"txa": {{PutRequest: &types.PutRequest{Item: map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: "d"}}}}},
		"txb": {{PutRequest: &types.PutRequest{Item: map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: "d"}, "sk": &types.AttributeValueMemberN{Value: "1"}}}}},
	}}
	out, err := c.BatchWriteItem(context.Background(), in)
	require.NoError(t, err)
	require.Len(t, out.UnprocessedItems["txb"], 1)
	assert.NotContains(t, out.UnprocessedItems, "txa")
	assert.JSONEq(t, `{}`, getItem(t, e, "txb", `{"pk":{"S":"d"},"sk":{"N":"1"}}`))
	out, err = c.BatchWriteItem(context.Background(), &dynamodb.BatchWriteItemInput{RequestItems: out.UnprocessedItems})
	require.NoError(t, err)
	assert.Empty(t, out.UnprocessedItems)
	assert.JSONEq(t, `{"Item":{"pk":{"S":"d"},"sk":{"N":"1"}}}`, getItem(t, e, "txb", `{"pk":{"S":"d"},"sk":{"N":"1"}}`))
	// The refused batch counts too: the rule matched it.
	assert.Equal(t, 4, faults.Count(engine.FaultThrottled))
}
