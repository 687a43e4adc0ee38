package engine

import (
	"bytes"
	"encoding/json"
	"slices"
	"strconv"
)

// encodeAnswer writes a handler's answer as json.Marshal writes it, byte
// for byte, without its reflection over the answer's maps and without the
// validation json.Marshal gives the output of every MarshalJSON method (an
// item of a Query page would be rendered, then scanned again). The shapes
// the handlers build (maps of any, slices of them, items, strings, numbers
// and booleans) are written here; any other value goes to json.Marshal.
func encodeAnswer(out any) ([]byte, error) {
	buf := bytes.NewBuffer(make([]byte, 0, answerSize(out)))
	if err := writeAny(buf, out); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// answerSize is about the size of an answer's JSON, for its buffer: a
// page of items rendered from storage would otherwise grow it by copies.
func answerSize(out any) int {
	n := 512
	m, ok := out.(map[string]any)
	if !ok {
		return n
	}
	items, _ := m["Items"].([]outItem)
	if it, ok := m["Item"].(outItem); ok {
		items = []outItem{it}
	}
	for _, it := range items {
		n += jsonSize(it.data)
	}
	return n
}

// jsonSize is about the size of the JSON of the item stored as s: its
// bytes and a dozen per attribute for the JSON around each.
func jsonSize(s string) int {
	if s == "" {
		return 0
	}
	d := decoder{s: s}
	return len(s) + 12*d.uvarint() + 2
}

// writeAny writes v as json.Marshal would.
func writeAny(buf *bytes.Buffer, v any) error {
	switch v := v.(type) {
	case nil:
		buf.WriteString("null")
	case string:
		writeText(buf, v)
	case bool:
		buf.WriteString(strconv.FormatBool(v))
	case int:
		buf.WriteString(strconv.Itoa(v))
	case int64:
		buf.WriteString(strconv.FormatInt(v, 10))
	case map[string]any:
		return writeAnyMap(buf, v)
	case []any:
		return writeSlice(buf, v, v == nil, writeAny)
	case []map[string]any:
		return writeSlice(buf, v, v == nil, func(buf *bytes.Buffer, m map[string]any) error { return writeAnyMap(buf, m) })
	case map[string][]map[string]any:
		return writeSortedMap(buf, v, func(buf *bytes.Buffer, l []map[string]any) error { return writeAny(buf, l) })
	case item:
		writeWireItem(buf, v)
	case []item:
		return writeSlice(buf, v, v == nil, func(buf *bytes.Buffer, m item) error { writeWireItem(buf, m); return nil })
	case readItem:
		writeReadItem(buf, v)
	case []readItem:
		return writeSlice(buf, v, v == nil, func(buf *bytes.Buffer, m readItem) error { writeReadItem(buf, m); return nil })
	case outItem:
		writeOut(buf, v)
	case []outItem:
		return writeSlice(buf, v, v == nil, func(buf *bytes.Buffer, it outItem) error { writeOut(buf, it); return nil })
	case av:
		writeValue(buf, v.v)
	default:
		b, err := json.Marshal(v)
		if err != nil {
			return err
		}
		buf.Write(b)
	}
	return nil
}

func writeAnyMap(buf *bytes.Buffer, m map[string]any) error {
	return writeSortedMap(buf, m, writeAny)
}

// writeSortedMap writes m with its keys sorted, as encoding/json does; a
// nil map is null.
func writeSortedMap[V any](buf *bytes.Buffer, m map[string]V, f func(*bytes.Buffer, V) error) error {
	if m == nil {
		buf.WriteString("null")
		return nil
	}
	var arr [8]string
	keys := arr[:0]
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	buf.WriteByte('{')
	for i, k := range keys {
		if i > 0 {
			buf.WriteByte(',')
		}
		writeText(buf, k)
		buf.WriteByte(':')
		if err := f(buf, m[k]); err != nil {
			return err
		}
	}
	buf.WriteByte('}')
	return nil
}

// writeSlice writes s as a JSON array, or null when isNil.
func writeSlice[E any](buf *bytes.Buffer, s []E, isNil bool, f func(*bytes.Buffer, E) error) error {
	if isNil {
		buf.WriteString("null")
		return nil
	}
	buf.WriteByte('[')
	for i, e := range s {
		if i > 0 {
			buf.WriteByte(',')
		}
		if err := f(buf, e); err != nil {
			return err
		}
	}
	buf.WriteByte(']')
	return nil
}
