package mapper

import (
	"math/rand/v2"
	"reflect"
	"strconv"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/optimist-dynamo/optimist/internal/ddbtest"
)

type Status string

type Celsius float64

// upper stores a string in upper case through attributevalue's Marshaler.
type upper string

func (u upper) MarshalDynamoDBAttributeValue() (types.AttributeValue, error) {
	b := []byte(u)
	for i, c := range b {
		if 'a' <= c && c <= 'z' {
			b[i] = c - 'a' + 'A'
		}
	}
	return &types.AttributeValueMemberS{Value: "U:" + string(b)}, nil
}

// ptrMarshaler implements Marshaler on its pointer only.
type ptrMarshaler struct{ N int }

func (p *ptrMarshaler) MarshalDynamoDBAttributeValue() (types.AttributeValue, error) {
	return &types.AttributeValueMemberN{Value: strconv.Itoa(p.N * 10)}, nil
}

type Address struct {
	Street string
	Zip    *int `dynamo:",omitempty"`
}

type Embedded struct {
	Note   string `dynamo:"note"`
	Rating int8
}

type everything struct {
	ID       string  `dynamo:"id,hash"`
	Sort     int     `dynamo:"sort,range"`
	Version  int64   `dynamo:"v,version"`
	S        string  `dynamo:"s"`
	SOmit    string  `dynamo:",omitempty"`
	SNull    string  `dynamo:",nullempty"`
	Named    Status  `dynamo:"status"`
	B        bool    `dynamo:"b"`
	BOmit    bool    `dynamo:",omitempty"`
	I8       int8    `dynamo:"i8"`
	I16      int16   `dynamo:"i16"`
	I32      int32   `dynamo:"i32"`
	I        int     `dynamo:"i,omitempty"`
	U        uint    `dynamo:"u"`
	U8       uint8   `dynamo:"u8,nullempty"`
	U64      uint64  `dynamo:"u64"`
	F32      float32 `dynamo:"f32"`
	F64      float64 `dynamo:"f64"`
	C        Celsius `dynamo:"c"`
	NumStr   int     `dynamo:"numstr,string"`
	FloatStr float64 `dynamo:"floatstr,string"`
	PS       *string `dynamo:"ps"`
	PI       *int    `dynamo:"pi,omitempty"`
	PF       *float64
	PB       *bool `dynamo:",nullempty"`
	Bytes    []byte
	BytesO   []byte            `dynamo:",omitempty"`
	List     []string          `dynamo:"list"`
	ListO    []string          `dynamo:"listo,omitempty"`
	ListN    []string          `dynamo:"listn,nullempty"`
	Set      []string          `dynamo:"set,stringset"`
	SetO     []string          `dynamo:"seto,stringset,omitempty"`
	Nums     []int             `dynamo:"nums"`
	NumSet   []int             `dynamo:"numset,numberset"`
	Elems    []string          `dynamo:"elems,omitemptyelem"`
	Binaries [][]byte          `dynamo:"bins"`
	Map      map[string]int    `dynamo:"map"`
	MapO     map[string]string `dynamo:"mapo,omitempty"`
	When     time.Time         `dynamo:"when"`
	WhenUnix time.Time         `dynamo:"whenunix,unixtime"`
	WhenP    *time.Time        `dynamo:"whenp"`
	Addr     Address           `dynamo:"addr"`
	AddrP    *Address          `dynamo:"addrp"`
	Up       upper             `dynamo:"up"`
	PM       ptrMarshaler      `dynamo:"pm"`
	Any      any               `dynamo:"any"`
	Embedded
	*Address `dynamo:"embaddr"`
	Skip     string `dynamo:"-"`
}

// TestEncodeMatchesAttributeValue checks the fast field encoders against
// attributevalue itself: for random values of every supported shape, the
// item is what attributevalue.MarshalMap makes, after our empty-collection
// rules (which are applied to its output here too).
func TestEncodeMatchesAttributeValue(t *testing.T) {
	s, err := schemaOf(reflect.TypeOf(everything{}))
	require.NoError(t, err)
	c := newCodec(s, false, nil, nil)
	slowC := newCodec(s, true, nil, nil)
	fast := 0
	for _, fc := range c.fields {
		if fc.kind != slow {
			fast++
		}
	}
	require.Greater(t, fast, 25, "most plain fields take the fast path")

	// Random values: a quarter of make test-long's count (OPTIMIST_LONG).
	n := 500
	if ddbtest.Long() {
		n = 2000
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range n {
		var v everything
		fill(rng, reflect.ValueOf(&v).Elem(), 0)
		v.ID = "id" + strconv.Itoa(i)
		want, err := attributevalue.MarshalMapWithOptions(&v, func(o *attributevalue.EncoderOptions) { o.TagKey = TagKey })
		require.NoError(t, err)
		for _, fc := range c.fields {
			if av, ok := want[fc.f.name]; ok {
				if p := applyPolicy(fc.policy, av); p == nil {
					delete(want, fc.f.name)
				} else {
					want[fc.f.name] = p
				}
			}
		}
		a := c.newArena(0, 0)
		got, err := c.encodeItem(reflect.ValueOf(&v).Elem(), &a, 0, nil)
		require.NoError(t, err)
		require.Equal(t, want, got, "value %d: %+v", i, v)

		a = slowC.newArena(0, 0)
		got, err = slowC.encodeItem(reflect.ValueOf(&v).Elem(), &a, 0, nil)
		require.NoError(t, err)
		require.Equal(t, want, got, "slow path, value %d", i)
	}
}

// fill sets v to a random value, zero about a quarter of the time.
func fill(rng *rand.Rand, v reflect.Value, depth int) {
	if !v.CanSet() || rng.IntN(4) == 0 || depth > 3 {
		return
	}
	switch v.Kind() {
	case reflect.String:
		v.SetString([]string{"", "a", "hello", "ümlaut", "0"}[rng.IntN(5)])
	case reflect.Bool:
		v.SetBool(rng.IntN(2) == 0)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		n := rng.Int64N(1<<7) - 1<<6
		if v.Kind() == reflect.Int64 || v.Kind() == reflect.Int {
			n = rng.Int64() - rng.Int64()
		}
		v.SetInt(n)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		n := rng.Uint64N(1 << 8)
		if v.Kind() == reflect.Uint64 {
			n = rng.Uint64()
		}
		v.SetUint(n)
	case reflect.Float32, reflect.Float64:
		v.SetFloat([]float64{0, 1.5, -2.25, 1e21, 3.4e-10, rng.Float64() * 1e6}[rng.IntN(6)])
	case reflect.Pointer:
		p := reflect.New(v.Type().Elem())
		fill(rng, p.Elem(), depth+1)
		v.Set(p)
	case reflect.Slice:
		n := rng.IntN(4)
		sl := reflect.MakeSlice(v.Type(), n, n)
		for i := range n {
			fill(rng, sl.Index(i), depth+1)
			if v.Type().Elem().Kind() == reflect.Slice && sl.Index(i).IsNil() {
				sl.Index(i).Set(reflect.ValueOf([]byte("x")))
			}
		}
		if v.Type() == reflect.TypeOf([]int{}) || v.Type() == reflect.TypeOf([]string{}) {
			// Sets must not repeat elements.
			seen := map[any]bool{}
			uniq := reflect.MakeSlice(v.Type(), 0, n)
			for i := range n {
				if e := sl.Index(i).Interface(); !seen[e] {
					seen[e] = true
					uniq = reflect.Append(uniq, sl.Index(i))
				}
			}
			sl = uniq
		}
		v.Set(sl)
	case reflect.Map:
		m := reflect.MakeMap(v.Type())
		for range rng.IntN(3) {
			k := reflect.New(v.Type().Key()).Elem()
			k.SetString("k" + strconv.Itoa(rng.IntN(5)))
			e := reflect.New(v.Type().Elem()).Elem()
			fill(rng, e, depth+1)
			m.SetMapIndex(k, e)
		}
		v.Set(m)
	case reflect.Struct:
		if v.Type() == timeType {
			v.Set(reflect.ValueOf(time.Unix(rng.Int64N(2e9), 0).UTC()))
			return
		}
		for i := range v.NumField() {
			fill(rng, v.Field(i), depth+1)
		}
	case reflect.Interface:
		v.Set(reflect.ValueOf([]any{"x", 3.5, true, []any{"a"}}[rng.IntN(4)]))
	}
}

func TestEmptyCollectionsAreStoredUsably(t *testing.T) {
	type item struct {
		ID    string            `dynamo:"id,hash"`
		List  []string          `dynamo:"list"`
		Nums  []int             `dynamo:"nums"`
		Map   map[string]string `dynamo:"map"`
		Set   []string          `dynamo:"set,stringset"`
		Null  []string          `dynamo:"null,nullempty"`
		Omit  []string          `dynamo:"omit,omitempty"`
		Empty []string          `dynamo:"empty"`
	}
	s, err := schemaOf(reflect.TypeOf(item{}))
	require.NoError(t, err)
	c := newCodec(s, false, nil, nil)
	a := c.newArena(0, 0)
	got, err := c.encodeItem(reflect.ValueOf(&item{ID: "a", Set: []string{}, Empty: []string{}}).Elem(), &a, 0, nil)
	require.NoError(t, err)
	assert.Equal(t, map[string]types.AttributeValue{
		"id":    &types.AttributeValueMemberS{Value: "a"},
		"list":  &types.AttributeValueMemberL{Value: []types.AttributeValue{}},
		"nums":  &types.AttributeValueMemberL{Value: []types.AttributeValue{}},
		"map":   &types.AttributeValueMemberM{Value: map[string]types.AttributeValue{}},
		"null":  &types.AttributeValueMemberNULL{Value: true},
		"empty": &types.AttributeValueMemberL{Value: []types.AttributeValue{}},
	}, got, "nil and empty lists become empty lists, maps empty maps, empty sets are left out, nullempty is honoured")
}

func TestKeyOf(t *testing.T) {
	type k struct {
		H []byte  `dynamo:"h,hash"`
		R float64 `dynamo:"r,range,string"`
	}
	s, err := schemaOf(reflect.TypeOf(k{}))
	require.NoError(t, err)
	c := newCodec(s, false, nil, nil)
	key, err := c.keyOf(reflect.ValueOf(&k{H: []byte{1}, R: 2.5}).Elem())
	require.NoError(t, err)
	assert.Equal(t, map[string]types.AttributeValue{
		"h": &types.AttributeValueMemberB{Value: []byte{1}},
		"r": &types.AttributeValueMemberS{Value: "2.5"},
	}, key)

	_, err = c.keyOf(reflect.ValueOf(&k{R: 1}).Elem())
	assert.ErrorIs(t, err, ErrInvalidItem)
	assert.ErrorContains(t, err, `key attribute "h" (H)`)
}
