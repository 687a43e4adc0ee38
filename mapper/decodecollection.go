package mapper

import (
	"reflect"
	"strconv"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

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
