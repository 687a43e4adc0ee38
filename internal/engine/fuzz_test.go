package engine

import (
	"bytes"
	"fmt"
	"net/http"
	"sort"
	"testing"
	"time"
)

// fuzzOps are the operations FuzzRequest draws from, in a fixed order so
// that an input names the same operation on every run.
func fuzzOps() []string {
	ops := make([]string, 0, len(handlers))
	for op := range handlers {
		ops = append(ops, op)
	}
	sort.Strings(ops)
	return ops
}

// fuzzSeeds are valid requests of every operation on the table fuzzTable
// makes (hash key pk, range key sk, index byG), and a few invalid ones.
var fuzzSeeds = map[string][]string{
	"CreateTable": {`{"TableName":"uno","KeySchema":[{"AttributeName":"pk","KeyType":"HASH"}],"AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"}],"BillingMode":"PAY_PER_REQUEST"}`,
		`{"TableName":"dos","KeySchema":[{"AttributeName":"pk","KeyType":"HASH"},{"AttributeName":"sk","KeyType":"RANGE"}],"AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"},{"AttributeName":"sk","AttributeType":"N"},{"AttributeName":"g","AttributeType":"B"}],"GlobalSecondaryIndexes":[{"IndexName":"i","KeySchema":[{"AttributeName":"g","KeyType":"HASH"}],"Projection":{"ProjectionType":"KEYS_ONLY"}}],"ProvisionedThroughput":{"ReadCapacityUnits":1,"WriteCapacityUnits":1}}`},
	"DescribeTable":      {`{"TableName":"tbl"}`},
	"UpdateTable":        {`{"TableName":"tbl","BillingMode":"PROVISIONED","ProvisionedThroughput":{"ReadCapacityUnits":5,"WriteCapacityUnits":5}}`, `{"TableName":"tbl","GlobalSecondaryIndexUpdates":[{"Delete":{"IndexName":"byG"}}]}`},
	"DeleteTable":        {`{"TableName":"tbl"}`},
	"ListTables":         {`{}`, `{"Limit":1,"ExclusiveStartTableName":"a"}`},
	"UpdateTimeToLive":   {`{"TableName":"tbl","TimeToLiveSpecification":{"AttributeName":"ttl","Enabled":true}}`},
	"DescribeTimeToLive": {`{"TableName":"tbl"}`},
	"GetItem":            {`{"TableName":"tbl","Key":{"pk":{"S":"a"},"sk":{"N":"1"}},"ProjectionExpression":"#n, l[0], m.x","ExpressionAttributeNames":{"#n":"n"},"ConsistentRead":true}`},
	"PutItem": {`{"TableName":"tbl","Item":{"pk":{"S":"a"},"sk":{"N":"9"},"g":{"S":"x"},"l":{"L":[{"N":"1"},{"SS":["a","b"]}]},"m":{"M":{"x":{"B":"AQI="}}},"n":{"NULL":true},"b":{"BOOL":false},"ns":{"NS":["1","2.5"]},"bs":{"BS":["AA=="]}},"ConditionExpression":"attribute_not_exists(pk) OR size(l) > :z","ExpressionAttributeValues":{":z":{"N":"0"}},"ReturnValues":"ALL_OLD"}`,
		`{"TableName":"tbl","Item":{"pk":{"S":"a"},"sk":{"N":"1"},"a":{}}}`, `{"TableName":5}`, `{"TableName":"tbl","Item":[]}`},
	"DeleteItem": {`{"TableName":"tbl","Key":{"pk":{"S":"a"},"sk":{"N":"2"}},"ConditionExpression":"begins_with(g, :p)","ExpressionAttributeValues":{":p":{"S":"x"}},"ReturnValues":"ALL_OLD","ReturnValuesOnConditionCheckFailure":"ALL_OLD"}`},
	"UpdateItem": {`{"TableName":"tbl","Key":{"pk":{"S":"a"},"sk":{"N":"1"}},"UpdateExpression":"SET #c = if_not_exists(#c, :z) + :one, l = list_append(l, :l) REMOVE m.x ADD ns :ns DELETE ss :ss","ExpressionAttributeNames":{"#c":"c"},"ExpressionAttributeValues":{":z":{"N":"0"},":one":{"N":"1"},":l":{"L":[{"S":"x"}]},":ns":{"NS":["3"]},":ss":{"SS":["a"]}},"ReturnValues":"UPDATED_NEW","ReturnConsumedCapacity":"TOTAL"}`},
	"Query": {`{"TableName":"tbl","KeyConditionExpression":"pk = :p AND sk BETWEEN :a AND :b","FilterExpression":"contains(l, :x) OR NOT attribute_type(g, :t)","ExpressionAttributeValues":{":p":{"S":"a"},":a":{"N":"0"},":b":{"N":"5"},":x":{"S":"x"},":t":{"S":"S"}},"Limit":2,"ScanIndexForward":false,"ExclusiveStartKey":{"pk":{"S":"a"},"sk":{"N":"3"}}}`,
		`{"TableName":"tbl","IndexName":"byG","KeyConditionExpression":"g = :g","ExpressionAttributeValues":{":g":{"S":"x"}},"Select":"COUNT"}`, `{"TableName":"tbl","Limit":"x"}`},
	"Scan":         {`{"TableName":"tbl","Segment":0,"TotalSegments":2,"FilterExpression":"sk >= :a","ExpressionAttributeValues":{":a":{"N":"1"}},"ProjectionExpression":"pk, sk","Limit":3}`, `{"TableName":"tbl","IndexName":"byG","Select":"ALL_PROJECTED_ATTRIBUTES"}`},
	"BatchGetItem": {`{"RequestItems":{"tbl":{"Keys":[{"pk":{"S":"a"},"sk":{"N":"1"}},{"pk":{"S":"b"},"sk":{"N":"1"}}],"ProjectionExpression":"pk, #s","ExpressionAttributeNames":{"#s":"sk"}}},"ReturnConsumedCapacity":"INDEXES"}`},
	"BatchWriteItem": {`{"RequestItems":{"tbl":[{"PutRequest":{"Item":{"pk":{"S":"c"},"sk":{"N":"1"}}}},{"DeleteRequest":{"Key":{"pk":{"S":"a"},"sk":{"N":"2"}}}}]},"ReturnItemCollectionMetrics":"SIZE"}`,
		`{"RequestItems":[]}`},
	"TransactWriteItems": {`{"TransactItems":[{"Put":{"TableName":"tbl","Item":{"pk":{"S":"d"},"sk":{"N":"1"}}}},{"Update":{"TableName":"tbl","Key":{"pk":{"S":"a"},"sk":{"N":"1"}},"UpdateExpression":"SET z = :z","ExpressionAttributeValues":{":z":{"N":"1"}}}},{"Delete":{"TableName":"tbl","Key":{"pk":{"S":"a"},"sk":{"N":"3"}}}},{"ConditionCheck":{"TableName":"tbl","Key":{"pk":{"S":"b"},"sk":{"N":"1"}},"ConditionExpression":"attribute_exists(pk)"}}],"ClientRequestToken":"tok"}`,
		`{"TransactItems":[5]}`},
	"TransactGetItems":   {`{"TransactItems":[{"Get":{"TableName":"tbl","Key":{"pk":{"S":"a"},"sk":{"N":"1"}},"ProjectionExpression":"l[1]"}}]}`},
	"TagResource":        {`{"ResourceArn":"arn:aws:dynamodb:ddblocal:000000000000:table/tbl","Tags":[{"Key":"team","Value":"a"},{"Key":"env","Value":""}]}`, `{"ResourceArn":5,"Tags":{}}`},
	"UntagResource":      {`{"ResourceArn":"arn:aws:dynamodb:ddblocal:000000000000:table/tbl","TagKeys":["team"]}`},
	"ListTagsOfResource": {`{"ResourceArn":"arn:aws:dynamodb:ddblocal:000000000000:table/tbl","NextToken":"env"}`},
}

// fuzzTable returns an engine with the table tbl (pk S, sk N, the index
// byG on g) holding a few items.
func fuzzTable(t testing.TB) *Engine {
	e := New()
	setup := []struct{ op, body string }{
		{"CreateTable", `{"TableName":"tbl","KeySchema":[{"AttributeName":"pk","KeyType":"HASH"},{"AttributeName":"sk","KeyType":"RANGE"}],"AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"},{"AttributeName":"sk","AttributeType":"N"},{"AttributeName":"g","AttributeType":"S"}],"GlobalSecondaryIndexes":[{"IndexName":"byG","KeySchema":[{"AttributeName":"g","KeyType":"HASH"}],"Projection":{"ProjectionType":"ALL"}}],"BillingMode":"PAY_PER_REQUEST"}`},
		{"PutItem", `{"TableName":"tbl","Item":{"pk":{"S":"a"},"sk":{"N":"1"},"g":{"S":"x"},"l":{"L":[{"S":"x"},{"N":"2"}]},"m":{"M":{"x":{"S":"y"}}},"ss":{"SS":["a","b"]}}}`},
		{"PutItem", `{"TableName":"tbl","Item":{"pk":{"S":"a"},"sk":{"N":"2"},"g":{"S":"xy"}}}`},
		{"PutItem", `{"TableName":"tbl","Item":{"pk":{"S":"a"},"sk":{"N":"3"},"ttl":{"N":"1"}}}`},
		{"PutItem", `{"TableName":"tbl","Item":{"pk":{"S":"b"},"sk":{"N":"1"},"g":{"S":"x"}}}`},
	}
	for _, s := range setup {
		if resp := fuzzDo(e, s.op, []byte(s.body)); resp.StatusCode != http.StatusOK {
			t.Fatalf("setup %s: status %d", s.op, resp.StatusCode)
		}
	}
	return e
}

func fuzzDo(e *Engine, op string, body []byte) *http.Response {
	req, err := http.NewRequest(http.MethodPost, "http://engine/", bytes.NewReader(body))
	if err != nil {
		panic(err)
	}
	req.Header.Set("X-Amz-Target", targetPrefix+op)
	req.Header.Set("Authorization", "AWS4-HMAC-SHA256 Credential=fuzz/20260101/us-east-1/dynamodb/aws4_request")
	resp, err := e.Do(req)
	if err != nil {
		panic(err)
	}
	return resp
}

// FuzzRequest sends random bodies to every operation: each must be
// answered 200 or 4xx (a client's mistake), never 5xx or a panic. The seed
// corpus is a valid request of each operation, on a table that holds a
// few items, so that mutations reach past decoding into validation,
// expressions and the operations themselves.
func FuzzRequest(f *testing.F) {
	ops := fuzzOps()
	for i, op := range ops {
		for _, body := range fuzzSeeds[op] {
			f.Add(uint8(i), []byte(body))
		}
	}
	f.Fuzz(func(t *testing.T, opIndex uint8, body []byte) {
		op := ops[int(opIndex)%len(ops)]
		// A request that never ends would stall the fuzzer without a
		// report; a panic makes it save the input as a crasher.
		watchdog := time.AfterFunc(10*time.Second, func() {
			panic(fmt.Sprintf("FuzzRequest: %s %q: no answer in 10s", op, body))
		})
		defer watchdog.Stop()
		e := fuzzTable(t)
		resp := fuzzDo(e, op, body)
		if resp.StatusCode >= 500 {
			var b bytes.Buffer
			b.ReadFrom(resp.Body)
			t.Fatalf("%s %s: status %d: %s", op, body, resp.StatusCode, b.String())
		}
	})
}

// TestFuzzSeeds checks that every operation has a seed and that each
// valid seed succeeds, so that the fuzzer starts from requests that reach
// the operations.
func TestFuzzSeeds(t *testing.T) {
	for _, op := range fuzzOps() {
		seeds := fuzzSeeds[op]
		if len(seeds) == 0 {
			t.Errorf("%s: no seed", op)
			continue
		}
		e := fuzzTable(t)
		if resp := fuzzDo(e, op, []byte(seeds[0])); resp.StatusCode != http.StatusOK {
			var b bytes.Buffer
			b.ReadFrom(resp.Body)
			t.Errorf("%s: first seed answered %d: %s", op, resp.StatusCode, b.String())
		}
	}
}
