package mapper

import (
	"fmt"
	"reflect"
	"sort"
	"strings"
	"sync"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/optimist-dynamo/optimist/internal/attrs"
)

// SchemaError describes why a struct type cannot be mapped to a table.
type SchemaError struct {
	Type    reflect.Type // the struct type given to NewTable
	Field   string       // Go field path, e.g. "Base.ID"; empty for the whole type
	Problem string       // what is wrong, and usually how to fix it
}

func (e *SchemaError) Error() string {
	if e == nil {
		return "<nil SchemaError>"
	}
	if e.Field == "" {
		return fmt.Sprintf("mapper: %v: %s", e.Type, e.Problem)
	}
	return fmt.Sprintf("mapper: %v.%s: %s", e.Type, e.Field, e.Problem)
}

// Is reports whether target is [ErrInvalidSchema].
func (e *SchemaError) Is(target error) bool { return target == ErrInvalidSchema }

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

// buildSchema reads the struct type t: its visible fields, their roles
// (hash key, range key, version, ttl) and the secondary indexes its tags
// name.
func buildSchema(t reflect.Type) (*schema, error) { return buildSchemaOf(t, false) }

// buildSchemaOf builds the schema of t; for an entity (entity.go) the keys
// come from templates, so key and index tags are refused and no hash key
// is needed.
func buildSchemaOf(t reflect.Type, entity bool) (*schema, error) {
	if t.Kind() != reflect.Struct {
		if t.Kind() == reflect.Pointer && t.Elem().Kind() == reflect.Struct {
			return nil, schemaError(t, "", "use the struct type itself, NewTable[%v], not a pointer", t.Elem())
		}
		return nil, schemaError(t, "", "a table maps a struct type, not %v", t.Kind())
	}
	all, err := enumFields(t)
	if err != nil {
		return nil, err
	}
	s := &schema{typ: t, byName: map[string]*field{}}
	if s.fields, err = visibleFields(t, all); err != nil {
		return nil, err
	}
	for _, f := range s.fields {
		s.byName[f.name] = f
		if err := s.takeRole(f); err != nil {
			return nil, err
		}
	}
	if entity {
		return s, s.entityFields()
	}
	if s.hash == nil {
		return nil, schemaError(t, "", "no hash key: tag one field `dynamo:\",hash\"`")
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

func schemaError(t reflect.Type, field, format string, args ...any) error {
	return &SchemaError{Type: t, Field: field, Problem: fmt.Sprintf(format, args...)}
}

// visibleFields returns the fields of all that are stored, in declaration
// order: of the fields sharing an attribute name, the shallowest wins (Go's
// embedding rule, as in attributevalue and encoding/json); two at the same
// depth are an error here, where attributevalue would silently drop both.
func visibleFields(t reflect.Type, all []*field) ([]*field, error) {
	groups := nameGroups(all)
	visible := make([]*field, 0, len(groups))
	for _, group := range groups {
		if len(group) > 1 && group[1].depth == group[0].depth {
			return nil, schemaError(t, group[1].goPath, "attribute name %q is also used by %s; rename one with a tag", group[0].name, group[0].goPath)
		}
		for _, hidden := range group[1:] {
			if hidden.tag.hash || hidden.tag.rng || hidden.tag.version || hidden.tag.ttl || len(hidden.indexes) > 0 {
				return nil, schemaError(t, hidden.goPath, "is hidden by %s (same attribute name %q), but carries a hash, range, version, ttl or index option", group[0].goPath, group[0].name)
			}
		}
		visible = append(visible, group[0])
	}
	inDeclarationOrder(visible)
	return visible, nil
}

// nameGroups returns the fields of all grouped by attribute name, the
// groups in name order, each shallowest first: Go's embedding rule keeps a
// group's first field, unless its second is as shallow.
func nameGroups(all []*field) [][]*field {
	sort.SliceStable(all, func(i, j int) bool {
		if all[i].name != all[j].name {
			return all[i].name < all[j].name
		}
		return all[i].depth < all[j].depth
	})
	var groups [][]*field
	for i := 0; i < len(all); {
		j := i + 1
		for j < len(all) && all[j].name == all[i].name {
			j++
		}
		groups = append(groups, all[i:j])
		i = j
	}
	return groups
}

// inDeclarationOrder sorts fields by their place in the struct.
func inDeclarationOrder(fields []*field) {
	sort.Slice(fields, func(i, j int) bool { return lessIndex(fields[i].index, fields[j].index) })
}

// takeRole records f as the hash key, range key or version field if its
// tag says so, and checks that it can be one.
func (s *schema) takeRole(f *field) error {
	fail := func(format string, args ...any) error { return schemaError(s.typ, f.goPath, format, args...) }
	if f.name == "" {
		return fail("empty attribute name")
	}
	switch {
	case f.tag.hash:
		if s.hash != nil {
			return fail("second hash key (the first is %s)", s.hash.goPath)
		}
		s.hash = f
	case f.tag.rng:
		if s.rng != nil {
			return fail("second range key (the first is %s)", s.rng.goPath)
		}
		s.rng = f
	case f.tag.version:
		if s.version != nil {
			return fail("second version field (the first is %s)", s.version.goPath)
		}
		s.version = f
	default:
		return nil
	}
	if f.viaPtr {
		return fail("key and version fields must not be reached through an embedded pointer (it may be nil)")
	}
	if f.tag.version {
		if !isInteger(f.typ.Kind()) {
			return fail("the version field must be an integer (int, int64, uint32, ...), not %v", f.typ)
		}
		if opts := f.tag.avOptions(); len(opts) > 0 {
			return fail("the version field takes no other options, got %s", strings.Join(opts, ","))
		}
		return nil
	}
	if _, err := keyType(f.typ, f.tag); err != nil {
		return fail("%v", err)
	}
	if f.tag.omitEmpty || f.tag.nullEmpty || f.tag.omitEmptyElem || f.tag.nullEmptyElem || f.tag.isSet() {
		return fail("a key attribute cannot take %s", strings.Join(f.tag.avOptions(), ","))
	}
	return nil
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

// keyString identifies the primary key of an item (or key): two items have
// the same keyString exactly when DynamoDB takes their keys as equal
// (attrs.SameKeyValue for each key attribute). It lets batch calls match
// what DynamoDB returns (found items, unprocessed keys and items) to what
// was sent, and Modify calls on one key take turns.
func (s *schema) keyString(item map[string]types.AttributeValue) string {
	var b []byte
	for _, f := range s.keys {
		b = attrs.AppendKeyValue(b, item[f.name])
	}
	return string(b)
}

// keyFrom returns the key attributes of an encoded item.
func (s *schema) keyFrom(item map[string]types.AttributeValue) map[string]types.AttributeValue {
	key := make(map[string]types.AttributeValue, len(s.keys))
	for _, f := range s.keys {
		key[f.name] = item[f.name]
	}
	return key
}

// buildTTL finds and checks the field tagged ttl: at most one, stored as a
// number of epoch seconds (an integer, or a time.Time tagged unixtime),
// optionally through a pointer (items without it never expire).
func (s *schema) buildTTL() error {
	for _, f := range s.fields {
		if !f.tag.ttl {
			continue
		}
		fail := func(format string, args ...any) error {
			return &SchemaError{Type: s.typ, Field: f.goPath, Problem: fmt.Sprintf(format, args...)}
		}
		if s.ttl != nil {
			return fail("second ttl field (the first is %s)", s.ttl.goPath)
		}
		s.ttl = f
		t := f.typ
		if t.Kind() == reflect.Pointer {
			t = t.Elem()
		}
		switch {
		case implementsMarshaler(f.typ) || implementsMarshaler(t):
			return fail("the ttl field must be an integer or a time.Time tagged unixtime, not a type with its own encoding (%v)", f.typ)
		case t.Kind() == reflect.Struct && t.ConvertibleTo(timeType):
			if !f.tag.unixTime {
				return fail("DynamoDB's TTL reads epoch seconds: tag the time.Time ttl field unixtime, `dynamo:\"%s,ttl,unixtime\"`", f.name)
			}
		case isInteger(t.Kind()):
			if f.tag.asString {
				return fail("the ttl field must be stored as a number, not with the string option")
			}
		default:
			return fail("the ttl field must be an integer of epoch seconds or a time.Time tagged unixtime, not %v", f.typ)
		}
		if f.tag.isSet() || f.tag.nullEmpty {
			return fail("the ttl field cannot take %s", strings.Join(f.tag.avOptions(), ","))
		}
	}
	return nil
}

// goNamed returns the field whose Go name (its path, or its last element)
// is name while it is stored under another attribute name, and no field is
// stored as name; nil otherwise. An update path that begins with it is
// almost always a slip for the attribute's name.
func (s *schema) goNamed(name string) *field {
	if s.byName[name] != nil {
		return nil
	}
	for _, f := range s.fields {
		if (f.goPath == name || f.goPath[strings.LastIndexByte(f.goPath, '.')+1:] == name) && f.name != name {
			return f
		}
	}
	return nil
}
