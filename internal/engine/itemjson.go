package engine

import (
	"bytes"
	"slices"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// MarshalJSON writes an item of an answer in one pass, its attributes
// sorted by name as encoding/json writes a map's (and DynamoDB Local
// writes an item's), each value as writeValue writes it: encoding/json
// would reach each value by reflection and render it into a buffer of its
// own.
func (m item) MarshalJSON() ([]byte, error) {
	buf := bytes.NewBuffer(make([]byte, 0, 2+len(m)*24))
	writeWireItem(buf, m)
	return buf.Bytes(), nil
}

// writeWireItem writes m as item.MarshalJSON does.
func writeWireItem(buf *bytes.Buffer, m item) {
	writeSorted(buf, m, func(a av) types.AttributeValue { return a.v })
}

// writeSorted writes m (null when nil), its attributes sorted by name,
// each attribute's value value(m[name]): the one rendering of wire items
// and read items.
func writeSorted[V any](buf *bytes.Buffer, m map[string]V, value func(V) types.AttributeValue) {
	if m == nil {
		buf.WriteString("null")
		return
	}
	var arr [16]string
	keys := arr[:0]
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	buf.WriteByte('{')
	for i, k := range keys {
		writeAttr(buf, i, k, value(m[k]))
	}
	buf.WriteByte('}')
}

// readItem is an item a read returns, rendered as item is: a Query or
// Scan page's items are decoded from storage and rendered from the
// decoded map, with no map of wire values in between.
type readItem map[string]types.AttributeValue

func (m readItem) MarshalJSON() ([]byte, error) {
	buf := bytes.NewBuffer(make([]byte, 0, 2+len(m)*24))
	writeReadItem(buf, m)
	return buf.Bytes(), nil
}

// writeReadItem writes m as readItem.MarshalJSON does.
func writeReadItem(buf *bytes.Buffer, m readItem) {
	writeSorted(buf, m, func(v types.AttributeValue) types.AttributeValue { return v })
}

// writeAttr writes the i-th attribute of an item, name k and value v.
func writeAttr(buf *bytes.Buffer, i int, k string, v types.AttributeValue) {
	if i > 0 {
		buf.WriteByte(',')
	}
	writeText(buf, k)
	buf.WriteByte(':')
	switch v := v.(type) {
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
