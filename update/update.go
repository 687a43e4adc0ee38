package update

import (
	"encoding"
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"time"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/optimist-dynamo/optimist/internal/attrs"
)

// Errors a Builder reports, before anything is sent. Each is wrapped with
// the action and path it concerns; match them with errors.Is.
var (
	// ErrEmptyPath: a path was "".
	ErrEmptyPath = errors.New("update: empty path")
	// ErrPathSyntax: a path is not of the form name(.name|[index])*.
	ErrPathSyntax = errors.New("update: malformed path")
	// ErrOverlap: two actions change the same path, or one changes a path
	// inside the other's (DynamoDB refuses such an update as a whole).
	ErrOverlap = errors.New("update: overlapping paths")
	// ErrNotNumberOrSet: Add was given a value that is neither a number nor
	// a set.
	ErrNotNumberOrSet = errors.New("update: Add needs a number or a set")
	// ErrNotSet: Delete was given a value that is not a set.
	ErrNotSet = errors.New("update: Delete needs a set")
	// ErrEmptySet: a set value has no elements (DynamoDB has no empty sets).
	ErrEmptySet = errors.New("update: empty set")
	// ErrInvalidValue: a value cannot be stored: attributevalue cannot
	// marshal it or would drop it (a channel, a function, a complex
	// number, anywhere inside the value), a set repeats an element, or
	// DynamoDB would refuse it: a NaN or infinite number, one beyond 38
	// digits or DynamoDB's range (1E-130 to 9.9E+125), an empty set given
	// as an attribute value. The message names the path.
	ErrInvalidValue = errors.New("update: invalid value")
	// ErrNoActions: Build was called on a Builder with no actions.
	ErrNoActions = errors.New("update: no actions")
)

type kind uint8

const (
	kindSet kind = iota
	kindSetIfNotExists
	kindAdd
	kindAppend
	kindPrepend
	kindRemove
	kindDelete
)

var kindNames = [...]string{"Set", "SetIfNotExists", "Add", "Append", "Prepend", "Remove", "Delete"}

type action struct {
	kind  kind
	path  Path
	value types.AttributeValue
}

// Builder collects the actions of one update expression. Its methods add an
// action and return the Builder, so calls chain; the first invalid action
// is kept as the Builder's error ([Builder.Err]) and later calls are
// ignored, so a chain needs one error check, at Build (or at the mapper's
// Update, which sends nothing when the builder has an error).
//
// A nil *Builder is an empty one. Building does not change a Builder, so a
// complete Builder may be used by several goroutines at once; adding actions
// to it while it is in use is a data race.
type Builder struct {
	actions []action
	err     error
}

// The package-level functions start a Builder with one action.

// Set starts a Builder with [Builder.Set].
func Set(path string, value any) *Builder { return new(Builder).Set(path, value) }

// SetIfNotExists starts a Builder with [Builder.SetIfNotExists].
func SetIfNotExists(path string, value any) *Builder {
	return new(Builder).SetIfNotExists(path, value)
}

// Add starts a Builder with [Builder.Add].
func Add(path string, value any) *Builder { return new(Builder).Add(path, value) }

// Append starts a Builder with [Builder.Append].
func Append(path string, value any) *Builder { return new(Builder).Append(path, value) }

// Prepend starts a Builder with [Builder.Prepend].
func Prepend(path string, value any) *Builder { return new(Builder).Prepend(path, value) }

// Remove starts a Builder with [Builder.Remove].
func Remove(path string) *Builder { return new(Builder).Remove(path) }

// Delete starts a Builder with [Builder.Delete].
func Delete(path string, value any) *Builder { return new(Builder).Delete(path, value) }

// Set sets path to value: SET #p = :v. The value is marshaled with
// attributevalue (tag key "dynamo"); a types.AttributeValue is used as is.
func (b *Builder) Set(path string, value any) *Builder {
	return b.add(kindSet, path, value)
}

// SetIfNotExists sets path to value unless it already has one:
// SET #p = if_not_exists(#p, :v).
func (b *Builder) SetIfNotExists(path string, value any) *Builder {
	return b.add(kindSetIfNotExists, path, value)
}

// Add adds a number to the number at path (ADD #p :n), or the elements of a
// set to the set at path. A missing attribute counts as 0 or the empty set.
// Numbers are Go integers and floats (or *types.AttributeValueMemberN);
// sets are []string (a string set), slices of numbers (a number set),
// [][]byte (a binary set), or *types.AttributeValueMemberSS, NS or BS.
func (b *Builder) Add(path string, value any) *Builder {
	return b.add(kindAdd, path, value)
}

// Append adds value to the end of the list at path, creating the list if
// the attribute is missing:
// SET #p = list_append(if_not_exists(#p, :empty), :v). A slice or array
// value (other than []byte) appends its elements; any other value is
// appended as one element. To append a list as one element, wrap it in a
// slice of lists.
func (b *Builder) Append(path string, value any) *Builder {
	return b.add(kindAppend, path, value)
}

// Prepend is [Builder.Append] at the front of the list.
func (b *Builder) Prepend(path string, value any) *Builder {
	return b.add(kindPrepend, path, value)
}

// Remove removes the attribute, or the list element, at path: REMOVE #p.
func (b *Builder) Remove(path string) *Builder {
	return b.add(kindRemove, path, nil)
}

// Delete removes the elements of a set from the set at path: DELETE #p :s.
// The value must be a set, as for [Builder.Add].
func (b *Builder) Delete(path string, value any) *Builder {
	return b.add(kindDelete, path, value)
}

// Err returns the first error of the Builder, or nil.
func (b *Builder) Err() error {
	if b == nil {
		return nil
	}
	return b.err
}

// Paths returns the paths the Builder changes, one per action, in order.
func (b *Builder) Paths() []Path {
	if b == nil {
		return nil
	}
	out := make([]Path, len(b.actions))
	for i, a := range b.actions {
		out[i] = a.path
	}
	return out
}

func (b *Builder) add(k kind, p string, value any) *Builder {
	if b == nil {
		b = new(Builder)
	}
	if b.err != nil {
		return b
	}
	fail := func(err error) *Builder {
		b.err = fmt.Errorf("%s(%q): %w", kindNames[k], p, err)
		return b
	}
	path, err := ParsePath(p)
	if err != nil {
		return fail(err)
	}
	for _, other := range b.actions {
		if path.Overlaps(other.path) {
			return fail(fmt.Errorf("%w: %s also changed by %s(%q)", ErrOverlap, path, kindNames[other.kind], other.path))
		}
	}
	var av types.AttributeValue
	switch k {
	case kindSet, kindSetIfNotExists:
		av, err = marshal(value)
	case kindAdd:
		if av, err = numberOrSet(value); errors.Is(err, errNotNumberOrSet) {
			err = ErrNotNumberOrSet
		}
	case kindDelete:
		if av, err = numberOrSet(value); errors.Is(err, errNotNumberOrSet) {
			err = ErrNotSet
		} else if _, isN := av.(*types.AttributeValueMemberN); isN {
			err = fmt.Errorf("%w, not a number", ErrNotSet)
		}
	case kindAppend, kindPrepend:
		av, err = list(value)
	}
	if err == nil && av != nil {
		// DynamoDB would refuse these with a ValidationException.
		if cerr := attrs.CheckValue(path.String(), av); cerr != nil {
			err = fmt.Errorf("%w: %v", ErrInvalidValue, cerr)
		}
	}
	if err != nil {
		return fail(err)
	}
	b.actions = append(b.actions, action{kind: k, path: path, value: av})
	return b
}

// encoder stores encoding.TextMarshaler and BinaryMarshaler values as S
// and B, as the mapper does (netip.Addr, big.Int, ...).
var encoder = attributevalue.NewEncoder(func(o *attributevalue.EncoderOptions) {
	o.TagKey, o.UseEncodingMarshalers = "dynamo", true
})

func marshal(v any) (types.AttributeValue, error) {
	if av, ok := v.(types.AttributeValue); ok && av != nil {
		return av, nil
	}
	if err := storable(reflect.ValueOf(v), "value"); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrInvalidValue, err)
	}
	av, err := encoder.Encode(v)
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
func list(v any) (types.AttributeValue, error) {
	if l, ok := v.(*types.AttributeValueMemberL); ok {
		return l, nil
	}
	rv := reflect.ValueOf(v)
	if rv.IsValid() && (rv.Kind() == reflect.Slice || rv.Kind() == reflect.Array) && rv.Type().Elem().Kind() != reflect.Uint8 {
		elems := make([]types.AttributeValue, rv.Len())
		for i := range elems {
			av, err := marshal(rv.Index(i).Interface())
			if err != nil {
				return nil, err
			}
			elems[i] = av
		}
		return &types.AttributeValueMemberL{Value: elems}, nil
	}
	av, err := marshal(v)
	if err != nil {
		return nil, err
	}
	return &types.AttributeValueMemberL{Value: []types.AttributeValue{av}}, nil
}

// UpdateBuilder returns the actions as an expression.UpdateBuilder, so that
// more actions and a condition can be built into the same expression (the
// mapper adds its version increment this way). It returns the Builder's
// error, or [ErrNoActions].
func (b *Builder) UpdateBuilder() (expression.UpdateBuilder, error) {
	var ub expression.UpdateBuilder
	if err := b.Err(); err != nil {
		return ub, err
	}
	if b == nil || len(b.actions) == 0 {
		return ub, ErrNoActions
	}
	for _, a := range b.actions {
		name := a.path.name()
		switch a.kind {
		case kindSet:
			ub = ub.Set(name, expression.Value(a.value))
		case kindSetIfNotExists:
			ub = ub.Set(name, expression.IfNotExists(name, expression.Value(a.value)))
		case kindAdd:
			ub = ub.Add(name, expression.Value(a.value))
		case kindDelete:
			ub = ub.Delete(name, expression.Value(a.value))
		case kindRemove:
			ub = ub.Remove(name)
		case kindAppend:
			ub = ub.Set(name, expression.ListAppend(expression.IfNotExists(name, expression.Value(emptyList())), expression.Value(a.value)))
		case kindPrepend:
			ub = ub.Set(name, expression.ListAppend(expression.Value(a.value), expression.IfNotExists(name, expression.Value(emptyList()))))
		}
	}
	return ub, nil
}

func emptyList() types.AttributeValue {
	return &types.AttributeValueMemberL{Value: []types.AttributeValue{}}
}

// Build returns the update expression, ready for an UpdateItem request: its
// Update(), Names() and Values(). Every attribute name in it is a
// placeholder, so reserved words (status, count, name, data, ttl, ...) are
// safe. It returns the Builder's first error, or [ErrNoActions].
func (b *Builder) Build() (expression.Expression, error) {
	ub, err := b.UpdateBuilder()
	if err != nil {
		return expression.Expression{}, err
	}
	return expression.NewBuilder().WithUpdate(ub).Build()
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
	case reflect.Slice, reflect.Array:
		if v.Type().Elem().Kind() == reflect.Uint8 {
			return nil
		}
		for i := 0; i < v.Len(); i++ {
			if err := storable(v.Index(i), fmt.Sprintf("%s[%d]", where, i)); err != nil {
				return err
			}
		}
	case reflect.Map:
		it := v.MapRange()
		for it.Next() {
			if err := storable(it.Value(), fmt.Sprintf("%s[%v]", where, it.Key())); err != nil {
				return err
			}
		}
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
