package engine

import (
	"encoding/binary"
	"strconv"
	"strings"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/optimist-dynamo/optimist/internal/attrs"
)

// The trees of items and of index entries order one string per value (a
// key string), compared byte by byte, in place of key values compared by
// type: a comparison reads one string, not several values behind
// pointers, and an entry holds no decoded values.
//
// A key string is a sequence of parts, each prefix-free (no part is a
// proper prefix of another of the same kind), so that the order of two
// key strings is that of their first unequal parts, and the key strings
// that share a value in their first parts are exactly those with a common
// prefix:
//
//   - a partition part is encodeKey's text (a type letter, the length
//     and the canonical text): the order of a Scan;
//   - an ordered part follows DynamoDB's order of key values of one type:
//     S and B their bytes, 0x00 escaped as 0x00 0xFF, then 0x00 0x00; N a
//     sign class, then for a non-zero number its decimal exponent and
//     significant digits and 0x00, all complemented for a negative one.
//
// An item's key string is its hash key's partition part, then its range
// key's ordered part; an index entry's, the index hash key's partition
// part, then the index range key's ordered part (ties between equal index
// keys go by the table's key, see compareIx).

// Number sign classes of an ordered N part.
const (
	ordNeg  byte = 1
	ordZero byte = 2
	ordPos  byte = 3
)

// appendPartition appends the partition part of the value tag/text (a
// stored S, N or B): encodeKey's text.
func appendPartition(b []byte, tag byte, text string) []byte {
	switch tag {
	case tagS:
		b = append(b, 'S')
	case tagN:
		b, text = append(b, 'N'), attrs.CanonicalNumber(text)
	default:
		b = append(b, 'B')
	}
	b = strconv.AppendInt(b, int64(len(text)), 10)
	return append(append(b, ':'), text...)
}

// partitionOf is the partition part at the start of key.
func partitionOf(key string) string {
	i := strings.IndexByte(key, ':')
	n, _ := strconv.Atoi(key[1:i])
	return key[:i+1+n]
}

// appendOrdered appends the ordered part of the value tag/text.
func appendOrdered(b []byte, tag byte, text string) []byte {
	if tag == tagN {
		return appendOrderedNumber(b, text)
	}
	return append(appendEscaped(b, text), 0, 0)
}

// appendEscaped appends s with each 0x00 as 0x00 0xFF: an ordered S or B
// part without its end, the prefix of the parts of the values s begins.
func appendEscaped(b []byte, s string) []byte {
	for {
		i := strings.IndexByte(s, 0)
		if i < 0 {
			return append(b, s...)
		}
		b = append(append(b, s[:i]...), 0, 0xFF)
		s = s[i+1:]
	}
}

// appendOrderedNumber appends the ordered part of the number text: a
// larger decimal exponent (of the first significant digit) is a larger
// magnitude, and at one exponent the significant digits compare as text.
func appendOrderedNumber(b []byte, text string) []byte {
	c := attrs.CanonicalNumber(text) // [-]digits "e" exponent, or "0"
	if c == "0" {
		return append(b, ordZero)
	}
	neg := c[0] == '-'
	if neg {
		c = c[1:]
	}
	i := strings.IndexByte(c, 'e')
	digits := c[:i]
	exp, _ := strconv.Atoi(c[i+1:])
	exp += len(digits) - 1
	class := ordPos
	if neg {
		class = ordNeg
	}
	b = append(b, class)
	start := len(b)
	b = binary.BigEndian.AppendUint16(b, uint16(exp+0x8000))
	b = append(append(b, digits...), 0)
	if neg {
		for j := start; j < len(b); j++ {
			b[j] = ^b[j]
		}
	}
	return b
}

// valueParts is the stored tag and the text of a key value (S, N or B),
// tag 0 for another.
func valueParts(v types.AttributeValue) (byte, string) {
	switch v := v.(type) {
	case *types.AttributeValueMemberS:
		return tagS, v.Value
	case *types.AttributeValueMemberN:
		return tagN, v.Value
	case *types.AttributeValueMemberB:
		return tagB, string(v.Value)
	}
	return 0, ""
}

// tagType is the type code (S, N, B) of a stored scalar tag.
func tagType(tag byte) string {
	switch tag {
	case tagS:
		return "S"
	case tagN:
		return "N"
	case tagB:
		return "B"
	}
	return ""
}

// tableKey is the key string of the item with key values hash and rng
// (nil for a hash-only table).
func tableKey(hash, rng types.AttributeValue) string {
	return string(appendTableKey(nil, hash, rng))
}

func appendTableKey(b []byte, hash, rng types.AttributeValue) []byte {
	tag, text := valueParts(hash)
	b = appendPartition(b, tag, text)
	if rng != nil {
		tag, text = valueParts(rng)
		b = appendOrdered(b, tag, text)
	}
	return b
}

// compareTableKeys orders two items' key strings by their key values in
// DynamoDB's order: partition parts order hash keys by type, length and
// text, so equal partition parts aside, the hash keys are compared as
// values.
func compareTableKeys(a, b string) int {
	pa, pb := partitionOf(a), partitionOf(b)
	if pa == pb {
		return strings.Compare(a[len(pa):], b[len(pb):])
	}
	ta, tb := pa[strings.IndexByte(pa, ':')+1:], pb[strings.IndexByte(pb, ':')+1:]
	if pa[0] == 'N' {
		return strings.Compare(string(appendOrderedNumber(nil, ta)), string(appendOrderedNumber(nil, tb)))
	}
	return strings.Compare(ta, tb)
}

// successor is the least string above every string that begins with p,
// "" if there is none (p all 0xFF).
func successor(p string) string {
	for i := len(p) - 1; i >= 0; i-- {
		if p[i] < 0xFF {
			return p[:i] + string([]byte{p[i] + 1})
		}
	}
	return ""
}

// keyRange is the span [lo, hi) of the key strings of partition part pp
// whose next part is a value rc accepts (nil: any); hi "" has no bound.
func keyRange(pp string, rc *keyCond) (lo, hi string) {
	if rc == nil {
		return pp, successor(pp)
	}
	at := func(v types.AttributeValue) string {
		tag, text := valueParts(v)
		return string(appendOrdered([]byte(pp), tag, text))
	}
	switch rc.op {
	case "=":
		e := at(rc.vals[0])
		return e, successor(e)
	case "<":
		return pp, at(rc.vals[0])
	case "<=":
		return pp, successor(at(rc.vals[0]))
	case ">":
		return successor(at(rc.vals[0])), successor(pp)
	case ">=":
		return at(rc.vals[0]), successor(pp)
	case "BETWEEN":
		return at(rc.vals[0]), successor(at(rc.vals[1]))
	case "begins_with":
		_, text := valueParts(rc.vals[0])
		p := string(appendEscaped([]byte(pp), text))
		return p, successor(p)
	}
	return pp, successor(pp)
}

// below reports whether key is before hi, the end of a keyRange.
func below(key, hi string) bool { return hi == "" || key < hi }
