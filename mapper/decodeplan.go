package mapper

import (
	"reflect"
	"unicode"
	"unicode/utf8"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// A struct's decoding plan: which field each attribute name goes to, and
// the decoder of each field.

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
	// The shallowest field of each name wins, as in visibleFields.
	var visible []*field
	for _, group := range nameGroups(all) {
		if len(group) > 1 && group[1].depth == group[0].depth {
			return nil // attributevalue would pick by tags, or drop both
		}
		visible = append(visible, group[0])
	}
	inDeclarationOrder(visible)
	return newStructPlan(visible)
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
// embedded pointers on the way, as attributevalue does, to the field to
// set.
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
