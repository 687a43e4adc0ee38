package engine

import (
	"encoding/json"
	"reflect"
	"unicode/utf8"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// The SDK writes attribute values in one compact form: {"S":"x"},
// {"N":"1"}, {"SS":["a","b"]}, {"M":{"k":{...}}}, no spaces, strings
// escaped only where JSON requires. fastValue reads that form alone, in
// one pass with no intermediate maps; anything else it leaves to
// av.UnmarshalJSON's general reading (spaces, escapes, null or unknown
// members, binary values, duplicate names, malformed values), so that what
// it accepts decodes exactly as the general reading decodes it.

// scanner reads a compact JSON value the fast way; ok turns false at the
// first thing it does not take, and the caller falls back.
type scanner struct {
	b  []byte
	i  int
	ok bool
}

// fastValue decodes the attribute value b, or reports false.
func fastValue(b []byte) (types.AttributeValue, bool) {
	s := scanner{b: b, ok: true}
	v := s.value(0)
	if !s.ok || s.i != len(b) {
		return nil, false
	}
	return v, true
}

// maxFastDepth bounds the nesting fastValue follows; deeper values take
// the general path, which applies DynamoDB's own limit.
const maxFastDepth = 16

func (s *scanner) byte(c byte) {
	if s.ok && s.i < len(s.b) && s.b[s.i] == c {
		s.i++
		return
	}
	s.ok = false
}

func (s *scanner) peek() byte {
	if s.i < len(s.b) {
		return s.b[s.i]
	}
	return 0
}

// text reads a string with no escapes, valid UTF-8.
func (s *scanner) text() string { return string(s.raw()) }

// raw reads a string as text does and returns its bytes, in s.b: a name
// to compare without allocating a string.
func (s *scanner) raw() []byte {
	s.byte('"')
	if !s.ok {
		return nil
	}
	start, ascii := s.i, true
	for s.i < len(s.b) {
		c := s.b[s.i]
		switch {
		case c == '"':
			t := s.b[start:s.i]
			s.i++
			if !ascii && !utf8.Valid(t) {
				s.ok = false
				return nil
			}
			return t
		case c == '\\' || c < 0x20:
			s.ok = false
			return nil
		case c >= 0x80:
			ascii = false
		}
		s.i++
	}
	s.ok = false
	return nil
}

// texts reads an array of strings.
func (s *scanner) texts() []string {
	s.byte('[')
	out := []string{}
	for s.ok && s.peek() != ']' {
		if len(out) > 0 {
			s.byte(',')
		}
		out = append(out, s.text())
	}
	s.byte(']')
	return out
}

// literal reads true or false.
func (s *scanner) literal() bool {
	switch {
	case len(s.b)-s.i >= 4 && string(s.b[s.i:s.i+4]) == "true":
		s.i += 4
		return true
	case len(s.b)-s.i >= 5 && string(s.b[s.i:s.i+5]) == "false":
		s.i += 5
		return false
	}
	s.ok = false
	return false
}

// value reads {"<type>":<member>}.
func (s *scanner) value(depth int) types.AttributeValue {
	if depth > maxFastDepth {
		s.ok = false
		return nil
	}
	s.byte('{')
	name := s.raw()
	s.byte(':')
	if !s.ok {
		return nil
	}
	var v types.AttributeValue
	switch string(name) {
	case "S":
		v = &types.AttributeValueMemberS{Value: s.text()}
	case "N":
		v = &types.AttributeValueMemberN{Value: s.text()}
	case "SS":
		v = &types.AttributeValueMemberSS{Value: s.texts()}
	case "NS":
		v = &types.AttributeValueMemberNS{Value: s.texts()}
	case "BOOL":
		v = &types.AttributeValueMemberBOOL{Value: s.literal()}
	case "NULL":
		v = &types.AttributeValueMemberNULL{Value: s.literal()}
	case "L":
		v = &types.AttributeValueMemberL{Value: s.list(depth)}
	case "M":
		v = &types.AttributeValueMemberM{Value: s.fields(depth)}
	default:
		s.ok = false
	}
	s.byte('}')
	if !s.ok {
		return nil
	}
	return v
}

func (s *scanner) list(depth int) []types.AttributeValue {
	s.byte('[')
	out := []types.AttributeValue{}
	for s.ok && s.peek() != ']' {
		if len(out) > 0 {
			s.byte(',')
		}
		out = append(out, s.value(depth+1))
	}
	s.byte(']')
	return out
}

// fields reads a map's members.
func (s *scanner) fields(depth int) map[string]types.AttributeValue {
	return object(s, func() types.AttributeValue { return s.value(depth + 1) })
}

// object reads a JSON object whose values read reads; a name given twice
// is left to the general reading.
func object[V any](s *scanner, read func() V) map[string]V {
	s.byte('{')
	out := map[string]V{}
	for s.ok && s.peek() != '}' {
		if len(out) > 0 {
			s.byte(',')
		}
		k := s.text()
		s.byte(':')
		if _, dup := out[k]; dup {
			s.ok = false
		}
		out[k] = read()
	}
	s.byte('}')
	return out
}

// UnmarshalJSON reads an item: in the SDK's compact form by fastItem,
// else as encoding/json reads a map of values. A JSON value that is not an
// object is the same UnmarshalTypeError encoding/json would give (it is
// returned at once here, where encoding/json would read on and report the
// request's first such error: only which message a request with several
// wrong types gets can differ).
func (m *item) UnmarshalJSON(b []byte) error {
	switch jsonKind(b) {
	case "null":
		*m = nil
		return nil
	case "object":
		if fast, ok := fastItem(b); ok {
			if *m == nil {
				*m = fast
				return nil
			}
			for k, v := range fast { // encoding/json adds to a map already there
				(*m)[k] = v
			}
			return nil
		}
		return json.Unmarshal(b, (*map[string]av)(m))
	}
	return wrongType(b, reflect.TypeOf(*m))
}

// fastItem reads an object of attribute values in the SDK's compact form,
// or reports false; a name given twice is left to the general reading.
func fastItem(b []byte) (item, bool) {
	s := scanner{b: b, ok: true}
	out := s.item()
	if !s.ok || s.i != len(b) {
		return nil, false
	}
	return out, true
}

// item reads an object of attribute values.
func (s *scanner) item() item {
	return object(s, func() av { return av{v: s.value(0)} })
}
