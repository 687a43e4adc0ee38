package engine

import (
	"bytes"
	"encoding/base64"
	"slices"
	"strings"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// An item an answer returns whole, or cut to top-level names, is written
// from its stored encoding (codec.go) straight into the answer's JSON:
// decoding it into a map of the SDK's values only to render that map
// cost a map and a value per attribute of every item of a Query page.
// The bytes written are those writeReadItem writes for the decoded item:
// attributes sorted by name, each value as writeValue writes it.

// outItem is an item of an answer: stored (its encoding, with the names
// keep lets through, nil for all) when data is set, else m.
type outItem struct {
	data string
	keep map[string]bool
	m    map[string]types.AttributeValue
}

// storedOut is the item stored as data, as proj projects it: rendered from
// data when proj keeps whole top-level attributes (or all), else decoded
// and projected.
func storedOut(data string, proj *projection_) outItem {
	switch {
	case proj == nil:
		return outItem{data: data}
	case proj.top != nil:
		return outItem{data: data, keep: proj.top}
	}
	return outItem{m: proj.apply(decodeItem(data))}
}

// writeOut writes an answer's item.
func writeOut(buf *bytes.Buffer, it outItem) {
	if it.data == "" {
		writeReadItem(buf, it.m)
		return
	}
	writeStored(buf, it.data, it.keep)
}

// storedAttr is where an attribute of an encoded item lies in it.
type storedAttr struct {
	name       string
	start, end int // its value
}

// writeStored writes the item encoded in s, its attributes sorted by name,
// those keep lets through (all when keep is nil).
func writeStored(buf *bytes.Buffer, s string, keep map[string]bool) {
	d := decoder{s: s}
	n := d.uvarint()
	var arr [16]storedAttr
	attrs := arr[:0]
	for range n {
		name := d.text()
		start := d.i
		d.skip()
		if keep == nil || keep[name] {
			attrs = append(attrs, storedAttr{name, start, d.i})
		}
	}
	if len(attrs) > 1 {
		slices.SortFunc(attrs, func(a, b storedAttr) int { return strings.Compare(a.name, b.name) })
	}
	buf.WriteByte('{')
	for i, a := range attrs {
		if i > 0 {
			buf.WriteByte(',')
		}
		writeText(buf, a.name)
		buf.WriteByte(':')
		v := decoder{s: s[:a.end], i: a.start}
		writeStoredValue(buf, &v)
	}
	buf.WriteByte('}')
}

// writeStoredValue writes the value d is at, as writeValue writes it
// decoded, and moves d past it.
func writeStoredValue(buf *bytes.Buffer, d *decoder) {
	tag := d.s[d.i]
	d.i++
	switch tag {
	case tagS:
		buf.WriteString(`{"S":`)
		writeText(buf, d.text())
	case tagN:
		buf.WriteString(`{"N":`)
		writeText(buf, d.text())
	case tagB:
		buf.WriteString(`{"B":`)
		writeBase64(buf, d.text())
	case tagTrue:
		buf.WriteString(`{"BOOL":true`)
	case tagFalse:
		buf.WriteString(`{"BOOL":false`)
	case tagNull:
		buf.WriteString(`{"NULL":true`)
	case tagSS, tagNS, tagBS:
		buf.WriteString(setOpen(tag))
		for i := range d.uvarint() {
			if i > 0 {
				buf.WriteByte(',')
			}
			if tag == tagBS {
				writeBase64(buf, d.text())
			} else {
				writeText(buf, d.text())
			}
		}
		buf.WriteByte(']')
	case tagL:
		buf.WriteString(`{"L":[`)
		for i := range d.uvarint() {
			if i > 0 {
				buf.WriteByte(',')
			}
			writeStoredValue(buf, d)
		}
		buf.WriteByte(']')
	case tagM:
		buf.WriteString(`{"M":`)
		start := d.i
		d.i--
		d.skip() // past the map, to know where it ends
		writeStored(buf, d.s[start:d.i], nil)
	default:
		panic("engine: corrupt stored item")
	}
	buf.WriteByte('}')
}

// setOpen is how a set of the tag opens.
func setOpen(tag byte) string {
	switch tag {
	case tagSS:
		return `{"SS":[`
	case tagNS:
		return `{"NS":[`
	}
	return `{"BS":[`
}

// writeBase64 writes b as a JSON string of its standard base64, as
// encoding/json writes a []byte.
func writeBase64(buf *bytes.Buffer, b string) {
	buf.WriteByte('"')
	buf.Write(base64.StdEncoding.AppendEncode(buf.AvailableBuffer(), []byte(b)))
	buf.WriteByte('"')
}
