package attrs

import (
	"fmt"
	"strconv"

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
	sig, mag, ok := scanNumber(n)
	switch {
	case !ok:
		return fmt.Errorf("%q is not a number (DynamoDB has no NaN or infinity)", n)
	case sig == 0:
		return nil
	case sig > maxDigits:
		return fmt.Errorf("%s has %d significant digits; DynamoDB keeps 38", n, sig)
	case mag > 126 || mag < -129:
		return fmt.Errorf("%s is out of DynamoDB's range (1E-130 to 9.9E+125 in magnitude)", n)
	}
	return nil
}

// scanNumber reads a decimal number without allocating: sig is its count
// of significant digits (0 for zero), and its value is 0.d1d2... × 10^mag.
// ok is false when n is not a number.
func scanNumber(n string) (sig, mag int, ok bool) {
	i := 0
	if i < len(n) && (n[i] == '+' || n[i] == '-') {
		i++
	}
	digits, intDigits, first, last := 0, -1, -1, -1
	for ; i < len(n); i++ {
		c := n[i]
		switch {
		case c >= '0' && c <= '9':
			if c != '0' {
				if first < 0 {
					first = digits
				}
				last = digits
			}
			digits++
			continue
		case c == '.' && intDigits < 0:
			intDigits = digits
			continue
		}
		break
	}
	if digits == 0 {
		return 0, 0, false
	}
	if intDigits < 0 {
		intDigits = digits
	}
	exp := 0
	if i < len(n) {
		if n[i] != 'e' && n[i] != 'E' {
			return 0, 0, false
		}
		e, err := strconv.Atoi(n[i+1:])
		if err != nil || n[i+1:] == "" || e > 1<<20 || e < -1<<20 {
			return 0, 0, false
		}
		exp = e
	}
	if first < 0 {
		return 0, 0, true // zero
	}
	return last - first + 1, intDigits - first + exp, true
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
