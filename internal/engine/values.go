package engine

import (
	"bytes"
	"maps"
	"strconv"
	"strings"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/optimist-dynamo/optimist/internal/attrs"
	"github.com/optimist-dynamo/optimist/internal/cond"
)

// checkValue reports the ValidationException DynamoDB Local gives for a
// supplied attribute value, or nil, and returns the value with its numbers
// in DynamoDB's stored form ("01.50" is stored and returned as "1.5"): v
// itself when it is a scalar already in that form.
func checkValue(v types.AttributeValue) (types.AttributeValue, error) {
	switch v := v.(type) {
	case *types.AttributeValueMemberN:
		n, err := number(v.Value)
		if err != nil {
			return nil, err
		}
		if n == v.Value {
			return v, nil
		}
		return &types.AttributeValueMemberN{Value: n}, nil
	case *types.AttributeValueMemberNULL:
		if !v.Value {
			return nil, invalidParam(msgNullAttributeTypesHaveTrue)
		}
	case *types.AttributeValueMemberSS:
		if len(v.Value) == 0 {
			return nil, invalidParam(msgStringSetMayNotEmpty)
		}
		seen := make(map[string]bool, len(v.Value))
		for _, s := range v.Value {
			if seen[s] {
				return nil, invalidParam(msgInputCollectionDuplicatesOf, strings.Join(v.Value, ", "))
			}
			seen[s] = true
		}
	case *types.AttributeValueMemberNS:
		if len(v.Value) == 0 {
			return nil, invalidParam(msgNumberSetMayNotEmpty)
		}
		out := make([]string, len(v.Value))
		seen := make(map[string]bool, len(v.Value))
		for i, s := range v.Value {
			n, err := number(s)
			if err != nil {
				return nil, err
			}
			if seen[n] {
				return nil, validation(msgInputCollectionDuplicates)
			}
			seen[n] = true
			out[i] = n
		}
		return &types.AttributeValueMemberNS{Value: out}, nil
	case *types.AttributeValueMemberBS:
		if len(v.Value) == 0 {
			return nil, invalidParam(msgBinarySetsShouldNotEmpty)
		}
		seen := make(map[string]bool, len(v.Value))
		for _, b := range v.Value {
			if seen[string(b)] {
				return nil, invalidParam(msgInputCollectionTypeBSContains)
			}
			seen[string(b)] = true
		}
	case *types.AttributeValueMemberL:
		out := make([]types.AttributeValue, len(v.Value))
		for i, e := range v.Value {
			c, err := checkValue(e)
			if err != nil {
				return nil, err
			}
			out[i] = c
		}
		return &types.AttributeValueMemberL{Value: out}, nil
	case *types.AttributeValueMemberM:
		out, err := checkItem(v.Value)
		if err != nil {
			return nil, err
		}
		return &types.AttributeValueMemberM{Value: out}, nil
	case nil:
		return nil, validation(msgSuppliedAttributeValueEmptyContainExactly)
	}
	return v, nil
}

// checkItem checks every attribute of an item (or map) with checkValue and
// returns the item in stored form: m itself when checkValue changes none
// of its values (most items), else a copy.
func checkItem(m map[string]types.AttributeValue) (map[string]types.AttributeValue, error) {
	var out map[string]types.AttributeValue
	for k, v := range m {
		if k == "" {
			return nil, validation(msgEmptyAttributeName)
		}
		if len(k) > 65535 {
			return nil, validation(msgAttributeNameTooLargeLess)
		}
		c, err := checkValue(v)
		if err != nil {
			return nil, err
		}
		if c != v && out == nil {
			out = maps.Clone(m)
		}
		if out != nil {
			out[k] = c
		}
	}
	if out == nil {
		return m, nil
	}
	return out, nil
}

// number checks a number's text as DynamoDB does and returns its stored
// form: plain decimal notation, no exponent, no leading or trailing zeros
// ("1E2" is "100", "-0.0" is "0").
func number(s string) (string, error) {
	if plainInteger(s) {
		return s, nil
	}
	if err := attrs.CheckNumber(s); err != nil {
		switch {
		case strings.Contains(err.Error(), "significant digits"):
			return "", validation(msgDynamoDBOnlySupportsPrecisionUp)
		case strings.Contains(err.Error(), "out of DynamoDB's range"):
			if magnitude(s) > 0 {
				return "", validation(msgNumberOverflowAttemptingStoreNumber)
			}
			return "", validation(msgNumberUnderflowAttemptingStoreNumber)
		}
		return "", validation(msgCannotConvertedIntoNumber)
	}
	return plainNumber(attrs.CanonicalNumber(s)), nil
}

// plainInteger reports whether s is an integer already in stored form:
// an optional minus, then 1 to 38 digits, the first not 0 unless s is "0".
// Most numbers are; they skip checking and canonicalising.
func plainInteger(s string) bool {
	d := strings.TrimPrefix(s, "-")
	if len(d) == 0 || len(d) > 38 || d[0] == '0' && s != "0" {
		return false
	}
	for i := 0; i < len(d); i++ {
		if d[i] < '0' || d[i] > '9' {
			return false
		}
	}
	return true
}

// magnitude is the sign of a number's decimal exponent, read from its
// canonical form: > 0 for large numbers, < 0 for small ones.
func magnitude(s string) int {
	c := attrs.CanonicalNumber(s)
	i := strings.IndexByte(c, 'e')
	if i < 0 {
		return 0
	}
	digits := strings.TrimPrefix(c[:i], "-")
	var exp int
	exp, _ = strconv.Atoi(c[i+1:])
	return len(digits) + exp
}

// plainNumber renders attrs.CanonicalNumber's "<digits>e<exp>" as a plain
// decimal.
func plainNumber(c string) string {
	i := strings.IndexByte(c, 'e')
	if i < 0 {
		return c // "0"
	}
	sign := ""
	digits := c[:i]
	if digits[0] == '-' {
		sign, digits = "-", digits[1:]
	}
	var exp int
	exp, _ = strconv.Atoi(c[i+1:])
	switch {
	case exp >= 0:
		return sign + digits + strings.Repeat("0", exp)
	case -exp < len(digits):
		p := len(digits) + exp
		return sign + digits[:p] + "." + digits[p:]
	default:
		return sign + "0." + strings.Repeat("0", -exp-len(digits)) + digits
	}
}

// compareNumbers orders two numbers in stored form by value.
func compareNumbers(a, b string) int {
	an, bn := strings.HasPrefix(a, "-"), strings.HasPrefix(b, "-")
	switch {
	case an && !bn:
		return -1
	case !an && bn:
		return 1
	case an && bn:
		return compareMagnitudes(b[1:], a[1:])
	}
	return compareMagnitudes(a, b)
}

// compareMagnitudes orders two non-negative plain decimals.
func compareMagnitudes(a, b string) int {
	ai, af, _ := strings.Cut(a, ".")
	bi, bf, _ := strings.Cut(b, ".")
	if ai == "0" {
		ai = ""
	}
	if bi == "0" {
		bi = ""
	}
	if len(ai) != len(bi) {
		if len(ai) < len(bi) {
			return -1
		}
		return 1
	}
	if c := strings.Compare(ai, bi); c != 0 {
		return c
	}
	// Equal integer parts: compare fractions digit by digit, the shorter
	// padded with zeros.
	for len(af) < len(bf) {
		af += "0"
	}
	for len(bf) < len(af) {
		bf += "0"
	}
	return strings.Compare(af, bf)
}

// compareKeys orders two key values of one type as DynamoDB sorts them:
// numbers by value, strings by their UTF-8 bytes, binaries by bytes.
func compareKeys(a, b types.AttributeValue) int {
	switch a := a.(type) {
	case *types.AttributeValueMemberS:
		return strings.Compare(a.Value, b.(*types.AttributeValueMemberS).Value)
	case *types.AttributeValueMemberN:
		return compareNumbers(a.Value, b.(*types.AttributeValueMemberN).Value)
	case *types.AttributeValueMemberB:
		return bytes.Compare(a.Value, b.(*types.AttributeValueMemberB).Value)
	}
	return 0
}

// typeName is the type code of a value (S, N, B, SS, ..., M).
func typeName(v types.AttributeValue) string {
	switch v.(type) {
	case *types.AttributeValueMemberS:
		return "S"
	case *types.AttributeValueMemberN:
		return "N"
	case *types.AttributeValueMemberB:
		return "B"
	case *types.AttributeValueMemberSS:
		return "SS"
	case *types.AttributeValueMemberNS:
		return "NS"
	case *types.AttributeValueMemberBS:
		return "BS"
	case *types.AttributeValueMemberBOOL:
		return "BOOL"
	case *types.AttributeValueMemberNULL:
		return "NULL"
	case *types.AttributeValueMemberL:
		return "L"
	case *types.AttributeValueMemberM:
		return "M"
	}
	return ""
}

// copyItem returns a deep copy of an item, so that what the engine stores
// shares nothing with what a caller holds.
func copyItem(m map[string]types.AttributeValue) map[string]types.AttributeValue {
	if m == nil {
		return nil
	}
	out := make(map[string]types.AttributeValue, len(m))
	for k, v := range m {
		out[k] = copyValue(v)
	}
	return out
}

func copyValue(v types.AttributeValue) types.AttributeValue { return cond.Copy(v) }
