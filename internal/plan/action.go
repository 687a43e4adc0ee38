package plan

import (
	"encoding"
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"time"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/optimist-dynamo/optimist/internal/attrs"
)

// The errors of update actions, in three classes that package update
// exports (the same values), with their contracts; the finer errors wrap
// their class.
var (
	ErrInvalidPath  = errors.New("update: invalid path")
	ErrInvalidValue = errors.New("update: invalid value")
	ErrNoActions    = errors.New("update: no actions")

	ErrEmptyPath      = fmt.Errorf("%w: empty", ErrInvalidPath)
	ErrPathSyntax     = fmt.Errorf("%w: malformed", ErrInvalidPath)
	ErrOverlap        = fmt.Errorf("%w: overlapping paths", ErrInvalidPath)
	ErrNotNumberOrSet = fmt.Errorf("%w: Add needs a number or a set", ErrInvalidValue)
	ErrNotSet         = fmt.Errorf("%w: Delete needs a set", ErrInvalidValue)
	ErrEmptySet       = fmt.Errorf("%w: empty set", ErrInvalidValue)
)

// ActionKind is what an update action does.
type ActionKind uint8

// The actions of an update expression.
const (
	Set            ActionKind = iota // SET p = v
	SetIfNotExists                   // SET p = if_not_exists(p, v)
	Add                              // ADD p v (a number, or a set's elements)
	Append                           // SET p = list_append(if_not_exists(p, []), v)
	Prepend                          // SET p = list_append(v, if_not_exists(p, []))
	Remove                           // REMOVE p
	Delete                           // DELETE p v (a set's elements)
)

var kindNames = [...]string{"Set", "SetIfNotExists", "Add", "Append", "Prepend", "Remove", "Delete"}

// String names the kind as package update's method does.
func (k ActionKind) String() string { return kindNames[k] }

// Action is one action of an update: what, where, and the value.
type Action struct {
	Kind ActionKind
	Path Path
	// Value is the value, encoded with the default encoder (nil for
	// Remove).
	Value types.AttributeValue
	// raw is the value as given, when it was not an AttributeValue, so that
	// a table with encoder options of its own encodes it again with them.
	raw any
}

// TopAction returns an action on the top-level attribute name, taken
// whole, with a value already encoded.
func TopAction(kind ActionKind, name string, value types.AttributeValue) Action {
	return Action{Kind: kind, Path: Top(name), Value: value}
}

// NewAction checks and encodes one action given as package update's
// methods take it. The error wraps one of the errors above.
func NewAction(kind ActionKind, path string, value any) (Action, error) {
	p, err := ParsePath(path)
	if err != nil {
		return Action{}, err
	}
	a := Action{Kind: kind, Path: p}
	if kind == Remove {
		return a, nil
	}
	if _, isAV := value.(types.AttributeValue); !isAV {
		a.raw = value
	}
	if a.Value, err = encodeValue(kind, value, defaultEncoder); err != nil {
		return Action{}, err
	}
	// DynamoDB would refuse these with a ValidationException.
	if err := attrs.CheckValue(p.String(), a.Value); err != nil {
		return Action{}, fmt.Errorf("%w: %v", ErrInvalidValue, err)
	}
	return a, nil
}

// Encoded returns the action's value encoded with enc (the default one when
// enc is nil, or when the value was given as an AttributeValue).
func (a *Action) Encoded(enc *Encoder) (types.AttributeValue, error) {
	if enc == nil || a.raw == nil || a.Kind == Remove {
		return a.Value, nil
	}
	av, err := encodeValue(a.Kind, a.raw, enc)
	if err != nil {
		return nil, err
	}
	if err := attrs.CheckValue(a.Path.String(), av); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrInvalidValue, err)
	}
	return av, nil
}

// Encoder encodes the values of update actions as the mapper encodes
// fields: encoding.TextMarshaler and BinaryMarshaler values as S and B
// (netip.Addr, big.Int, ...), except a time.Time, which keeps
// attributevalue's own encoding (and so EncodeTime, if the options set it).
type Encoder struct {
	text, plain *attributevalue.Encoder
}

// defaultEncoder is the encoder without options of the caller's.
var defaultEncoder = NewEncoder(nil)

// NewEncoder returns the encoder of update values with the options opts
// applied after the defaults (tag key "dynamo").
func NewEncoder(opts []func(*attributevalue.EncoderOptions)) *Encoder {
	tagKey := func(o *attributevalue.EncoderOptions) { o.TagKey = "dynamo" }
	marshalers := func(o *attributevalue.EncoderOptions) { o.TagKey, o.UseEncodingMarshalers = "dynamo", true }
	return &Encoder{
		text:  attributevalue.NewEncoder(append([]func(*attributevalue.EncoderOptions){marshalers}, opts...)...),
		plain: attributevalue.NewEncoder(append([]func(*attributevalue.EncoderOptions){tagKey}, opts...)...),
	}
}

// Encode encodes v.
func (e *Encoder) Encode(v any) (types.AttributeValue, error) {
	switch v.(type) {
	case time.Time, *time.Time:
		return e.plain.Encode(v)
	}
	return e.text.Encode(v)
}

func encodeValue(kind ActionKind, value any, enc *Encoder) (types.AttributeValue, error) {
	switch kind {
	case Set, SetIfNotExists:
		return marshal(value, enc)
	case Add:
		av, err := numberOrSet(value)
		if errors.Is(err, errNotNumberOrSet) {
			err = ErrNotNumberOrSet
		}
		return av, err
	case Delete:
		av, err := numberOrSet(value)
		if errors.Is(err, errNotNumberOrSet) {
			err = ErrNotSet
		} else if _, isN := av.(*types.AttributeValueMemberN); isN {
			err = fmt.Errorf("%w, not a number", ErrNotSet)
		}
		return av, err
	case Append, Prepend:
		return list(value, enc)
	}
	return nil, nil
}

func marshal(v any, enc *Encoder) (types.AttributeValue, error) {
	if av, ok := v.(types.AttributeValue); ok && av != nil {
		return av, nil
	}
	if err := storable(reflect.ValueOf(v), "value"); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrInvalidValue, err)
	}
	av, err := enc.Encode(v)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrInvalidValue, err)
	}
	if av == nil { // attributevalue skips functions and channels
		return nil, fmt.Errorf("%w: a %T cannot be stored", ErrInvalidValue, v)
	}
	return av, nil
}

var errNotNumberOrSet = errors.New("not a number or set")

// numberOrSet converts the value of an ADD or DELETE.
func numberOrSet(v any) (types.AttributeValue, error) {
	switch av := v.(type) {
	case *types.AttributeValueMemberN:
		return av, nil
	case *types.AttributeValueMemberSS:
		return av, checkSet(len(av.Value), func(i int) string { return av.Value[i] })
	case *types.AttributeValueMemberNS:
		return av, checkSet(len(av.Value), func(i int) string { return av.Value[i] })
	case *types.AttributeValueMemberBS:
		return av, checkSet(len(av.Value), func(i int) string { return string(av.Value[i]) })
	case types.AttributeValue:
		return nil, errNotNumberOrSet
	}
	rv := reflect.ValueOf(v)
	if !rv.IsValid() {
		return nil, errNotNumberOrSet
	}
	if n, ok := number(rv); ok {
		return &types.AttributeValueMemberN{Value: n}, nil
	}
	if rv.Kind() != reflect.Slice && rv.Kind() != reflect.Array {
		return nil, errNotNumberOrSet
	}
	et := rv.Type().Elem()
	switch {
	case et.Kind() == reflect.String:
		ss := make([]string, rv.Len())
		for i := range ss {
			ss[i] = rv.Index(i).String()
		}
		return &types.AttributeValueMemberSS{Value: ss}, checkSet(len(ss), func(i int) string { return ss[i] })
	case et.Kind() == reflect.Slice && et.Elem().Kind() == reflect.Uint8:
		bs := make([][]byte, rv.Len())
		for i := range bs {
			bs[i] = rv.Index(i).Bytes()
		}
		return &types.AttributeValueMemberBS{Value: bs}, checkSet(len(bs), func(i int) string { return string(bs[i]) })
	case et.Kind() != reflect.Uint8:
		ns := make([]string, rv.Len())
		for i := range ns {
			n, ok := number(rv.Index(i))
			if !ok {
				return nil, errNotNumberOrSet
			}
			ns[i] = n
		}
		return &types.AttributeValueMemberNS{Value: ns}, checkSet(len(ns), func(i int) string { return ns[i] })
	}
	return nil, errNotNumberOrSet
}

// number formats a Go number as attributevalue does.
func number(v reflect.Value) (string, bool) {
	switch v.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return strconv.FormatInt(v.Int(), 10), true
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return strconv.FormatUint(v.Uint(), 10), true
	case reflect.Float32:
		return strconv.FormatFloat(v.Float(), 'f', -1, 32), true
	case reflect.Float64:
		return strconv.FormatFloat(v.Float(), 'f', -1, 64), true
	}
	return "", false
}

func checkSet(n int, elem func(int) string) error {
	if n == 0 {
		return ErrEmptySet
	}
	seen := make(map[string]bool, n)
	for i := range n {
		e := elem(i)
		if seen[e] {
			return fmt.Errorf("%w: the set repeats %q", ErrInvalidValue, e)
		}
		seen[e] = true
	}
	return nil
}

// list converts the value of an Append or Prepend into the list to join.
func list(v any, enc *Encoder) (types.AttributeValue, error) {
	if l, ok := v.(*types.AttributeValueMemberL); ok {
		return l, nil
	}
	rv := reflect.ValueOf(v)
	if rv.IsValid() && (rv.Kind() == reflect.Slice || rv.Kind() == reflect.Array) && rv.Type().Elem().Kind() != reflect.Uint8 {
		elems := make([]types.AttributeValue, rv.Len())
		for i := range elems {
			av, err := marshal(rv.Index(i).Interface(), enc)
			if err != nil {
				return nil, err
			}
			elems[i] = av
		}
		return &types.AttributeValueMemberL{Value: elems}, nil
	}
	av, err := marshal(v, enc)
	if err != nil {
		return nil, err
	}
	return &types.AttributeValueMemberL{Value: []types.AttributeValue{av}}, nil
}

// EmptyList is the value if_not_exists gives a missing list in Append and
// Prepend.
func EmptyList() types.AttributeValue {
	return &types.AttributeValueMemberL{Value: []types.AttributeValue{}}
}

// storable reports a value inside v that attributevalue would drop without
// a word: a channel, a function, a complex number.
func storable(v reflect.Value, where string) error {
	switch v.Kind() {
	case reflect.Chan, reflect.Func, reflect.UnsafePointer, reflect.Uintptr, reflect.Complex64, reflect.Complex128:
		return fmt.Errorf("%s is a %v, which DynamoDB cannot store", where, v.Type())
	case reflect.Interface, reflect.Pointer:
		if !v.IsNil() {
			return storable(v.Elem(), where)
		}
	case reflect.Slice, reflect.Array, reflect.Map:
		return EachElem(v, where, storable)
	case reflect.Struct:
		t := v.Type()
		if encodesItself(v) {
			return nil
		}
		exported := 0
		for i := 0; i < t.NumField(); i++ {
			if f := t.Field(i); f.IsExported() && f.Tag.Get("dynamo") != "-" {
				exported++
				if err := storable(v.Field(i), where+"."+f.Name); err != nil {
					return err
				}
			}
		}
		if exported == 0 && t.NumField() > 0 {
			return fmt.Errorf("%s is a %v, whose fields are all unexported: it would be stored as an empty map (pass a pointer if its MarshalText has a pointer receiver)", where, t)
		}
	}
	return nil
}

// EachElem calls f with each element of the slice, array or map v and its
// path (where[i], where[key]), until f fails; a byte slice or array, stored
// whole as a binary, has none. Any other v has none either.
func EachElem(v reflect.Value, where string, f func(elem reflect.Value, where string) error) error {
	switch v.Kind() {
	case reflect.Slice, reflect.Array:
		if v.Type().Elem().Kind() == reflect.Uint8 {
			return nil
		}
		for i := 0; i < v.Len(); i++ {
			if err := f(v.Index(i), fmt.Sprintf("%s[%d]", where, i)); err != nil {
				return err
			}
		}
	case reflect.Map:
		it := v.MapRange()
		for it.Next() {
			if err := f(it.Value(), fmt.Sprintf("%s[%v]", where, it.Key())); err != nil {
				return err
			}
		}
	}
	return nil
}

// encodesItself reports whether attributevalue encodes the struct v by a
// method of its own: on the value, or on its address when it has one (it
// is reached through a pointer).
func encodesItself(v reflect.Value) bool {
	vs := []any{v.Interface()}
	if v.CanAddr() {
		vs = append(vs, v.Addr().Interface())
	}
	for _, x := range vs {
		switch x.(type) {
		case attributevalue.Marshaler, encoding.TextMarshaler, encoding.BinaryMarshaler, time.Time:
			return true
		}
	}
	return false
}
