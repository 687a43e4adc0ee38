package mapper

import (
	"encoding"
	"fmt"
	"reflect"
	"strconv"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/optimist-dynamo/optimist/internal/keytmpl"
	"github.com/optimist-dynamo/optimist/internal/plan"
)

// The entity's part in the table's reads and writes: rendering its
// templates into the key, index and type attributes of an item, and the
// hooks the codec, reads, cursors, Update and Save call on a Table that is
// an entity (each a no-op for a plain Table).

// attrNames lists every attribute of the design.
func (e *entity) attrNames() []string {
	out := []string{e.d.PK, e.d.TypeAttr}
	if e.d.SK != "" {
		out = append(out, e.d.SK)
	}
	for _, ix := range e.d.Indexes {
		out = append(out, ix.PK)
		if ix.SK != "" {
			out = append(out, ix.SK)
		}
	}
	return out
}

// render renders tm for the struct v.
func (e *entity) render(tm *keytmpl.Template, s *schema, v reflect.Value) (string, error) {
	out, err := tm.Render(func(p keytmpl.Part) (string, error) {
		f, _ := s.templateField(p.Field) // checked by newEntity
		fv, ok := fieldByIndex(v, f.index)
		if !ok {
			return "", nil
		}
		return fieldText(fv, p.Verb)
	})
	if err != nil {
		return "", fmt.Errorf("%w: %s: %v", ErrInvalidItem, e.typ, err)
	}
	return out, nil
}

// anyEmpty reports whether a field tm names is empty in v.
func (e *entity) anyEmpty(tm *keytmpl.Template, s *schema, v reflect.Value) bool {
	for _, name := range tm.Fields() {
		f, _ := s.templateField(name)
		fv, ok := fieldByIndex(v, f.index)
		if !ok {
			return true
		}
		if txt, err := fieldText(fv, ""); err == nil && txt == "" {
			return true
		}
	}
	return false
}

// fieldText spells a field's value in a key.
func fieldText(fv reflect.Value, verb string) (string, error) {
	for fv.Kind() == reflect.Pointer {
		if fv.IsNil() {
			return "", nil
		}
		fv = fv.Elem()
	}
	if verb != "" {
		return fmt.Sprintf(verb, fv.Interface()), nil
	}
	if tm, ok := fv.Interface().(encoding.TextMarshaler); ok {
		b, err := tm.MarshalText()
		return string(b), err
	}
	if fv.CanAddr() {
		if tm, ok := fv.Addr().Interface().(encoding.TextMarshaler); ok {
			b, err := tm.MarshalText()
			return string(b), err
		}
	}
	switch {
	case fv.Kind() == reflect.String:
		return fv.String(), nil
	case isUnsigned(fv.Kind()):
		return strconv.FormatUint(fv.Uint(), 10), nil
	case isInteger(fv.Kind()):
		return strconv.FormatInt(fv.Int(), 10), nil
	}
	return fmt.Sprint(fv.Interface()), nil
}

// keyOf renders the table key of the struct v.
func (e *entity) keyOf(s *schema, v reflect.Value) (map[string]types.AttributeValue, error) {
	key := make(map[string]types.AttributeValue, 2)
	if err := e.put(key, e.hashF, e.pk, s, v); err != nil {
		return nil, err
	}
	if e.sk != nil {
		if err := e.put(key, e.rngF, e.sk, s, v); err != nil {
			return nil, err
		}
	}
	return key, nil
}

func (e *entity) put(m map[string]types.AttributeValue, f *field, tm *keytmpl.Template, s *schema, v reflect.Value) error {
	str, err := e.render(tm, s, v)
	if err != nil {
		return err
	}
	av := &types.AttributeValueMemberS{Value: str}
	if err := checkKeyAttr(f, av); err != nil {
		return err
	}
	m[f.name] = av
	return nil
}

// addAttrs adds to the encoded item m of v its rendered key, index
// attributes and type.
func (e *entity) addAttrs(s *schema, v reflect.Value, m map[string]types.AttributeValue) error {
	if e == nil {
		return nil
	}
	key, err := e.keyOf(s, v)
	if err != nil {
		return err
	}
	for k, av := range key {
		m[k] = av
	}
	m[e.d.TypeAttr] = e.typeAV
	for _, ix := range e.indexes {
		if err := e.indexAttrs(ix, s, v, m); err != nil {
			return err
		}
	}
	return nil
}

// indexAttrs adds the index attributes of v to m. A template whose field
// is empty leaves the item out of the index (neither attribute is
// written), as an empty tagged index key does: a sparse index.
func (e *entity) indexAttrs(ix entIndex, s *schema, v reflect.Value, m map[string]types.AttributeValue) error {
	for _, tm := range []*keytmpl.Template{ix.pk, ix.sk} {
		if tm != nil && e.anyEmpty(tm, s, v) {
			return nil
		}
	}
	pk, err := e.render(ix.pk, s, v)
	if err != nil {
		return fmt.Errorf("index %s: %w", ix.name, err)
	}
	m[ix.pkAttr] = &types.AttributeValueMemberS{Value: pk}
	if ix.sk != nil {
		sk, err := e.render(ix.sk, s, v)
		if err != nil {
			return fmt.Errorf("index %s: %w", ix.name, err)
		}
		m[ix.skAttr] = &types.AttributeValueMemberS{Value: sk}
	}
	return nil
}

// withKey copies the key fields of kv into out.
func (e *entity) withKey(kv, out reflect.Value) {
	for _, f := range e.keyFields {
		if src, ok := fieldByIndex(kv, f.index); ok {
			fieldForDecode(out, f.index).Set(src)
		}
	}
}

// checkType refuses an item of another type.
func (e *entity) checkType(table string, item map[string]types.AttributeValue) error {
	if e == nil {
		return nil
	}
	got, _ := item[e.d.TypeAttr].(*types.AttributeValueMemberS)
	if got != nil && got.Value == e.typ {
		return nil
	}
	we := &WrongTypeError{Table: table, Want: e.typ, Key: map[string]types.AttributeValue{}}
	if got != nil {
		we.Got = got.Value
	}
	for _, n := range []string{e.d.PK, e.d.SK} {
		if av := item[n]; av != nil {
			we.Key[n] = av
		}
	}
	return we
}

// typed adds to the filters of a Query or Scan the one on the type.
func (e *entity) typed(c *readConfig) {
	if e == nil {
		return
	}
	c.filters = append(c.filters[:len(c.filters):len(c.filters)],
		expression.Name(e.d.TypeAttr).Equal(expression.Value(e.typ)))
	e.indexKeys(c)
}

// indexKeys fills in the key attributes of an overloaded index read, so
// that [Index] needs only its name.
func (e *entity) indexKeys(c *readConfig) {
	if e == nil || c.index == "" || len(c.indexKeys) > 0 {
		return
	}
	for _, ix := range e.d.Indexes {
		if ix.Name == c.index {
			c.indexKeys = []string{ix.PK}
			if ix.SK != "" {
				c.indexKeys = append(c.indexKeys, ix.SK)
			}
		}
	}
}

// projected lists attributes a projection of an entity must include: the
// type (checked on decoding) and the key fields (the struct's key).
func (e *entity) projected() []string {
	if e == nil {
		return nil
	}
	out := []string{e.d.TypeAttr}
	for _, f := range e.keyFields {
		out = append(out, f.name)
	}
	return out
}

// cursorKeys adds the index key attributes of v that a cursor of an index
// read needs.
func (e *entity) cursorKeys(s *schema, v reflect.Value, names []string, key map[string]types.AttributeValue) error {
	if e == nil {
		return nil
	}
	m := map[string]types.AttributeValue{}
	for _, ix := range e.indexes {
		if err := e.indexAttrs(ix, s, v, m); err != nil {
			return err
		}
	}
	for _, n := range names {
		if key[n] == nil && m[n] != nil {
			key[n] = m[n]
		}
	}
	return nil
}

// refuseUpdate says why an Update may not change attr ("" if it may).
func (e *entity) refuseUpdate(attr string) string {
	if e == nil {
		return ""
	}
	if why, ok := e.fixed[attr]; ok {
		return why + " (use Put, Save or Modify)"
	}
	for _, n := range e.attrNames() {
		if n == attr {
			return "an attribute of the design"
		}
	}
	return ""
}

// updateActions are the actions an Update adds: the type, the key fields,
// and the index attributes rendered from key fields alone, so that an
// Update that creates the item leaves it whole and typed.
func (e *entity) updateActions(c *codec, kv reflect.Value) ([]plan.Action, error) {
	if e == nil {
		return nil, nil
	}
	acts := []plan.Action{plan.TopAction(plan.Set, e.d.TypeAttr, e.typeAV)}
	for _, f := range e.keyFields {
		fv, ok := fieldByIndex(kv, f.index)
		if !ok {
			continue
		}
		av, err := c.encodeField(c.byField[f], fv, &arena{})
		if err != nil {
			return nil, fmt.Errorf("mapper: encoding key field %s: %w", f.goPath, err)
		}
		if av != nil {
			acts = append(acts, plan.TopAction(plan.Set, f.name, av))
		}
	}
	for _, ix := range e.indexes {
		if !ix.keyOnly {
			continue
		}
		m := map[string]types.AttributeValue{}
		if err := e.indexAttrs(ix, c.s, kv, m); err != nil {
			return nil, err
		}
		if m[ix.pkAttr] == nil {
			continue
		}
		acts = append(acts, plan.TopAction(plan.Set, ix.pkAttr, m[ix.pkAttr]))
		if ix.sk != nil {
			acts = append(acts, plan.TopAction(plan.Set, ix.skAttr, m[ix.skAttr]))
		}
	}
	return acts, nil
}

// saveActions are the actions a Save adds for the design's attributes
// beyond the key: set those the item has, remove the others (an index the
// entity is not in).
func (e *entity) saveActions(av map[string]types.AttributeValue) []plan.Action {
	if e == nil {
		return nil
	}
	var acts []plan.Action
	for _, n := range e.extra {
		if v, ok := av[n]; ok {
			acts = append(acts, plan.TopAction(plan.Set, n, v))
		} else {
			acts = append(acts, plan.TopAction(plan.Remove, n, nil))
		}
	}
	return acts
}
