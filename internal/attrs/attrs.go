// Package attrs has small helpers for DynamoDB attribute values that several
// optimist packages share: rendering keys for messages and reading numbers.
package attrs

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// FormatKey renders a primary key for messages, e.g. {pk="a", sk=3}. Keys
// are sorted so the text is stable.
func FormatKey(key map[string]types.AttributeValue) string {
	names := make([]string, 0, len(key))
	for k := range key {
		names = append(names, k)
	}
	sort.Strings(names)
	var b strings.Builder
	b.WriteByte('{')
	for i, k := range names {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(k)
		b.WriteByte('=')
		b.WriteString(FormatValue(key[k]))
	}
	b.WriteByte('}')
	return b.String()
}

// FormatValue renders a scalar attribute value for messages: strings quoted,
// numbers as is, binary as its length. Other types are named, not expanded.
func FormatValue(v types.AttributeValue) string {
	switch v := v.(type) {
	case *types.AttributeValueMemberS:
		return fmt.Sprintf("%q", v.Value)
	case *types.AttributeValueMemberN:
		return v.Value
	case *types.AttributeValueMemberB:
		return fmt.Sprintf("<%d bytes>", len(v.Value))
	case nil:
		return "<nil>"
	default:
		return fmt.Sprintf("<%T>", v)
	}
}

// Int64 reads a number attribute as an int64. ok is false when v is missing,
// not a number, or not an integer that fits.
func Int64(v types.AttributeValue) (n int64, ok bool) {
	nv, isN := v.(*types.AttributeValueMemberN)
	if !isN {
		return 0, false
	}
	n, err := strconv.ParseInt(nv.Value, 10, 64)
	return n, err == nil
}

// N returns the number attribute value for n.
func N(n int64) *types.AttributeValueMemberN {
	return &types.AttributeValueMemberN{Value: strconv.FormatInt(n, 10)}
}

// S returns the string attribute value for s.
func S(s string) *types.AttributeValueMemberS {
	return &types.AttributeValueMemberS{Value: s}
}

// ItemSize estimates the size of an item by DynamoDB's rules: the lengths
// of attribute names plus the sizes of their values.
func ItemSize(item map[string]types.AttributeValue) int {
	n := 0
	for k, v := range item {
		n += len(k) + Size(v)
	}
	return n
}

// Size estimates the size of one attribute value: strings and binaries by
// length, numbers by their digits (DynamoDB stores about one byte per two
// digits plus one; the text length is an upper bound), containers by
// their elements plus 3 bytes.
func Size(v types.AttributeValue) int {
	switch v := v.(type) {
	case *types.AttributeValueMemberS:
		return len(v.Value)
	case *types.AttributeValueMemberN:
		return len(v.Value)
	case *types.AttributeValueMemberB:
		return len(v.Value)
	case *types.AttributeValueMemberBOOL, *types.AttributeValueMemberNULL:
		return 1
	case *types.AttributeValueMemberSS:
		n := 0
		for _, s := range v.Value {
			n += len(s)
		}
		return n
	case *types.AttributeValueMemberNS:
		n := 0
		for _, s := range v.Value {
			n += len(s)
		}
		return n
	case *types.AttributeValueMemberBS:
		n := 0
		for _, b := range v.Value {
			n += len(b)
		}
		return n
	case *types.AttributeValueMemberL:
		n := 3
		for _, e := range v.Value {
			n += 1 + Size(e)
		}
		return n
	case *types.AttributeValueMemberM:
		return 3 + ItemSize(v.Value)
	}
	return 0
}
