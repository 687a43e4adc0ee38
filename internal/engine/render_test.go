package engine

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"

	"github.com/optimist-dynamo/optimist/internal/attrs"
)

// TestWriteStored holds that an item rendered from its stored encoding is
// byte for byte the item rendered from its decoded map, whole and cut to
// top-level names: of every type, nested, with names and texts that JSON
// escapes, and with more attributes than writeStored sorts on the stack.
func TestWriteStored(t *testing.T) {
	s := func(v string) types.AttributeValue { return &types.AttributeValueMemberS{Value: v} }
	nested := map[string]types.AttributeValue{
		"z": s("last"), "a": &types.AttributeValueMemberN{Value: "1"},
		"<&>": &types.AttributeValueMemberB{Value: []byte("\x00\xffbinary")},
		"m":   &types.AttributeValueMemberM{Value: map[string]types.AttributeValue{"y": s("1"), "b": &types.AttributeValueMemberNULL{Value: true}}},
	}
	every := map[string]types.AttributeValue{
		"s": s("text"), "": s(""), "quote\"d": s("a \"quoted\"\n\t\\ text <b>&amp;</b> é \u2028"),
		"n":    &types.AttributeValueMemberN{Value: "-12.5e3"},
		"b":    &types.AttributeValueMemberB{Value: []byte{0, 1, 0xff}},
		"bE":   &types.AttributeValueMemberB{Value: []byte{}},
		"t":    &types.AttributeValueMemberBOOL{Value: true},
		"f":    &types.AttributeValueMemberBOOL{Value: false},
		"null": &types.AttributeValueMemberNULL{Value: true},
		"ss":   &types.AttributeValueMemberSS{Value: []string{"a", strings.Repeat("é", 300), "\x01"}},
		"ns":   &types.AttributeValueMemberNS{Value: []string{"1", "2.5"}},
		"bs":   &types.AttributeValueMemberBS{Value: [][]byte{{1}, {2, 3}, []byte(strings.Repeat("x", 100))}},
		"l": &types.AttributeValueMemberL{Value: []types.AttributeValue{
			s("x"), &types.AttributeValueMemberL{Value: []types.AttributeValue{}},
			&types.AttributeValueMemberM{Value: nested},
			&types.AttributeValueMemberNS{Value: []string{"3"}},
		}},
		"m":     &types.AttributeValueMemberM{Value: map[string]types.AttributeValue{}},
		"mm":    &types.AttributeValueMemberM{Value: nested},
		"éname": s("non-ASCII name"),
	}
	many := map[string]types.AttributeValue{}
	for i := range 40 {
		many[fmt.Sprintf("attr%02d", 39-i)] = &types.AttributeValueMemberN{Value: fmt.Sprint(i)}
	}
	for name, item := range map[string]map[string]types.AttributeValue{"every type": every, "40 attributes": many, "nested": nested, "empty": {}} {
		data := encodeItem(item, attrs.ItemSize(item))
		for _, keep := range []map[string]bool{nil, {}, {"s": true, "mm": true, "attr07": true, "z": true, "absent": true}} {
			var want, got bytes.Buffer
			top := map[string]types.AttributeValue{}
			for k, v := range item {
				if keep == nil || keep[k] {
					top[k] = v
				}
			}
			writeReadItem(&want, top)
			writeStored(&got, data, keep)
			assert.Equal(t, want.String(), got.String(), "%s, keep %v", name, keep)
		}
	}
}
