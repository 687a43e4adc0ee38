package mapper

import (
	"fmt"
	"reflect"
	"strings"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/optimist-dynamo/optimist/internal/plan"
)

// Checking an update's values against the struct.
//
// An update sets attributes on the server, where nothing knows the struct:
// Append("total", x) on an int64 field makes total a list, and every read
// of the item fails afterwards. checkUpdate refuses such an action before
// anything is sent. It does not model DynamoDB's result types by hand: it
// builds the smallest item that holds the action's value at its path (a
// list of one element for each index, a map for each name) and decodes it
// as a read of the item would decode it, with the table's own decoder. The
// value of every action is what the attribute at its path holds afterwards,
// as far as decoding can tell: Set and SetIfNotExists store it, Append and
// Prepend a list of the same elements, Add a number or set of its type,
// Delete a set of its type. An action that fails that decode would leave an
// item that fails it. Attributes outside the struct are ignored by the
// decoder, so updates of them stay allowed.
//
// One case decodes but is refused all the same: Add of a number on a field
// that is not a number (the decoder reads an N into a string, but DynamoDB
// refuses ADD on an S, and on a missing attribute would store a number in
// a field meant for text).

// checkUpdate refuses the first action of acts whose value does not fit
// the field at its path. enc is the encoder of the values (nil for the
// default). describe names the write for messages.
func (c *codec) checkUpdate(acts []plan.Action, enc *plan.Encoder, describe func() string) error {
	for i := range acts {
		a := &acts[i]
		if a.Kind == plan.Remove || len(a.Path) == 0 {
			continue
		}
		f := c.s.fieldFolded(a.Path.Attribute())
		if f == nil {
			continue // outside the struct
		}
		av, err := a.Encoded(enc)
		if err != nil || av == nil {
			continue // refused later, when the expression is built
		}
		typ, known := typeAt(f.typ, a.Path[1:])
		where := f.goPath + pathRest(a.Path[1:])
		if _, isN := av.(*types.AttributeValueMemberN); isN && a.Kind == plan.Add && known && !holdsNumber(typ) {
			return fmt.Errorf("%w: %s: Add(%q) of a number on field %s of type %v, which is not a number", ErrInvalidItem, describe(), a.Path, where, typ)
		}
		if err := c.decodeProbe(probeItem(a.Path, av)); err != nil {
			what := fmt.Sprintf("field %s", where)
			if known {
				what += fmt.Sprintf(" (%v)", typ)
			}
			return fmt.Errorf("%w: %s: %s(%q) would store a %s that %s cannot hold, and every read of the item would fail: %v",
				ErrInvalidItem, describe(), a.Kind, a.Path, attrTypeName(av), what, err)
		}
	}
	return nil
}

// fieldFolded returns the field that attributevalue decodes the attribute
// name into: the field of that exact name, else the first whose name
// matches under case folding; nil if none.
func (s *schema) fieldFolded(name string) *field {
	if f := s.byName[name]; f != nil {
		return f
	}
	for _, f := range s.fields {
		if strings.EqualFold(f.name, name) {
			return f
		}
	}
	return nil
}

// typeAt returns the Go type at the path rest below a value of type t, and
// whether it is known: a type that decodes itself, an interface, or a
// struct field the path does not name leaves it unknown.
func typeAt(t reflect.Type, rest plan.Path) (reflect.Type, bool) {
	for _, st := range rest {
		for t.Kind() == reflect.Pointer {
			t = t.Elem()
		}
		if decodesItself(t) {
			return t, false
		}
		switch {
		case st.Name == "" && (t.Kind() == reflect.Slice || t.Kind() == reflect.Array):
			t = t.Elem()
		case st.Name != "" && t.Kind() == reflect.Map:
			t = t.Elem()
		case st.Name != "" && t.Kind() == reflect.Struct:
			fields, err := enumFields(t)
			if err != nil {
				return t, false
			}
			var found reflect.Type
			for _, f := range fields {
				if f.name == st.Name {
					found = f.typ
					break
				}
			}
			if found == nil {
				return t, false
			}
			t = found
		default:
			return t, false
		}
	}
	return t, true
}

// decodesItself reports whether values of t are decoded by a method of
// their own (or, for an interface, take whatever is stored).
func decodesItself(t reflect.Type) bool {
	if t.Kind() == reflect.Interface {
		return true
	}
	p := reflect.PointerTo(t)
	return p.Implements(unmarshalerType) || p.Implements(textUnmarshalerType) || p.Implements(binaryUnmarshalerType)
}

// holdsNumber reports whether a field of type t can take ADD of a number.
func holdsNumber(t reflect.Type) bool {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if decodesItself(t) {
		return true
	}
	switch t.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64,
		reflect.Float32, reflect.Float64:
		return true
	}
	return false
}

// pathRest renders the steps below a field, for messages ("[2].Label").
func pathRest(rest plan.Path) string {
	if len(rest) == 0 {
		return ""
	}
	s := plan.Path(append(plan.Path{{Name: "x"}}, rest...)).String()
	return s[1:]
}

// probeItem returns an item that holds av at path p: a map for each name
// below the top, a list of one element for each index.
func probeItem(p plan.Path, av types.AttributeValue) map[string]types.AttributeValue {
	for i := len(p) - 1; i > 0; i-- {
		if p[i].Name == "" {
			av = &types.AttributeValueMemberL{Value: []types.AttributeValue{av}}
		} else {
			av = &types.AttributeValueMemberM{Value: map[string]types.AttributeValue{p[i].Name: av}}
		}
	}
	return map[string]types.AttributeValue{p[0].Name: av}
}
