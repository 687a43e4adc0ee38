package engine

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/require"
)

// decodeShapes are the request shapes with a decodeFast that
// FuzzDecodeFast draws from, by index: each compares decode's reading of a
// body with encoding/json's.
var decodeShapes = []func(t *testing.T, body []byte){
	compareDecode[getItemInput],
	compareDecode[writeInput],
	compareDecode[readInput],
	compareDecode[batchWriteInput],
	compareDecode[transactWriteInput],
	compareDecode[transactWriteItem],
}

// generalDecode is decode without decodeFast: encoding/json's reading of a
// body, and its error as the engine answers it.
func generalDecode[T any](body []byte, v *T) error {
	if len(bytes.TrimSpace(body)) == 0 {
		body = []byte("{}")
	}
	if err := json.Unmarshal(body, v); err != nil {
		return decodeError(err)
	}
	return nil
}

// compareDecode holds decode to generalDecode on body: the same value, or
// the same answer (a SerializationException and its message).
func compareDecode[T any](t *testing.T, body []byte) {
	var got, want T
	if f, ok := any(&got).(fastDecoder); ok && f.decodeFast(body) {
		require.True(t, json.Valid(body), "decodeFast took %q, not JSON", body)
		got = *new(T)
	}
	err := decode(body, &got)
	wantErr := generalDecode(body, &want)
	if wantErr != nil {
		require.Error(t, err, "%q", body)
		require.Equal(t, wantErr, decodeError(err), "%q", body)
		return
	}
	require.NoError(t, err, "%q", body)
	switch g := any(&got).(type) {
	case *batchWriteInput:
		w := any(&want).(*batchWriteInput)
		g.RequestItems, w.RequestItems = generalTables(g.RequestItems), generalTables(w.RequestItems)
	case *transactWriteInput:
		// The actions read with the request are those each of its
		// TransactItems decodes to.
		if g.actions != nil {
			require.Len(t, g.actions, len(g.TransactItems))
			for i, raw := range g.TransactItems {
				var ti transactWriteItem
				require.NoError(t, generalDecode(raw, &ti), "%q", raw)
				require.Equal(t, ti, g.actions[i], "%q", raw)
			}
		}
		g.actions = nil
	}
	require.Equal(t, want, got, "%q", body)
}

// decodeSeeds are bodies of each of decodeShapes: valid ones, and each
// thing the fast reading leaves to encoding/json.
var decodeSeeds = [][]string{
	{`{"TableName":"tbl","Key":{"pk":{"S":"a"},"sk":{"N":"1"}},"ConsistentRead":true,"ProjectionExpression":"#n, l[0]","ExpressionAttributeNames":{"#n":"n"},"ReturnConsumedCapacity":"TOTAL"}`,
		`{"TableName":"tbl","Key":{"pk":{"S":"a"}},"AttributesToGet":["a","b"],"ConsistentRead":false}`, `{"TableName":"tbl","AttributesToGet":[]}`,
		`{"TableName":5}`, `{"TableName":null}`, `{"tablename":"tbl"}`, `{"TableName":"a","TableName":"b"}`, `{"Key":[]}`, `{"ConsistentRead":"true"}`,
		`{"ExpressionAttributeNames":{"#a":"x","#a":"y"}}`, `{"ExpressionAttributeNames":{"#a":1}}`, `{"Other":1,"TableName":"tbl"}`, ``, ` `, `[]`, `null`, `{"TableName":"t\u0062l"}`},
	{`{"TableName":"tbl","Key":{"pk":{"S":"u"},"sk":{"N":"3"}},"UpdateExpression":"SET title = :t ADD #v :one","ConditionExpression":"attribute_exists(pk) AND #v >= :one","ExpressionAttributeNames":{"#v":"version"},"ExpressionAttributeValues":{":one":{"N":"1"},":t":{"S":"x"}}}`,
		`{"TableName":"tbl","Item":{"pk":{"S":"p"},"sk":{"N":"1"},"l":{"L":[{"BOOL":true},{"NULL":true}]},"m":{"M":{"x":{"SS":["a"]}}}},"ReturnValues":"ALL_OLD","ReturnValuesOnConditionCheckFailure":"ALL_OLD","ReturnConsumedCapacity":"INDEXES","ReturnItemCollectionMetrics":"SIZE"}`,
		`{"TableName":"tbl","Key":{"pk":{"S":"a"}},"Expected":{"a":{"Exists":false}}}`, `{"TableName":"tbl","AttributeUpdates":{"a":{"Action":"DELETE"}}}`,
		`{"TableName":"tbl","ConditionalOperator":"OR"}`, `{"UpdateExpression":null}`, `{"UpdateExpression":""}`, `{"ExpressionAttributeValues":{}}`,
		`{"ExpressionAttributeValues":{":a":{"B":"AAE="}}}`, `{"ExpressionAttributeValues":{":a":{"S":"1"},":a":{"N":"2"}}}`, `{"ExpressionAttributeValues":{":a":{}}}`,
		`{"Item":{"a":{"S":"x"}},"Item":{"b":{"S":"y"}}}`, `{"Item":{"a":1}}`, `{"ReturnValues":1}`, `{"Key":{"pk":{"S":"a"}} ,"TableName":"t"}`},
	{`{"TableName":"tbl","KeyConditionExpression":"pk = :p AND sk >= :zero","ExpressionAttributeValues":{":p":{"S":"q"},":zero":{"N":"0"}}}`,
		`{"TableName":"tbl","IndexName":"byG","KeyConditionExpression":"g = :g","FilterExpression":"a > :a","ProjectionExpression":"pk, #s","ExpressionAttributeNames":{"#s":"sk"},"ExpressionAttributeValues":{":g":{"S":"x"},":a":{"N":"1"}},"Select":"SPECIFIC_ATTRIBUTES","Limit":10,"ExclusiveStartKey":{"pk":{"S":"a"},"sk":{"N":"1"}},"ScanIndexForward":false,"ConsistentRead":true,"ReturnConsumedCapacity":"TOTAL"}`,
		`{"TableName":"tbl","Segment":0,"TotalSegments":4,"Limit":-1}`, `{"Limit":1.5}`, `{"Limit":1e2}`, `{"Limit":01}`, `{"Limit":-0}`, `{"Limit":-}`,
		`{"Limit":123456789012345678}`, `{"Limit":1234567890123456789}`, `{"Limit":99999999999999999999}`, `{"Limit":"1"}`, `{"Limit":null}`,
		`{"ScanIndexForward":null}`, `{"ScanIndexForward":1}`, `{"KeyConditions":{"pk":{"ComparisonOperator":"EQ","AttributeValueList":[{"S":"a"}]}}}`,
		`{"QueryFilter":{}}`, `{"ScanFilter":{}}`, `{"AttributesToGet":["a"]}`, `{"ConditionalOperator":"AND"}`},
	{`{"RequestItems":{"t":[{"PutRequest":{"Item":{"pk":{"S":"a"}}}},{"DeleteRequest":{"Key":{"pk":{"S":"b"}}}}]},"ReturnConsumedCapacity":"TOTAL"}`,
		`{"RequestItems":{"t":[{"PutRequest":{"Item":{"pk":{"S":"a"}}}}]},"RequestItems":{}}`, `{"RequestItems":[]}`, `{"RequestItems":{"t":[5]}}`},
	{txnSeed, `{"TransactItems":[],"ClientRequestToken":"tok","ReturnConsumedCapacity":"TOTAL","ReturnItemCollectionMetrics":"SIZE"}`, `{"TransactItems":[5]}`,
		`{"TransactItems":[null]}`, `{"TransactItems":null}`, `{"TransactItems":[{}]}`, `{"TransactItems":[{"Put":null}]}`, `{"TransactItems":[{"Put":{"TableName":5}}]}`,
		`{"TransactItems":[{"Put":{},"Put":{}}]}`, `{"TransactItems":[{"put":{}}]}`, `{"TransactItems":[{"Put":{"Item":{"a":{"S":"1"}},"Other":1}}]}`, `{"TransactItems":[ {"Put":{}}]}`},
	{`{"Put":{"TableName":"tbl","Item":{"pk":{"S":"d"}},"ConditionExpression":"attribute_not_exists(pk)"}}`,
		`{"Update":{"TableName":"tbl","Key":{"pk":{"S":"a"}},"UpdateExpression":"SET #z = :z","ExpressionAttributeNames":{"#z":"z"},"ExpressionAttributeValues":{":z":{"N":"1"}},"ReturnValuesOnConditionCheckFailure":"ALL_OLD"}}`,
		`{"Delete":{"TableName":"tbl","Key":{"pk":{"S":"a"}}},"ConditionCheck":{"TableName":"tbl","Key":{"pk":{"S":"b"}},"ConditionExpression":"attribute_exists(pk)"}}`,
		`{"Put":{"TableName":null}}`, `{"Update":[]}`, `{"Delete":{"Key":{"pk":{"S":"a"}},"Key":{}}}`, `null`, `5`},
}

// txnSeed is a TransactWriteItems of each kind of action.
const txnSeed = `{"TransactItems":[{"Put":{"TableName":"tbl","Item":{"pk":{"S":"d"},"sk":{"N":"1"}},"ConditionExpression":"attribute_not_exists(pk)"}},` +
	`{"Update":{"TableName":"tbl","Key":{"pk":{"S":"a"},"sk":{"N":"1"}},"UpdateExpression":"SET z = :z","ExpressionAttributeValues":{":z":{"N":"1"}}}},` +
	`{"Delete":{"TableName":"tbl","Key":{"pk":{"S":"a"},"sk":{"N":"3"}}}},{"ConditionCheck":{"TableName":"tbl","Key":{"pk":{"S":"b"},"sk":{"N":"1"}},"ConditionExpression":"attribute_exists(pk)"}}],"ClientRequestToken":"tok"}`

// FuzzDecodeFast holds decode, the fast reading of GetItem, PutItem,
// UpdateItem, DeleteItem, Query, Scan, BatchWriteItem and
// TransactWriteItems requests (and of each of TransactItems) with its
// fall back to encoding/json, to encoding/json's reading of every body:
// the same request, or the same SerializationException.
func FuzzDecodeFast(f *testing.F) {
	for i, seeds := range decodeSeeds {
		for _, s := range seeds {
			f.Add(uint8(i), []byte(s))
		}
	}
	f.Fuzz(func(t *testing.T, shape uint8, body []byte) {
		decodeShapes[int(shape)%len(decodeShapes)](t, body)
	})
}

// TestDecodeFastTakesSDKBodies checks that the bodies the SDK writes for
// the library's usual requests take the fast reading.
func TestDecodeFastTakesSDKBodies(t *testing.T) {
	var bodies [][]byte
	c := dynamodb.New(dynamodb.Options{Region: "us-east-1", Credentials: aws.AnonymousCredentials{},
		HTTPClient: doerFunc(func(req *http.Request) (*http.Response, error) {
			b, err := io.ReadAll(req.Body)
			bodies = append(bodies, b)
			return nil, err
		})}, ClientOptions("http://engine.invalid"))
	ctx, table := context.Background(), aws.String("tbl")
	key := map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: "a"}, "sk": &types.AttributeValueMemberN{Value: "1"}}
	item := map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: "a"}, "sk": &types.AttributeValueMemberN{Value: "1"},
		"l": &types.AttributeValueMemberL{Value: []types.AttributeValue{&types.AttributeValueMemberSS{Value: []string{"x"}}}},
		"m": &types.AttributeValueMemberM{Value: map[string]types.AttributeValue{"b": &types.AttributeValueMemberBOOL{Value: true}}}}
	names := map[string]string{"#v": "version"}
	values := map[string]types.AttributeValue{":one": &types.AttributeValueMemberN{Value: "1"}}
	c.GetItem(ctx, &dynamodb.GetItemInput{TableName: table, Key: key, ConsistentRead: aws.Bool(true), ProjectionExpression: aws.String("#v"), ExpressionAttributeNames: names})
	c.PutItem(ctx, &dynamodb.PutItemInput{TableName: table, Item: item, ConditionExpression: aws.String("#v = :one"), ExpressionAttributeNames: names,
		ExpressionAttributeValues: values, ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld})
	c.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: table, Key: key, UpdateExpression: aws.String("ADD #v :one"), ConditionExpression: aws.String("#v >= :one"),
		ExpressionAttributeNames: names, ExpressionAttributeValues: values, ReturnValues: types.ReturnValueAllNew})
	c.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: table, Key: key, ConditionExpression: aws.String("#v = :one"), ExpressionAttributeNames: names, ExpressionAttributeValues: values})
	c.Query(ctx, &dynamodb.QueryInput{TableName: table, KeyConditionExpression: aws.String("pk = :one"), ExpressionAttributeValues: values,
		Limit: aws.Int32(100), ScanIndexForward: aws.Bool(false), ExclusiveStartKey: key, ReturnConsumedCapacity: types.ReturnConsumedCapacityTotal})
	c.Scan(ctx, &dynamodb.ScanInput{TableName: table, Segment: aws.Int32(1), TotalSegments: aws.Int32(2), Select: types.SelectCount})
	c.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{ClientRequestToken: aws.String("tok"), TransactItems: []types.TransactWriteItem{
		{Put: &types.Put{TableName: table, Item: item, ConditionExpression: aws.String("attribute_not_exists(pk)")}},
		{Update: &types.Update{TableName: table, Key: key, UpdateExpression: aws.String("ADD #v :one"), ExpressionAttributeNames: names, ExpressionAttributeValues: values}},
		{Delete: &types.Delete{TableName: table, Key: key}},
		{ConditionCheck: &types.ConditionCheck{TableName: table, Key: key, ConditionExpression: aws.String("#v = :one"), ExpressionAttributeNames: names,
			ExpressionAttributeValues: values, ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld}}}})
	require.Len(t, bodies, 7)
	for i, v := range []fastDecoder{&getItemInput{}, &writeInput{}, &writeInput{}, &writeInput{}, &readInput{}, &readInput{}, &transactWriteInput{}} {
		require.True(t, v.decodeFast(bodies[i]), "%s", bodies[i])
		for _, compare := range decodeShapes {
			compare(t, bodies[i])
		}
	}
}

type doerFunc func(*http.Request) (*http.Response, error)

func (f doerFunc) Do(r *http.Request) (*http.Response, error) { return f(r) }
