package engine

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strconv"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// The wire format of DynamoDB's JSON protocol (awsJson1.0): an attribute
// value is an object with exactly one member named by its type ({"S":"x"},
// {"N":"1"}, {"B":"<base64>"}, {"SS":[...]}, {"M":{...}}, {"NULL":true}).
// Items travel as objects of such values. The SDK's own serialisers are not
// exported, so the engine reads and writes these itself.

// av is one attribute value as it arrives in a request or leaves in a
// response. A value DynamoDB would refuse is kept with the reason in err, so
// that the request is refused with DynamoDB's message once it is known which
// parameter it came in (a malformed value is never silently dropped).
type av struct {
	v   types.AttributeValue
	err string
}

// item is a map of attribute values on the wire.
type item map[string]av

func (a *av) UnmarshalJSON(b []byte) error {
	if k := jsonKind(b); k != "object" && k != "null" {
		return wrongType(b, reflect.TypeOf(a).Elem())
	}
	if v, ok := fastValue(b); ok {
		a.v = v
		return nil
	}
	return a.decodeGeneral(b)
}

// decodeGeneral reads an attribute value, b a JSON object or null, in any
// form JSON allows.
func (a *av) decodeGeneral(b []byte) error {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(b, &raw); err != nil {
		return err
	}
	// A member that is null, or not one of DynamoDB's types, is absent,
	// as in DynamoDB: {"S":"x","N":null} is a string, {"X":"1"} is empty.
	var name string
	var member json.RawMessage
	n := 0
	for k, msg := range raw {
		if !knownMember[k] || string(bytes.TrimSpace(msg)) == "null" {
			continue
		}
		name, member = k, msg
		n++
	}
	switch {
	case n == 0:
		a.err = "Supplied AttributeValue is empty, must contain exactly one of the supported datatypes"
		return nil
	case n > 1:
		a.err = "Supplied AttributeValue has more than one datatypes set, must contain exactly one of the supported datatypes"
		return nil
	}
	v, err := decodeMember(name, member)
	var bad badValue
	if errors.As(err, &bad) {
		a.err = string(bad)
		return nil
	}
	if err != nil {
		return err
	}
	a.v = v
	return nil
}

// knownMember lists the members of an attribute value.
var knownMember = map[string]bool{"S": true, "N": true, "B": true, "BOOL": true, "NULL": true,
	"SS": true, "NS": true, "BS": true, "L": true, "M": true}

// decodeMember reads the member k, not null, of an attribute value.
func decodeMember(k string, msg json.RawMessage) (types.AttributeValue, error) {
	switch k {
	case "S":
		var s string
		err := json.Unmarshal(msg, &s)
		return &types.AttributeValueMemberS{Value: s}, err
	case "N":
		var s string
		err := json.Unmarshal(msg, &s)
		return &types.AttributeValueMemberN{Value: s}, err
	case "B":
		var b []byte
		err := json.Unmarshal(msg, &b)
		if b == nil {
			b = []byte{}
		}
		return &types.AttributeValueMemberB{Value: b}, err
	case "BOOL":
		var b bool
		err := json.Unmarshal(msg, &b)
		return &types.AttributeValueMemberBOOL{Value: b}, err
	case "NULL":
		var b bool
		err := json.Unmarshal(msg, &b)
		return &types.AttributeValueMemberNULL{Value: b}, err
	case "SS":
		var s []string
		err := json.Unmarshal(msg, &s)
		if s == nil {
			s = []string{}
		}
		return &types.AttributeValueMemberSS{Value: s}, err
	case "NS":
		var s []string
		err := json.Unmarshal(msg, &s)
		if s == nil {
			s = []string{}
		}
		return &types.AttributeValueMemberNS{Value: s}, err
	case "BS":
		var s [][]byte
		err := json.Unmarshal(msg, &s)
		if s == nil {
			s = [][]byte{}
		}
		return &types.AttributeValueMemberBS{Value: s}, err
	case "L":
		var l []av
		if err := json.Unmarshal(msg, &l); err != nil {
			return nil, err
		}
		out := make([]types.AttributeValue, len(l))
		for i, e := range l {
			if e.err != "" {
				return nil, badValue(e.err)
			}
			out[i] = e.v
		}
		return &types.AttributeValueMemberL{Value: out}, nil
	case "M":
		var m map[string]av
		if err := json.Unmarshal(msg, &m); err != nil {
			return nil, err
		}
		out := make(map[string]types.AttributeValue, len(m))
		for k, e := range m {
			if e.err != "" {
				return nil, badValue(e.err)
			}
			out[k] = e.v
		}
		return &types.AttributeValueMemberM{Value: out}, nil
	}
	return nil, fmt.Errorf("engine: attribute value member %q", k) // knownMember keeps it out
}

// badValue is the reason a value nested in a list or map is malformed; it
// travels up to the top-level value, whose request is then refused.
type badValue string

func (b badValue) Error() string { return string(b) }

func (a av) MarshalJSON() ([]byte, error) {
	var buf bytes.Buffer
	writeValue(&buf, a.v)
	return buf.Bytes(), nil
}

// writeValue appends the JSON of v. Map keys are written sorted, as
// DynamoDB Local does.
func writeValue(buf *bytes.Buffer, v types.AttributeValue) {
	switch v := v.(type) {
	case *types.AttributeValueMemberS:
		buf.WriteString(`{"S":`)
		writeText(buf, v.Value)
	case *types.AttributeValueMemberN:
		buf.WriteString(`{"N":`)
		writeText(buf, v.Value)
	case *types.AttributeValueMemberB:
		buf.WriteString(`{"B":"`)
		buf.WriteString(base64.StdEncoding.EncodeToString(v.Value))
		buf.WriteByte('"')
	case *types.AttributeValueMemberBOOL:
		buf.WriteString(`{"BOOL":`)
		buf.WriteString(strconv.FormatBool(v.Value))
	case *types.AttributeValueMemberNULL:
		buf.WriteString(`{"NULL":true`)
	case *types.AttributeValueMemberSS:
		buf.WriteString(`{"SS":[`)
		for i, s := range v.Value {
			if i > 0 {
				buf.WriteByte(',')
			}
			writeText(buf, s)
		}
		buf.WriteByte(']')
	case *types.AttributeValueMemberNS:
		buf.WriteString(`{"NS":[`)
		for i, s := range v.Value {
			if i > 0 {
				buf.WriteByte(',')
			}
			writeText(buf, s)
		}
		buf.WriteByte(']')
	case *types.AttributeValueMemberBS:
		buf.WriteString(`{"BS":[`)
		for i, b := range v.Value {
			if i > 0 {
				buf.WriteByte(',')
			}
			buf.WriteByte('"')
			buf.WriteString(base64.StdEncoding.EncodeToString(b))
			buf.WriteByte('"')
		}
		buf.WriteByte(']')
	case *types.AttributeValueMemberL:
		buf.WriteString(`{"L":[`)
		for i, e := range v.Value {
			if i > 0 {
				buf.WriteByte(',')
			}
			writeValue(buf, e)
		}
		buf.WriteByte(']')
	case *types.AttributeValueMemberM:
		buf.WriteString(`{"M":`)
		writeMap(buf, v.Value)
	default:
		buf.WriteString(`{"NULL":true`)
	}
	buf.WriteByte('}')
}

// writeMap writes m with its keys sorted, through writeSortedMap; a nil
// map is an empty one here (an M value is never null).
func writeMap(buf *bytes.Buffer, m map[string]types.AttributeValue) {
	if m == nil {
		buf.WriteString("{}")
		return
	}
	_ = writeSortedMap(buf, m, func(buf *bytes.Buffer, v types.AttributeValue) error {
		writeValue(buf, v)
		return nil
	})
}

func writeString(buf *bytes.Buffer, s string) {
	b, _ := json.Marshal(s) // a string always marshals
	buf.Write(b)
}

// Item converts a wire item to the SDK's form; the first malformed value's
// reason is returned as a ValidationException.
func (it item) attrs() (map[string]types.AttributeValue, error) {
	if it == nil {
		return nil, nil
	}
	out := make(map[string]types.AttributeValue, len(it))
	for k, a := range it {
		if a.err != "" {
			return nil, validation("%s", a.err)
		}
		out[k] = a.v
	}
	return out, nil
}

// wireItem converts an item to its wire form.
func wireItem(m map[string]types.AttributeValue) item {
	if m == nil {
		return nil
	}
	out := make(item, len(m))
	for k, v := range m {
		out[k] = av{v: v}
	}
	return out
}
