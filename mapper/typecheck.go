package mapper

import (
	"encoding"
	"fmt"
	"reflect"
	"strings"
	"sync"

	"github.com/optimist-dynamo/optimist/internal/plan"
)

// Which Go types round-trip. attributevalue drops some values without a
// word (channels, functions, complex numbers) and turns others into an
// empty map (a struct whose fields are all unexported, such as netip.Addr
// or big.Int): they pass MarshalMap and read back as zero values. The
// mapper checks every field's type, all the way down, when NewTable reads
// the struct, and refuses those it cannot store faithfully; values of
// interface types (any, map[string]any) are checked the same way when they
// are encoded.
//
// Types that implement encoding.TextMarshaler and TextUnmarshaler are
// stored as strings (S), and types that implement encoding.BinaryMarshaler
// and BinaryUnmarshaler as binary (B), as encoding/json treats them (the
// attributevalue options UseEncodingMarshalers and UseEncodingUnmarshalers).
// time.Time keeps attributevalue's own encoding (RFC 3339 strings, or
// numbers with unixtime).

var (
	textMarshalerType     = reflect.TypeOf((*encoding.TextMarshaler)(nil)).Elem()
	textUnmarshalerType   = reflect.TypeOf((*encoding.TextUnmarshaler)(nil)).Elem()
	binaryMarshalerType   = reflect.TypeOf((*encoding.BinaryMarshaler)(nil)).Elem()
	binaryUnmarshalerType = reflect.TypeOf((*encoding.BinaryUnmarshaler)(nil)).Elem()
)

// typeInfo is what the check of a field's type learned.
type typeInfo struct {
	// encoding: some value below is stored through MarshalText or
	// MarshalBinary, or is an interface (whose values may be): the field
	// is encoded with UseEncodingMarshalers.
	encoding bool
	// dynamic: the type holds interfaces, whose values are checked when
	// encoded.
	dynamic bool
	// unixNested: a time.Time tagged unixtime somewhere below the top.
	unixNested string
}

type typeChecker struct {
	info typeInfo
	seen map[reflect.Type]bool
}

// checkType reports why values of t cannot round-trip through DynamoDB, or
// nil. where names the position for messages ("Tags[]", "Meta.When");
// addressable tells whether attributevalue reaches values of t through an
// address, which methods with pointer receivers need (map values and
// interface values are not addressable).
func (c *typeChecker) check(t reflect.Type, where string, addressable bool, top bool) error {
	if t.Implements(marshalerType) || addressable && reflect.PointerTo(t).Implements(marshalerType) {
		return nil // the type encodes itself
	}
	if t.Kind() == reflect.Pointer {
		return c.check(t.Elem(), where, true, top)
	}
	if t.Kind() == reflect.Struct && t.ConvertibleTo(timeType) {
		return nil
	}
	if ok, err := c.checkEncoding(t, where, addressable, textMarshalerType, textUnmarshalerType, "Text"); ok || err != nil {
		return err
	}
	if ok, err := c.checkEncoding(t, where, addressable, binaryMarshalerType, binaryUnmarshalerType, "Binary"); ok || err != nil {
		return err
	}
	fail := func(format string, args ...any) error {
		msg := fmt.Sprintf(format, args...)
		if where != "" {
			msg = where + ": " + msg
		}
		return fmt.Errorf("%s", msg)
	}
	if isScalarKind(t.Kind()) {
		return nil
	}
	switch t.Kind() {
	case reflect.Complex64, reflect.Complex128:
		return fail("type %v cannot be stored: DynamoDB has no complex numbers (attributevalue drops them); store the real and imaginary parts as two float64 fields, or tag the field `%s:\"-\"`", t, TagKey)
	case reflect.Uintptr, reflect.UnsafePointer, reflect.Chan, reflect.Func:
		return fail("type %v cannot be stored in DynamoDB (attributevalue drops it); tag the field `%s:\"-\"`", t, TagKey)
	case reflect.Interface:
		if t.NumMethod() > 0 {
			return fail("interface type %v cannot be read back (only any can hold what DynamoDB returns); use a concrete type", t)
		}
		c.info.dynamic, c.info.encoding = true, true
		return nil
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 && noMethods(t.Elem()) {
			return nil // binary
		}
		return c.check(t.Elem(), where+"[]", true, false)
	case reflect.Array:
		if t.Elem().Kind() == reflect.Uint8 && noMethods(t.Elem()) {
			return nil
		}
		return c.check(t.Elem(), where+"[]", addressable, false)
	case reflect.Map:
		if err := checkMapKey(t.Key()); err != nil {
			return fail("%v", err)
		}
		return c.check(t.Elem(), where+"[]", false, false)
	case reflect.Struct:
		return c.checkStruct(t, where, addressable)
	}
	return fail("type %v cannot be stored in DynamoDB", t)
}

// checkEncoding handles the encoding.TextMarshaler (or BinaryMarshaler)
// pair of interfaces: ok is true when t is stored through them.
func (c *typeChecker) checkEncoding(t reflect.Type, where string, addressable bool, m, u reflect.Type, name string) (ok bool, err error) {
	valueM := t.Implements(m)
	ptrM := reflect.PointerTo(t).Implements(m)
	hasU := reflect.PointerTo(t).Implements(u)
	if !ptrM && !hasU {
		return false, nil
	}
	at := where
	if at != "" {
		at += ": "
	}
	switch {
	case ptrM && !hasU:
		return false, fmt.Errorf("%stype %v implements encoding.%sMarshaler but not encoding.%sUnmarshaler: it would be stored and never read back; add Unmarshal%s, or tag the field `%s:\"-\"`", at, t, name, name, name, TagKey)
	case hasU && !ptrM:
		return false, fmt.Errorf("%stype %v implements encoding.%sUnmarshaler but not encoding.%sMarshaler: it would not read back what is stored; add Marshal%s, or tag the field `%s:\"-\"`", at, t, name, name, name, TagKey)
	case !valueM && !addressable:
		return false, fmt.Errorf("%stype %v has Marshal%s on its pointer only, and values here (map values, interface values) are not addressable: attributevalue would not call it; use *%v", at, t, name, t)
	}
	c.info.encoding = true
	return true, nil
}

// checkMapKey checks a map key type as attributevalue encodes and decodes
// keys: strings, numbers, bools, or a type with MarshalText (on the value:
// map keys are not addressable) and UnmarshalText.
func checkMapKey(k reflect.Type) error {
	if k.Implements(textMarshalerType) && reflect.PointerTo(k).Implements(textUnmarshalerType) {
		return nil
	}
	if isScalarKind(k.Kind()) {
		return nil
	}
	return fmt.Errorf("map key type %v cannot be stored: keys must be strings, numbers, bools, or implement encoding.TextMarshaler and TextUnmarshaler", k)
}

// checkStruct checks a nested struct's fields the way attributevalue
// encodes them (exported fields, untagged embedded structs promoted, the
// `dynamo` tag's "-" skipping a field).
func (c *typeChecker) checkStruct(t reflect.Type, where string, addressable bool) error {
	if c.seen[t] {
		return nil // recursive type: checked already, or being checked
	}
	if c.seen == nil {
		c.seen = map[reflect.Type]bool{}
	}
	c.seen[t] = true
	exported, unexported := 0, 0
	for i := 0; i < t.NumField(); i++ {
		sf := t.Field(i)
		tagText := sf.Tag.Get(TagKey)
		name, opts, _ := strings.Cut(tagText, ",")
		if name == "-" && opts == "" {
			continue
		}
		ft := sf.Type
		if sf.Anonymous && name == "" {
			et := ft
			if et.Kind() == reflect.Pointer {
				et = et.Elem()
			}
			if et.Kind() == reflect.Struct && !et.ConvertibleTo(timeType) && !implementsAny(et) {
				if err := c.checkStruct(et, joinPath(where, sf.Name), addressable || ft.Kind() == reflect.Pointer); err != nil {
					return err
				}
				exported++ // promoted fields (or none) count as the struct's
				continue
			}
		}
		if !sf.IsExported() {
			unexported++
			continue
		}
		exported++
		at := joinPath(where, sf.Name)
		if strings.Contains(","+opts+",", ",unixtime,") {
			et := ft
			for et.Kind() == reflect.Pointer {
				et = et.Elem()
			}
			if et.ConvertibleTo(timeType) {
				c.info.unixNested = at
			}
		}
		if err := c.check(ft, at, addressable, false); err != nil {
			return err
		}
	}
	if exported == 0 && unexported > 0 {
		at := where
		if at != "" {
			at += ": "
		}
		return fmt.Errorf("%stype %v has only unexported fields: attributevalue would store it as an empty map and read back a zero value; give it MarshalText and UnmarshalText (or MarshalDynamoDBAttributeValue), or tag the field `%s:\"-\"`", at, t, TagKey)
	}
	return nil
}

// implementsAny reports whether t encodes itself by a method of its own.
func implementsAny(t reflect.Type) bool {
	p := reflect.PointerTo(t)
	return p.Implements(marshalerType) || p.Implements(textMarshalerType) || p.Implements(binaryMarshalerType)
}

func joinPath(where, name string) string {
	if where == "" {
		return name
	}
	return where + "." + name
}

// checkFieldType checks the type of a top-level field; see typeChecker.
func checkFieldType(f *field) (typeInfo, error) {
	var c typeChecker
	if err := c.check(f.typ, "", true, true); err != nil {
		return typeInfo{}, err
	}
	if c.info.unixNested != "" && c.info.encoding {
		return typeInfo{}, fmt.Errorf("%s is tagged unixtime, but sits in a value that is encoded with MarshalText/MarshalBinary or holds interfaces, where attributevalue would store it as a string; make it a top-level field, or drop unixtime", c.info.unixNested)
	}
	return c.info, nil
}

// dynamicTypes caches the check of types found in interface values.
var dynamicTypes sync.Map // reflect.Type -> error (nil stored as errOK)

var errOK = fmt.Errorf("ok")

// checkDynamic reports why the value v of an interface cannot be stored,
// naming its path. It walks v, checking the dynamic type of every
// interface value inside.
func checkDynamic(v reflect.Value, path string) error {
	switch v.Kind() {
	case reflect.Invalid:
		return nil
	case reflect.Interface:
		if v.IsNil() {
			return nil
		}
		e := v.Elem()
		if err := checkDynamicType(e.Type()); err != nil {
			return fmt.Errorf("%s holds a %v: %w", path, e.Type(), err)
		}
		return checkDynamic(e, path)
	case reflect.Pointer:
		if v.IsNil() {
			return nil
		}
		return checkDynamic(v.Elem(), path)
	case reflect.Slice, reflect.Array, reflect.Map:
		return plan.EachElem(v, path, checkDynamic)
	case reflect.Struct:
		t := v.Type()
		if t.ConvertibleTo(timeType) {
			return nil
		}
		for i := 0; i < t.NumField(); i++ {
			if t.Field(i).IsExported() {
				if err := checkDynamic(v.Field(i), path+"."+t.Field(i).Name); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

func checkDynamicType(t reflect.Type) error {
	if r, ok := dynamicTypes.Load(t); ok {
		if r == errOK {
			return nil
		}
		return r.(error)
	}
	var c typeChecker
	err := c.check(t, "", false, false)
	if err == nil && c.info.unixNested != "" {
		err = fmt.Errorf("%s is tagged unixtime inside an interface value, where it would be stored as a string", c.info.unixNested)
	}
	r := err
	if r == nil {
		r = errOK
	}
	dynamicTypes.Store(t, r)
	return err
}
