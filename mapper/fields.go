package mapper

import (
	"fmt"
	"reflect"
	"time"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

var (
	timeType      = reflect.TypeOf(time.Time{})
	marshalerType = reflect.TypeOf((*attributevalue.Marshaler)(nil)).Elem()
)

func lessIndex(a, b []int) bool {
	for i := range a {
		if i >= len(b) {
			return false
		}
		if a[i] != b[i] {
			return a[i] < b[i]
		}
	}
	return len(a) < len(b)
}

type embedded struct {
	typ    reflect.Type
	index  []int
	goPath string
	viaPtr bool
}

// enumFields lists the fields of t the way attributevalue does (exported
// fields, untagged embedded structs flattened breadth first), with tags
// parsed strictly.
func enumFields(t reflect.Type) ([]*field, error) {
	var out []*field
	next := []embedded{{typ: t}}
	visited := map[reflect.Type]bool{}
	for depth := 0; len(next) > 0; depth++ {
		current := next
		next = nil
		queued := map[reflect.Type]string{}
		for _, e := range current {
			if visited[e.typ] {
				continue
			}
			visited[e.typ] = true
			for i := 0; i < e.typ.NumField(); i++ {
				f, embed, err := readField(t, e, i, depth)
				switch {
				case err != nil:
					return nil, err
				case embed != nil:
					if prev, dup := queued[embed.typ]; dup {
						return nil, schemaError(t, embed.goPath, "%v is embedded twice at the same depth (also at %s): its fields would be ambiguous", embed.typ, prev)
					}
					queued[embed.typ] = embed.goPath
					next = append(next, *embed)
				case f != nil:
					out = append(out, f)
				}
			}
		}
	}
	return out, nil
}

// readField reads field i of the struct e (at depth, in t): a stored field,
// an embedded struct whose fields are promoted, or neither (skipped).
func readField(t reflect.Type, e embedded, i, depth int) (*field, *embedded, error) {
	sf := e.typ.Field(i)
	goPath := sf.Name
	if e.goPath != "" {
		goPath = e.goPath + "." + sf.Name
	}
	fail := func(format string, args ...any) error { return schemaError(t, goPath, format, args...) }
	dyn, hasDyn := sf.Tag.Lookup(TagKey)
	if !sf.IsExported() && !sf.Anonymous {
		if hasDyn && dyn != "-" {
			return nil, nil, fail("unexported field has a %s tag, but unexported fields are never stored; export it or remove the tag", TagKey)
		}
		return nil, nil, nil
	}
	var tg tag
	if av, ok := sf.Tag.Lookup("dynamodbav"); ok {
		tg = parseAVTag(av)
	}
	if hasDyn {
		dt, err := parseTag(dyn)
		if err != nil {
			return nil, nil, fail("tag %q: %v", dyn, err)
		}
		tg = mergeTags(tg, dt)
	}
	idx, err := parseIndexTags(sf.Tag)
	if err != nil {
		return nil, nil, fail("%v", err)
	}
	if tg.skip {
		if len(idx) > 0 {
			return nil, nil, fail("a field skipped with \"-\" cannot be an index key")
		}
		return nil, nil, nil
	}
	ft := sf.Type
	if ft.Name() == "" && ft.Kind() == reflect.Pointer {
		ft = ft.Elem()
	}
	index := append(append([]int(nil), e.index...), i)
	if sf.Anonymous && tg.name == "" && ft.Kind() == reflect.Struct {
		// Flattened: its fields are promoted.
		if tg.hash || tg.rng || tg.version || tg.ttl || len(idx) > 0 || len(tg.avOptions()) > 0 {
			return nil, nil, fail("options on an embedded struct are ignored when its fields are promoted; tag the fields inside, or give the struct an attribute name")
		}
		return nil, &embedded{typ: ft, index: index, goPath: goPath, viaPtr: e.viaPtr || sf.Type.Kind() == reflect.Pointer}, nil
	}
	if !sf.IsExported() {
		return nil, nil, fail("unexported embedded field cannot be stored; export it or tag it `%s:\"-\"`", TagKey)
	}
	name := sf.Name
	if tg.name != "" {
		name = tg.name
	}
	f := &field{
		name: name, goPath: goPath, index: index, typ: sf.Type, tag: tg,
		indexes: idx, depth: depth, viaPtr: e.viaPtr,
	}
	info, err := checkFieldType(f)
	if err != nil {
		return nil, nil, fail("%v", err)
	}
	f.info = info
	return f, nil, nil
}

func isInteger(k reflect.Kind) bool {
	switch k {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return true
	}
	return false
}

func implementsMarshaler(t reflect.Type) bool {
	return t.Implements(marshalerType) || reflect.PointerTo(t).Implements(marshalerType)
}

// keyType returns the DynamoDB type a key field is stored as: S, N or B, or
// "" when a custom Marshaler decides (checked on every write instead).
func keyType(t reflect.Type, tg tag) (types.ScalarAttributeType, error) {
	if implementsMarshaler(t) {
		return "", nil
	}
	if t.Kind() == reflect.Pointer {
		return keyType(t.Elem(), tg)
	}
	if t.Kind() == reflect.Struct && t.ConvertibleTo(timeType) {
		if tg.unixTime {
			return types.ScalarAttributeTypeN, nil
		}
		return types.ScalarAttributeTypeS, nil
	}
	switch {
	case reflect.PointerTo(t).Implements(textMarshalerType):
		return types.ScalarAttributeTypeS, nil
	case reflect.PointerTo(t).Implements(binaryMarshalerType):
		return types.ScalarAttributeTypeB, nil
	}
	switch t.Kind() {
	case reflect.String:
		return types.ScalarAttributeTypeS, nil
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64,
		reflect.Float32, reflect.Float64:
		if tg.asString {
			return types.ScalarAttributeTypeS, nil
		}
		return types.ScalarAttributeTypeN, nil
	case reflect.Slice, reflect.Array:
		if t.Elem().Kind() == reflect.Uint8 {
			return types.ScalarAttributeTypeB, nil
		}
	}
	return "", fmt.Errorf("a key must be stored as a string, number or binary, and %v is none of them", t)
}
