package mapper

import (
	"fmt"
	"reflect"
	"strings"
	"sync"

	"github.com/optimist-dynamo/optimist/internal/keytmpl"
)

// The rules that keep two items of a design from rendering one key: a
// verb must spell the field's value without losing any of it, and two
// entity types of one design must not have key templates that can render
// the same table key. (Within one template, keytmpl.Render refuses a value
// that holds its placeholder's stop byte.)

// checkVerb refuses a template verb that does not fit the field f: one
// fmt would print as an error ("%!d(string=c1)"), or one that loses part
// of the value, so that two values would render one key (a precision or
// width on a string, a precision or a fixed-digit verb on a float, %c).
// A field written with MarshalText takes no verb.
func checkVerb(f *field, verb string) error {
	if verb == "" {
		return nil
	}
	t := f.typ
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	c := verb[len(verb)-1]
	flags := verb[1 : len(verb)-1]
	sized := strings.TrimLeft(flags, "+-# 0") != "" // a width or a precision
	precise := strings.Contains(flags, ".")
	var ok bool
	var why string
	switch {
	case t.Implements(textMarshalerType) || reflect.PointerTo(t).Implements(textMarshalerType):
		why = "is written with MarshalText, which takes no verb"
	case t.Kind() == reflect.String:
		ok, why = strings.IndexByte("svqxX", c) >= 0 && !sized, "takes %s, %v, %q, %x or %X, without width or precision (they would pad or cut the value)"
	case t.Kind() == reflect.Bool:
		ok, why = strings.IndexByte("tv", c) >= 0 && !sized, "takes %t or %v"
	case isInteger(t.Kind()):
		ok, why = strings.IndexByte("dvboOxX", c) >= 0, "takes %d, %v, %b, %o, %O, %x or %X (with flags, width and precision)"
	case t.Kind() == reflect.Float32 || t.Kind() == reflect.Float64:
		ok, why = strings.IndexByte("vgGbxX", c) >= 0 && !precise, "takes %v, %g, %G, %b, %x or %X, without precision (others round the value)"
	default:
		why = "takes no verb"
	}
	if ok {
		return nil
	}
	return fmt.Errorf("%w: the template verb %s does not fit field %s (a %v): a %v field %s", ErrInvalidOption, verb, f.goPath, f.typ, t, why)
}

// designKey names a design's table key for the process: the entity types
// declared on it so far are checked against each new one.
type designKey struct{ table, pk, sk, typeAttr string }

// declared is an entity type's table key templates, as NewEntity saw them.
type declared struct {
	typ    string
	pk, sk *keytmpl.Template
}

// designs holds, per design, the entity types NewEntity made (one entry
// per type and pair of templates): a process-wide record, since the
// entities of one design are made one by one, often in different places.
var designs struct {
	sync.Mutex
	m map[designKey][]declared
}

// declare records e's key templates for its design, refusing them when
// they can render a key that another entity type of the design renders.
func (e *entity) declare() error {
	k := designKey{e.d.Table, e.d.PK, e.d.SK, e.d.TypeAttr}
	designs.Lock()
	defer designs.Unlock()
	for _, o := range designs.m[k] {
		if o.typ == e.typ {
			if o.pk.String() == e.pk.String() && (o.sk == nil) == (e.sk == nil) && (o.sk == nil || o.sk.String() == e.sk.String()) {
				return nil // the same entity made again
			}
			continue
		}
		if err := keysOverlap(e.typ, e.pk, e.sk, o.typ, o.pk, o.sk); err != nil {
			return err
		}
	}
	if designs.m == nil {
		designs.m = map[designKey][]declared{}
	}
	designs.m[k] = append(designs.m[k], declared{typ: e.typ, pk: e.pk, sk: e.sk})
	return nil
}

// keysOverlap refuses two entity types whose table keys can be one: their
// PK templates can render one value, and so can their SK templates (or
// the table has none).
func keysOverlap(typA string, pkA, skA *keytmpl.Template, typB string, pkB, skB *keytmpl.Template) error {
	if !keytmpl.Overlap(pkA, pkB) || (skA != nil && skB != nil && !keytmpl.Overlap(skA, skB)) {
		return nil
	}
	keys := func(pk, sk *keytmpl.Template) string {
		if sk == nil {
			return fmt.Sprintf("%q", pk)
		}
		return fmt.Sprintf("%q / %q", pk, sk)
	}
	return fmt.Errorf("%w: entity %s (%s) and entity %s (%s) can render the same table key, so one could overwrite the other: begin each entity's PK or SK template with its own literal prefix (\"CUSTOMER#\", \"ORDER#\")",
		ErrInvalidOption, typA, keys(pkA, skA), typB, keys(pkB, skB))
}
