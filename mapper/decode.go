package mapper

import (
	"encoding"
	"errors"
	"reflect"
	"sort"
	"strconv"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// Decoding items, by a plan made once per type.
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

// structPlan decodes an M into a struct.
type structPlan struct {
	fields []planField
	// byLen[n] lists the fields whose names are n bytes long: comparing
	// an attribute name with those few costs less than hashing it.
	byLen  [][]*planField
	byName map[string]*planField // names of maxByLen bytes or more
	// folded finds the first field whose name matches an attribute name
	// under case folding (attributevalue's fallback), keyed by foldName.
	folded map[string]*planField
}

type planField struct {
	name  string
	index []int
	dec   *decoder
	// holder, for a field with the string option: attributevalue reads
	// the option from the tag, so the slow path decodes through a
	// one-field struct that carries it, as the encoder does.
	holder reflect.Type
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

// planFor returns the plan of the schema's type, or nil when attributevalue
// must decode whole items: the type unmarshals itself, or a tag is read
// differently by the schema and by attributevalue.
func planFor(s *schema) *structPlan {
	decMu.Lock()
	defer decMu.Unlock()
	if p, ok := topPlans[s.typ]; ok {
		return p
	}
	var p *structPlan
	if !reflect.PointerTo(s.typ).Implements(unmarshalerType) && !readsTagsApart(s.typ, map[reflect.Type]bool{}) {
		p = newStructPlan(s.fields)
	}
	topPlans[s.typ] = p
	return p
}

// readsTagsApart reports whether a field of t, or of a struct embedded in
// it, has both a `dynamodbav` tag and an empty `dynamo` tag: attributevalue
// ignores the empty tag, the schema does not.
func readsTagsApart(t reflect.Type, seen map[reflect.Type]bool) bool {
	if seen[t] {
		return false
	}
	seen[t] = true
	for i := range t.NumField() {
		sf := t.Field(i)
		dyn, hasDyn := sf.Tag.Lookup(TagKey)
		if _, hasAV := sf.Tag.Lookup("dynamodbav"); hasAV && hasDyn && dyn == "" {
			return true
		}
		if sf.Anonymous {
			ft := sf.Type
			if ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			if ft.Kind() == reflect.Struct && readsTagsApart(ft, seen) {
				return true
			}
		}
	}
	return false
}

// newStructPlan makes the plan of a struct with the given visible fields
// (in declaration order). decMu is held.
func newStructPlan(fields []*field) *structPlan {
	p := &structPlan{
		fields: make([]planField, len(fields)),
		byName: make(map[string]*planField, len(fields)),
		folded: make(map[string]*planField, len(fields)),
	}
	for i, f := range fields {
		pf := &p.fields[i]
		pf.name, pf.index = f.name, f.index
		pf.dec = decoderOf(f.typ, f.tag.asString)
		if f.tag.asString {
			tagText := "F"
			for _, o := range f.tag.avOptions() {
				tagText += "," + o
			}
			pf.holder = reflect.StructOf([]reflect.StructField{{
				Name: "F", Type: f.typ, Tag: reflect.StructTag(TagKey + `:"` + tagText + `"`),
			}})
		}
		if n := len(f.name); n < maxByLen {
			if n >= len(p.byLen) {
				p.byLen = append(p.byLen, make([][]*planField, n+1-len(p.byLen))...)
			}
			p.byLen[n] = append(p.byLen[n], pf)
		} else {
			p.byName[f.name] = pf
		}
		k := string(foldName(nil, f.name))
		if _, dup := p.folded[k]; !dup {
			p.folded[k] = pf
		}
	}
	return p
}

// nestedPlan makes the plan of a struct type met inside a field, or nil if
// its fields are not certain to be the ones attributevalue sees (the
// schema's stricter reading refuses something, two fields share a name at
// the same depth, a tag is read apart). decMu is held.
func nestedPlan(t reflect.Type) *structPlan {
	if readsTagsApart(t, map[reflect.Type]bool{}) {
		return nil
	}
	all, err := enumFields(t)
	if err != nil {
		return nil
	}
	// The shallowest field of each name wins, as in buildSchema.
	sort.SliceStable(all, func(i, j int) bool {
		if all[i].name != all[j].name {
			return all[i].name < all[j].name
		}
		return all[i].depth < all[j].depth
	})
	var visible []*field
	for i := 0; i < len(all); {
		j := i + 1
		for j < len(all) && all[j].name == all[i].name {
			j++
		}
		if j-i > 1 && all[i+1].depth == all[i].depth {
			return nil // attributevalue would pick by tags, or drop both
		}
		visible = append(visible, all[i])
		i = j
	}
	sort.Slice(visible, func(i, j int) bool { return lessIndex(visible[i].index, visible[j].index) })
	return newStructPlan(visible)
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

func (d *decoder) build() {
	t := d.typ
	if k := t.Kind(); k != reflect.Pointer && k != reflect.Interface {
		// attributevalue tries, in order: its Unmarshaler, UnmarshalText
		// for an S, UnmarshalBinary for a B (UseEncodingUnmarshalers),
		// then the kind. Values are always addressable here, so the
		// pointer's method set is the one that counts.
		pt := reflect.PointerTo(t)
		if pt.Implements(unmarshalerType) {
			return
		}
		if t == timeType {
			d.kind = decTime
			return
		}
		d.text, d.binary = pt.Implements(textUnmarshalerType), pt.Implements(binaryUnmarshalerType)
		if d.text || d.binary {
			d.kind = decText
			return
		}
		if k == reflect.Struct && t.ConvertibleTo(timeType) {
			return // decoded as a time, by DecodeTime
		}
	}
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

const maxByLen = 32

// field returns the field named name exactly, or nil.
func (p *structPlan) field(name string) *planField {
	if n := len(name); n < maxByLen {
		if n < len(p.byLen) {
			for _, f := range p.byLen[n] {
				if f.name == name {
					return f
				}
			}
		}
		return nil
	}
	return p.byName[name]
}

// decode decodes the item into v, a struct, as attributevalue's Decoder
// decodes an M into it.
func (p *structPlan) decode(item map[string]types.AttributeValue, v reflect.Value) error {
	for name, av := range item {
		f := p.field(name)
		if f == nil {
			var buf [64]byte
			if f = p.folded[string(foldName(buf[:0], name))]; f == nil {
				continue // not a field
			}
		}
		fv := fieldForDecode(v, f.index)
		err := f.dec.decode(av, fv)
		if err == nil {
			continue
		}
		if err != errSlow {
			return err
		}
		fv.SetZero() // what the decoder may have filled in
		if err := f.slow(av, fv); err != nil {
			return err
		}
	}
	return nil
}

// slow decodes av into fv with attributevalue alone.
func (f *planField) slow(av types.AttributeValue, fv reflect.Value) error {
	if f.holder == nil {
		// The field's tag matters to attributevalue only for the string
		// and unixtime options, and unixtime only with DecodeTime set.
		return slowDecoder.Decode(av, fv.Addr().Interface())
	}
	h := reflect.New(f.holder)
	if err := slowDecoder.Decode(&types.AttributeValueMemberM{Value: map[string]types.AttributeValue{"F": av}}, h.Interface()); err != nil {
		return err
	}
	fv.Set(h.Elem().Field(0))
	return nil
}

// fieldForDecode follows index through embedded structs, allocating nil
// embedded pointers on the way, as attributevalue does.
func fieldForDecode(v reflect.Value, index []int) reflect.Value {
	for i, x := range index {
		if i > 0 && v.Kind() == reflect.Pointer {
			if v.IsNil() {
				v.Set(reflect.New(v.Type().Elem()))
			}
			v = v.Elem()
		}
		v = v.Field(x)
	}
	return v
}

// foldName appends to buf a key that two names share exactly when
// strings.EqualFold holds between them: each rune (an invalid byte reads
// as utf8.RuneError, as EqualFold reads it) replaced by the smallest rune
// of its case-folding orbit.
func foldName(buf []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= utf8.RuneSelf {
			return foldRunes(buf, s[i:])
		}
		if 'a' <= c && c <= 'z' {
			c -= 'a' - 'A'
		}
		buf = append(buf, c)
	}
	return buf
}

func foldRunes(buf []byte, s string) []byte {
	for _, r := range s {
		m := r
		for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
			m = min(m, f)
		}
		buf = utf8.AppendRune(buf, m)
	}
	return buf
}

func (d *decoder) decode(av types.AttributeValue, v reflect.Value) error {
	switch d.kind {
	case decSlow:
		return errSlow
	case decString:
		switch a := av.(type) {
		case *types.AttributeValueMemberS:
			v.SetString(a.Value)
			return nil
		case *types.AttributeValueMemberN:
			v.SetString(a.Value)
			return nil
		}
	case decBool:
		if a, ok := av.(*types.AttributeValueMemberBOOL); ok {
			v.SetBool(a.Value)
			return nil
		}
	case decInt, decUint, decFloat:
		switch a := av.(type) {
		case *types.AttributeValueMemberN:
			return d.number(a.Value, v)
		case *types.AttributeValueMemberS:
			if d.asString {
				return d.number(a.Value, v)
			}
		}
	case decBytes:
		if a, ok := av.(*types.AttributeValueMemberB); ok {
			b := make([]byte, len(a.Value))
			copy(b, a.Value)
			v.SetBytes(b)
			return nil
		}
	case decTime:
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
	case decText:
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
	case decAny:
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
	case decPtr:
		switch av.(type) {
		case nil, *types.AttributeValueMemberNULL:
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
	case decSlice:
		if d.elem.kind == decSlow {
			return errSlow
		}
		return d.slice(av, v)
	case decMap:
		if a, ok := av.(*types.AttributeValueMemberM); ok {
			return d.decodeMap(a.Value, v)
		}
	case decStruct:
		if a, ok := av.(*types.AttributeValueMemberM); ok {
			return d.plan.decode(a.Value, v)
		}
	}
	switch av.(type) {
	case nil, *types.AttributeValueMemberNULL:
		v.SetZero()
		return nil
	}
	return errSlow
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

// slice decodes an L, or a set into a slice of plain elements (set
// elements are read as attributevalue reads them: as text or numbers,
// never through UnmarshalText).
func (d *decoder) slice(av types.AttributeValue, v reflect.Value) error {
	var n int
	switch a := av.(type) {
	case *types.AttributeValueMemberL:
		n = len(a.Value)
	case *types.AttributeValueMemberSS:
		if d.elem.kind != decString {
			return errSlow
		}
		n = len(a.Value)
	case *types.AttributeValueMemberNS:
		switch d.elem.kind {
		case decString, decInt, decUint, decFloat:
		default:
			return errSlow
		}
		n = len(a.Value)
	case *types.AttributeValueMemberBS:
		if d.elem.kind != decBytes {
			return errSlow
		}
		n = len(a.Value)
	case nil, *types.AttributeValueMemberNULL:
		v.SetZero()
		return nil
	default:
		return errSlow
	}
	if n == 0 {
		v.Set(d.empty)
		return nil
	}
	if d.typ == stringsType {
		return stringsOf(av, v.Addr().Interface().(*[]string))
	}
	// Grown in place: MakeSlice would allocate a slice header too. The
	// field is nil here (a new value, or zeroed before the slow path).
	s := v
	s.Grow(n)
	s.SetLen(n)
	switch a := av.(type) {
	case *types.AttributeValueMemberL:
		for i, e := range a.Value {
			if err := d.elem.decode(e, s.Index(i)); err != nil {
				return err
			}
		}
	case *types.AttributeValueMemberSS:
		for i, e := range a.Value {
			s.Index(i).SetString(e)
		}
	case *types.AttributeValueMemberNS:
		for i, e := range a.Value {
			if err := d.elem.number(e, s.Index(i)); err != nil {
				return err
			}
		}
	case *types.AttributeValueMemberBS:
		for i, e := range a.Value {
			b := make([]byte, len(e))
			copy(b, e)
			s.Index(i).SetBytes(b)
		}
	}
	return nil
}

var stringsType = reflect.TypeOf([]string(nil))

// stringsOf decodes a non-empty L, SS or NS into a []string, without
// reflect.
func stringsOf(av types.AttributeValue, p *[]string) error {
	switch a := av.(type) {
	case *types.AttributeValueMemberSS:
		*p = append(make([]string, 0, len(a.Value)), a.Value...)
	case *types.AttributeValueMemberNS: // numbers' text
		*p = append(make([]string, 0, len(a.Value)), a.Value...)
	case *types.AttributeValueMemberL:
		out := make([]string, len(a.Value))
		for i, e := range a.Value {
			switch e := e.(type) {
			case *types.AttributeValueMemberS:
				out[i] = e.Value
			case *types.AttributeValueMemberN:
				out[i] = e.Value
			case nil, *types.AttributeValueMemberNULL:
			default:
				return errSlow
			}
		}
		*p = out
	}
	return nil
}

func (d *decoder) decodeMap(m map[string]types.AttributeValue, v reflect.Value) error {
	if d.typedMap != nil {
		return d.typedMap(m, v)
	}
	if d.elem.kind == decSlow {
		return errSlow
	}
	out := reflect.MakeMapWithSize(d.typ, len(m))
	key := reflect.New(d.typ.Key()).Elem()
	elem := reflect.New(d.typ.Elem()).Elem()
	for k, av := range m {
		key.SetString(k)
		elem.SetZero()
		if err := d.elem.decode(av, elem); err != nil {
			return err
		}
		out.SetMapIndex(key, elem)
	}
	v.Set(out)
	return nil
}

// anyOf is what attributevalue stores in an empty interface for av; ok is
// false for what it refuses (a number that does not parse as a float64).
func anyOf(av types.AttributeValue) (x any, ok bool) {
	switch a := av.(type) {
	case *types.AttributeValueMemberS:
		return a.Value, true
	case *types.AttributeValueMemberN:
		f, err := strconv.ParseFloat(a.Value, 64)
		return f, err == nil
	case *types.AttributeValueMemberBOOL:
		return a.Value, true
	case *types.AttributeValueMemberB:
		b := make([]byte, len(a.Value))
		copy(b, a.Value)
		return b, true
	case *types.AttributeValueMemberL:
		l := make([]any, len(a.Value))
		for i, e := range a.Value {
			if l[i], ok = anyOf(e); !ok {
				return nil, false
			}
		}
		return l, true
	case *types.AttributeValueMemberM:
		m := make(map[string]any, len(a.Value))
		for k, e := range a.Value {
			if m[k], ok = anyOf(e); !ok {
				return nil, false
			}
		}
		return m, true
	case *types.AttributeValueMemberSS:
		return append(make([]string, 0, len(a.Value)), a.Value...), true
	case *types.AttributeValueMemberNS:
		fs := make([]float64, len(a.Value))
		for i, n := range a.Value {
			f, err := strconv.ParseFloat(n, 64)
			if err != nil {
				return nil, false
			}
			fs[i] = f
		}
		return fs, true
	case *types.AttributeValueMemberBS:
		bs := make([][]byte, len(a.Value))
		for i, e := range a.Value {
			bs[i] = make([]byte, len(e))
			copy(bs[i], e)
		}
		return bs, true
	case nil, *types.AttributeValueMemberNULL:
		return nil, true
	}
	return nil, false
}

// typedMaps decode the commonest map types without reflect, as the
// generic path would (an element it does not handle: errSlow).
var typedMaps = map[reflect.Type]func(map[string]types.AttributeValue, reflect.Value) error{
	reflect.TypeOf(map[string]string(nil)): mapOf(func(av types.AttributeValue) (string, bool) {
		switch a := av.(type) {
		case *types.AttributeValueMemberS:
			return a.Value, true
		case *types.AttributeValueMemberN:
			return a.Value, true
		}
		return "", isNull(av)
	}),
	reflect.TypeOf(map[string]int(nil)): mapOf(func(av types.AttributeValue) (int, bool) {
		if a, ok := av.(*types.AttributeValueMemberN); ok {
			i, err := strconv.ParseInt(a.Value, 10, 64)
			return int(i), err == nil && int64(int(i)) == i
		}
		return 0, isNull(av)
	}),
	reflect.TypeOf(map[string]int64(nil)): mapOf(func(av types.AttributeValue) (int64, bool) {
		if a, ok := av.(*types.AttributeValueMemberN); ok {
			i, err := strconv.ParseInt(a.Value, 10, 64)
			return i, err == nil
		}
		return 0, isNull(av)
	}),
	reflect.TypeOf(map[string]float64(nil)): mapOf(func(av types.AttributeValue) (float64, bool) {
		if a, ok := av.(*types.AttributeValueMemberN); ok {
			f, err := strconv.ParseFloat(a.Value, 64)
			return f, err == nil
		}
		return 0, isNull(av)
	}),
	reflect.TypeOf(map[string]bool(nil)): mapOf(func(av types.AttributeValue) (bool, bool) {
		if a, ok := av.(*types.AttributeValueMemberBOOL); ok {
			return a.Value, true
		}
		return false, isNull(av)
	}),
	reflect.TypeOf(map[string]any(nil)): mapOf(anyOf),
}

func mapOf[E any](elem func(types.AttributeValue) (E, bool)) func(map[string]types.AttributeValue, reflect.Value) error {
	return func(m map[string]types.AttributeValue, v reflect.Value) error {
		out := make(map[string]E, len(m))
		for k, av := range m {
			e, ok := elem(av)
			if !ok {
				return errSlow
			}
			out[k] = e
		}
		*v.Addr().Interface().(*map[string]E) = out
		return nil
	}
}

func isNull(av types.AttributeValue) bool {
	switch av.(type) {
	case nil, *types.AttributeValueMemberNULL:
		return true
	}
	return false
}
