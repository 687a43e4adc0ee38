package mapper

import (
	"encoding"
	"errors"
	"reflect"
	"strconv"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// The decoders of single values, one per Go type (see decode.go for how
// they fit into decoding an item); lists, sets, maps and interfaces are in
// decodecollection.go.

// errSlow is a decoder's answer for a value it leaves to attributevalue.
var errSlow = errors.New("mapper: decoded by attributevalue")

// slowDecoder is the table's decoder when no DecoderOptions are given
// (see newCodec); plans are shared by every table of a type, so they hold
// this one rather than a table's.
var slowDecoder = attributevalue.NewDecoder(func(o *attributevalue.DecoderOptions) {
	o.TagKey, o.UseEncodingUnmarshalers = TagKey, true
})

var unmarshalerType = reflect.TypeOf((*attributevalue.Unmarshaler)(nil)).Elem()

type decKind uint8

const (
	decSlow   decKind = iota // attributevalue decodes it
	decString                // string kinds: from S, and from N (the number's text)
	decBool
	decInt
	decUint
	decFloat
	decBytes  // slices of a uint8 kind: from B
	decTime   // time.Time: S by UnmarshalText, N as Unix seconds
	decText   // encoding.TextUnmarshaler (from S), BinaryUnmarshaler (from B)
	decAny    // any: as attributevalue fills an interface
	decPtr    // unnamed pointers
	decSlice  // slices: from L, and from sets of plain elements
	decMap    // maps with string keys: from M
	decStruct // structs: from M, by a plan
)

// decoder decodes attribute values into values of one type. Its decode
// returns nil, an error attributevalue would return as it is (from
// UnmarshalText or UnmarshalBinary), or errSlow.
type decoder struct {
	kind decKind
	typ  reflect.Type
	// asString: numbers are read from S too (the `string` option).
	asString bool
	// text, binary: which of UnmarshalText and UnmarshalBinary a decText
	// type has.
	text, binary bool
	elem         *decoder // decPtr, decSlice, decMap
	// typedMap decodes a decMap of a common type without reflect.
	typedMap func(map[string]types.AttributeValue, reflect.Value) error
	empty    reflect.Value // decSlice: an empty, non-nil slice to share
	plan     *structPlan   // decStruct
}

var (
	decMu    sync.Mutex
	decoders = map[decKey]*decoder{}
	topPlans = map[reflect.Type]*structPlan{}
)

type decKey struct {
	t        reflect.Type
	asString bool
}

// decoderOf returns the decoder of t, building it on first use. decMu is
// held. The decoder is registered before it is built, so that recursive
// types find it.
func decoderOf(t reflect.Type, asString bool) *decoder {
	switch t.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64,
		reflect.Float32, reflect.Float64, reflect.Pointer, reflect.Interface:
	default:
		asString = false // the option changes nothing for other kinds
	}
	k := decKey{t, asString}
	if d, ok := decoders[k]; ok {
		return d
	}
	d := &decoder{typ: t, asString: asString}
	decoders[k] = d
	d.build()
	return d
}

// build chooses the decoder's kind (decSlow unless set).
func (d *decoder) build() {
	if k := d.typ.Kind(); k != reflect.Pointer && k != reflect.Interface {
		if d.buildMethods() {
			return
		}
	}
	d.buildKind()
}

// buildMethods sets the kind of a type decoded through its methods, and
// reports whether its methods (or their absence where attributevalue
// expects them) decide.
func (d *decoder) buildMethods() bool {
	// attributevalue tries, in order: its Unmarshaler, UnmarshalText for
	// an S, UnmarshalBinary for a B (UseEncodingUnmarshalers), then the
	// kind. Values are always addressable here, so the pointer's method
	// set is the one that counts.
	t := d.typ
	pt := reflect.PointerTo(t)
	if pt.Implements(unmarshalerType) {
		return true
	}
	if t == timeType {
		d.kind = decTime
		return true
	}
	d.text, d.binary = pt.Implements(textUnmarshalerType), pt.Implements(binaryUnmarshalerType)
	if d.text || d.binary {
		d.kind = decText
		return true
	}
	// A struct convertible to time.Time is decoded as a time, by
	// DecodeTime: left to attributevalue.
	return t.Kind() == reflect.Struct && t.ConvertibleTo(timeType)
}

// buildKind sets the kind from the type's kind.
func (d *decoder) buildKind() {
	t := d.typ
	switch t.Kind() {
	case reflect.String:
		d.kind = decString
	case reflect.Bool:
		d.kind = decBool
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		d.kind = decInt
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		d.kind = decUint
	case reflect.Float32, reflect.Float64:
		d.kind = decFloat
	case reflect.Pointer:
		if t.Name() == "" {
			d.kind, d.elem = decPtr, decoderOf(t.Elem(), d.asString)
		}
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 {
			d.kind = decBytes
			break
		}
		// Elements are decoded without the field's options.
		d.kind, d.elem, d.empty = decSlice, decoderOf(t.Elem(), false), reflect.MakeSlice(t, 0, 0)
	case reflect.Map:
		kt := t.Key()
		if kt.Kind() == reflect.String && !kt.Implements(textUnmarshalerType) && !reflect.PointerTo(kt).Implements(textUnmarshalerType) {
			d.kind, d.elem, d.typedMap = decMap, decoderOf(t.Elem(), false), typedMaps[t]
		}
	case reflect.Interface:
		// With the string option, attributevalue reads an S into an any
		// as a number: left to it.
		if t.NumMethod() == 0 && !d.asString {
			d.kind = decAny
		}
	case reflect.Struct:
		if p := nestedPlan(t); p != nil {
			d.kind, d.plan = decStruct, p
		}
	}
}

// decode decodes av into v. A NULL (or a missing value) zeroes v for every
// kind the decoder handles; a shape the kind does not handle is errSlow.
func (d *decoder) decode(av types.AttributeValue, v reflect.Value) error {
	switch d.kind {
	case decSlow:
		return errSlow
	case decAny:
		return decodeAny(av, v)
	case decPtr:
		return d.decodePtr(av, v)
	case decSlice:
		if d.elem.kind == decSlow {
			return errSlow
		}
		return d.slice(av, v)
	}
	if isNull(av) {
		v.SetZero()
		return nil
	}
	switch d.kind {
	case decString, decBool, decInt, decUint, decFloat, decBytes:
		return d.decodeScalar(av, v)
	case decTime:
		return decodeTime(av, v)
	case decText:
		return d.decodeText(av, v)
	case decMap:
		if a, ok := av.(*types.AttributeValueMemberM); ok {
			return d.decodeMap(a.Value, v)
		}
	case decStruct:
		if a, ok := av.(*types.AttributeValueMemberM); ok {
			return d.plan.decode(a.Value, v)
		}
	}
	return errSlow
}

// decodeScalar decodes a string, bool, number or []byte.
func (d *decoder) decodeScalar(av types.AttributeValue, v reflect.Value) error {
	switch a := av.(type) {
	case *types.AttributeValueMemberS:
		switch {
		case d.kind == decString:
			v.SetString(a.Value)
			return nil
		case d.asString && (d.kind == decInt || d.kind == decUint || d.kind == decFloat):
			return d.number(a.Value, v)
		}
	case *types.AttributeValueMemberN:
		switch d.kind {
		case decString:
			v.SetString(a.Value)
			return nil
		case decInt, decUint, decFloat:
			return d.number(a.Value, v)
		}
	case *types.AttributeValueMemberBOOL:
		if d.kind == decBool {
			v.SetBool(a.Value)
			return nil
		}
	case *types.AttributeValueMemberB:
		if d.kind == decBytes {
			b := make([]byte, len(a.Value))
			copy(b, a.Value)
			v.SetBytes(b)
			return nil
		}
	}
	return errSlow
}

// decodeTime decodes a time.Time: an S by UnmarshalText, an N of Unix
// seconds.
func decodeTime(av types.AttributeValue, v reflect.Value) error {
	switch a := av.(type) {
	case *types.AttributeValueMemberS:
		return v.Addr().Interface().(*time.Time).UnmarshalText([]byte(a.Value))
	case *types.AttributeValueMemberN:
		sec, err := strconv.ParseInt(a.Value, 10, 64)
		if err != nil {
			return errSlow
		}
		*v.Addr().Interface().(*time.Time) = time.Unix(sec, 0)
		return nil
	}
	return errSlow
}

// decodeText decodes an S by UnmarshalText, a B by UnmarshalBinary.
func (d *decoder) decodeText(av types.AttributeValue, v reflect.Value) error {
	switch a := av.(type) {
	case *types.AttributeValueMemberS:
		if d.text {
			return v.Addr().Interface().(encoding.TextUnmarshaler).UnmarshalText([]byte(a.Value))
		}
	case *types.AttributeValueMemberB:
		if d.binary {
			return v.Addr().Interface().(encoding.BinaryUnmarshaler).UnmarshalBinary(a.Value)
		}
	}
	return errSlow
}

// decodeAny stores in an empty interface what attributevalue stores.
func decodeAny(av types.AttributeValue, v reflect.Value) error {
	x, ok := anyOf(av)
	if !ok {
		return errSlow
	}
	if x == nil {
		v.SetZero()
	} else {
		v.Set(reflect.ValueOf(x))
	}
	return nil
}

// decodePtr decodes into a new value for an unnamed pointer; NULL is nil.
func (d *decoder) decodePtr(av types.AttributeValue, v reflect.Value) error {
	if isNull(av) {
		v.SetZero()
		return nil
	}
	if d.elem.kind == decSlow {
		return errSlow
	}
	p := reflect.New(d.elem.typ)
	if err := d.elem.decode(av, p.Elem()); err != nil {
		return err
	}
	v.Set(p)
	return nil
}

// number decodes the number n into v, as attributevalue's decodeNumber.
func (d *decoder) number(n string, v reflect.Value) error {
	switch d.kind {
	case decString:
		v.SetString(n)
	case decInt:
		i, err := strconv.ParseInt(n, 10, 64)
		if err != nil || v.OverflowInt(i) {
			return errSlow
		}
		v.SetInt(i)
	case decUint:
		i, err := strconv.ParseUint(n, 10, 64)
		if err != nil || v.OverflowUint(i) {
			return errSlow
		}
		v.SetUint(i)
	case decFloat:
		f, err := strconv.ParseFloat(n, 64)
		if err != nil || v.OverflowFloat(f) {
			return errSlow
		}
		v.SetFloat(f)
	default:
		return errSlow
	}
	return nil
}
