package mapper

import (
	"errors"
	"fmt"
	"math"
	"reflect"
	"strconv"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/optimist-dynamo/optimist/internal/attrs"
)

// arena hands out attribute values from two slices, so that encoding an
// item costs a few allocations rather than one per attribute. When a slice
// runs out, values are allocated one by one.
type arena struct {
	s []types.AttributeValueMemberS
	n []types.AttributeValueMemberN
}

func (c *codec) newArena(extraS, extraN int) arena {
	return arena{
		s: make([]types.AttributeValueMemberS, c.nS+extraS),
		n: make([]types.AttributeValueMemberN, c.nN+extraN),
	}
}

func (a *arena) S(v string) *types.AttributeValueMemberS {
	p := take(&a.s)
	p.Value = v
	return p
}

func (a *arena) N(v string) *types.AttributeValueMemberN {
	p := take(&a.n)
	p.Value = v
	return p
}

// take returns the next value of pool, or a new one when it is used up.
func take[V any](pool *[]V) *V {
	if len(*pool) == 0 {
		return new(V)
	}
	p := &(*pool)[0]
	*pool = (*pool)[1:]
	return p
}

var nullAV types.AttributeValue = &types.AttributeValueMemberNULL{Value: true}

// encodeItem encodes the struct v (addressable) as an item, leaving room
// for extra more attributes. With skip set, that field is not encoded (the
// caller sets the version itself).
//
// A key of a secondary index that is not a key of the table is left out
// when it is empty (an empty string or binary, or NULL): DynamoDB refuses
// such a value in an index key attribute, and without the attribute the
// item is simply not in the index (a sparse index), as guregu/dynamo
// does. Save, which removes what the item leaves out, then removes it.
func (c *codec) encodeItem(v reflect.Value, a *arena, extra int, skip *field) (map[string]types.AttributeValue, error) {
	m := make(map[string]types.AttributeValue, len(c.fields)+extra)
	for i := range c.fields {
		fc := &c.fields[i]
		if fc.f == skip {
			continue
		}
		fv, ok := fieldByIndex(v, fc.f.index)
		if !ok {
			continue
		}
		av, err := c.encodeField(fc, fv, a)
		if err != nil {
			if !errors.Is(err, ErrInvalidItem) {
				// attributevalue's refusals (an empty map key, a failing
				// MarshalText, ...) are invalid values too.
				err = fmt.Errorf("%w: %w", ErrInvalidItem, err)
			}
			return nil, fmt.Errorf("mapper: encoding %s: %w", fc.f.goPath, err)
		}
		if av != nil && !(fc.sparse && emptyIndexKey(av)) {
			m[fc.f.name] = av
		}
	}
	if err := c.s.ent.addAttrs(c.s, v, m); err != nil {
		return nil, err
	}
	return m, nil
}

// emptyIndexKey reports whether av is a value DynamoDB refuses in an index
// key attribute for being empty.
func emptyIndexKey(av types.AttributeValue) bool {
	_, null := av.(*types.AttributeValueMemberNULL)
	return null || emptyKeyValue(av)
}

// encodeField encodes one field; nil means the attribute is not stored.
func (c *codec) encodeField(fc *fieldCodec, fv reflect.Value, a *arena) (types.AttributeValue, error) {
	var av types.AttributeValue
	switch fc.kind {
	case fastScalar:
		if isZeroScalar(fv) && (fc.f.tag.omitEmpty || fc.f.tag.nullEmpty) {
			return zeroAV(fc.f.tag), nil
		}
		if err := checkFloat(fc.f, fv); err != nil {
			return nil, err
		}
		return scalarAV(fv, fc.f.tag.asString, a), nil
	case fastScalarPtr:
		if fv.IsNil() {
			return zeroAV(fc.f.tag), nil
		}
		if err := checkFloat(fc.f, fv.Elem()); err != nil {
			return nil, err
		}
		return scalarAV(fv.Elem(), fc.f.tag.asString, a), nil
	case fastBytes:
		if fv.IsNil() {
			return zeroAV(fc.f.tag), nil
		}
		// A copy, as attributevalue makes: the request must not change
		// with the struct (a transaction op is sent later).
		return &types.AttributeValueMemberB{Value: append([]byte{}, fv.Bytes()...)}, nil
	case fastStrings:
		if fv.IsNil() {
			av = zeroAV(fc.f.tag)
			break
		}
		n := fv.Len()
		if fc.f.tag.stringSet {
			if n == 0 {
				av = nullAV // attributevalue's NullEmptySets
				break
			}
			ss := make([]string, n)
			for i := range n {
				ss[i] = fv.Index(i).String()
			}
			return &types.AttributeValueMemberSS{Value: ss}, nil
		}
		l := make([]types.AttributeValue, n)
		elems := make([]types.AttributeValueMemberS, n)
		for i := range n {
			elems[i].Value = fv.Index(i).String()
			l[i] = &elems[i]
		}
		return &types.AttributeValueMemberL{Value: l}, nil
	default:
		if fc.f.info.dynamic {
			if err := checkDynamic(fv, fc.f.goPath); err != nil {
				return nil, fmt.Errorf("%w: %v", ErrInvalidItem, err)
			}
		}
		holder := reflect.New(fc.synth)
		holder.Elem().Field(0).Set(fv)
		out, err := fc.enc.Encode(holder.Interface())
		if err != nil {
			return nil, err
		}
		av = out.(*types.AttributeValueMemberM).Value["F"]
		if err := attrs.CheckValue(fc.f.name, av); err != nil {
			return nil, fmt.Errorf("%w: %v", ErrInvalidItem, err)
		}
	}
	return applyPolicy(fc.policy, av), nil
}

func applyPolicy(p emptyPolicy, av types.AttributeValue) types.AttributeValue {
	if _, isNull := av.(*types.AttributeValueMemberNULL); !isNull {
		return av
	}
	switch p {
	case emptyList:
		return &types.AttributeValueMemberL{Value: []types.AttributeValue{}}
	case emptyMap:
		return &types.AttributeValueMemberM{Value: map[string]types.AttributeValue{}}
	case omitEmptySet:
		return nil
	}
	return av
}

// zeroAV is what attributevalue stores for a zero value: nothing with
// omitempty, otherwise NULL.
func zeroAV(t tag) types.AttributeValue {
	if t.omitEmpty {
		return nil
	}
	return nullAV
}

func isZeroScalar(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.String:
		return v.Len() == 0
	case reflect.Bool:
		return !v.Bool()
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return v.Int() == 0
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return v.Uint() == 0
	default:
		return v.Float() == 0
	}
}

func scalarAV(v reflect.Value, asString bool, a *arena) types.AttributeValue {
	var n string
	switch v.Kind() {
	case reflect.String:
		return a.S(v.String())
	case reflect.Bool:
		return &types.AttributeValueMemberBOOL{Value: v.Bool()}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		n = strconv.FormatInt(v.Int(), 10)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		n = strconv.FormatUint(v.Uint(), 10)
	case reflect.Float32:
		n = strconv.FormatFloat(v.Float(), 'f', -1, 32)
	default:
		n = strconv.FormatFloat(v.Float(), 'f', -1, 64)
	}
	if asString {
		return a.S(n)
	}
	return a.N(n)
}

// fieldByIndex follows index through embedded structs; ok is false when an
// embedded pointer on the way is nil (the field is then absent).
func fieldByIndex(v reflect.Value, index []int) (reflect.Value, bool) {
	for i, x := range index {
		if i > 0 && v.Kind() == reflect.Pointer {
			if v.IsNil() {
				return reflect.Value{}, false
			}
			v = v.Elem()
		}
		v = v.Field(x)
	}
	return v, true
}

// checkFloat refuses a float DynamoDB cannot store as a number: NaN, an
// infinity, or a magnitude outside its range. (With the string option the
// text is stored, and any float is fine.)
func checkFloat(f *field, v reflect.Value) error {
	if f.tag.asString || (v.Kind() != reflect.Float32 && v.Kind() != reflect.Float64) {
		return nil
	}
	x := v.Float()
	if a := math.Abs(x); x == 0 || a < 1e126 && a >= 1e-130 {
		return nil // the common case, without formatting
	}
	bits := 64
	if v.Kind() == reflect.Float32 {
		bits = 32
	}
	if err := attrs.CheckNumber(strconv.FormatFloat(x, 'g', -1, bits)); err != nil {
		return fmt.Errorf("%w: attribute %q (%s): %v", ErrInvalidItem, f.name, f.goPath, err)
	}
	return nil
}
