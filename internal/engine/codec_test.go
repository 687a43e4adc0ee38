package engine

import (
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/optimist-dynamo/optimist/internal/attrs"
)

// TestCodecRoundTrip stores one item of every type, nested, and reads it
// back whole and attribute by attribute.
func TestCodecRoundTrip(t *testing.T) {
	long := strings.Repeat("é", 300) // a length that takes two varint bytes
	item := map[string]types.AttributeValue{
		"s":    &types.AttributeValueMemberS{Value: "text"},
		"":     &types.AttributeValueMemberS{Value: ""},
		"n":    &types.AttributeValueMemberN{Value: "-12.5e3"},
		"b":    &types.AttributeValueMemberB{Value: []byte{0, 1, 0xff}},
		"t":    &types.AttributeValueMemberBOOL{Value: true},
		"f":    &types.AttributeValueMemberBOOL{Value: false},
		"null": &types.AttributeValueMemberNULL{Value: true},
		"ss":   &types.AttributeValueMemberSS{Value: []string{"a", long}},
		"ns":   &types.AttributeValueMemberNS{Value: []string{"1", "2.5"}},
		"bs":   &types.AttributeValueMemberBS{Value: [][]byte{{1}, {2, 3}}},
		"l": &types.AttributeValueMemberL{Value: []types.AttributeValue{
			&types.AttributeValueMemberS{Value: "x"},
			&types.AttributeValueMemberL{Value: []types.AttributeValue{}},
			&types.AttributeValueMemberM{Value: map[string]types.AttributeValue{"k": &types.AttributeValueMemberNULL{Value: true}}},
		}},
		"m":    &types.AttributeValueMemberM{Value: map[string]types.AttributeValue{}},
		long:   &types.AttributeValueMemberS{Value: long},
		"last": &types.AttributeValueMemberN{Value: "7"},
	}
	data := encodeItem(item, attrs.ItemSize(item))
	assert.Equal(t, item, decodeItem(data))
	for k, v := range item {
		got, ok := attrOf(data, k)
		require.True(t, ok, k)
		assert.Equal(t, v, got, k)
	}
	_, ok := attrOf(data, "absent")
	assert.False(t, ok)
	// scalarOf reads the tag, and the text of an S, N or B, undecoded.
	for k, v := range item {
		tag, text := scalarOf(data, k)
		assert.Equal(t, appendValue(nil, v)[0], tag, k)
		if _, wantText := valueParts(v); tag == tagS || tag == tagN || tag == tagB {
			assert.Equal(t, wantText, text, k)
		} else {
			assert.Empty(t, text, k)
		}
	}
	tag, _ := scalarOf(data, "absent")
	assert.Zero(t, tag)
	assert.Empty(t, decodeItem(encodeItem(map[string]types.AttributeValue{}, 0)))
}
