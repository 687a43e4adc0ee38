package mapper_test

import (
	"encoding/binary"
	"errors"
	"math"
	"math/big"
	"net/netip"
	"reflect"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/optimist-dynamo/optimist/internal/ddbtest"
	"github.com/optimist-dynamo/optimist/mapper"
)

// point implements encoding.BinaryMarshaler only (stored as B).
type point struct{ x, y int32 }

func (p point) MarshalBinary() ([]byte, error) {
	b := make([]byte, 8)
	binary.BigEndian.PutUint32(b, uint32(p.x))
	binary.BigEndian.PutUint32(b[4:], uint32(p.y))
	return b, nil
}

func (p *point) UnmarshalBinary(b []byte) error {
	if len(b) != 8 {
		return errors.New("point: need 8 bytes")
	}
	p.x, p.y = int32(binary.BigEndian.Uint32(b)), int32(binary.BigEndian.Uint32(b[4:]))
	return nil
}

type fuzzInner struct {
	S string `dynamo:"s"`
	N *int64 `dynamo:"n"`
	P point  `dynamo:"p"`
}

// fuzzItem has a field of every kind the mapper supports.
type fuzzItem struct {
	ID     string                  `dynamo:"id,hash"`
	Str    string                  `dynamo:"str"`
	Int    int64                   `dynamo:"int"`
	Uint   uint64                  `dynamo:"uint"`
	F64    float64                 `dynamo:"f64"`
	F32    float32                 `dynamo:"f32"`
	FStr   float64                 `dynamo:"fstr,string"`
	Bool   bool                    `dynamo:"bool"`
	Bytes  []byte                  `dynamo:"bytes"`
	PStr   *string                 `dynamo:"pstr"`
	PPInt  **int                   `dynamo:"ppint"`
	Addr   netip.Addr              `dynamo:"addr"`
	PAddr  *netip.Addr             `dynamo:"paddr"`
	Big    *big.Int                `dynamo:"big"`
	BigV   big.Int                 `dynamo:"bigv"`
	Point  point                   `dynamo:"point"`
	When   time.Time               `dynamo:"when"`
	Unix   time.Time               `dynamo:"unix,unixtime"`
	Tags   []string                `dynamo:"tags,stringset"`
	Nums   []int                   `dynamo:"nums,numberset"`
	Bins   [][]byte                `dynamo:"bins,binaryset"`
	List   []string                `dynamo:"list"`
	Ints   []int                   `dynamo:"ints"`
	Map    map[string]int          `dynamo:"map"`
	Addrs  []netip.Addr            `dynamo:"addrs"`
	ByAddr map[netip.Addr]*big.Int `dynamo:"byaddr"`
	Inner  fuzzInner               `dynamo:"inner"`
	PInner *fuzzInner              `dynamo:"pinner"`
	Any    any                     `dynamo:"any"`
	AnyMap map[string]any          `dynamo:"anymap"`
}

// FuzzRoundTrip encodes a fuzzItem built from the inputs as a Put would
// (PutOp: nothing is sent) and decodes it as a Get would: either the
// encoding fails with ErrInvalidItem (NaN, infinities, numbers beyond
// DynamoDB's range, a channel in an any), or the value read back equals the
// value written, after the documented normalisations (nil lists and maps
// read back empty, empty sets nil, times to the encoding's precision).
func FuzzRoundTrip(f *testing.F) {
	f.Add("a", int64(1), uint64(2), 1.5, []byte{1, 2, 3, 4}, true, uint8(0))
	f.Add("b", int64(-3), uint64(1<<63), -2.25e-7, []byte("0123456789abcdef"), true, uint8(0))
	f.Add("c", int64(7), uint64(9), 3.0, []byte{1, 2, 3}, false, uint8(1))
	f.Add("d", int64(1e12), uint64(5), 1e125, []byte{9, 9, 9, 9}, true, uint8(2))
	f.Add("e", int64(0), uint64(0), 0.0, []byte(nil), false, uint8(3))
	f.Add("f", int64(5), uint64(6), -1e-129, []byte{}, true, uint8(4))
	f.Add("", int64(-1), uint64(math.MaxUint64), math.NaN(), []byte{}, false, uint8(1))
	f.Add("ü\x00", int64(math.MinInt64), uint64(0), math.Inf(1), []byte(nil), true, uint8(2))
	f.Add("x", int64(1e9), uint64(7), 1e300, []byte{0xff}, false, uint8(255))
	f.Add("y", int64(42), uint64(7), 1e-200, []byte{4, 5, 6, 7}, true, uint8(7))
	table, err := mapper.NewTable[fuzzItem](&ddbtest.CountingClient{}, "fuzz")
	require.NoError(f, err)
	f.Fuzz(func(t *testing.T, s string, i int64, u uint64, fl float64, b []byte, flag bool, sel uint8) {
		in := build(s, i, u, fl, b, flag, sel)
		// What must be refused: bad numbers, a channel in an any, and
		// empty map keys (attributevalue refuses them).
		refuse := badFloat(fl) || sel%8 == 7 || sel%8 == 0 && (s == "" || !in.Addr.IsValid())
		action, err := table.PutOp(&in).Action()
		if err != nil {
			if !errors.Is(err, mapper.ErrInvalidItem) {
				t.Fatalf("encode error of the wrong class: %v", err)
			}
			if !refuse {
				t.Fatalf("encode refused a good value: %v", err)
			}
			return
		}
		if refuse {
			t.Fatalf("encoded a value that should be refused (float %v, selector %d, key %q)", fl, sel, s)
		}
		out, err := table.Decode(action.Put.Item)
		if err != nil {
			t.Fatalf("decode: %v", err)
		}
		want := normalize(in)
		got := normalize(*out)
		if !reflect.DeepEqual(want, got) {
			t.Fatalf("round trip changed the value:\nwrote %+v\nread  %+v", want, got)
		}
	})
}

// badFloat tells whether DynamoDB refuses fl as a number.
func badFloat(fl float64) bool {
	a := math.Abs(fl)
	return math.IsNaN(fl) || math.IsInf(fl, 0) || a != 0 && (a >= 1e126 || a < 1e-130) ||
		math.IsInf(float64(float32(fl)), 0) // F32 is float32(fl)
}

func build(s string, i int64, u uint64, fl float64, b []byte, flag bool, sel uint8) fuzzItem {
	n := int(i)
	pn := &n
	bi := new(big.Int).SetUint64(u)
	bi.Mul(bi, big.NewInt(i))
	var addr netip.Addr
	if len(b) >= 4 {
		addr = netip.AddrFrom4([4]byte(b[:4]))
	}
	if len(b) >= 16 && flag {
		addr = netip.AddrFrom16([16]byte(b[:16]))
	}
	v := fuzzItem{
		ID: "k", Str: s, Int: i, Uint: u, F64: fl, F32: float32(fl), FStr: fl, Bool: flag, Bytes: b,
		Addr: addr, Big: bi, Point: point{int32(i), int32(u)},
		When:  time.Unix(i%(1<<35), int64(u%1e9)).In(time.FixedZone("z", int(i%840)*60)),
		Unix:  time.Unix(i%(1<<35), 0).UTC(),
		Inner: fuzzInner{S: s, P: point{1, 2}},
	}
	v.BigV.SetInt64(i)
	switch sel % 8 {
	case 0:
		v.PStr, v.PPInt = &s, &pn
		v.PAddr = &addr
		v.Tags, v.Nums, v.Bins = []string{s, s + "1"}, []int{n, n + 1}, [][]byte{b, append([]byte{1}, b...)}
		v.List, v.Ints, v.Map = []string{s}, []int{n}, map[string]int{s: n}
		v.Addrs = []netip.Addr{addr}
		v.ByAddr = map[netip.Addr]*big.Int{addr: bi}
		v.PInner = &fuzzInner{S: s, N: &i}
	case 1:
		v.Tags, v.Nums, v.Bins = []string{}, []int{}, [][]byte{}
		v.List, v.Ints, v.Map = []string{}, []int{}, map[string]int{}
	case 2:
		v.Any = s
		v.AnyMap = map[string]any{"s": s, "f": fl, "b": flag, "l": []any{s, fl}, "m": map[string]any{"x": fl}}
	case 3:
		v.Any = fl
	case 4:
		v.Any = []any{flag, nil}
	case 7:
		v.AnyMap = map[string]any{"bad": make(chan int)}
	}
	return v
}

// normalize applies what the mapper documents: nil lists and maps are
// stored empty, empty sets are not stored (nil), times are compared as
// instants in UTC (unixtime to the second), anys as decoded.
func normalize(v fuzzItem) fuzzItem {
	if v.List == nil {
		v.List = []string{}
	}
	if v.Ints == nil {
		v.Ints = []int{}
	}
	if v.Map == nil {
		v.Map = map[string]int{}
	}
	if v.Addrs == nil {
		v.Addrs = []netip.Addr{}
	}
	if v.ByAddr == nil {
		v.ByAddr = map[netip.Addr]*big.Int{}
	}
	if len(v.Tags) == 0 {
		v.Tags = nil
	}
	if len(v.Nums) == 0 {
		v.Nums = nil
	}
	if len(v.Bins) == 0 {
		v.Bins = nil
	}
	v.Big = canonicalBig(v.Big)
	if c := canonicalBig(&v.BigV); c != nil {
		v.BigV = *c
	}
	byAddr := make(map[netip.Addr]*big.Int, len(v.ByAddr))
	for k, b := range v.ByAddr {
		byAddr[k] = canonicalBig(b)
	}
	v.ByAddr = byAddr
	v.When = v.When.UTC()
	v.Unix = v.Unix.UTC()
	if v.AnyMap == nil {
		v.AnyMap = map[string]any{}
	}
	v.Any = normAny(v.Any)
	v.AnyMap = normAny(v.AnyMap).(map[string]any)
	if math.IsNaN(v.FStr) {
		v.FStr = 0 // NaN != NaN; stored as the text "NaN", which is fine
	}
	return v
}

// normAny turns numbers into float64, as attributevalue decodes them into
// an any.
func normAny(a any) any {
	switch a := a.(type) {
	case []any:
		out := make([]any, len(a))
		for i, e := range a {
			out[i] = normAny(e)
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(a))
		for k, e := range a {
			out[k] = normAny(e)
		}
		return out
	case float32:
		return float64(a)
	}
	return a
}

// canonicalBig rebuilds b from its text, so that equal values are
// DeepEqual (a zero big.Int may hold a nil or an empty slice).
func canonicalBig(b *big.Int) *big.Int {
	if b == nil {
		return nil
	}
	c, _ := new(big.Int).SetString(b.String(), 10)
	return c
}
