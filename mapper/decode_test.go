package mapper

import (
	"encoding/hex"
	"errors"
	"fmt"
	"maps"
	"math"
	"math/big"
	"math/rand/v2"
	"net/netip"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/optimist-dynamo/optimist/internal/ddbtest"
)

// textID is stored as S through MarshalText and UnmarshalText.
type textID [4]byte

func (t textID) MarshalText() ([]byte, error) { return []byte(hex.EncodeToString(t[:])), nil }

func (t *textID) UnmarshalText(b []byte) error {
	if len(b) != 8 {
		return fmt.Errorf("textID: %q is not 8 hex digits", b)
	}
	_, err := hex.Decode(t[:], b)
	return err
}

// binPoint is stored as B through MarshalBinary and UnmarshalBinary.
type binPoint struct{ X, Y int16 }

func (p binPoint) MarshalBinary() ([]byte, error) {
	return []byte{byte(p.X >> 8), byte(p.X), byte(p.Y >> 8), byte(p.Y)}, nil
}

func (p *binPoint) UnmarshalBinary(b []byte) error {
	if len(b) != 4 {
		return errors.New("binPoint: need 4 bytes")
	}
	p.X, p.Y = int16(b[0])<<8|int16(b[1]), int16(b[2])<<8|int16(b[3])
	return nil
}

// custom has attributevalue's own Marshaler and Unmarshaler; it reads a
// NULL as "null", so that a decoder that zeroes it instead is caught.
type custom struct{ V string }

func (c custom) MarshalDynamoDBAttributeValue() (types.AttributeValue, error) {
	return &types.AttributeValueMemberS{Value: "c:" + c.V}, nil
}

func (c *custom) UnmarshalDynamoDBAttributeValue(av types.AttributeValue) error {
	switch av := av.(type) {
	case nil, *types.AttributeValueMemberNULL:
		c.V = "null"
	case *types.AttributeValueMemberS:
		if len(av.Value) < 2 || av.Value[:2] != "c:" {
			return fmt.Errorf("custom: %q lacks the c: prefix", av.Value)
		}
		c.V = av.Value[2:]
	default:
		return fmt.Errorf("custom: cannot read a %T", av)
	}
	return nil
}

// Level has methods, none of them an unmarshaler.
type Level int

func (l Level) String() string { return "level" + strconv.Itoa(int(l)) }

// myTime converts to time.Time without its methods: attributevalue reads
// it with DecodeTime.
type myTime time.Time

type Base2 struct {
	B2 string `dynamo:"b2"`
	C2 int    `dynamo:"c2"`
}

type EmbPtr struct {
	EP  string `dynamo:"ep"`
	EPN *int   `dynamo:"epn"`
}

type DecInner struct {
	A    string    `dynamo:"a"`
	N    *int      `dynamo:"n"`
	T    time.Time `dynamo:"t"`
	U    time.Time `dynamo:"u,unixtime"`
	Tags []string  `dynamo:"tags,stringset"`
	C    custom    `dynamo:"c"`
	Deep *DecInner `dynamo:"deep"`
	S    int       `dynamo:"s,string"`
	M    map[string]int
	Base2
	*EmbPtr
}

// decodeAll has a field of every shape the decoder plans for, and of
// shapes it leaves to attributevalue.
type decodeAll struct {
	ID     string  `dynamo:"id,hash"`
	V      int64   `dynamo:"v,version"`
	Str    string  `dynamo:"str"`
	Named  Status  `dynamo:"named"`
	Bool   bool    `dynamo:"bool"`
	I8     int8    `dynamo:"i8"`
	I16    int16   `dynamo:"i16"`
	I32    int32   `dynamo:"i32"`
	I      int     `dynamo:"i"`
	U8     uint8   `dynamo:"u8"`
	U16    uint16  `dynamo:"u16"`
	U32    uint32  `dynamo:"u32"`
	U64    uint64  `dynamo:"u64"`
	F32    float32 `dynamo:"f32"`
	F64    float64 `dynamo:"f64"`
	Temp   Celsius `dynamo:"temp"`
	NumStr int     `dynamo:"numstr,string"`
	F32Str float32 `dynamo:"f32str,string"`
	UStr   uint16  `dynamo:"ustr,string"`
	SStr   string  `dynamo:"sstr,string"`
	Level  Level   `dynamo:"level"`
	Num    attributevalue.Number

	PS   *string    `dynamo:"ps"`
	PI   *int       `dynamo:"pi,string"`
	PPI  **int      `dynamo:"ppi"`
	PF   *float32   `dynamo:"pf"`
	PB   *bool      `dynamo:"pb"`
	PT   *time.Time `dynamo:"pt"`
	PAny *any       `dynamo:"pany"`

	Bytes []byte  `dynamo:"bytes"`
	Arr   [4]byte `dynamo:"arr"`

	Strs   []string    `dynamo:"strs"`
	Ints   []int       `dynamo:"ints"`
	Floats []float64   `dynamo:"floats"`
	Bools  []bool      `dynamo:"bools"`
	Bins   [][]byte    `dynamo:"bins"`
	SSet   []string    `dynamo:"sset,stringset"`
	NSet   []int       `dynamo:"nset,numberset"`
	FSet   []float64   `dynamo:"fset,numberset"`
	BSet   [][]byte    `dynamo:"bset,binaryset"`
	Levels []Level     `dynamo:"levels"`
	PStrs  []*string   `dynamo:"pstrs"`
	Times  []time.Time `dynamo:"times"`
	IDs    []textID    `dynamo:"ids"`
	Points []binPoint  `dynamo:"points"`
	Custs  []custom    `dynamo:"custs"`
	Anys   []any       `dynamo:"anys"`

	M      map[string]string            `dynamo:"m"`
	MI     map[string]int               `dynamo:"mi"`
	MA     map[string]any               `dynamo:"ma"`
	MM     map[string]map[string]int    `dynamo:"mm"`
	MS     map[string]DecInner          `dynamo:"ms"`
	MP     map[string]*DecInner         `dynamo:"mp"`
	MT     map[textID]int               `dynamo:"mt"`
	MInt   map[int]string               `dynamo:"mint"`
	MLevel map[string]Level             `dynamo:"mlevel"`
	MCust  map[string]custom            `dynamo:"mcust"`
	MSS    map[string][]string          `dynamo:"mss"`
	MN     map[string]map[string]string `dynamo:"mn,nullempty"`

	Any    any `dynamo:"any"`
	AnyStr any `dynamo:"anystr,string"`

	When   time.Time  `dynamo:"when"`
	Unix   time.Time  `dynamo:"unix,unixtime"`
	PUnix  *time.Time `dynamo:"punix,unixtime"`
	MyTime myTime     `dynamo:"mytime"`

	TID   textID     `dynamo:"tid"`
	PTID  *textID    `dynamo:"ptid"`
	Pt    binPoint   `dynamo:"pt2"`
	Cust  custom     `dynamo:"cust"`
	PCust *custom    `dynamo:"pcust"`
	Big   *big.Int   `dynamo:"big"`
	Addr  netip.Addr `dynamo:"addr"`

	In  DecInner   `dynamo:"in"`
	PIn *DecInner  `dynamo:"pin"`
	Ins []DecInner `dynamo:"ins"`

	Embedded
	*EmbPtr
	Skip string `dynamo:"-"`
}

// refDecoder is attributevalue's decoder as a table without
// DecoderOptions sets it up: the reference the plan must match.
func refDecoder() *attributevalue.Decoder {
	return attributevalue.NewDecoder(func(o *attributevalue.DecoderOptions) {
		o.TagKey, o.UseEncodingUnmarshalers = TagKey, true
	})
}

func TestDecodePlanCoversPlainFields(t *testing.T) {
	s, err := schemaOf(reflect.TypeOf(decodeAll{}))
	require.NoError(t, err)
	c := newCodec(s, false, nil, nil)
	require.NotNil(t, c.plan)
	kinds := map[string]decKind{}
	for _, f := range c.plan.fields {
		kinds[f.name] = f.dec.kind
	}
	for name, want := range map[string]decKind{
		"str": decString, "named": decString, "i8": decInt, "u64": decUint, "f32": decFloat, "numstr": decInt,
		"level": decInt, "Num": decString, "ps": decPtr, "ppi": decPtr, "bytes": decBytes, "arr": decSlow,
		"strs": decSlice, "levels": decSlice, "m": decMap, "ms": decMap, "mt": decSlow, "mint": decSlow, "mlevel": decMap,
		"any": decAny, "anystr": decSlow, "when": decTime, "mytime": decSlow, "tid": decText, "pt2": decText,
		"cust": decSlow, "big": decPtr, "addr": decText, "in": decStruct, "pin": decPtr, "ins": decSlice,
		"note": decString, "ep": decString,
	} {
		assert.Equal(t, want, kinds[name], "attribute %s", name)
	}

	withOpts := newCodec(s, false, nil, []func(*attributevalue.DecoderOptions){func(o *attributevalue.DecoderOptions) { o.UseNumber = true }})
	assert.Nil(t, withOpts.plan, "with DecoderOptions, attributevalue decodes every item")
}

type withAny struct {
	ID  string `dynamo:"id,hash"`
	Any any    `dynamo:"any"`
}

// TestDecodeWithDecoderOptions: a table given DecoderOptions decodes every
// item with attributevalue and those options.
func TestDecodeWithDecoderOptions(t *testing.T) {
	item := map[string]types.AttributeValue{
		"id":  &types.AttributeValueMemberS{Value: "a"},
		"any": &types.AttributeValueMemberN{Value: "1.50"},
	}
	plain, err := NewTable[withAny](&stubPut{}, "t")
	require.NoError(t, err)
	got, err := plain.Decode(item)
	require.NoError(t, err)
	assert.Equal(t, 1.5, got.Any)

	useNumber, err := NewTable[withAny](&stubPut{}, "t", func(o *TableOptions) {
		o.DecoderOptions = append(o.DecoderOptions, func(o *attributevalue.DecoderOptions) { o.UseNumber = true })
	})
	require.NoError(t, err)
	got, err = useNumber.Decode(item)
	require.NoError(t, err)
	assert.Equal(t, attributevalue.Number("1.50"), got.Any)
}

// selfDecoding reads itself with attributevalue's Unmarshaler.
type selfDecoding struct {
	ID   string `dynamo:"id,hash"`
	Seen int    `dynamo:"seen"`
}

func (s *selfDecoding) UnmarshalDynamoDBAttributeValue(av types.AttributeValue) error {
	s.Seen = len(av.(*types.AttributeValueMemberM).Value)
	return nil
}

// TestDecodeSelfDecodingType: a type with its own Unmarshaler gets the
// whole item, as attributevalue gives it.
func TestDecodeSelfDecodingType(t *testing.T) {
	table, err := NewTable[selfDecoding](&stubPut{}, "t")
	require.NoError(t, err)
	got, err := table.Decode(map[string]types.AttributeValue{
		"id":   &types.AttributeValueMemberS{Value: "a"},
		"seen": &types.AttributeValueMemberN{Value: "7"},
		"x":    &types.AttributeValueMemberNULL{Value: true},
	})
	require.NoError(t, err)
	assert.Equal(t, selfDecoding{Seen: 3}, *got)
}

// TestDecodeMatchesAttributeValue decodes items both ways, the plan and
// attributevalue's Decoder, and requires the same value or an error from
// both (the same error when one attribute is bad, so that which attribute
// fails first does not depend on map order). The items are what the
// mapper writes for random values, then with attributes replaced by
// attribute values of every type (numbers out of range, text that does not
// parse, NULLs, lists where maps are expected, ...), removed, added under
// unknown names or under names that differ only in case.
//
// The values are random: make test draws a quarter of the values make
// test-long draws (OPTIMIST_LONG), of the same shapes.
func TestDecodeMatchesAttributeValue(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	n := 500
	if ddbtest.Long() {
		n = 2000
	}
	testDecodeMatches[decodeAll](t, rng, n, nil)
	testDecodeMatches[everything](t, rng, n/2, func(item map[string]types.AttributeValue) {
		if rng.IntN(8) > 0 {
			delete(item, "pm") // ptrMarshaler has no unmarshaler: an N into a struct fails
		}
	})
	testDecodeMatches[DecInner](t, rng, n/2, nil)
}

func testDecodeMatches[T any](t *testing.T, rng *rand.Rand, n int, prepare func(map[string]types.AttributeValue)) {
	typ := reflect.TypeOf((*T)(nil)).Elem()
	s, err := schemaOf(typ)
	if err != nil {
		// Not a table type (DecInner has no hash key): plan it as a nested
		// struct, and encode it with attributevalue.
		s = nil
	}
	var plan *structPlan
	var c *codec
	if s != nil {
		c = newCodec(s, false, nil, nil)
		plan = c.plan
	} else {
		decMu.Lock()
		plan = nestedPlan(typ)
		decMu.Unlock()
	}
	require.NotNil(t, plan, "%v has a plan", typ)
	names := make([]string, len(plan.fields))
	for i, f := range plan.fields {
		names[i] = f.name
	}
	ref := refDecoder()
	same, failed, badBase := 0, 0, 0
	for i := range n {
		var v T
		fillDecode(rng, reflect.ValueOf(&v).Elem(), 0)
		if p, ok := any(&v).(*decodeAll); ok {
			if p.AnyStr != nil {
				p.AnyStr = 2.5 // with the string option, attributevalue reads an any as a number
			}
			if p.Num == "" {
				p.Num = "7" // the mapper refuses an empty Number
			}
		}
		var item map[string]types.AttributeValue
		if c != nil {
			reflect.ValueOf(&v).Elem().FieldByIndex(s.hash.index).SetString("id" + strconv.Itoa(i))
			a := c.newArena(0, 0)
			if item, err = c.encodeItem(reflect.ValueOf(&v).Elem(), &a, 0, nil); err != nil {
				continue // a value the mapper refuses
			}
		} else if item, err = attributevalue.MarshalMapWithOptions(&v, func(o *attributevalue.EncoderOptions) {
			o.TagKey, o.UseEncodingMarshalers = TagKey, true
		}); err != nil {
			continue
		}
		if prepare != nil {
			prepare(item)
		}
		// Whether the item as written decodes: if not, which error comes
		// first depends on map order.
		var base T
		basePanic, baseErr := catch(func() error {
			return ref.Decode(&types.AttributeValueMemberM{Value: item}, &base)
		})
		if baseErr != nil || basePanic != "" {
			badBase++
		}
		mutations, onePlace := 0, true
		if i%8 != 0 {
			mutations = 1
			if rng.IntN(3) == 0 {
				mutations += 1 + rng.IntN(3)
			}
		}
		for range mutations {
			onePlace = mutate(rng, item, names) && onePlace
		}
		onePlace = onePlace && mutations <= 1 && baseErr == nil && basePanic == ""

		var want, got T
		wantPanic, wantErr := catch(func() error {
			return ref.Decode(&types.AttributeValueMemberM{Value: item}, &want)
		})
		gotPanic, gotErr := catch(func() error { return plan.decode(item, reflect.ValueOf(&got).Elem()) })
		if !onePlace && (wantPanic != "" || gotPanic != "") {
			continue // which attribute is decoded first, one that panics or one that fails, depends on map order
		}
		require.Equal(t, wantPanic, gotPanic, "item %d: panics\n%s", i, lazyItem(item))
		if wantPanic != "" {
			continue
		}
		if wantErr != nil || gotErr != nil {
			require.True(t, wantErr != nil && gotErr != nil, "item %d: attributevalue says %v, the plan %v\n%s", i, wantErr, gotErr, lazyItem(item))
			if onePlace {
				require.Equal(t, wantErr.Error(), gotErr.Error(), "item %d\n%s", i, lazyItem(item))
			}
			failed++
			continue
		}
		require.True(t, equalDecoded(reflect.ValueOf(want), reflect.ValueOf(got)), "item %d:\nattributevalue %+v\nplan           %+v\n%s", i, want, got, lazyItem(item))
		same++
	}
	t.Logf("%v: %d items decoded alike, %d refused by both (%d before they were changed)", typ, same, failed, badBase)
	require.Greater(t, same, n/4)
	require.Greater(t, failed, n/20)
	require.Less(t, badBase, n/4, "most items decode as written")
}

func catch(f func() error) (panicked string, err error) {
	defer func() {
		if r := recover(); r != nil {
			panicked = fmt.Sprint(r)
		}
	}()
	return "", f()
}

// lazyItem prints an item when a failing assertion formats its message.
type lazyItem map[string]types.AttributeValue

func (l lazyItem) String() string { return describeAV(&types.AttributeValueMemberM{Value: l}) }

// lazy is text made when a failing assertion formats its message.
type lazy func() string

func (l lazy) String() string { return l() }

func describeAV(av types.AttributeValue) string {
	switch a := av.(type) {
	case nil:
		return "nil"
	case *types.AttributeValueMemberS:
		return strconv.Quote(a.Value)
	case *types.AttributeValueMemberN:
		return "N(" + a.Value + ")"
	case *types.AttributeValueMemberBOOL:
		return strconv.FormatBool(a.Value)
	case *types.AttributeValueMemberNULL:
		return "NULL"
	case *types.AttributeValueMemberB:
		return fmt.Sprintf("B%v", a.Value)
	case *types.AttributeValueMemberSS:
		return fmt.Sprintf("SS%q", a.Value)
	case *types.AttributeValueMemberNS:
		return fmt.Sprintf("NS%v", a.Value)
	case *types.AttributeValueMemberBS:
		return fmt.Sprintf("BS%v", a.Value)
	case *types.AttributeValueMemberL:
		s := "["
		for i, e := range a.Value {
			if i > 0 {
				s += " "
			}
			s += describeAV(e)
		}
		return s + "]"
	case *types.AttributeValueMemberM:
		s := "{"
		for k, e := range a.Value {
			s += strconv.Quote(k) + ":" + describeAV(e) + " "
		}
		return s + "}"
	}
	return fmt.Sprintf("%T", av)
}

// EqualDecoded is equalDecoded, for the tests of package mapper_test.
func EqualDecoded(a, b any) bool { return equalDecoded(reflect.ValueOf(a), reflect.ValueOf(b)) }

// equalDecoded is reflect.DeepEqual, except that NaN equals NaN.
func equalDecoded(a, b reflect.Value) bool {
	if a.IsValid() != b.IsValid() {
		return false
	}
	if !a.IsValid() {
		return true
	}
	if a.Type() != b.Type() {
		return false
	}
	switch a.Kind() {
	case reflect.Float32, reflect.Float64:
		x, y := a.Float(), b.Float()
		return x == y || math.IsNaN(x) && math.IsNaN(y)
	case reflect.Pointer, reflect.Interface:
		if a.IsNil() || b.IsNil() {
			return a.IsNil() == b.IsNil()
		}
		return equalDecoded(a.Elem(), b.Elem())
	case reflect.Slice:
		if a.IsNil() != b.IsNil() {
			return false
		}
		fallthrough
	case reflect.Array:
		if a.Len() != b.Len() {
			return false
		}
		for i := range a.Len() {
			if !equalDecoded(a.Index(i), b.Index(i)) {
				return false
			}
		}
		return true
	case reflect.Map:
		if a.IsNil() != b.IsNil() || a.Len() != b.Len() {
			return false
		}
		it := a.MapRange()
		for it.Next() {
			bv := b.MapIndex(it.Key())
			if !bv.IsValid() || !equalDecoded(it.Value(), bv) {
				return false
			}
		}
		return true
	case reflect.Struct:
		for i := range a.NumField() {
			if !a.Type().Field(i).IsExported() {
				return reflect.DeepEqual(a.Interface(), b.Interface())
			}
		}
		for i := range a.NumField() {
			if !equalDecoded(a.Field(i), b.Field(i)) {
				return false
			}
		}
		return true
	}
	return reflect.DeepEqual(a.Interface(), b.Interface())
}

// fillDecode sets v to a random value, zero about a fifth of the time.
func fillDecode(rng *rand.Rand, v reflect.Value, depth int) {
	if !v.CanSet() || rng.IntN(5) == 0 || depth > 4 {
		return
	}
	switch v.Type() {
	case timeType:
		v.Set(reflect.ValueOf(time.Unix(rng.Int64N(4e9)-1e9, rng.Int64N(2)*rng.Int64N(1e9)).In(time.FixedZone("z", 60*(rng.IntN(1500)-750)))))
		return
	case reflect.TypeOf(myTime{}):
		v.Set(reflect.ValueOf(myTime(time.Unix(rng.Int64N(2e9), 0).UTC())))
		return
	case reflect.TypeOf(big.Int{}):
		v.Set(reflect.ValueOf(*big.NewInt(rng.Int64() - rng.Int64())))
		return
	case reflect.TypeOf(attributevalue.Number("")):
		v.SetString([]string{"0", "12", "-1.5", "1e20"}[rng.IntN(4)])
		return
	case reflect.TypeOf(netip.Addr{}):
		v.Set(reflect.ValueOf(netip.AddrFrom4([4]byte{10, 0, byte(rng.IntN(256)), 1})))
		return
	}
	switch v.Kind() {
	case reflect.String:
		v.SetString([]string{"", "a", "hello", "ümlaut", "0", "12", "-1.5"}[rng.IntN(7)])
	case reflect.Bool:
		v.SetBool(rng.IntN(2) == 0)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		if bits := v.Type().Bits(); bits < 64 {
			v.SetInt(rng.Int64N(1<<(bits-1)) - rng.Int64N(1<<(bits-1)))
		} else {
			v.SetInt(int64(rng.Uint64()))
		}
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		if v.Type().Bits() == 64 {
			v.SetUint(rng.Uint64())
		} else {
			v.SetUint(rng.Uint64N(1 << v.Type().Bits()))
		}
	case reflect.Float32, reflect.Float64:
		v.SetFloat([]float64{0, 1.5, -2.25, 1e21, 3.4e-10, 3e38, rng.Float64() * 1e6}[rng.IntN(7)])
	case reflect.Pointer:
		p := reflect.New(v.Type().Elem())
		fillDecode(rng, p.Elem(), depth+1)
		v.Set(p)
	case reflect.Array:
		for i := range v.Len() {
			fillDecode(rng, v.Index(i), depth+1)
		}
	case reflect.Slice:
		n := rng.IntN(4)
		sl := reflect.MakeSlice(v.Type(), 0, n)
		seen := map[string]bool{}
		for range n {
			e := reflect.New(v.Type().Elem()).Elem()
			fillDecode(rng, e, depth+1)
			k := fmt.Sprint(e.Interface())
			if seen[k] || e.Kind() == reflect.Slice && e.Len() == 0 {
				continue // sets must not repeat elements, nor hold empty binaries
			}
			seen[k] = true
			sl = reflect.Append(sl, e)
		}
		v.Set(sl)
	case reflect.Map:
		m := reflect.MakeMap(v.Type())
		for range rng.IntN(3) {
			k := reflect.New(v.Type().Key()).Elem()
			fillDecode(rng, k, depth+1)
			if k.Kind() == reflect.String && k.Len() == 0 {
				continue // attributevalue refuses an empty key
			}
			e := reflect.New(v.Type().Elem()).Elem()
			fillDecode(rng, e, depth+1)
			m.SetMapIndex(k, e)
		}
		v.Set(m)
	case reflect.Struct:
		for i := range v.NumField() {
			fillDecode(rng, v.Field(i), depth+1)
		}
	case reflect.Interface:
		v.Set(reflect.ValueOf([]any{"x", 3.5, true, []any{"a", 2.0}, map[string]any{"k": "v", "n": nil}, []byte{1}}[rng.IntN(6)]))
	}
}

var (
	numberTexts = []string{"0", "1", "-1", "127", "128", "-129", "255", "256", "32767", "32768", "65536",
		"2147483648", "4294967296", "9223372036854775807", "9223372036854775808", "-9223372036854775809",
		"18446744073709551615", "18446744073709551616", "1.5", "-2.5e-3", "1e3", "3.5e38", "1e39", "1e308",
		"1e400", "NaN", "Inf", "-Inf", "0x1p3", "1_0", "abc", "", " 1", "1e-400"}
	stringTexts = []string{"", "x", "12", "-3", "1.5", "300", "-1", "2006-01-02T15:04:05Z",
		"2006-01-02T15:04:05.123456789+02:00", "2006-01-02 15:04:05", "0a000001", "01020304", "zz",
		"10.0.0.1", "::1", "c:hello", "c", "true", "NaN", "1e400", "12345678901234567890"}
	// No two of these are equal under case folding: with both in an M,
	// attributevalue's choice would depend on map order.
	mapKeys = []string{"A", "n", "t", "u", "tags", "c", "deep", "s", "M", "b2", "EP", "x", "k", "0a000001"}
)

// randAV returns an attribute value of a random type, with contents that
// exercise parsing and range checks.
func randAV(rng *rand.Rand, depth int) types.AttributeValue {
	n := 12
	if depth > 2 {
		n = 9 // no more lists or maps
	}
	switch rng.IntN(n) {
	case 0:
		return &types.AttributeValueMemberS{Value: stringTexts[rng.IntN(len(stringTexts))]}
	case 1:
		return &types.AttributeValueMemberN{Value: numberTexts[rng.IntN(len(numberTexts))]}
	case 2:
		return &types.AttributeValueMemberBOOL{Value: rng.IntN(2) == 0}
	case 3:
		return &types.AttributeValueMemberNULL{Value: true}
	case 4:
		return &types.AttributeValueMemberB{Value: [][]byte{nil, {}, {1, 2, 3, 4}, {1, 2, 3, 4, 5, 6, 7, 8}, {0xff}}[rng.IntN(5)]}
	case 5:
		var ss []string
		for range rng.IntN(3) {
			ss = append(ss, stringTexts[rng.IntN(len(stringTexts))])
		}
		return &types.AttributeValueMemberSS{Value: ss}
	case 6:
		var ns []string
		for range rng.IntN(3) {
			ns = append(ns, numberTexts[rng.IntN(len(numberTexts))])
		}
		return &types.AttributeValueMemberNS{Value: ns}
	case 7:
		return &types.AttributeValueMemberBS{Value: [][]byte{{1, 2, 3, 4}, {9}}[:rng.IntN(3)]}
	case 8:
		if rng.IntN(2) == 0 {
			return nil
		}
		return &types.AttributeValueMemberN{Value: numberTexts[rng.IntN(8)]}
	case 9, 10:
		l := make([]types.AttributeValue, rng.IntN(4))
		for i := range l {
			l[i] = randAV(rng, depth+1)
		}
		return &types.AttributeValueMemberL{Value: l}
	default:
		m := map[string]types.AttributeValue{}
		for range rng.IntN(4) {
			m[mapKeys[rng.IntN(len(mapKeys))]] = randAV(rng, depth+1)
		}
		return &types.AttributeValueMemberM{Value: m}
	}
}

// mutate changes one attribute of item: replaced by a random value,
// removed, an unknown one added, renamed to a name that differs in case,
// or an element inside a map or list changed. It reports whether the value
// it put in can fail in one place only: not if it holds an M of two or
// more entries, which attributevalue decodes in map order.
func mutate(rng *rand.Rand, item map[string]types.AttributeValue, names []string) (onePlace bool) {
	name := names[rng.IntN(len(names))]
	var av types.AttributeValue
	switch rng.IntN(10) {
	case 0:
		delete(item, name)
	case 1:
		av = randAV(rng, 0)
		item[[]string{"optimist_token", "optimist_unit", "zzz"}[rng.IntN(3)]] = av
	case 2:
		var ok bool
		if av, ok = item[name]; !ok {
			av = randAV(rng, 0)
		}
		setFolded(item, swapCase(name), av)
	case 3, 4:
		if old := item[name]; old != nil {
			if av = mutateDeep(rng, old); av != nil {
				break
			}
		}
		fallthrough
	default:
		av = randAV(rng, 0)
		// Folded too: an earlier mutation may have left this name in
		// another case, and two of them decode in map order.
		setFolded(item, name, av)
	}
	return !manyEntries(av)
}

func manyEntries(av types.AttributeValue) bool {
	switch a := av.(type) {
	case *types.AttributeValueMemberM:
		if len(a.Value) > 1 {
			return true
		}
		for _, e := range a.Value {
			if manyEntries(e) {
				return true
			}
		}
	case *types.AttributeValueMemberL:
		for _, e := range a.Value {
			if manyEntries(e) {
				return true
			}
		}
	}
	return false
}

// setFolded sets m[k] after removing the keys equal to k under case
// folding: with two of them, attributevalue's choice of the one it decodes
// last would depend on map order.
func setFolded(m map[string]types.AttributeValue, k string, av types.AttributeValue) {
	for old := range m {
		if strings.EqualFold(old, k) {
			delete(m, old)
		}
	}
	m[k] = av
}

func swapCase(s string) string {
	b := []byte(s)
	for i, c := range b {
		switch {
		case 'a' <= c && c <= 'z':
			b[i] = c - 'a' + 'A'
		case 'A' <= c && c <= 'Z':
			b[i] = c - 'A' + 'a'
		}
	}
	return string(b)
}

// mutateDeep changes an element inside the M or L av, and returns the
// value it put in, or nil if it did nothing.
func mutateDeep(rng *rand.Rand, av types.AttributeValue) types.AttributeValue {
	switch a := av.(type) {
	case *types.AttributeValueMemberM:
		if len(a.Value) > 0 && rng.IntN(3) > 0 {
			n := rng.IntN(len(a.Value))
			for k, e := range a.Value {
				if n--; n >= 0 {
					continue
				}
				if in := mutateDeep(rng, e); in != nil && rng.IntN(3) > 0 {
					return in
				}
				in := randAV(rng, 1)
				a.Value[k] = in
				return in
			}
		}
		in := randAV(rng, 1)
		setFolded(a.Value, mapKeys[rng.IntN(len(mapKeys))], in)
		return in
	case *types.AttributeValueMemberL:
		if len(a.Value) == 0 {
			return nil
		}
		i := rng.IntN(len(a.Value))
		if in := mutateDeep(rng, a.Value[i]); in != nil && rng.IntN(3) > 0 {
			return in
		}
		in := randAV(rng, 1)
		a.Value[i] = in
		return in
	}
	return nil
}

// catalogue lists attribute values of every type, with contents that
// exercise parsing and range checks, each failing in one place at most.
func catalogue() []types.AttributeValue {
	var out []types.AttributeValue
	s := func(v string) types.AttributeValue { return &types.AttributeValueMemberS{Value: v} }
	n := func(v string) types.AttributeValue { return &types.AttributeValueMemberN{Value: v} }
	for _, v := range stringTexts {
		out = append(out, s(v))
	}
	for _, v := range numberTexts {
		out = append(out, n(v), s(v))
	}
	scalars := []types.AttributeValue{
		&types.AttributeValueMemberBOOL{Value: true}, &types.AttributeValueMemberBOOL{},
		&types.AttributeValueMemberNULL{Value: true}, nil,
		&types.AttributeValueMemberB{}, &types.AttributeValueMemberB{Value: []byte{}},
		&types.AttributeValueMemberB{Value: []byte{1, 2, 3, 4}}, &types.AttributeValueMemberB{Value: []byte{1}},
		&types.AttributeValueMemberB{Value: []byte{1, 2, 3, 4, 5, 6, 7, 8}},
	}
	out = append(out, scalars...)
	for _, ss := range [][]string{{}, {"a", "b"}, {"1", "2"}, {"2006-01-02T15:04:05Z"}, {"01020304"}, {"c:x"}, {"0a000001", "x"}} {
		out = append(out, &types.AttributeValueMemberSS{Value: ss})
	}
	for _, ns := range [][]string{{}, {"1", "2"}, {"1.5"}, {"-1"}, {"300"}, {"70000"}, {"abc"}, {"1e400"}, {"NaN"}} {
		out = append(out, &types.AttributeValueMemberNS{Value: ns})
	}
	for _, bs := range [][][]byte{{}, {{1, 2, 3, 4}}, {{1}}, {{1, 2, 3, 4}, {}}} {
		out = append(out, &types.AttributeValueMemberBS{Value: bs})
	}
	inner := append([]types.AttributeValue{s("x"), s("01020304"), s("c:x"), s("2006-01-02T15:04:05Z"), s("10.0.0.1"),
		n("1"), n("300"), n("1.5"), n("-1"), n("1e400"), n("abc"),
		&types.AttributeValueMemberL{Value: []types.AttributeValue{s("x")}},
		&types.AttributeValueMemberM{Value: map[string]types.AttributeValue{"A": s("x")}},
		&types.AttributeValueMemberM{Value: map[string]types.AttributeValue{"a": n("1")}},
		&types.AttributeValueMemberSS{Value: []string{"a"}},
		&types.AttributeValueMemberNS{Value: []string{"1"}},
	}, scalars...)
	out = append(out, &types.AttributeValueMemberL{}, &types.AttributeValueMemberL{Value: []types.AttributeValue{}},
		&types.AttributeValueMemberM{}, &types.AttributeValueMemberM{Value: map[string]types.AttributeValue{}},
		&types.AttributeValueMemberL{Value: []types.AttributeValue{s("x"), n("2")}})
	for _, e := range inner {
		out = append(out, &types.AttributeValueMemberL{Value: []types.AttributeValue{e}})
		for _, k := range []string{"k", "A", "deep", "01020304", "1"} {
			out = append(out, &types.AttributeValueMemberM{Value: map[string]types.AttributeValue{k: e}})
		}
	}
	return out
}

// TestDecodeEveryFieldEveryType decodes each value of the catalogue as
// each attribute of decodeAll (under its name, and for some under a name
// that differs in case), and as each attribute of the nested struct in a
// valid item, and requires the plan to decode the item as
// attributevalue does: the same value, the same error, or the same panic
// (attributevalue panics on a B of the wrong length for a byte array).
func TestDecodeEveryFieldEveryType(t *testing.T) {
	s, err := schemaOf(reflect.TypeOf(decodeAll{}))
	require.NoError(t, err)
	c := newCodec(s, false, nil, nil)
	rng := rand.New(rand.NewPCG(5, 6))
	var v decodeAll
	for {
		v = decodeAll{}
		fillDecode(rng, reflect.ValueOf(&v).Elem(), 0)
		v.ID, v.AnyStr, v.Num = "id", 2.5, "7"
		v.EmbPtr = &EmbPtr{EP: "x"}
		if v.PIn == nil {
			v.PIn = &DecInner{}
		}
		v.PIn.EmbPtr = nil // allocated on decode, if an attribute of it is present
		a := c.newArena(0, 0)
		if _, err := c.encodeItem(reflect.ValueOf(&v).Elem(), &a, 0, nil); err == nil {
			break
		}
	}
	a := c.newArena(0, 0)
	written, err := c.encodeItem(reflect.ValueOf(&v).Elem(), &a, 0, nil)
	require.NoError(t, err)
	// Each value is tried alone in an item (the other attributes would
	// only slow the test down: each is decoded on its own), and in the
	// nested struct's map as written.
	pin := func(name string, av types.AttributeValue) map[string]types.AttributeValue {
		m := maps.Clone(written["pin"].(*types.AttributeValueMemberM).Value)
		m[name] = av
		return map[string]types.AttributeValue{"pin": &types.AttributeValueMemberM{Value: m}}
	}
	ref := refDecoder()
	check := func(item map[string]types.AttributeValue, what fmt.Stringer) (ok bool) {
		var want, got decodeAll
		wantPanic, wantErr := catch(func() error { return ref.Decode(&types.AttributeValueMemberM{Value: item}, &want) })
		gotPanic, gotErr := catch(func() error { return c.plan.decode(item, reflect.ValueOf(&got).Elem()) })
		require.Equal(t, wantPanic, gotPanic, "%s: panics", what)
		require.Equal(t, fmt.Sprint(wantErr), fmt.Sprint(gotErr), "%s: errors", what)
		if wantErr == nil && wantPanic == "" {
			require.True(t, equalDecoded(reflect.ValueOf(want), reflect.ValueOf(got)), "%s:\nattributevalue %+v\nplan           %+v", what, want, got)
			return true
		}
		return false
	}
	require.True(t, check(written, lazy(func() string { return "the item as written" })))
	innerNames := []string{"a", "n", "t", "u", "tags", "c", "deep", "s", "M", "b2", "c2", "ep", "epn"}
	decoded, refused := 0, 0
	for i, av := range catalogue() {
		for _, f := range c.plan.fields {
			names := []string{f.name}
			if i%4 == 0 {
				names = append(names, swapCase(f.name)) // found by case folding
			}
			for _, name := range names {
				if check(map[string]types.AttributeValue{name: av}, lazy(func() string { return name + " = " + describeAV(av) })) {
					decoded++
				} else {
					refused++
				}
			}
		}
		for _, name := range innerNames {
			if check(pin(name, av), lazy(func() string { return "pin." + name + " = " + describeAV(av) })) {
				decoded++
			} else {
				refused++
			}
		}
	}
	t.Logf("%d items decoded alike, %d refused alike", decoded, refused)
}
