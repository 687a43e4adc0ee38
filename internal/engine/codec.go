package engine

import (
	"encoding/binary"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// A stored item is one string, its attributes encoded one after the other
// (encodeItem), rather than a map of the SDK's values: a map and a value,
// a name and a text allocated apart for each attribute held several times
// the item's size per item. Reading decodes it (decodeItem), its names and
// texts substrings of the stored string, so that only the map and the
// values themselves are allocated; attr reads one attribute without
// decoding the others.
//
// The encoding: a count, then each attribute's name and value. A name or
// a text is its length (uvarint) and its bytes; a value is a tag, then
// its text (S, N, B), its elements (SS, NS, BS, L: a count, then each),
// its attributes (M, as an item), or nothing (BOOL, NULL).

const (
	tagS byte = 1 + iota
	tagN
	tagB
	tagTrue
	tagFalse
	tagNull
	tagSS
	tagNS
	tagBS
	tagL
	tagM
)

// encodeItem encodes an item; size is about its size (itemSize), for the
// buffer's.
func encodeItem(m map[string]types.AttributeValue, size int) string {
	return string(appendItem(make([]byte, 0, 16+size+size/4), m))
}

func appendItem(b []byte, m map[string]types.AttributeValue) []byte {
	b = binary.AppendUvarint(b, uint64(len(m)))
	for k, v := range m {
		b = appendText(b, k)
		b = appendValue(b, v)
	}
	return b
}

func appendText(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

func appendTexts(b []byte, tag byte, ss []string) []byte {
	b = binary.AppendUvarint(append(b, tag), uint64(len(ss)))
	for _, s := range ss {
		b = appendText(b, s)
	}
	return b
}

func appendValue(b []byte, v types.AttributeValue) []byte {
	switch v := v.(type) {
	case *types.AttributeValueMemberS:
		return appendText(append(b, tagS), v.Value)
	case *types.AttributeValueMemberN:
		return appendText(append(b, tagN), v.Value)
	case *types.AttributeValueMemberB:
		return appendText(append(b, tagB), string(v.Value))
	case *types.AttributeValueMemberBOOL:
		if v.Value {
			return append(b, tagTrue)
		}
		return append(b, tagFalse)
	case *types.AttributeValueMemberNULL:
		return append(b, tagNull)
	case *types.AttributeValueMemberSS:
		return appendTexts(b, tagSS, v.Value)
	case *types.AttributeValueMemberNS:
		return appendTexts(b, tagNS, v.Value)
	case *types.AttributeValueMemberBS:
		b = binary.AppendUvarint(append(b, tagBS), uint64(len(v.Value)))
		for _, e := range v.Value {
			b = appendText(b, string(e))
		}
		return b
	case *types.AttributeValueMemberL:
		b = binary.AppendUvarint(append(b, tagL), uint64(len(v.Value)))
		for _, e := range v.Value {
			b = appendValue(b, e)
		}
		return b
	case *types.AttributeValueMemberM:
		return appendItem(append(b, tagM), v.Value)
	}
	panic(fmt.Sprintf("engine: cannot store a value of type %T", v))
}

// decoder reads an encoded item from s at i.
type decoder struct {
	s string
	i int
}

func (d *decoder) uvarint() int {
	var x uint64
	var shift uint
	for {
		c := d.s[d.i]
		d.i++
		x |= uint64(c&0x7f) << shift
		if c < 0x80 {
			return int(x)
		}
		shift += 7
	}
}

func (d *decoder) text() string {
	n := d.uvarint()
	s := d.s[d.i : d.i+n]
	d.i += n
	return s
}

func (d *decoder) texts() []string {
	out := make([]string, d.uvarint())
	for i := range out {
		out[i] = d.text()
	}
	return out
}

func (d *decoder) item() map[string]types.AttributeValue {
	n := d.uvarint()
	m := make(map[string]types.AttributeValue, n)
	for range n {
		k := d.text()
		m[k] = d.value()
	}
	return m
}

func (d *decoder) value() types.AttributeValue {
	tag := d.s[d.i]
	d.i++
	switch tag {
	case tagS:
		return &types.AttributeValueMemberS{Value: d.text()}
	case tagN:
		return &types.AttributeValueMemberN{Value: d.text()}
	case tagB:
		return &types.AttributeValueMemberB{Value: []byte(d.text())}
	case tagTrue, tagFalse:
		return &types.AttributeValueMemberBOOL{Value: tag == tagTrue}
	case tagNull:
		return &types.AttributeValueMemberNULL{Value: true}
	case tagSS:
		return &types.AttributeValueMemberSS{Value: d.texts()}
	case tagNS:
		return &types.AttributeValueMemberNS{Value: d.texts()}
	case tagBS:
		out := make([][]byte, d.uvarint())
		for i := range out {
			out[i] = []byte(d.text())
		}
		return &types.AttributeValueMemberBS{Value: out}
	case tagL:
		out := make([]types.AttributeValue, d.uvarint())
		for i := range out {
			out[i] = d.value()
		}
		return &types.AttributeValueMemberL{Value: out}
	case tagM:
		return &types.AttributeValueMemberM{Value: d.item()}
	}
	panic(fmt.Sprintf("engine: corrupt stored item (tag %d)", tag))
}

// skip moves past one value.
func (d *decoder) skip() {
	tag := d.s[d.i]
	d.i++
	switch tag {
	case tagS, tagN, tagB:
		d.text()
	case tagSS, tagNS, tagBS:
		for range d.uvarint() {
			d.text()
		}
	case tagL:
		for range d.uvarint() {
			d.skip()
		}
	case tagM:
		for range d.uvarint() {
			d.text()
			d.skip()
		}
	}
}

// decodeItem decodes an item encodeItem encoded.
func decodeItem(s string) map[string]types.AttributeValue {
	d := decoder{s: s}
	return d.item()
}

// attrOf decodes the attribute name of the item encoded in s, without
// decoding the others.
func attrOf(s, name string) (types.AttributeValue, bool) {
	d := decoder{s: s}
	for range d.uvarint() {
		if d.text() == name {
			return d.value(), true
		}
		d.skip()
	}
	return nil, false
}

// scalarOf reads the attribute name of the item encoded in s without
// decoding it: its tag and, for an S, N or B, its text; tag 0 when the
// item has no such attribute.
func scalarOf(s, name string) (tag byte, text string) {
	d := decoder{s: s}
	for range d.uvarint() {
		if d.text() != name {
			d.skip()
			continue
		}
		tag = d.s[d.i]
		if tag == tagS || tag == tagN || tag == tagB {
			d.i++
			text = d.text()
		}
		return tag, text
	}
	return 0, ""
}
