package engine

import (
	"bytes"
	"slices"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// MarshalJSON writes an item of an answer in one pass, its attributes
// sorted by name as encoding/json writes a map's (and DynamoDB Local
// writes an item's), each value as writeValue writes it: encoding/json would reach
// each value by reflection and render it into a buffer of its own.
func (m item) MarshalJSON() ([]byte, error) {
	if m == nil {
		return []byte("null"), nil
	}
	keys := make([]string, 0, len(m))
	size := 2
	for k := range m {
		keys = append(keys, k)
		size += len(k) + 16
	}
	slices.Sort(keys)
	buf := bytes.NewBuffer(make([]byte, 0, size))
	buf.WriteByte('{')
	for i, k := range keys {
		if i > 0 {
			buf.WriteByte(',')
		}
		writeText(buf, k)
		buf.WriteByte(':')
		switch v := m[k].v.(type) {
		case *types.AttributeValueMemberS:
			buf.WriteString(`{"S":`)
			writeText(buf, v.Value)
			buf.WriteByte('}')
		case *types.AttributeValueMemberN:
			buf.WriteString(`{"N":`)
			writeText(buf, v.Value)
			buf.WriteByte('}')
		default:
			writeValue(buf, v)
		}
	}
	buf.WriteByte('}')
	return buf.Bytes(), nil
}

// writeText writes a string as writeString does: as it is when
// encoding/json would write it so (printable ASCII it does not escape),
// else by writeString.
func writeText(buf *bytes.Buffer, s string) {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c > 0x7e || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			writeString(buf, s)
			return
		}
	}
	buf.WriteByte('"')
	buf.WriteString(s)
	buf.WriteByte('"')
}
