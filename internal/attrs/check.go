package attrs

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// DynamoDB's limits that can be checked before a request is sent.
const (
	// MaxItemSize is the largest item DynamoDB stores: 400 KB, counted by
	// its size rules (see [ItemSize]).
	MaxItemSize = 400 * 1024
	// MaxHashKeySize and MaxRangeKeySize bound key attributes (bytes of
	// UTF-8 for strings, bytes for binary).
	MaxHashKeySize  = 2048
	MaxRangeKeySize = 1024
	// maxDigits is the precision of DynamoDB's numbers.
	maxDigits = 38
)

// CheckNumber reports why the text n is not a number DynamoDB accepts:
// not a number at all (NaN and infinities included), more than 38
// significant digits, or a magnitude outside 1E-130 to 9.99...E+125.
func CheckNumber(n string) error {
	c := CanonicalNumber(n)
	if c == "0" {
		return nil
	}
	i := strings.IndexByte(c, 'e')
	if i < 0 {
		return fmt.Errorf("%q is not a number (DynamoDB has no NaN or infinity)", n)
	}
	digits := strings.TrimPrefix(c[:i], "-")
	exp, err := strconv.Atoi(c[i+1:])
	if err != nil {
		return fmt.Errorf("%q is not a number", n)
	}
	if len(digits) > maxDigits {
		return fmt.Errorf("%s has %d significant digits; DynamoDB keeps 38", n, len(digits))
	}
	// The value is 0.digits × 10^(exp+len(digits)).
	if mag := exp + len(digits); mag > 126 || mag < -129 {
		return fmt.Errorf("%s is out of DynamoDB's range (1E-130 to 9.9E+125 in magnitude)", n)
	}
	return nil
}

// CheckValue reports the first value in v that DynamoDB would refuse with a
// ValidationException, and its path below name ("a.b[2]"): an invalid
// number (see [CheckNumber]), or an empty set. Nil means v is fine.
func CheckValue(name string, v types.AttributeValue) error {
	switch v := v.(type) {
	case *types.AttributeValueMemberN:
		if err := CheckNumber(v.Value); err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
	case *types.AttributeValueMemberNS:
		if len(v.Value) == 0 {
			return fmt.Errorf("%s: an empty number set (DynamoDB has no empty sets)", name)
		}
		for _, n := range v.Value {
			if err := CheckNumber(n); err != nil {
				return fmt.Errorf("%s: %w", name, err)
			}
		}
	case *types.AttributeValueMemberSS:
		if len(v.Value) == 0 {
			return fmt.Errorf("%s: an empty string set (DynamoDB has no empty sets)", name)
		}
	case *types.AttributeValueMemberBS:
		if len(v.Value) == 0 {
			return fmt.Errorf("%s: an empty binary set (DynamoDB has no empty sets)", name)
		}
	case *types.AttributeValueMemberL:
		for i, e := range v.Value {
			if err := CheckValue(name+"["+strconv.Itoa(i)+"]", e); err != nil {
				return err
			}
		}
	case *types.AttributeValueMemberM:
		for k, e := range v.Value {
			if err := CheckValue(name+"."+k, e); err != nil {
				return err
			}
		}
	}
	return nil
}

// CheckItem checks every attribute of item with [CheckValue].
func CheckItem(item map[string]types.AttributeValue) error {
	for k, v := range item {
		if err := CheckValue(k, v); err != nil {
			return err
		}
	}
	return nil
}

// KeySize returns the size DynamoDB counts for a key attribute: bytes of a
// string or binary, the stored size of a number.
func KeySize(v types.AttributeValue) int {
	return Size(v)
}

// Largest returns the name and size of the largest attribute of item, for
// messages about item sizes.
func Largest(item map[string]types.AttributeValue) (string, int) {
	name, max := "", -1
	for k, v := range item {
		if n := len(k) + Size(v); n > max {
			name, max = k, n
		}
	}
	return name, max
}
