package unitproto

import (
	"encoding/base64"
	"encoding/json"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// References to items in a unit's pages: a table and a key, as one string.

// EncodeKey encodes a table and an item key as one string, for the item
// lists of a unit's pages.
func EncodeKey(table string, key map[string]types.AttributeValue) (string, error) {
	k := make(map[string][2]string, len(key))
	for name, v := range key {
		switch v := v.(type) {
		case *types.AttributeValueMemberS:
			k[name] = [2]string{"S", v.Value}
		case *types.AttributeValueMemberN:
			k[name] = [2]string{"N", v.Value}
		case *types.AttributeValueMemberB:
			k[name] = [2]string{"B", base64.StdEncoding.EncodeToString(v.Value)}
		default:
			return "", fmt.Errorf("unit: key attribute %q of %s is not S, N or B", name, table)
		}
	}
	b, err := json.Marshal(struct {
		T string               `json:"t"`
		K map[string][2]string `json:"k"`
	}{table, k})
	return string(b), err
}

// CheckKey reports why key cannot name an item of any table: no
// attribute, more than two (a hash and a range key), or one that is not a
// non-empty S, N or B value. DynamoDB refuses such a key in every call.
func CheckKey(key map[string]types.AttributeValue) error {
	if len(key) == 0 || len(key) > 2 {
		return fmt.Errorf("a key of %d attributes (a table's key has one or two)", len(key))
	}
	for name, v := range key {
		empty := false
		switch v := v.(type) {
		case *types.AttributeValueMemberS:
			empty = v.Value == ""
		case *types.AttributeValueMemberN:
			empty = v.Value == ""
		case *types.AttributeValueMemberB:
			empty = len(v.Value) == 0
		default:
			return fmt.Errorf("key attribute %q is not S, N or B", name)
		}
		if name == "" || empty {
			return fmt.Errorf("key attribute %q is empty", name)
		}
	}
	return nil
}

// DecodeKey reverses EncodeKey.
func DecodeKey(s string) (string, map[string]types.AttributeValue, error) {
	var v struct {
		T string               `json:"t"`
		K map[string][2]string `json:"k"`
	}
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		return "", nil, fmt.Errorf("unit: bad item reference %q: %w", s, err)
	}
	key := make(map[string]types.AttributeValue, len(v.K))
	for name, tv := range v.K {
		switch tv[0] {
		case "S":
			key[name] = &types.AttributeValueMemberS{Value: tv[1]}
		case "N":
			key[name] = &types.AttributeValueMemberN{Value: tv[1]}
		case "B":
			b, err := base64.StdEncoding.DecodeString(tv[1])
			if err != nil {
				return "", nil, fmt.Errorf("unit: bad item reference %q: %w", s, err)
			}
			key[name] = &types.AttributeValueMemberB{Value: b}
		default:
			return "", nil, fmt.Errorf("unit: bad item reference %q", s)
		}
	}
	return v.T, key, nil
}
