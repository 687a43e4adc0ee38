package mapper

import (
	"reflect"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"

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
