package mapper

import (
	"fmt"
	"maps"
	"reflect"
	"slices"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/optimist-dynamo/optimist/internal/attrs"
)

// Decoding items, by a plan made once per type (decodeplan.go) and a
// decoder per field type (decodevalue.go, decodecollection.go).
//
// The table's decoder is attributevalue's, and every item must decode
// exactly as attributevalue.Decoder would decode it: the same values, and
// an error exactly when it gives one. A plan decodes what it can without
// attributevalue: the attribute is looked up as attributevalue looks it up
// (the exact name, then the first field, in declaration order, whose name
// matches under Unicode case folding; unknown attributes are ignored), and
// the field decoded by a decoder chosen for its type. Each decoder handles
// only the shapes it is sure of (an N or an S with the string option into
// an int, in range; an L into a slice whose elements it handles; ...) and
// answers errSlow for everything else: a type mismatch, a number out of
// range or that does not parse, a B into a time.Time, types with
// attributevalue.Unmarshaler. The field is then zeroed and decoded by
// attributevalue alone, which gives its own value or its own error. So the
// plan never has to reproduce attributevalue's errors, only its successes.
// (An item holding two names of one field, "id" and "ID", decodes the one
// map iteration reaches last, with the plan as with attributevalue.)
//
// With DecoderOptions (UseNumber, DecodeTime, ...) a table has no plan:
// every item is decoded by attributevalue, as the options say.

// decodeItem decodes an item into a new T.
func decodeItem[T any](c *codec, item map[string]types.AttributeValue) (*T, error) {
	if err := c.s.ent.checkType(c.table, item); err != nil {
		return nil, err
	}
	out := new(T)
	var err error
	if c.plan != nil {
		err = c.plan.decode(item, reflect.ValueOf(out).Elem())
	} else {
		err = c.dec.Decode(&types.AttributeValueMemberM{Value: item}, out)
	}
	if err != nil {
		return nil, c.decodeError(item, err)
	}
	return out, nil
}

// decodeError describes err, the failure to decode item: the type, the
// table and key of the item, and the attribute that fails (found by
// decoding the attributes one by one, in name order, once the whole item
// has failed). It wraps err.
func (c *codec) decodeError(item map[string]types.AttributeValue, err error) error {
	where := ""
	if c.table != "" {
		where = " from " + c.table
	}
	key := make(map[string]types.AttributeValue, len(c.s.keys))
	for _, f := range c.s.keys {
		if av := item[f.name]; av != nil {
			key[f.name] = av
		}
	}
	if len(key) > 0 {
		where += " " + attrs.FormatKey(key)
	}
	for _, name := range slices.Sorted(maps.Keys(item)) {
		if c.decodeProbe(map[string]types.AttributeValue{name: item[name]}) != nil {
			where += fmt.Sprintf(", attribute %q (a %s)", name, attrTypeName(item[name]))
			break
		}
	}
	return &decodeFailure{msg: fmt.Sprintf("mapper: decoding %v%s", c.s.typ, where), err: err}
}

// decodeFailure is an item that does not decode into the table's type.
type decodeFailure struct {
	msg string
	err error
}

func (e *decodeFailure) Error() string { return e.msg + ": " + e.err.Error() }

func (e *decodeFailure) Unwrap() error { return e.err }

// decodeProbe decodes item into a new value of the schema's type, as
// decodeItem does.
func (c *codec) decodeProbe(item map[string]types.AttributeValue) error {
	v := reflect.New(c.s.typ)
	if c.plan != nil {
		return c.plan.decode(item, v.Elem())
	}
	return c.dec.Decode(&types.AttributeValueMemberM{Value: item}, v.Interface())
}

// attrTypeName names the DynamoDB type of av for messages.
func attrTypeName(av types.AttributeValue) string {
	switch av.(type) {
	case *types.AttributeValueMemberS:
		return "string (S)"
	case *types.AttributeValueMemberN:
		return "number (N)"
	case *types.AttributeValueMemberB:
		return "binary (B)"
	case *types.AttributeValueMemberBOOL:
		return "boolean (BOOL)"
	case *types.AttributeValueMemberNULL:
		return "null (NULL)"
	case *types.AttributeValueMemberL:
		return "list (L)"
	case *types.AttributeValueMemberM:
		return "map (M)"
	case *types.AttributeValueMemberSS:
		return "string set (SS)"
	case *types.AttributeValueMemberNS:
		return "number set (NS)"
	case *types.AttributeValueMemberBS:
		return "binary set (BS)"
	}
	return fmt.Sprintf("%T", av)
}
