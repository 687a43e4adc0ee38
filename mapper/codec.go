package mapper

import (
	"errors"
	"fmt"
	"math"
	"reflect"
	"strconv"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/optimist-dynamo/optimist/internal/attrs"
	"github.com/optimist-dynamo/optimist/internal/plan"
)

// codec turns structs of one type into items and back.
//
// Items are encoded field by field. Fields of plain types (strings, bools,
// numbers, []byte, []string and pointers to those, with no methods) take a
// fast path that produces exactly what attributevalue would; every other
// field is encoded by attributevalue itself, through a one-field struct that
// carries the field's tag, so custom Marshalers, time.Time, nested structs
// and every tag option behave as attributevalue documents. The fast path
// spares the reflection of attributevalue for the common fields (bench/
// compares the two).
//
// Empty collections: DynamoDB has no empty sets, and a NULL where a list is
// expected makes a later list_append or ADD fail with a type error. So, for
// top-level fields unless tagged nullempty: a nil slice is stored as an
// empty list, a nil map as an empty map, and an empty or nil set
// (stringset, numberset, binaryset) is not stored at all (ADD and DELETE
// treat a missing set as empty). Read back, lists and maps are empty, not
// nil; sets, whose attribute is absent, are nil.
type codec struct {
	s *schema
	// table names the table in decoding errors ("" for none).
	table string
	enc   *attributevalue.Encoder
	// encText also stores encoding.TextMarshaler and BinaryMarshaler types
	// through them; it encodes the fields that hold such types or
	// interfaces. The other fields keep enc, so that time.Time tagged
	// unixtime stays a number (time.Time is a TextMarshaler too).
	encText *attributevalue.Encoder
	dec     *attributevalue.Decoder
	// upd encodes the values of update actions given as Go values when the
	// table has encoder options of its own (nil: the default encoding, done
	// when the action was made).
	upd    *plan.Encoder
	fields []fieldCodec
	// byField finds a field's codec, for encoding key attributes alone.
	byField map[*field]*fieldCodec
	// nS and nN count the fast fields stored as S and as N, to size an
	// item's arena.
	nS, nN int
	// plan decodes items without dec where it can (see decode.go); nil
	// when every item goes through dec.
	plan *structPlan
}

// arena hands out attribute values from two slices, so that encoding an
// item costs a few allocations rather than one per attribute. When a slice
// runs out, values are allocated one by one.
type arena struct {
	s []types.AttributeValueMemberS
	n []types.AttributeValueMemberN
}

func (c *codec) newArena(extraS, extraN int) arena {
	return arena{
		s: make([]types.AttributeValueMemberS, c.nS+extraS),
		n: make([]types.AttributeValueMemberN, c.nN+extraN),
	}
}

func (a *arena) S(v string) *types.AttributeValueMemberS {
	if len(a.s) == 0 {
		return &types.AttributeValueMemberS{Value: v}
	}
	p := &a.s[0]
	a.s = a.s[1:]
	p.Value = v
	return p
}

func (a *arena) N(v string) *types.AttributeValueMemberN {
	if len(a.n) == 0 {
		return &types.AttributeValueMemberN{Value: v}
	}
	p := &a.n[0]
	a.n = a.n[1:]
	p.Value = v
	return p
}

type fastKind uint8

const (
	slow fastKind = iota
	fastScalar
	fastScalarPtr
	fastBytes
	fastStrings
)

type emptyPolicy uint8

const (
	keepEmpty emptyPolicy = iota
	emptyList
	emptyMap
	omitEmptySet
)

type fieldCodec struct {
	f      *field
	kind   fastKind
	policy emptyPolicy
	synth  reflect.Type            // slow path: struct{ F <type> `dynamo:"F,opts"` }
	enc    *attributevalue.Encoder // slow path: c.enc or c.encText
	// sparse: the field is a key of a secondary index but not of the
	// table, so an empty value leaves it out of the item (see encodeItem).
	sparse bool
}

func newCodec(s *schema, custom bool, encOpts []func(*attributevalue.EncoderOptions), decOpts []func(*attributevalue.DecoderOptions)) *codec {
	c := &codec{
		s: s,
		enc: attributevalue.NewEncoder(append([]func(*attributevalue.EncoderOptions){
			func(o *attributevalue.EncoderOptions) { o.TagKey = TagKey }}, encOpts...)...),
		encText: attributevalue.NewEncoder(append([]func(*attributevalue.EncoderOptions){
			func(o *attributevalue.EncoderOptions) { o.TagKey, o.UseEncodingMarshalers = TagKey, true }}, encOpts...)...),
		dec: attributevalue.NewDecoder(append([]func(*attributevalue.DecoderOptions){
			func(o *attributevalue.DecoderOptions) { o.TagKey, o.UseEncodingUnmarshalers = TagKey, true }}, decOpts...)...),
	}
	if custom {
		c.upd = plan.NewEncoder(encOpts)
	}
	if len(decOpts) == 0 {
		c.plan = planFor(s)
	}
	for _, f := range s.fields {
		fc := fieldCodec{f: f, policy: policyOf(f), sparse: len(f.indexes) > 0 && !f.tag.hash && !f.tag.rng}
		if !custom {
			fc.kind = fastKindOf(f.typ, f.tag)
		}
		if fc.kind == fastScalar || fc.kind == fastScalarPtr {
			k := f.typ.Kind()
			if k == reflect.Pointer {
				k = f.typ.Elem().Kind()
			}
			switch {
			case k == reflect.String || f.tag.asString && k != reflect.Bool:
				c.nS++
			case k != reflect.Bool:
				c.nN++
			}
		}
		if fc.kind == slow {
			tagText := "F"
			for _, o := range f.tag.avOptions() {
				tagText += "," + o
			}
			fc.synth = reflect.StructOf([]reflect.StructField{{
				Name: "F", Type: f.typ, Tag: reflect.StructTag(TagKey + `:"` + tagText + `"`),
			}})
			fc.enc = c.enc
			if f.info.encoding {
				fc.enc = c.encText
			}
		}
		c.fields = append(c.fields, fc)
	}
	c.byField = make(map[*field]*fieldCodec, len(c.fields))
	for i := range c.fields {
		c.byField[c.fields[i].f] = &c.fields[i]
	}
	return c
}

func policyOf(f *field) emptyPolicy {
	if f.tag.nullEmpty {
		return keepEmpty
	}
	switch f.typ.Kind() {
	case reflect.Slice:
		if f.tag.isSet() {
			return omitEmptySet
		}
		if f.typ.Elem().Kind() == reflect.Uint8 {
			return keepEmpty // binary
		}
		if f.typ.Elem() == reflect.TypeOf([]byte(nil)) {
			return omitEmptySet // attributevalue stores [][]byte as a binary set
		}
		return emptyList
	case reflect.Map:
		return emptyMap
	}
	return keepEmpty
}

func noMethods(t reflect.Type) bool {
	return t.NumMethod() == 0 && reflect.PointerTo(t).NumMethod() == 0
}

func isScalarKind(k reflect.Kind) bool {
	switch k {
	case reflect.String, reflect.Bool, reflect.Float32, reflect.Float64:
		return true
	}
	return isInteger(k)
}

func fastKindOf(t reflect.Type, tg tag) fastKind {
	if tg.unixTime || tg.omitEmptyElem || tg.nullEmptyElem || !noMethods(t) {
		return slow
	}
	switch {
	case isScalarKind(t.Kind()):
		return fastScalar
	case t.Kind() == reflect.Pointer && isScalarKind(t.Elem().Kind()) && noMethods(t.Elem()):
		return fastScalarPtr
	case t.Kind() == reflect.Slice && t.Elem().Kind() == reflect.Uint8 && noMethods(t.Elem()):
		return fastBytes
	case t.Kind() == reflect.Slice && t.Elem().Kind() == reflect.String && noMethods(t.Elem()) &&
		!tg.numberSet && !tg.binarySet:
		return fastStrings
	}
	return slow
}

var nullAV types.AttributeValue = &types.AttributeValueMemberNULL{Value: true}

// encodeItem encodes the struct v (addressable) as an item, leaving room
// for extra more attributes. With skip set, that field is not encoded (the
// caller sets the version itself).
//
// A key of a secondary index that is not a key of the table is left out
// when it is empty (an empty string or binary, or NULL): DynamoDB refuses
// such a value in an index key attribute, and without the attribute the
// item is simply not in the index (a sparse index), as guregu/dynamo
// does. Save, which removes what the item leaves out, then removes it.
func (c *codec) encodeItem(v reflect.Value, a *arena, extra int, skip *field) (map[string]types.AttributeValue, error) {
	m := make(map[string]types.AttributeValue, len(c.fields)+extra)
	for i := range c.fields {
		fc := &c.fields[i]
		if fc.f == skip {
			continue
		}
		fv, ok := fieldByIndex(v, fc.f.index)
		if !ok {
			continue
		}
		av, err := c.encodeField(fc, fv, a)
		if err != nil {
			if !errors.Is(err, ErrInvalidItem) {
				// attributevalue's refusals (an empty map key, a failing
				// MarshalText, ...) are invalid values too.
				err = fmt.Errorf("%w: %w", ErrInvalidItem, err)
			}
			return nil, fmt.Errorf("mapper: encoding %s: %w", fc.f.goPath, err)
		}
		if av != nil && !(fc.sparse && emptyIndexKey(av)) {
			m[fc.f.name] = av
		}
	}
	return m, nil
}

// emptyIndexKey reports whether av is a value DynamoDB refuses in an index
// key attribute for being empty.
func emptyIndexKey(av types.AttributeValue) bool {
	switch v := av.(type) {
	case *types.AttributeValueMemberS:
		return v.Value == ""
	case *types.AttributeValueMemberB:
		return len(v.Value) == 0
	case *types.AttributeValueMemberNULL:
		return true
	}
	return false
}

// encodeField encodes one field; nil means the attribute is not stored.
func (c *codec) encodeField(fc *fieldCodec, fv reflect.Value, a *arena) (types.AttributeValue, error) {
	var av types.AttributeValue
	switch fc.kind {
	case fastScalar:
		if isZeroScalar(fv) && (fc.f.tag.omitEmpty || fc.f.tag.nullEmpty) {
			return zeroAV(fc.f.tag), nil
		}
		if err := checkFloat(fc.f, fv); err != nil {
			return nil, err
		}
		return scalarAV(fv, fc.f.tag.asString, a), nil
	case fastScalarPtr:
		if fv.IsNil() {
			return zeroAV(fc.f.tag), nil
		}
		if err := checkFloat(fc.f, fv.Elem()); err != nil {
			return nil, err
		}
		return scalarAV(fv.Elem(), fc.f.tag.asString, a), nil
	case fastBytes:
		if fv.IsNil() {
			return zeroAV(fc.f.tag), nil
		}
		// A copy, as attributevalue makes: the request must not change
		// with the struct (a transaction op is sent later).
		return &types.AttributeValueMemberB{Value: append([]byte{}, fv.Bytes()...)}, nil
	case fastStrings:
		if fv.IsNil() {
			av = zeroAV(fc.f.tag)
			break
		}
		n := fv.Len()
		if fc.f.tag.stringSet {
			if n == 0 {
				av = nullAV // attributevalue's NullEmptySets
				break
			}
			ss := make([]string, n)
			for i := range n {
				ss[i] = fv.Index(i).String()
			}
			return &types.AttributeValueMemberSS{Value: ss}, nil
		}
		l := make([]types.AttributeValue, n)
		elems := make([]types.AttributeValueMemberS, n)
		for i := range n {
			elems[i].Value = fv.Index(i).String()
			l[i] = &elems[i]
		}
		return &types.AttributeValueMemberL{Value: l}, nil
	default:
		if fc.f.info.dynamic {
			if err := checkDynamic(fv, fc.f.goPath); err != nil {
				return nil, fmt.Errorf("%w: %v", ErrInvalidItem, err)
			}
		}
		holder := reflect.New(fc.synth)
		holder.Elem().Field(0).Set(fv)
		out, err := fc.enc.Encode(holder.Interface())
		if err != nil {
			return nil, err
		}
		av = out.(*types.AttributeValueMemberM).Value["F"]
		if err := attrs.CheckValue(fc.f.name, av); err != nil {
			return nil, fmt.Errorf("%w: %v", ErrInvalidItem, err)
		}
	}
	return applyPolicy(fc.policy, av), nil
}

func applyPolicy(p emptyPolicy, av types.AttributeValue) types.AttributeValue {
	if _, isNull := av.(*types.AttributeValueMemberNULL); !isNull {
		return av
	}
	switch p {
	case emptyList:
		return &types.AttributeValueMemberL{Value: []types.AttributeValue{}}
	case emptyMap:
		return &types.AttributeValueMemberM{Value: map[string]types.AttributeValue{}}
	case omitEmptySet:
		return nil
	}
	return av
}

// zeroAV is what attributevalue stores for a zero value: nothing with
// omitempty, otherwise NULL.
func zeroAV(t tag) types.AttributeValue {
	if t.omitEmpty {
		return nil
	}
	return nullAV
}

func isZeroScalar(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.String:
		return v.Len() == 0
	case reflect.Bool:
		return !v.Bool()
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return v.Int() == 0
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return v.Uint() == 0
	default:
		return v.Float() == 0
	}
}

func scalarAV(v reflect.Value, asString bool, a *arena) types.AttributeValue {
	var n string
	switch v.Kind() {
	case reflect.String:
		return a.S(v.String())
	case reflect.Bool:
		return &types.AttributeValueMemberBOOL{Value: v.Bool()}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		n = strconv.FormatInt(v.Int(), 10)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		n = strconv.FormatUint(v.Uint(), 10)
	case reflect.Float32:
		n = strconv.FormatFloat(v.Float(), 'f', -1, 32)
	default:
		n = strconv.FormatFloat(v.Float(), 'f', -1, 64)
	}
	if asString {
		return a.S(n)
	}
	return a.N(n)
}

// fieldByIndex follows index through embedded structs; ok is false when an
// embedded pointer on the way is nil (the field is then absent).
func fieldByIndex(v reflect.Value, index []int) (reflect.Value, bool) {
	for i, x := range index {
		if i > 0 && v.Kind() == reflect.Pointer {
			if v.IsNil() {
				return reflect.Value{}, false
			}
			v = v.Elem()
		}
		v = v.Field(x)
	}
	return v, true
}

// keyOf encodes the primary key of the struct v (addressable), checking that
// every key attribute is a non-empty S, N or B.
func (c *codec) keyOf(v reflect.Value) (map[string]types.AttributeValue, error) {
	key := make(map[string]types.AttributeValue, len(c.s.keys))
	for _, f := range c.s.keys {
		av, err := c.keyAttr(f, v.FieldByIndex(f.index))
		if err != nil {
			return nil, err
		}
		key[f.name] = av
	}
	return key, nil
}

func (c *codec) keyAttr(f *field, fv reflect.Value) (types.AttributeValue, error) {
	var av types.AttributeValue
	if fv.Kind() == reflect.String && noMethods(f.typ) {
		av = &types.AttributeValueMemberS{Value: fv.String()} // the common case, without the lookup below
	} else {
		var err error
		if av, err = c.encodeField(c.byField[f], fv, &arena{}); err != nil {
			return nil, fmt.Errorf("mapper: encoding key %s: %w", f.goPath, err)
		}
	}
	return av, checkKeyAttr(f, av)
}

func checkKeyAttr(f *field, av types.AttributeValue) error {
	switch v := av.(type) {
	case *types.AttributeValueMemberS:
		if v.Value != "" {
			return checkKeySize(f, len(v.Value))
		}
	case *types.AttributeValueMemberB:
		if len(v.Value) > 0 {
			return checkKeySize(f, len(v.Value))
		}
	case *types.AttributeValueMemberN:
		if err := attrs.CheckNumber(v.Value); err != nil {
			return fmt.Errorf("%w: key attribute %q (%s): %v", ErrInvalidItem, f.name, f.goPath, err)
		}
		return nil
	default:
		return fmt.Errorf("%w: key attribute %q (%s) must be a string, number or binary, got %T", ErrInvalidItem, f.name, f.goPath, av)
	}
	return fmt.Errorf("%w: key attribute %q (%s) is empty", ErrInvalidItem, f.name, f.goPath)
}

// checkFloat refuses a float DynamoDB cannot store as a number: NaN, an
// infinity, or a magnitude outside its range. (With the string option the
// text is stored, and any float is fine.)
func checkFloat(f *field, v reflect.Value) error {
	if f.tag.asString || (v.Kind() != reflect.Float32 && v.Kind() != reflect.Float64) {
		return nil
	}
	x := v.Float()
	if a := math.Abs(x); x == 0 || a < 1e126 && a >= 1e-130 {
		return nil // the common case, without formatting
	}
	bits := 64
	if v.Kind() == reflect.Float32 {
		bits = 32
	}
	if err := attrs.CheckNumber(strconv.FormatFloat(x, 'g', -1, bits)); err != nil {
		return fmt.Errorf("%w: attribute %q (%s): %v", ErrInvalidItem, f.name, f.goPath, err)
	}
	return nil
}

// checkKeySize refuses a key attribute over DynamoDB's limits: 2,048 bytes
// for a hash key, 1,024 for a range key.
func checkKeySize(f *field, n int) error {
	max, kind := attrs.MaxHashKeySize, "hash"
	if !f.tag.hash {
		max, kind = attrs.MaxRangeKeySize, "range"
	}
	if n > max {
		return fmt.Errorf("%w: %s key attribute %q (%s) is %d bytes; DynamoDB allows %d", ErrInvalidItem, kind, f.name, f.goPath, n, max)
	}
	return nil
}
