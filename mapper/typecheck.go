package mapper

import (
	"encoding"
	"fmt"
	"reflect"
	"strings"
	"sync"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

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
	case reflect.Slice, reflect.Array:
		if v.Type().Elem().Kind() == reflect.Uint8 {
			return nil
		}
		for i := 0; i < v.Len(); i++ {
			if err := checkDynamic(v.Index(i), fmt.Sprintf("%s[%d]", path, i)); err != nil {
				return err
			}
		}
	case reflect.Map:
		it := v.MapRange()
		for it.Next() {
			if err := checkDynamic(it.Value(), fmt.Sprintf("%s[%v]", path, it.Key())); err != nil {
				return err
			}
		}
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
