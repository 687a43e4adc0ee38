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

// ItemSize is the size of an item by DynamoDB's rules: the lengths of
// attribute names plus the sizes of their values ([Size]). It is the one
// rule of the project: the library's 400 KB checks and the embedded
// engine's (its item size limit, capacity units, table and index sizes)
// both count by it, and the conformance suite holds it to DynamoDB Local.
func ItemSize(item map[string]types.AttributeValue) int {
	n := 0
	for k, v := range item {
		n += len(k) + Size(v)
	}
	return n
}

// Size is the size of one attribute value by DynamoDB's rules: strings
// and binaries by length, numbers by [NumberSize], booleans and nulls 1
// byte, sets by their elements, lists and maps 3 bytes plus 1 per element
// plus the elements (a map's names included).
func Size(v types.AttributeValue) int {
	switch v := v.(type) {
	case *types.AttributeValueMemberS:
		return len(v.Value)
	case *types.AttributeValueMemberN:
		return NumberSize(v.Value)
	case *types.AttributeValueMemberB:
		return len(v.Value)
	case *types.AttributeValueMemberBOOL, *types.AttributeValueMemberNULL:
		return 1
	case *types.AttributeValueMemberSS:
		return totalLen(v.Value)
	case *types.AttributeValueMemberNS:
		n := 0
		for _, e := range v.Value {
			n += NumberSize(e)
		}
		return n
	case *types.AttributeValueMemberBS:
		return totalLen(v.Value)
	case *types.AttributeValueMemberL:
		n := 3
		for _, e := range v.Value {
			n += 1 + Size(e)
		}
		return n
	case *types.AttributeValueMemberM:
		return 3 + len(v.Value) + ItemSize(v.Value)
	}
	return 0
}

// totalLen is the summed length of a set's elements.
func totalLen[E string | []byte](elems []E) int {
	n := 0
	for _, e := range elems {
		n += len(e)
	}
	return n
}

// AppendKeyValue appends to b a text that identifies the key attribute v:
// two key values (S, N or B) give the same text exactly when
// [SameKeyValue] holds. Values that cannot be keys all give one text.
func AppendKeyValue(b []byte, v types.AttributeValue) []byte {
	typ, s := keyValue(v)
	b = append(b, typ)
	b = strconv.AppendInt(b, int64(len(s)), 10)
	b = append(b, ':')
	return append(b, s...)
}

// SameKeyValue reports whether DynamoDB takes the key attributes a and b
// as the same key: the same type (S, N or B) and the same value, numbers
// compared by value, because DynamoDB stores them normalised ("042.50"
// comes back as "42.5", and "1" and "1.0" are one key). It is the one rule
// for keys; [AppendKeyValue] and [ItemID] render it as text. A value that
// is not S, N or B is the same as no other.
func SameKeyValue(a, b types.AttributeValue) bool {
	ta, sa := keyValue(a)
	tb, sb := keyValue(b)
	return ta != '?' && ta == tb && sa == sb
}

// keyValue is the type letter and canonical text of a key attribute: '?'
// for a value that cannot be a key.
func keyValue(v types.AttributeValue) (byte, string) {
	switch v := v.(type) {
	case *types.AttributeValueMemberS:
		return 'S', v.Value
	case *types.AttributeValueMemberN:
		return 'N', CanonicalNumber(v.Value)
	case *types.AttributeValueMemberB:
		return 'B', string(v.Value)
	}
	return '?', ""
}

// CanonicalNumber returns one spelling for each numeric value: its
// significant digits and a decimal exponent ("42.50", "042.5" and "4.25e1"
// all give "425e-1"; every zero gives "0"). A string that is not a number
// is returned as it is. It works on the text, so no exponent, however
// large, costs more than the length of the string.
func CanonicalNumber(s string) string {
	t := s
	neg := false
	if t != "" && (t[0] == '-' || t[0] == '+') {
		neg, t = t[0] == '-', t[1:]
	}
	exp := 0
	if i := strings.IndexAny(t, "eE"); i >= 0 {
		// DynamoDB's numbers have exponents within ±130; the bound only
		// keeps the arithmetic below from overflowing.
		e, err := strconv.Atoi(t[i+1:])
		if err != nil || e > 1<<20 || e < -1<<20 {
			return s
		}
		t, exp = t[:i], e
	}
	digits := t
	if i := strings.IndexByte(t, '.'); i >= 0 {
		digits = t[:i] + t[i+1:]
		exp -= len(t) - i - 1
	}
	if digits == "" {
		return s
	}
	for i := 0; i < len(digits); i++ {
		if digits[i] < '0' || digits[i] > '9' {
			return s
		}
	}
	digits = strings.TrimLeft(digits, "0")
	if digits == "" {
		return "0"
	}
	trimmed := strings.TrimRight(digits, "0")
	exp += len(digits) - len(trimmed)
	sign := ""
	if neg {
		sign = "-"
	}
	return sign + trimmed + "e" + strconv.Itoa(exp)
}

// NumberSize is the size DynamoDB counts for a number, as DynamoDB Local
// measures it: one byte, plus one per base-100 digit from the first to the
// last non-zero one, the digits aligned on the decimal point ("3.5" is
// 03.50, 2 digits; "100" is 01 00, trailing zero digits dropped, 1), plus
// one for a negative number. Zero is 1 byte. Text that is not a number
// counts its length.
func NumberSize(n string) int {
	sig, mag, ok := scanNumber(n)
	switch {
	case !ok:
		return len(n)
	case sig == 0:
		return 1
	}
	// The digits hold the powers of ten mag-1 down to mag-sig; base-100
	// digit k holds the powers 2k and 2k+1.
	size := 1 + floorDiv(mag-1, 2) - floorDiv(mag-sig, 2) + 1
	if n[0] == '-' {
		size++
	}
	return size
}

// floorDiv is a/b rounded down.
func floorDiv(a, b int) int {
	q := a / b
	if a%b != 0 && (a < 0) != (b < 0) {
		q--
	}
	return q
}

// ItemID is a canonical text for a table and key, the same for two keys
// exactly when DynamoDB takes them as one item: names sorted, each value
// compared by [SameKeyValue] (S "1" and N 1 differ, N 1 and N 1.0 are one
// key).
func ItemID(table string, key map[string]types.AttributeValue) string {
	names := make([]string, 0, len(key))
	for k := range key {
		names = append(names, k)
	}
	sort.Strings(names)
	b := []byte(table)
	for _, k := range names {
		b = append(b, 0)
		b = append(b, k...)
		b = append(b, 0)
		b = AppendKeyValue(b, key[k])
	}
	return string(b)
}
