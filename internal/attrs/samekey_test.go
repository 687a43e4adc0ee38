package attrs

import (
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
)

// TestOneRuleForKeys: SameKeyValue, AppendKeyValue and ItemID agree, and
// compare numbers by value.
func TestOneRuleForKeys(t *testing.T) {
	num := func(s string) types.AttributeValue { return &types.AttributeValueMemberN{Value: s} }
	bin := func(s string) types.AttributeValue { return &types.AttributeValueMemberB{Value: []byte(s)} }
	cases := []struct {
		a, b types.AttributeValue
		same bool
	}{
		{S("a"), S("a"), true},
		{S("a"), S("b"), false},
		{num("1"), num("1.0"), true},
		{num("042.50"), num("4.25e1"), true},
		{num("1"), num("2"), false},
		{S("1"), num("1"), false},
		{bin("1"), S("1"), false},
		{bin("ab"), bin("ab"), true},
		{bin(""), bin(""), true},
		{nil, nil, false},
		{&types.AttributeValueMemberBOOL{Value: true}, &types.AttributeValueMemberBOOL{Value: true}, false},
	}
	for _, c := range cases {
		assert.Equal(t, c.same, SameKeyValue(c.a, c.b), "%s %s", FormatValue(c.a), FormatValue(c.b))
		if typ, _ := keyValue(c.a); typ == '?' || c.same == (string(AppendKeyValue(nil, c.a)) == string(AppendKeyValue(nil, c.b))) {
			continue // (values that cannot be keys all render alike)
		}
		t.Errorf("AppendKeyValue disagrees for %s %s", FormatValue(c.a), FormatValue(c.b))
	}
	k := func(v types.AttributeValue) map[string]types.AttributeValue {
		return map[string]types.AttributeValue{"pk": v}
	}
	assert.Equal(t, ItemID("t", k(num("1"))), ItemID("t", k(num("1.00"))))
	assert.NotEqual(t, ItemID("t", k(num("1"))), ItemID("t", k(S("1"))))
}
