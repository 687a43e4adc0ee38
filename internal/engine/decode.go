package engine

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"net/http"
	"reflect"
	"strings"
)

// A request body is read in two steps, as DynamoDB reads it: first its
// JSON into the operation's shape, then the values' validation. A body
// that is not JSON, or whose members have the wrong JSON type (a number
// where a string belongs, an object for a list), fails the first step:
// DynamoDB answers it 400 SerializationException, a client's mistake, never
// a 500. DynamoDB Local differs (it converts scalars from one type to
// another and answers 500 InternalFailure to the rest); the conformance
// suite lists the difference.

// nsSerialization is the namespace of SerializationException.
const nsSerialization = "com.amazon.coral.service#"

// serialization is DynamoDB's answer to a body it cannot read into the
// operation's shape.
func serialization(msg string) *apiError {
	return newError(http.StatusBadRequest, nsSerialization+"SerializationException", "%s", msg)
}

// fastDecoder is a request's shape that reads the SDK's compact form of
// its body in one pass: it reports false for any body it does not take
// whole, and leaves decode to read that one.
type fastDecoder interface {
	decodeFast(body []byte) bool
}

// decode reads a request body into v, by v's decodeFast if it has one and
// takes the body. Unknown members are ignored, as DynamoDB does; an empty
// body reads as {}.
func decode[T any](body []byte, v *T) error {
	if f, ok := any(v).(fastDecoder); ok {
		if f.decodeFast(body) {
			return nil
		}
		var zero T
		*v = zero
	}
	if len(bytes.TrimSpace(body)) == 0 {
		body = []byte("{}")
	}
	if err := json.Unmarshal(body, v); err != nil {
		return decodeError(err)
	}
	return nil
}

// decodeError is the answer to a body json.Unmarshal refused with err.
func decodeError(err error) *apiError {
	var api *apiError
	var typ *json.UnmarshalTypeError
	var syn *json.SyntaxError
	var b64 base64.CorruptInputError
	switch {
	case errors.As(err, &api):
		return api
	case errors.As(err, &typ):
		return serialization(typeMessage(typ.Value, typ.Type))
	case errors.As(err, &b64):
		return serialization(msgBase64EncodedBinaryNotValid)
	case errors.As(err, &syn):
		return serialization(msgRequestBodyNotValidJSON)
	}
	return serialization(msgRequestBodyCouldNotRead)
}

// typeMessage says that a JSON value of kind found ("string", "number",
// "number 1.5", "bool", "array", "object", as encoding/json names them)
// cannot be read as want. DynamoDB's wording: "Start of structure or map
// found where not expected.", "NUMBER_VALUE cannot be converted to String".
func typeMessage(found string, want reflect.Type) string {
	kind, _, _ := strings.Cut(found, " ")
	switch kind {
	case "object":
		return "Start of structure or map found where not expected."
	case "array":
		return "Start of list found where not expected."
	}
	token := map[string]string{"string": "STRING_VALUE", "number": "NUMBER_VALUE", "bool": "BOOLEAN_VALUE"}[kind]
	if token == "" {
		token = "VALUE"
	}
	return token + " cannot be converted to " + shapeName(want)
}

// shapeName names a Go type of a request's shape as DynamoDB names shapes.
func shapeName(t reflect.Type) string {
	if t == nil {
		return "Structure"
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.String:
		return "String"
	case reflect.Bool:
		return "Boolean"
	case reflect.Int64:
		return "Long"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "Integer"
	case reflect.Float32, reflect.Float64:
		return "Double"
	case reflect.Map:
		return "Map"
	case reflect.Slice, reflect.Array:
		if t.Elem().Kind() == reflect.Uint8 {
			return "Blob"
		}
		return "List"
	}
	return "Structure"
}

// jsonKind is the kind of the JSON value b as encoding/json names it in an
// UnmarshalTypeError: "object", "array", "string", "number", "bool", or
// "null".
func jsonKind(b []byte) string {
	b = bytes.TrimSpace(b)
	if len(b) == 0 {
		return "null"
	}
	switch b[0] {
	case '{':
		return "object"
	case '[':
		return "array"
	case '"':
		return "string"
	case 't', 'f':
		return "bool"
	case 'n':
		return "null"
	}
	return "number"
}

// wrongType is the error of a JSON value b that is not of type want.
func wrongType(b []byte, want reflect.Type) error {
	return &json.UnmarshalTypeError{Value: jsonKind(b), Type: want}
}
