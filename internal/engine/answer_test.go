package engine

import (
	"encoding/json"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/require"
)

// TestEncodeAnswer holds encodeAnswer to json.Marshal's bytes for the
// shapes the handlers answer with, escapes and nils included.
func TestEncodeAnswer(t *testing.T) {
	it := item{"pk": {v: &types.AttributeValueMemberS{Value: "a<b>&\"c\"\u00e9\n"}}, "n": {v: &types.AttributeValueMemberN{Value: "1"}},
		"m": {v: &types.AttributeValueMemberM{Value: map[string]types.AttributeValue{"z": &types.AttributeValueMemberBOOL{Value: true}, "a": &types.AttributeValueMemberNULL{Value: true}}}}}
	ri := readItem{"b": &types.AttributeValueMemberB{Value: []byte{0, 1, 255}}, "ss": &types.AttributeValueMemberSS{Value: []string{"x", "y"}},
		"l": &types.AttributeValueMemberL{Value: []types.AttributeValue{&types.AttributeValueMemberNS{Value: []string{"1", "2"}}}}}
	cases := []any{
		nil,
		map[string]any{},
		map[string]any(nil),
		map[string]any{"Items": []readItem{ri, nil}, "Count": 2, "ScannedCount": int64(3), "Flag": true, "Units": 0.5, "Name": "t<&>"},
		map[string]any{"Items": []readItem(nil), "Item": it, "Nil": item(nil), "Items2": []item{it}, "V": av{v: &types.AttributeValueMemberN{Value: "7"}}},
		map[string]any{"UnprocessedItems": map[string][]map[string]any{"t": {{"PutRequest": map[string]any{"Item": it}}}, "u": nil}},
		map[string]any{"Responses": []map[string]any{{}, nil, {"Item": ri}}, "List": []any{"a", 1, nil, []string{"x"}}, "Strings": []string(nil)},
		map[string]any{"\u2028key\t": map[string]string{"b": "1", "a": "2"}, "f": float64(1e21), "ptr": new(string)},
	}
	for i, c := range cases {
		want, err := json.Marshal(c)
		require.NoError(t, err)
		got, err := encodeAnswer(c)
		require.NoError(t, err)
		require.Equal(t, string(want), string(got), "case %d", i)
	}
	_, err := encodeAnswer(map[string]any{"bad": make(chan int)})
	require.Error(t, err, "a value json.Marshal refuses is refused")
}
