package mapper

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/optimist-dynamo/optimist/internal/attrs"
	"github.com/optimist-dynamo/optimist/internal/keytmpl"
)

// DefaultTypeAttr is the attribute naming each item's entity type when a
// [Design] leaves TypeAttr empty.
const DefaultTypeAttr = "_type"

// Design is the layout of one table shared by several entity types
// (single-table design): its key attributes, the attribute that names each
// item's type, and its overloaded indexes. Every key attribute is a string
// (S), rendered from each entity's templates. A Design is a value: declare
// it once and pass it to [NewEntity] for each type, and to
// [Design.CreateTable] and [Design.Check].
type Design struct {
	Table    string            // the table's name
	PK, SK   string            // the table's key attributes; SK "" for a table without a sort key
	TypeAttr string            // the attribute naming each item's type; "" for DefaultTypeAttr
	TTL      string            // the table's TTL attribute, "" for none (an entity's ttl field must be stored under it)
	Indexes  []OverloadedIndex // global secondary indexes whose keys each entity fills from its templates
}

// OverloadedIndex is a global secondary index of a [Design] whose key
// attributes are generic ("gsi1pk", "gsi1sk"): each entity that is in the
// index renders them from its own templates ([Entity].Indexes), and the
// items of an entity that is not are not in the index (a sparse index). Both
// attributes are strings (S); SK may be "" for an index without a sort key.
// [Design.CreateTable] creates it with projection ALL, so that a collection
// query of the index returns whole items.
type OverloadedIndex struct{ Name, PK, SK string }

// Entity declares one struct type of a [Design]: the value of its type
// attribute, and the templates of its keys.
type Entity struct {
	Type    string          // the type attribute's value, e.g. "Order"; unique in the design
	Key     Keys            // templates of the table's key
	Indexes map[string]Keys // templates of the design's indexes this entity is in, by index name
}

// Keys are the key templates of an entity, for the table or for one index:
// literal text and {Field} placeholders naming Go fields of the entity's
// struct, as in "CUSTOMER#{ID}" and "ORDER#{Date}#{ID}". A placeholder may
// carry a fmt verb, "{Total:%010d}", so that numbers sort as text; "{{" and
// "}}" are literal braces. Without a verb a string field is written as is,
// an integer in decimal, an encoding.TextMarshaler (time.Time among them)
// through MarshalText, anything else with fmt.Sprint. An empty value (an
// empty string, a nil pointer) in a table key template is refused, since
// the key could not tell an unset field from a set one: the call is an
// error matching [ErrInvalidItem] and nothing is sent. In an index
// template it leaves the item out of that index (a sparse index): neither
// index attribute is written, as for an empty tagged index key.
//
// Two items with different key field values never render one key. Within
// a template, a placeholder's value may not hold the first byte of the
// literal text that follows it ('#' for Order in "ORDER#{Order}#ITEM#{SKU}";
// the last placeholder, with nothing after it, may hold anything): reading
// the key from the left, each value then ends where that byte first
// appears, so the key gives back every value. A value that holds it is
// refused before sending with an error matching [ErrInvalidItem] that names
// the field. A verb must fit its field and keep the whole value: %s, %v,
// %q, %x or %X for a string (no width or precision, which pad or cut);
// %d, %v, %b, %o, %O, %x or %X for an integer (flags, width and precision
// allowed); %v, %g, %G, %b, %x or %X for a float (no precision); %t or %v
// for a bool; none for a field written with MarshalText. Any other is
// refused by [NewEntity] with [ErrInvalidOption], naming the verb and the
// field. Across entity types, see [NewEntity].
type Keys struct{ PK, SK string }

// ErrWrongType is the class of [*WrongTypeError].
var ErrWrongType = errors.New("mapper: item of another entity type")

// WrongTypeError is returned when a read through an entity's table meets an
// item of another type under the key it asked for ([Table.Get],
// [Table.GetAll], [Table.Modify], the item an [Table.Update] returns). The
// item is never decoded into the wrong struct. Query and Scan through an
// entity's table do not meet it: they filter on the type attribute.
type WrongTypeError struct {
	Table string
	Key   map[string]types.AttributeValue
	Want  string // the table's entity type
	Got   string // the item's type attribute; "" when it has none
}

func (e *WrongTypeError) Error() string {
	if e == nil {
		return "<nil WrongTypeError>"
	}
	got := strconv.Quote(e.Got)
	if e.Got == "" {
		got = "no type"
	}
	return fmt.Sprintf("mapper: %s %s holds an item of type %s, not %q", e.Table, attrs.FormatKey(e.Key), got, e.Want)
}

// Is reports whether target is [ErrWrongType].
func (e *WrongTypeError) Is(target error) bool { return target == ErrWrongType }

// entity is what a Table of an entity type knows beyond its schema: the
// design, its type and its templates. A nil *entity is a plain table, and
// every method below then does nothing, so the hooks in the mapper's common
// paths are one line each.
type entity struct {
	d       Design
	typ     string
	typeAV  *types.AttributeValueMemberS
	pk, sk  *keytmpl.Template // sk nil without a table sort key
	hashF   *field            // synthetic fields of the rendered keys
	rngF    *field
	indexes []entIndex // the design's indexes this entity is in
	// keyFields are the fields the table key templates name: they are the
	// key of a struct (withKey copies them) and Update may not change them.
	keyFields []*field
	// fixed: the attributes of fields an Update may not change, since a
	// rendered attribute depends on them.
	fixed map[string]string
	// extra: the attributes the entity writes besides its fields (type,
	// index keys), for Save.
	extra []string
}

type entIndex struct {
	name           string
	pkAttr, skAttr string
	pk, sk         *keytmpl.Template
	keyOnly        bool // its templates use only key fields: Update can set it
}

// entityFields checks a schema built for an entity: its keys come from
// templates, so it has no key or index tags.
func (s *schema) entityFields() error {
	for _, f := range s.fields {
		if f.tag.hash || f.tag.rng || len(f.indexes) > 0 {
			return &SchemaError{Type: s.typ, Field: f.goPath, Problem: "an entity's keys come from its templates (Entity.Key, Entity.Indexes): remove the hash, range or index tag"}
		}
	}
	return s.buildTTL()
}

// NewEntity returns the Table of the entity type T in the design d: a
// [Table] whose keys are rendered from e's templates rather than tagged
// fields, and whose items carry the type attribute (d.TypeAttr = e.Type).
// Everything a Table does, it does: versions, conditions, [Table.Update],
// [Table.Modify], [ExactlyOnce], transaction and unit ops, cursors, Check.
//
// Writes store T's fields and the rendered key, index attributes and type.
// An [Table.Update] also sets the type, the key fields and the index
// attributes whose templates use only key fields (so an upsert is a whole,
// typed key); an Update of a field that a template uses is refused
// ([ErrInvalidOption]: the rendered attribute would go stale; use Put,
// Save or Modify). Get of a key that holds an item of another type is a
// [*WrongTypeError]; Query, Scan and Count skip items of other types with a
// FilterExpression on the type attribute (they are still read and paid
// for). To read several types in one Query, see [NewCollection].
//
// Items of two entity types must not share a key: give each entity
// templates that begin with its own literal prefix ("CUSTOMER#", "ORDER#").
// NewEntity enforces it: it records, for the process, the key templates of
// each entity type of a design (its table, key attributes and type
// attribute), and refuses ([ErrInvalidOption]) an entity type whose table
// key templates can render a key that another type's render (both PK
// templates can render one value, and both SK templates can), under the
// rules of [Keys]; [NewCollection] makes the same check among its members.
// Index keys are not checked: DynamoDB lets items share an index key, and
// an overloaded index holds several types in one partition by design.
// Writes do not check the stored item's type.
//
// NewEntity fails with an error matching [ErrInvalidSchema] when T has
// hash, range or index tags, a template names no field of T (or its
// version field), the design's attributes clash with each other or with
// T's, or T's ttl field is not stored under d.TTL; and with
// [ErrInvalidOption] for an incomplete design or entity, a template verb
// that does not fit its field, or key templates that can render another
// entity type's key. It makes no call.
func NewEntity[T any](c Client, d Design, e Entity, opts ...func(*TableOptions)) (*Table[T], error) {
	typ := reflect.TypeOf((*T)(nil)).Elem()
	s, err := buildSchemaOf(typ, true)
	if err != nil {
		return nil, err
	}
	if d.TypeAttr == "" {
		d.TypeAttr = DefaultTypeAttr
	}
	ent, err := newEntity(s, d, e)
	if err != nil {
		return nil, err
	}
	t, err := newTable[T](c, d.Table, s, opts)
	if err != nil {
		return nil, err
	}
	if tok := t.opts.TokenAttribute; tok != "" && slices.Contains(ent.attrNames(), tok) {
		return nil, fmt.Errorf("%w: attribute %q is the design's and the table's write-token attribute; set TableOptions.TokenAttribute", ErrInvalidSchema, tok)
	}
	if err := ent.declare(); err != nil {
		return nil, fmt.Errorf("NewEntity[%v]: %w", typ, err)
	}
	return t, nil
}

// newEntity checks d and e against the schema s and completes s with the
// synthetic key fields and indexes of the design.
func newEntity(s *schema, d Design, e Entity) (*entity, error) {
	if err := checkEntity(s, d, e); err != nil {
		return nil, err
	}
	designIx, err := claimDesign(s, d)
	if err != nil {
		return nil, err
	}
	ent := &entity{d: d, typ: e.Type, typeAV: &types.AttributeValueMemberS{Value: e.Type}, fixed: map[string]string{}}
	isKey, err := ent.setKeys(s, d, e)
	if err != nil {
		return nil, err
	}
	if err := ent.setIndexes(s, d, e, designIx, isKey); err != nil {
		return nil, err
	}
	s.ent = ent
	return ent, nil
}

// badEntity is NewEntity's refusal of an option or argument.
func badEntity(s *schema, format string, args ...any) error {
	return fmt.Errorf("%w: NewEntity[%v]: "+format, append([]any{ErrInvalidOption, s.typ}, args...)...)
}

// checkEntity checks that the design and the entity name what an entity
// needs: a table, a PK attribute, a type, and a template for each key
// attribute the design has.
func checkEntity(s *schema, d Design, e Entity) error {
	switch {
	case d.Table == "" || d.PK == "":
		return badEntity(s, "the design needs a table name and a PK attribute")
	case e.Type == "":
		return badEntity(s, "the entity needs a Type")
	case e.Key.PK == "":
		return badEntity(s, "entity %s needs a PK template", e.Type)
	case d.SK != "" && e.Key.SK == "":
		return badEntity(s, "entity %s needs an SK template: the table has the sort key %q", e.Type, d.SK)
	case d.SK == "" && e.Key.SK != "":
		return badEntity(s, "entity %s has an SK template, but the design has no sort key", e.Type)
	}
	return nil
}

// claimDesign checks the design's attribute names: distinct, none a field
// of T, and T's ttl field stored under the design's TTL attribute. It
// returns the design's indexes by name.
func claimDesign(s *schema, d Design) (map[string]OverloadedIndex, error) {
	used := map[string]string{}
	claim := func(name, what string) error {
		if name == "" {
			return nil
		}
		if prev, dup := used[name]; dup {
			return &SchemaError{Type: s.typ, Problem: fmt.Sprintf("design attribute %q is both %s and %s", name, prev, what)}
		}
		used[name] = what
		if f := s.byName[name]; f != nil {
			return &SchemaError{Type: s.typ, Field: f.goPath, Problem: fmt.Sprintf("attribute %q is the design's %s; rename the field with a tag", name, what)}
		}
		return nil
	}
	if err := errors.Join(claim(d.PK, "table PK"), claim(d.SK, "table SK"), claim(d.TypeAttr, "type attribute")); err != nil {
		return nil, err
	}
	designIx := map[string]OverloadedIndex{}
	for _, ix := range d.Indexes {
		if ix.Name == "" || ix.PK == "" {
			return nil, badEntity(s, "an overloaded index needs a name and a PK attribute")
		}
		if _, dup := designIx[ix.Name]; dup {
			return nil, badEntity(s, "index %q declared twice", ix.Name)
		}
		designIx[ix.Name] = ix
		if err := errors.Join(claim(ix.PK, "PK of index "+ix.Name), claim(ix.SK, "SK of index "+ix.Name)); err != nil {
			return nil, err
		}
	}
	if s.ttl != nil && s.ttl.name != d.TTL {
		return nil, &SchemaError{Type: s.typ, Field: s.ttl.goPath, Problem: fmt.Sprintf("the ttl field is stored as %q, but the design's TTL attribute is %q", s.ttl.name, d.TTL)}
	}
	return designIx, nil
}

// parseTemplate parses the template src (what names it in errors) and
// finds the fields of T its placeholders name; nil for an empty src.
func (s *schema) parseTemplate(src, what string) (*keytmpl.Template, []*field, error) {
	if src == "" {
		return nil, nil, nil
	}
	tm, err := keytmpl.Parse(src)
	if err != nil {
		return nil, nil, &SchemaError{Type: s.typ, Problem: fmt.Sprintf("%s: %v", what, err)}
	}
	var fs []*field
	for _, name := range tm.Fields() {
		f, err := s.templateField(name)
		if err != nil {
			return nil, nil, &SchemaError{Type: s.typ, Problem: fmt.Sprintf("%s %q: %v", what, src, err)}
		}
		fs = append(fs, f)
	}
	for _, p := range tm.Parts() {
		if p.Field == "" {
			continue
		}
		f, _ := s.templateField(p.Field)
		if err := checkVerb(f, p.Verb); err != nil {
			return nil, nil, fmt.Errorf("NewEntity[%v]: %s %q: %w", s.typ, what, src, err)
		}
	}
	return tm, fs, nil
}

// setKeys parses the key templates and makes the design's key attributes
// the schema's keys (stand-in fields, rendered from the templates). It
// returns the fields the key templates use.
func (ent *entity) setKeys(s *schema, d Design, e Entity) (map[*field]bool, error) {
	var pkF, skF []*field
	var err error
	if ent.pk, pkF, err = s.parseTemplate(e.Key.PK, "the PK template"); err != nil {
		return nil, err
	}
	if ent.sk, skF, err = s.parseTemplate(e.Key.SK, "the SK template"); err != nil {
		return nil, err
	}
	isKey := map[*field]bool{}
	for _, f := range append(pkF, skF...) {
		if !isKey[f] {
			isKey[f] = true
			ent.keyFields = append(ent.keyFields, f)
			ent.fixed[f.name] = "a field of the key templates"
		}
	}
	ent.hashF = &field{name: d.PK, goPath: "key template " + strconv.Quote(e.Key.PK), typ: stringType, tag: tag{name: d.PK, hash: true}}
	s.hash, s.keys = ent.hashF, []*field{ent.hashF}
	if ent.sk != nil {
		ent.rngF = &field{name: d.SK, goPath: "key template " + strconv.Quote(e.Key.SK), typ: stringType, tag: tag{name: d.SK, rng: true}}
		s.rng, s.keys = ent.rngF, append(s.keys, ent.rngF)
	}
	ent.extra = append(ent.extra, d.TypeAttr)
	return isKey, nil
}

// setIndexes adds every index of the design to the schema (Check compares
// them all, whether or not this entity is in one), and parses the
// templates of those the entity is in. isKey holds the fields of the key
// templates: an index whose templates use only those is filled by Update.
func (ent *entity) setIndexes(s *schema, d Design, e Entity, designIx map[string]OverloadedIndex, isKey map[*field]bool) error {
	for name := range e.Indexes {
		if _, ok := designIx[name]; !ok {
			return badEntity(s, "entity %s names index %q, which the design does not declare", e.Type, name)
		}
	}
	for _, dix := range d.Indexes {
		ix := &index{name: dix.Name,
			hash: &field{name: dix.PK, goPath: "index " + dix.Name + " PK", typ: stringType, tag: tag{name: dix.PK}}}
		if dix.SK != "" {
			ix.rng = &field{name: dix.SK, goPath: "index " + dix.Name + " SK", typ: stringType, tag: tag{name: dix.SK}}
		}
		s.indexes = append(s.indexes, ix)
		ent.extra = append(ent.extra, dix.PK)
		if dix.SK != "" {
			ent.extra = append(ent.extra, dix.SK)
		}
		k, in := e.Indexes[dix.Name]
		if !in {
			continue
		}
		switch {
		case k.PK == "":
			return badEntity(s, "entity %s: index %s needs a PK template", e.Type, dix.Name)
		case dix.SK != "" && k.SK == "":
			return badEntity(s, "entity %s: index %s needs an SK template (its sort key is %q)", e.Type, dix.Name, dix.SK)
		case dix.SK == "" && k.SK != "":
			return badEntity(s, "entity %s: index %s has no sort key, but an SK template is given", e.Type, dix.Name)
		}
		ei := entIndex{name: dix.Name, pkAttr: dix.PK, skAttr: dix.SK, keyOnly: true}
		var fs, fs2 []*field
		var err error
		if ei.pk, fs, err = s.parseTemplate(k.PK, "index "+dix.Name+" PK template"); err != nil {
			return err
		}
		if ei.sk, fs2, err = s.parseTemplate(k.SK, "index "+dix.Name+" SK template"); err != nil {
			return err
		}
		for _, f := range append(fs, fs2...) {
			if !isKey[f] {
				ei.keyOnly = false
				ent.fixed[f.name] = "a field of index " + dix.Name + "'s templates"
			}
		}
		ent.indexes = append(ent.indexes, ei)
	}
	return nil
}

var stringType = reflect.TypeOf("")

// templateField finds the field a placeholder names: by its Go path
// ("Base.ID"), or by the name a promoted field is known by in Go ("ID").
func (s *schema) templateField(name string) (*field, error) {
	var found *field
	for _, f := range s.fields {
		if f.goPath == name {
			found = f
			break
		}
	}
	if found == nil {
		for _, f := range s.fields {
			if f.goPath[strings.LastIndexByte(f.goPath, '.')+1:] == name {
				if found != nil {
					return nil, fmt.Errorf("{%s} is ambiguous (%s, %s): write the field's path", name, found.goPath, f.goPath)
				}
				found = f
			}
		}
	}
	switch {
	case found == nil:
		return nil, fmt.Errorf("{%s} names no stored field", name)
	case found.tag.version:
		return nil, fmt.Errorf("{%s} is the version field, which changes with every write", name)
	}
	t := found.typ
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if !t.Implements(textMarshalerType) && !reflect.PointerTo(t).Implements(textMarshalerType) {
		switch t.Kind() {
		case reflect.Struct, reflect.Map, reflect.Slice, reflect.Array, reflect.Interface, reflect.Chan, reflect.Func:
			return nil, fmt.Errorf("{%s} is a %v, which has no single spelling in a key (use a string, a number, or an encoding.TextMarshaler)", name, found.typ)
		}
	}
	return found, nil
}
