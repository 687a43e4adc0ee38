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

// writeStored writes the item encoded in s as appendStored does, appended
// to the buffer's free space, which answerSize made room for: a
// bytes.Buffer's WriteByte checks its room at every byte.
func writeStored(buf *bytes.Buffer, s string, keep map[string]bool) {
	buf.Write(appendStored(buf.AvailableBuffer(), s, keep))
}

// storedAttr is where an attribute of an encoded item lies in it.
type storedAttr struct {
	name       string
	start, end int // its value
}

// appendStored appends the JSON of the item encoded in s, its attributes
// sorted by name, those keep lets through (all when keep is nil).
func appendStored(b []byte, s string, keep map[string]bool) []byte {
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
	sortAttrs(attrs)
	b = append(b, '{')
	for i, a := range attrs {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendJSONText(b, a.name)
		b = append(b, ':')
		v := decoder{s: s[:a.end], i: a.start}
		b = appendStoredValue(b, &v)
	}
	return append(b, '}')
}

// sortAttrs sorts attributes by name: by insertion for an item's few,
// which a sort through a comparison function would spend most of its time
// calling.
func sortAttrs(attrs []storedAttr) {
	if len(attrs) > 16 {
		slices.SortFunc(attrs, func(a, b storedAttr) int { return strings.Compare(a.name, b.name) })
		return
	}
	for i := 1; i < len(attrs); i++ {
		for j := i; j > 0 && attrs[j].name < attrs[j-1].name; j-- {
			attrs[j], attrs[j-1] = attrs[j-1], attrs[j]
		}
	}
}

// appendStoredValue appends the JSON of the value d is at, as writeValue
// writes it decoded, and moves d past it.
func appendStoredValue(b []byte, d *decoder) []byte {
	tag := d.s[d.i]
	d.i++
	switch tag {
	case tagS:
		b = appendJSONText(append(b, `{"S":`...), d.text())
	case tagN:
		b = appendJSONText(append(b, `{"N":`...), d.text())
	case tagB:
		b = appendBase64(append(b, `{"B":`...), d.text())
	case tagTrue:
		b = append(b, `{"BOOL":true`...)
	case tagFalse:
		b = append(b, `{"BOOL":false`...)
	case tagNull:
		b = append(b, `{"NULL":true`...)
	case tagSS, tagNS, tagBS:
		b = append(b, setOpen(tag)...)
		for i := range d.uvarint() {
			if i > 0 {
				b = append(b, ',')
			}
			if tag == tagBS {
				b = appendBase64(b, d.text())
			} else {
				b = appendJSONText(b, d.text())
			}
		}
		b = append(b, ']')
	case tagL:
		b = append(b, `{"L":[`...)
		for i := range d.uvarint() {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendStoredValue(b, d)
		}
		b = append(b, ']')
	case tagM:
		b = append(b, `{"M":`...)
		start := d.i
		d.i--
		d.skip() // past the map, to know where it ends
		b = appendStored(b, d.s[start:d.i], nil)
	default:
		panic("engine: corrupt stored item")
	}
	return append(b, '}')
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

// appendBase64 appends b as a JSON string of its standard base64, as
// encoding/json writes a []byte.
func appendBase64(b []byte, s string) []byte {
	b = append(b, '"')
	b = base64.StdEncoding.AppendEncode(b, []byte(s))
	return append(b, '"')
}
