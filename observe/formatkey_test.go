package observe_test

import (
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"

	"github.com/optimist-dynamo/optimist/internal/attrs"
	"github.com/optimist-dynamo/optimist/observe"
)

// observe renders keys itself (it imports no package of the module), as
// the library's error messages render them with internal/attrs: a key
// logged and a key in an error read the same.
func TestFormatKeyAsErrorsDo(t *testing.T) {
	for _, key := range []map[string]types.AttributeValue{
		{},
		{"id": &types.AttributeValueMemberS{Value: `a "quoted" key`}},
		{"pk": &types.AttributeValueMemberS{Value: "p"}, "sk": &types.AttributeValueMemberN{Value: "-1.5"}},
		{"b": &types.AttributeValueMemberB{Value: []byte{1, 2, 3}}, "a": nil},
		{"m": &types.AttributeValueMemberBOOL{Value: true}},
	} {
		assert.Equal(t, attrs.FormatKey(key), observe.FormatKey(key))
	}
}
