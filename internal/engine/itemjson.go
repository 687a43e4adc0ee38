package engine

import (
	"bytes"
	"encoding/json"

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
	writeSortedMap(buf, m, func(buf *bytes.Buffer, a av) error { writeItemValue(buf, a.v); return nil })
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
	writeSortedMap(buf, m, func(buf *bytes.Buffer, v types.AttributeValue) error { writeItemValue(buf, v); return nil })
}

// writeItemValue writes an attribute's value as writeValue does, S and N
// values directly, the commonest in an answer.
func writeItemValue(buf *bytes.Buffer, v types.AttributeValue) {
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
	if !plainText(s) {
		writeString(buf, s)
		return
	}
	buf.WriteByte('"')
	buf.WriteString(s)
	buf.WriteByte('"')
}

// appendJSONText appends s as writeText writes it.
func appendJSONText(b []byte, s string) []byte {
	if !plainText(s) {
		j, _ := json.Marshal(s) // a string always marshals
		return append(b, j...)
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}

// plainText reports whether encoding/json writes s as it is: printable
// ASCII but for '"', '\\', '<', '>' and '&'.
func plainText(s string) bool {
	for i := 0; i < len(s); i++ {
		if !plainByte[s[i]] {
			return false
		}
	}
	return true
}

var plainByte = func() (t [256]bool) {
	for c := 0x20; c <= 0x7e; c++ {
		t[c] = c != '"' && c != '\\' && c != '<' && c != '>' && c != '&'
	}
	return t
}()
