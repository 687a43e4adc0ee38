package cond

import (
	"math/big"
	"sort"
	"strconv"
	"strings"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// CanonicalNumber returns DynamoDB's normalised text of the number s, as
// it stores an N given in an item: no exponent, no leading or trailing
// zeros, no sign on zero ("01.50" is "1.5", "1E2" is "100", "-0" is "0").
// A text that is not a number, or one DynamoDB cannot hold, gives an
// [*Error] with DynamoDB's message.
func CanonicalNumber(s string) (string, error) {
	d, err := parseDecimal(s)
	if err == nil {
		err = d.checkLimits()
	}
	if err != nil {
		return "", &Error{Msg: err.Error()}
	}
	return d.plain(), nil
}

// plain renders d without exponent.
func (d decimal) plain() string {
	if d.digits == "" {
		return "0"
	}
	var b strings.Builder
	if d.neg {
		b.WriteByte('-')
	}
	switch {
	case d.exp <= 0:
		b.WriteString("0.")
		b.WriteString(strings.Repeat("0", -d.exp))
		b.WriteString(d.digits)
	case d.exp >= len(d.digits):
		b.WriteString(d.digits)
		b.WriteString(strings.Repeat("0", d.exp-len(d.digits)))
	default:
		b.WriteString(d.digits[:d.exp])
		b.WriteByte('.')
		b.WriteString(d.digits[d.exp:])
	}
	return b.String()
}

// bigDecimal reads s (a valid number) as Java's BigDecimal does: an
// unscaled integer and a scale, the number of digits after the point,
// trailing zeros included ("1.50" is 150 with scale 2).
func bigDecimal(s string) (*big.Int, int) {
	mant, exp := s, 0
	if i := strings.IndexAny(s, "eE"); i >= 0 {
		mant = s[:i]
		e := new(big.Int)
		e.SetString(strings.TrimPrefix(s[i+1:], "+"), 10)
		exp = int(e.Int64())
	}
	scale := 0
	if i := strings.IndexByte(mant, '.'); i >= 0 {
		scale = len(mant) - i - 1
		mant = mant[:i] + mant[i+1:]
	}
	mant = strings.TrimPrefix(mant, "+")
	u, _ := new(big.Int).SetString(mant, 10)
	return u, scale - exp
}

// addNumbers returns a + b (a - b if sub) as DynamoDB's arithmetic gives
// it: exact, with as many digits after the point as the operand that has
// more (2.5 + 2.5 is "5.0"), and refused if it has more than 38
// significant digits or is out of range.
func addNumbers(a, b string, sub bool) (string, error) {
	for _, s := range []string{a, b} {
		if _, err := parseDecimal(s); err != nil {
			return "", &Error{Msg: err.Error()}
		}
	}
	ua, sa := bigDecimal(a)
	ub, sb := bigDecimal(b)
	scale := max(sa, sb)
	ua.Mul(ua, pow10(scale-sa))
	ub.Mul(ub, pow10(scale-sb))
	if sub {
		ua.Sub(ua, ub)
	} else {
		ua.Add(ua, ub)
	}
	text := plainBig(ua, scale)
	d, _ := parseDecimal(text)
	if err := d.checkLimits(); err != nil {
		return "", &Error{Msg: err.Error()}
	}
	return text, nil
}

func pow10(n int) *big.Int { return new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(n)), nil) }

// plainBig renders unscaled × 10^-scale as BigDecimal.toPlainString does.
func plainBig(u *big.Int, scale int) string {
	if scale <= 0 {
		if u.Sign() == 0 {
			return "0"
		}
		return u.String() + strings.Repeat("0", -scale)
	}
	s := new(big.Int).Abs(u).String()
	neg := u.Sign() < 0
	if len(s) <= scale {
		s = strings.Repeat("0", scale-len(s)+1) + s
	}
	s = s[:len(s)-scale] + "." + s[len(s)-scale:]
	if neg {
		s = "-" + s
	}
	return s
}

// CompareValues orders two values of one key type, as DynamoDB sorts keys
// and as <, <=, > and >= compare: N by value, S by UTF-8 bytes, B by
// bytes. ok is false for other types, or for two different types.
func CompareValues(a, b types.AttributeValue) (c int, ok bool) {
	return (&evaluator{}).order(a, b)
}

// Equal is DynamoDB's equality of two values, as = compares them: numbers
// by value, sets whatever their order, lists in order, maps by keys.
func Equal(a, b types.AttributeValue) bool { return (&evaluator{}).equal(a, b) }

// ValidateValue checks a value supplied in a request as DynamoDB does: a
// number it can read and hold, sets neither empty nor with duplicates, a
// NULL that is true, no empty map key, looking inside lists and maps. The
// error is an [*Error] whose message is DynamoDB's, without the context it
// adds for each parameter (for ExpressionAttributeValues, "ExpressionAttributeValues
// contains invalid value: " before and " for key :v" after).
func ValidateValue(v types.AttributeValue) error {
	switch v := v.(type) {
	case *types.AttributeValueMemberS, *types.AttributeValueMemberB, *types.AttributeValueMemberBOOL:
		return nil
	case *types.AttributeValueMemberN:
		return validNumber(v.Value)
	case *types.AttributeValueMemberNULL:
		if !v.Value {
			return refused(msgNullAttributeTypesHaveTrue)
		}
		return nil
	case *types.AttributeValueMemberSS:
		if len(v.Value) == 0 {
			return refused(msgStringSetMayNotEmpty)
		}
		if hasDuplicates(v.Value, func(s string) string { return s }) {
			return refused(msgInputCollectionDuplicatesOf, strings.Join(v.Value, ", "))
		}
		return nil
	case *types.AttributeValueMemberNS:
		if len(v.Value) == 0 {
			return refused(msgNumberSetMayNotEmpty)
		}
		for _, n := range v.Value {
			if err := validNumber(n); err != nil {
				return err
			}
		}
		if hasDuplicates(v.Value, numberKey) {
			return refused(msgInputCollectionDuplicates)
		}
		return nil
	case *types.AttributeValueMemberBS:
		if len(v.Value) == 0 {
			return refused(msgBinarySetsShouldNotEmpty)
		}
		if hasDuplicates(v.Value, func(b []byte) string { return string(b) }) {
			return refused(msgInputCollectionTypeBSContains)
		}
		return nil
	case *types.AttributeValueMemberL:
		for _, e := range v.Value {
			if err := ValidateValue(e); err != nil {
				return err
			}
		}
		return nil
	case *types.AttributeValueMemberM:
		for k, e := range v.Value {
			if k == "" {
				return refused(msgEmptyAttributeName)
			}
			if err := ValidateValue(e); err != nil {
				return err
			}
		}
		return nil
	case nil:
		return refused(msgSuppliedAttributeValueEmptyContainExactly)
	}
	return refused(msgSuppliedAttributeValueEmptyContainExactly)
}

func validNumber(s string) error {
	d, err := parseDecimal(s)
	if err == nil {
		err = d.checkLimits()
	}
	if err != nil {
		return &Error{Msg: err.Error()}
	}
	return nil
}

func hasDuplicates[E any](elems []E, key func(E) string) bool {
	seen := make(map[string]bool, len(elems))
	for _, e := range elems {
		k := key(e)
		if seen[k] {
			return true
		}
		seen[k] = true
	}
	return false
}

// validateExpressionValue is ValidateValue with the context DynamoDB gives
// a value of ExpressionAttributeValues.
func validateExpressionValue(name string, v types.AttributeValue) error {
	if err := ValidateValue(v); err != nil {
		return refused(msgExpressionAttributeValuesContainsKey, Message(err), name)
	}
	return nil
}

// javaString renders the number s (a valid one) as Java's
// BigDecimal.toString does: plain when the scale is not negative and the
// adjusted exponent is at least -6, else in scientific notation.
func javaString(s string) string {
	u, scale := bigDecimal(s)
	digits := new(big.Int).Abs(u).String()
	sign := ""
	if u.Sign() < 0 {
		sign = "-"
	}
	adjusted := -scale + len(digits) - 1
	if scale >= 0 && adjusted >= -6 {
		return plainBig(u, scale)
	}
	mant := digits[:1]
	if len(digits) > 1 {
		mant += "." + digits[1:]
	}
	exp := strconv.Itoa(adjusted)
	if adjusted >= 0 {
		exp = "+" + exp
	}
	return sign + mant + "E" + exp
}

// ValidateExpressionValues checks a request's ExpressionAttributeValues
// as DynamoDB does before it reads any expression, and returns the error
// for the first bad value (in the order of their names) with DynamoDB's
// context: "ExpressionAttributeValues contains invalid value: ... for key :v".
func ValidateExpressionValues(values map[string]types.AttributeValue) error {
	keys := make([]string, 0, len(values))
	for k := range values {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if err := validateExpressionValue(k, values[k]); err != nil {
			return err
		}
	}
	return nil
}
