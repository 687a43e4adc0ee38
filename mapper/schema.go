package mapper

import (
	"errors"
	"fmt"
	"reflect"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// TagKey is the struct tag the mapper reads: `dynamo:"name,opt,opt"`.
const TagKey = "dynamo"

// SchemaError describes why a struct type cannot be mapped to a table.
type SchemaError struct {
	Type    reflect.Type // the struct type given to NewTable
	Field   string       // Go field path, e.g. "Base.ID"; empty for the whole type
	Problem string       // what is wrong, and usually how to fix it
}

func (e *SchemaError) Error() string {
	if e.Field == "" {
		return fmt.Sprintf("mapper: %v: %s", e.Type, e.Problem)
	}
	return fmt.Sprintf("mapper: %v.%s: %s", e.Type, e.Field, e.Problem)
}

// Is reports whether target is [ErrInvalidSchema].
func (e *SchemaError) Is(target error) bool { return target == ErrInvalidSchema }

// tag is a parsed struct tag: the attribute name, our own options (hash,
// range, version) and the attributevalue options passed through.
type tag struct {
	name string
	skip bool // "-"

	hash, rng, version, ttl bool

	omitEmpty, omitEmptyElem, nullEmpty, nullEmptyElem  bool
	asString, binarySet, numberSet, stringSet, unixTime bool
}

// avOptions lists the attributevalue options set, in a canonical order, as
// they would be written in a tag.
func (t tag) avOptions() []string {
	var opts []string
	add := func(set bool, name string) {
		if set {
			opts = append(opts, name)
		}
	}
	add(t.omitEmpty, "omitempty")
	add(t.omitEmptyElem, "omitemptyelem")
	add(t.nullEmpty, "nullempty")
	add(t.nullEmptyElem, "nullemptyelem")
	add(t.asString, "string")
	add(t.binarySet, "binaryset")
	add(t.numberSet, "numberset")
	add(t.stringSet, "stringset")
	add(t.unixTime, "unixtime")
	return opts
}

func (t tag) isSet() bool { return t.binarySet || t.numberSet || t.stringSet }

// parseTag parses a `dynamo` tag strictly: an unknown, empty or repeated
// option, or options that contradict each other, are errors (attributevalue
// ignores unknown options silently; a typo such as "hsh" would then drop the
// key without a word).
func parseTag(s string) (tag, error) {
	var t tag
	parts := strings.Split(s, ",")
	t.name = parts[0]
	if t.name == "-" {
		if len(parts) > 1 {
			return t, fmt.Errorf("options %q on a field skipped with \"-\"", strings.Join(parts[1:], ","))
		}
		t.skip = true
		return t, nil
	}
	seen := make(map[string]bool, len(parts))
	for _, opt := range parts[1:] {
		if seen[opt] {
			return t, fmt.Errorf("option %q given twice", opt)
		}
		seen[opt] = true
		switch {
		case opt == "hash":
			t.hash = true
		case opt == "range":
			t.rng = true
		case opt == "version":
			t.version = true
		case opt == "ttl":
			t.ttl = true
		case t.setAVOption(opt):
		case opt == "":
			return t, errors.New("empty option (stray comma)")
		default:
			return t, fmt.Errorf("unknown option %q (known: hash, range, version, ttl, omitempty, omitemptyelem, nullempty, nullemptyelem, string, stringset, numberset, binaryset, unixtime)", opt)
		}
	}
	switch {
	case t.hash && t.rng:
		return t, errors.New("a field cannot be both hash and range key")
	case t.version && (t.hash || t.rng):
		return t, errors.New("the version field cannot be a key")
	case t.ttl && (t.hash || t.rng || t.version):
		return t, errors.New("the ttl field cannot be a key or the version")
	case t.omitEmpty && t.nullEmpty:
		return t, errors.New("omitempty and nullempty contradict each other")
	case t.omitEmptyElem && t.nullEmptyElem:
		return t, errors.New("omitemptyelem and nullemptyelem contradict each other")
	case btoi(t.binarySet)+btoi(t.numberSet)+btoi(t.stringSet) > 1:
		return t, errors.New("at most one of stringset, numberset, binaryset")
	}
	return t, nil
}

// setAVOption sets the attributevalue option opt, and reports whether opt
// is one.
func (t *tag) setAVOption(opt string) bool {
	switch opt {
	case "omitempty":
		t.omitEmpty = true
	case "omitemptyelem":
		t.omitEmptyElem = true
	case "nullempty":
		t.nullEmpty = true
	case "nullemptyelem":
		t.nullEmptyElem = true
	case "string":
		t.asString = true
	case "binaryset":
		t.binarySet = true
	case "numberset":
		t.numberSet = true
	case "stringset":
		t.stringSet = true
	case "unixtime":
		t.unixTime = true
	default:
		return false
	}
	return true
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// parseAVTag reads a `dynamodbav` tag the way attributevalue does: it is
// honoured for fields without a `dynamo` tag, unknown options are ignored.
func parseAVTag(s string) tag {
	var t tag
	parts := strings.Split(s, ",")
	t.name = parts[0]
	if t.name == "-" {
		t.skip = true
		return t
	}
	for _, opt := range parts[1:] {
		t.setAVOption(opt)
	}
	return t
}

// field is one attribute of a mapped struct.
type field struct {
	name   string       // attribute name
	goPath string       // Go field path for messages, e.g. "Base.ID"
	index  []int        // reflect index path
	typ    reflect.Type // declared Go type
	tag    tag
	// indexes lists the secondary indexes whose key this field is, from
	// the `index` and `localIndex` tags.
	indexes []indexTag
	depth   int
	// viaPtr: reached through an embedded pointer, so it may be absent.
	viaPtr bool
	// info: what the check of its type found (see typecheck.go).
	info typeInfo
}

// schema is what the mapper knows about a struct type, computed once.
type schema struct {
	typ     reflect.Type
	fields  []*field // visible fields in declaration order
	hash    *field
	rng     *field   // nil without a sort key
	keys    []*field // hash, then rng if any
	version *field   // nil for unversioned types
	ttl     *field   // nil without a `ttl` field
	indexes []*index // secondary indexes named in tags, in order of first mention
	byName  map[string]*field
	// ent: the keys come from an entity's templates (entity.go); nil for
	// a plain table, whose keys are tagged fields.
	ent *entity
}

// index is a secondary index named in the tags of a type.
type index struct {
	name  string
	local bool
	hash  *field // for a local index, the table's hash key
	rng   *field // nil if the index has no range key
}

var schemaCache sync.Map // reflect.Type -> schemaResult

type schemaResult struct {
	s   *schema
	err error
}

// schemaOf returns the cached schema of t, building it on first use.
func schemaOf(t reflect.Type) (*schema, error) {
	if r, ok := schemaCache.Load(t); ok {
		r := r.(schemaResult)
		return r.s, r.err
	}
	s, err := buildSchema(t)
	r, _ := schemaCache.LoadOrStore(t, schemaResult{s, err})
	return r.(schemaResult).s, r.(schemaResult).err
}

var (
	timeType      = reflect.TypeOf(time.Time{})
	marshalerType = reflect.TypeOf((*attributevalue.Marshaler)(nil)).Elem()
)

func buildSchema(t reflect.Type) (*schema, error) { return buildSchemaOf(t, false) }

// buildSchemaOf builds the schema of t; for an entity (entity.go) the keys
// come from templates, so key and index tags are refused and no hash key
// is needed.
func buildSchemaOf(t reflect.Type, entity bool) (*schema, error) {
	fail := func(f, format string, args ...any) error {
		return &SchemaError{Type: t, Field: f, Problem: fmt.Sprintf(format, args...)}
	}
	if t.Kind() != reflect.Struct {
		if t.Kind() == reflect.Pointer && t.Elem().Kind() == reflect.Struct {
			return nil, fail("", "use the struct type itself, NewTable[%v], not a pointer", t.Elem())
		}
		return nil, fail("", "a table maps a struct type, not %v", t.Kind())
	}
	all, err := enumFields(t)
	if err != nil {
		return nil, err
	}
	s := &schema{typ: t, byName: map[string]*field{}}

	// Group by attribute name: the shallowest field wins (Go's embedding
	// rule, as in attributevalue and encoding/json); two at the same depth
	// are an error here, where attributevalue would silently drop both.
	sort.SliceStable(all, func(i, j int) bool {
		if all[i].name != all[j].name {
			return all[i].name < all[j].name
		}
		return all[i].depth < all[j].depth
	})
	for i := 0; i < len(all); {
		j := i + 1
		for j < len(all) && all[j].name == all[i].name {
			j++
		}
		group := all[i:j]
		if len(group) > 1 && group[1].depth == group[0].depth {
			return nil, fail(group[1].goPath, "attribute name %q is also used by %s; rename one with a tag", group[0].name, group[0].goPath)
		}
		for _, hidden := range group[1:] {
			if hidden.tag.hash || hidden.tag.rng || hidden.tag.version || hidden.tag.ttl || len(hidden.indexes) > 0 {
				return nil, fail(hidden.goPath, "is hidden by %s (same attribute name %q), but carries a hash, range, version, ttl or index option", group[0].goPath, group[0].name)
			}
		}
		s.fields = append(s.fields, group[0])
		i = j
	}
	sort.Slice(s.fields, func(i, j int) bool { return lessIndex(s.fields[i].index, s.fields[j].index) })

	for _, f := range s.fields {
		s.byName[f.name] = f
		if f.name == "" {
			return nil, fail(f.goPath, "empty attribute name")
		}
		switch {
		case f.tag.hash:
			if s.hash != nil {
				return nil, fail(f.goPath, "second hash key (the first is %s)", s.hash.goPath)
			}
			s.hash = f
		case f.tag.rng:
			if s.rng != nil {
				return nil, fail(f.goPath, "second range key (the first is %s)", s.rng.goPath)
			}
			s.rng = f
		case f.tag.version:
			if s.version != nil {
				return nil, fail(f.goPath, "second version field (the first is %s)", s.version.goPath)
			}
			s.version = f
		default:
			continue
		}
		if f.viaPtr {
			return nil, fail(f.goPath, "key and version fields must not be reached through an embedded pointer (it may be nil)")
		}
		if f.tag.version {
			if !isInteger(f.typ.Kind()) {
				return nil, fail(f.goPath, "the version field must be an integer (int, int64, uint32, ...), not %v", f.typ)
			}
			if opts := f.tag.avOptions(); len(opts) > 0 {
				return nil, fail(f.goPath, "the version field takes no other options, got %s", strings.Join(opts, ","))
			}
			continue
		}
		if _, err := keyType(f.typ, f.tag); err != nil {
			return nil, fail(f.goPath, "%v", err)
		}
		if f.tag.omitEmpty || f.tag.nullEmpty || f.tag.omitEmptyElem || f.tag.nullEmptyElem || f.tag.isSet() {
			return nil, fail(f.goPath, "a key attribute cannot take %s", strings.Join(f.tag.avOptions(), ","))
		}
	}
	if entity {
		return s, s.entityFields()
	}
	if s.hash == nil {
		return nil, fail("", "no hash key: tag one field `dynamo:\",hash\"`")
	}
	s.keys = []*field{s.hash}
	if s.rng != nil {
		s.keys = append(s.keys, s.rng)
	}
	if err := s.buildTTL(); err != nil {
		return nil, err
	}
	if err := s.buildIndexes(); err != nil {
		return nil, err
	}
	return s, nil
}

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
				sf := e.typ.Field(i)
				goPath := sf.Name
				if e.goPath != "" {
					goPath = e.goPath + "." + sf.Name
				}
				fail := func(format string, args ...any) error {
					return &SchemaError{Type: t, Field: goPath, Problem: fmt.Sprintf(format, args...)}
				}
				dyn, hasDyn := sf.Tag.Lookup(TagKey)
				if !sf.IsExported() && !sf.Anonymous {
					if hasDyn && dyn != "-" {
						return nil, fail("unexported field has a %s tag, but unexported fields are never stored; export it or remove the tag", TagKey)
					}
					continue
				}
				var tg tag
				if av, ok := sf.Tag.Lookup("dynamodbav"); ok {
					tg = parseAVTag(av)
				}
				if hasDyn {
					dt, err := parseTag(dyn)
					if err != nil {
						return nil, fail("tag %q: %v", dyn, err)
					}
					tg = mergeTags(tg, dt)
				}
				idx, err := parseIndexTags(sf.Tag)
				if err != nil {
					return nil, fail("%v", err)
				}
				if tg.skip {
					if len(idx) > 0 {
						return nil, fail("a field skipped with \"-\" cannot be an index key")
					}
					continue
				}
				ft := sf.Type
				if ft.Name() == "" && ft.Kind() == reflect.Pointer {
					ft = ft.Elem()
				}
				index := append(append([]int(nil), e.index...), i)
				if sf.Anonymous && tg.name == "" && ft.Kind() == reflect.Struct {
					// Flattened: its fields are promoted.
					if tg.hash || tg.rng || tg.version || tg.ttl || len(idx) > 0 || len(tg.avOptions()) > 0 {
						return nil, fail("options on an embedded struct are ignored when its fields are promoted; tag the fields inside, or give the struct an attribute name")
					}
					if prev, dup := queued[ft]; dup {
						return nil, fail("%v is embedded twice at the same depth (also at %s): its fields would be ambiguous", ft, prev)
					}
					queued[ft] = goPath
					next = append(next, embedded{typ: ft, index: index, goPath: goPath, viaPtr: e.viaPtr || sf.Type.Kind() == reflect.Pointer})
					continue
				}
				if !sf.IsExported() {
					return nil, fail("unexported embedded field cannot be stored; export it or tag it `%s:\"-\"`", TagKey)
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
					return nil, fail("%v", err)
				}
				f.info = info
				out = append(out, f)
			}
		}
	}
	return out, nil
}

// mergeTags applies a `dynamo` tag over a `dynamodbav` one as attributevalue
// does: the name (and "-") come from the later tag, options accumulate.
func mergeTags(av, dyn tag) tag {
	dyn.omitEmpty = dyn.omitEmpty || av.omitEmpty
	dyn.omitEmptyElem = dyn.omitEmptyElem || av.omitEmptyElem
	dyn.nullEmpty = dyn.nullEmpty || av.nullEmpty
	dyn.nullEmptyElem = dyn.nullEmptyElem || av.nullEmptyElem
	dyn.asString = dyn.asString || av.asString
	dyn.binarySet = dyn.binarySet || av.binarySet
	dyn.numberSet = dyn.numberSet || av.numberSet
	dyn.stringSet = dyn.stringSet || av.stringSet
	dyn.unixTime = dyn.unixTime || av.unixTime
	return dyn
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

// isIndexKey reports whether the attribute name is a key of a secondary
// index T's tags name (not of the table itself).
func (s *schema) isIndexKey(name string) bool {
	for _, ix := range s.indexes {
		if (ix.hash != nil && ix.hash.name == name && ix.hash != s.hash) || (ix.rng != nil && ix.rng.name == name) {
			return true
		}
	}
	return false
}
