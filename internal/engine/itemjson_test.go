package engine

import (
	"encoding/json"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestItemJSONAsMap checks that an item renders as encoding/json renders
// a map of its values, whatever its names hold.
func TestItemJSONAsMap(t *testing.T) {
	m := item{}
	for i, k := range []string{"b", "a", "", "<&>", "é", "q\"uote", "back\\slash", "tab\t", "z1", "Z"} {
		m[k] = av{v: &types.AttributeValueMemberN{Value: string(rune('0' + i))}}
	}
	m["s"] = av{v: &types.AttributeValueMemberS{Value: "<x>\u2028"}}
	m["s2"] = av{v: &types.AttributeValueMemberS{Value: "plain text"}}
	m["n"] = av{v: &types.AttributeValueMemberN{Value: "-1.5e3"}}
	m["l"] = av{v: &types.AttributeValueMemberL{Value: []types.AttributeValue{&types.AttributeValueMemberS{Value: "a\"b"}}}}
	got, err := json.Marshal(m)
	require.NoError(t, err)
	want, err := json.Marshal(map[string]av(m))
	require.NoError(t, err)
	assert.Equal(t, string(want), string(got))
	plain := map[string]types.AttributeValue{}
	for k, v := range m {
		plain[k] = v.v
	}
	got, err = json.Marshal(readItem(plain))
	require.NoError(t, err)
	assert.Equal(t, string(want), string(got))
	got, err = json.Marshal(item(nil))
	require.NoError(t, err)
	assert.Equal(t, "null", string(got))
}
