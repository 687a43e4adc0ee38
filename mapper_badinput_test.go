package optimist_test

// Part of the end-to-end suite (see mapper_test.go): bad input to every
// package is refused before anything is sent.

import (
	"context"
	"fmt"
	"math"
	"math/big"
	"net"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
	"unsafe"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"

	"github.com/optimist-dynamo/optimist/dynamolocal"
	"github.com/optimist-dynamo/optimist/internal/ddbtest"
	"github.com/optimist-dynamo/optimist/mapper"
	"github.com/optimist-dynamo/optimist/pessimistic"
	"github.com/optimist-dynamo/optimist/txn"
	"github.com/optimist-dynamo/optimist/update"
)

// Types for the bad-input cases.
type (
	bItem struct {
		PK   string             `dynamo:"pk,hash"`
		SK   string             `dynamo:"sk,range"`
		F    float64            `dynamo:"f"`
		F32  float32            `dynamo:"f32"`
		PF   *float64           `dynamo:"pf"`
		Any  any                `dynamo:"any"`
		AM   map[string]any     `dynamo:"am"`
		AL   []any              `dynamo:"al"`
		FL   []float64          `dynamo:"fl"`
		NS   []float64          `dynamo:"ns,numberset"`
		FM   map[string]float64 `dynamo:"fm"`
		In   *bInner            `dynamo:"in"`
		Text string             `dynamo:"text,omitempty"`
		Many map[string]string  `dynamo:"many"`
		V    int64              `dynamo:"v,version"`
	}
	bInner struct {
		X float64 `dynamo:"x"`
	}
	bBinKey struct {
		K []byte `dynamo:"k,hash"`
	}
	// Types NewTable must refuse.
	sComplex struct {
		ID string     `dynamo:"id,hash"`
		Z  complex128 `dynamo:"z"`
	}
	sComplex64 struct {
		ID string    `dynamo:"id,hash"`
		Z  complex64 `dynamo:"z"`
	}
	sChan struct {
		ID string   `dynamo:"id,hash"`
		C  chan int `dynamo:"c"`
	}
	sFunc struct {
		ID string `dynamo:"id,hash"`
		F  func() `dynamo:"f"`
	}
	sUintptr struct {
		ID string  `dynamo:"id,hash"`
		P  uintptr `dynamo:"p"`
	}
	sUnsafe struct {
		ID string         `dynamo:"id,hash"`
		P  unsafe.Pointer `dynamo:"p"`
	}
	sComplexList struct {
		ID string       `dynamo:"id,hash"`
		Zs []complex128 `dynamo:"zs"`
	}
	sChanMap struct {
		ID string              `dynamo:"id,hash"`
		M  map[string]chan int `dynamo:"m"`
	}
	sNestedFunc struct {
		ID    string `dynamo:"id,hash"`
		Inner struct {
			Hook func() `dynamo:"hook"`
		} `dynamo:"inner"`
	}
	opaque      struct{ x int }
	sUnexported struct {
		ID string `dynamo:"id,hash"`
		O  opaque `dynamo:"o"`
	}
	sMutex struct {
		ID string     `dynamo:"id,hash"`
		Mu sync.Mutex `dynamo:"mu"`
	}
	textOnly  struct{}
	sTextOnly struct {
		ID string   `dynamo:"id,hash"`
		T  textOnly `dynamo:"t"`
	}
	unTextOnly  struct{}
	sUnTextOnly struct {
		ID string     `dynamo:"id,hash"`
		T  unTextOnly `dynamo:"t"`
	}
	binOnly  struct{}
	sBinOnly struct {
		ID string  `dynamo:"id,hash"`
		B  binOnly `dynamo:"b"`
	}
	sBigMap struct {
		ID string             `dynamo:"id,hash"`
		M  map[string]big.Int `dynamo:"m"`
	}
	sBadKey struct {
		ID string            `dynamo:"id,hash"`
		M  map[[2]int]string `dynamo:"m"`
	}
	sStringer struct {
		ID string       `dynamo:"id,hash"`
		S  fmt.Stringer `dynamo:"s"`
	}
	sUnixInText struct {
		ID string `dynamo:"id,hash"`
		In struct {
			At  time.Time `dynamo:"at,unixtime"`
			Any any       `dynamo:"any"`
		} `dynamo:"in"`
	}
	sUnknownOpt struct {
		ID string `dynamo:"id,hsh"`
	}
	sNoHash struct {
		ID string `dynamo:"id"`
	}
	sTwoHash struct {
		A string `dynamo:"a,hash"`
		B string `dynamo:"b,hash"`
	}
	sStringVersion struct {
		ID string `dynamo:"id,hash"`
		V  string `dynamo:"v,version"`
	}
	sListKey struct {
		ID []string `dynamo:"id,hash"`
	}
	sBoolKey struct {
		ID bool `dynamo:"id,hash"`
	}
)

func (textOnly) MarshalText() ([]byte, error)                   { return nil, nil }
func (*unTextOnly) UnmarshalText([]byte) error                  { return nil }
func (binOnly) MarshalBinary() ([]byte, error)                  { return nil, nil }
func (o opaque) String() string                                 { return fmt.Sprint(o.x) }
func newTable[T any](c mapper.Client) (*mapper.Table[T], error) { return mapper.NewTable[T](c, "t") }

// badCase is one mistake a user can make. run makes it through c, a client
// that counts calls and answers none; the error must match sentinel and
// contain mention.
type badCase struct {
	name     string
	sentinel error
	mention  string
	run      func(ctx context.Context, c *ddbtest.CountingClient) error
}

// TestBadInput makes ordinary mistakes with every package: each must
// return an error that matches its documented sentinel and names the
// problem, without a panic and without a request.
func TestBadInput(t *testing.T) {
	nan, inf := math.NaN(), math.Inf(1)
	long := func(n int) string { return strings.Repeat("k", n) }
	item := func(mod func(*bItem)) *bItem {
		it := &bItem{PK: "p", SK: "s"}
		mod(it)
		return it
	}
	table := func(c *ddbtest.CountingClient) *mapper.Table[bItem] {
		tb, err := mapper.NewTable[bItem](c, "t")
		if err != nil {
			panic(err) // a defect of the test; reported as a panic
		}
		return tb
	}
	put := func(mod func(*bItem)) func(context.Context, *ddbtest.CountingClient) error {
		return func(ctx context.Context, c *ddbtest.CountingClient) error { return table(c).Put(ctx, item(mod)) }
	}
	schema := func(f func(mapper.Client) error) func(context.Context, *ddbtest.CountingClient) error {
		return func(_ context.Context, c *ddbtest.CountingClient) error { return f(c) }
	}
	var nilTable *mapper.Table[bItem]
	var zeroTable mapper.Table[bItem]
	huge := strings.Repeat("x", 400*1024)
	tooMany := map[string]string{}
	for i := range 500 {
		tooMany[fmt.Sprintf("k%03d", i)] = strings.Repeat("y", 820)
	}
	rawKey := map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: "p"}}
	commit := func(ctx context.Context, c *ddbtest.CountingClient, ops ...txn.Op) error {
		tx := txn.New(c)
		if err := tx.Add(ops...); err != nil {
			return err
		}
		return tx.Commit(ctx)
	}
	build := func(u *update.Builder) error { _, err := u.Build(); return err }
	refusedPort := func() string {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			panic(err)
		}
		defer l.Close()
		return l.Addr().String()
	}

	cases := []badCase{
		// NewTable refuses types that would not round-trip.
		{"complex128 field", mapper.ErrInvalidSchema, "Z", schema(func(c mapper.Client) error { _, err := newTable[sComplex](c); return err })},
		{"complex64 field", mapper.ErrInvalidSchema, "complex", schema(func(c mapper.Client) error { _, err := newTable[sComplex64](c); return err })},
		{"chan field", mapper.ErrInvalidSchema, "C", schema(func(c mapper.Client) error { _, err := newTable[sChan](c); return err })},
		{"func field", mapper.ErrInvalidSchema, "F", schema(func(c mapper.Client) error { _, err := newTable[sFunc](c); return err })},
		{"uintptr field", mapper.ErrInvalidSchema, "uintptr", schema(func(c mapper.Client) error { _, err := newTable[sUintptr](c); return err })},
		{"unsafe.Pointer field", mapper.ErrInvalidSchema, "unsafe.Pointer", schema(func(c mapper.Client) error { _, err := newTable[sUnsafe](c); return err })},
		{"list of complex", mapper.ErrInvalidSchema, "Zs", schema(func(c mapper.Client) error { _, err := newTable[sComplexList](c); return err })},
		{"map of chan", mapper.ErrInvalidSchema, "chan int", schema(func(c mapper.Client) error { _, err := newTable[sChanMap](c); return err })},
		{"func in a nested struct", mapper.ErrInvalidSchema, "Hook", schema(func(c mapper.Client) error { _, err := newTable[sNestedFunc](c); return err })},
		{"struct of unexported fields", mapper.ErrInvalidSchema, "only unexported fields", schema(func(c mapper.Client) error { _, err := newTable[sUnexported](c); return err })},
		{"sync.Mutex field", mapper.ErrInvalidSchema, "Mu", schema(func(c mapper.Client) error { _, err := newTable[sMutex](c); return err })},
		{"MarshalText without UnmarshalText", mapper.ErrInvalidSchema, "TextUnmarshaler", schema(func(c mapper.Client) error { _, err := newTable[sTextOnly](c); return err })},
		{"UnmarshalText without MarshalText", mapper.ErrInvalidSchema, "TextMarshaler", schema(func(c mapper.Client) error { _, err := newTable[sUnTextOnly](c); return err })},
		{"MarshalBinary without UnmarshalBinary", mapper.ErrInvalidSchema, "BinaryUnmarshaler", schema(func(c mapper.Client) error { _, err := newTable[sBinOnly](c); return err })},
		{"big.Int map values (pointer MarshalText)", mapper.ErrInvalidSchema, "not addressable", schema(func(c mapper.Client) error { _, err := newTable[sBigMap](c); return err })},
		{"array map key", mapper.ErrInvalidSchema, "map key", schema(func(c mapper.Client) error { _, err := newTable[sBadKey](c); return err })},
		{"interface with methods", mapper.ErrInvalidSchema, "fmt.Stringer", schema(func(c mapper.Client) error { _, err := newTable[sStringer](c); return err })},
		{"unixtime inside an any-holding struct", mapper.ErrInvalidSchema, "unixtime", schema(func(c mapper.Client) error { _, err := newTable[sUnixInText](c); return err })},
		{"unknown tag option", mapper.ErrInvalidSchema, "hsh", schema(func(c mapper.Client) error { _, err := newTable[sUnknownOpt](c); return err })},
		{"no hash key", mapper.ErrInvalidSchema, "no hash key", schema(func(c mapper.Client) error { _, err := newTable[sNoHash](c); return err })},
		{"two hash keys", mapper.ErrInvalidSchema, "second hash key", schema(func(c mapper.Client) error { _, err := newTable[sTwoHash](c); return err })},
		{"string version", mapper.ErrInvalidSchema, "integer", schema(func(c mapper.Client) error { _, err := newTable[sStringVersion](c); return err })},
		{"list as key", mapper.ErrInvalidSchema, "string, number or binary", schema(func(c mapper.Client) error { _, err := newTable[sListKey](c); return err })},
		{"bool as key", mapper.ErrInvalidSchema, "string, number or binary", schema(func(c mapper.Client) error { _, err := newTable[sBoolKey](c); return err })},

		// Tables not made by NewTable, and NewTable without a client.
		{"Put on a nil *Table", mapper.ErrInvalidOption, "nil *Table", func(ctx context.Context, _ *ddbtest.CountingClient) error {
			return nilTable.Put(ctx, item(func(*bItem) {}))
		}},
		{"Put on a zero Table", mapper.ErrInvalidOption, "zero Table", func(ctx context.Context, _ *ddbtest.CountingClient) error {
			return zeroTable.Put(ctx, item(func(*bItem) {}))
		}},
		{"Get on a nil *Table", mapper.ErrInvalidOption, "nil *Table", func(ctx context.Context, _ *ddbtest.CountingClient) error {
			_, err := nilTable.Get(ctx, bItem{PK: "p"})
			return err
		}},
		{"Update on a zero Table", mapper.ErrInvalidOption, "zero Table", func(ctx context.Context, _ *ddbtest.CountingClient) error {
			_, err := zeroTable.Update(ctx, bItem{PK: "p"}, update.Set("f", 1))
			return err
		}},
		{"Delete on a zero Table", mapper.ErrInvalidOption, "zero Table", func(ctx context.Context, _ *ddbtest.CountingClient) error {
			return zeroTable.Delete(ctx, bItem{PK: "p"})
		}},
		{"Modify on a zero Table", mapper.ErrInvalidOption, "zero Table", func(ctx context.Context, _ *ddbtest.CountingClient) error {
			_, err := zeroTable.Modify(ctx, bItem{PK: "p"}, func(*bItem) error { return nil })
			return err
		}},
		{"Save on a nil *Table", mapper.ErrInvalidOption, "nil *Table", func(ctx context.Context, _ *ddbtest.CountingClient) error {
			return nilTable.Save(ctx, item(func(*bItem) {}))
		}},
		{"Query on a nil *Table", mapper.ErrInvalidOption, "nil *Table", func(ctx context.Context, _ *ddbtest.CountingClient) error {
			for _, err := range nilTable.Query(ctx, expression.Key("pk").Equal(expression.Value("p"))) {
				return err
			}
			return nil
		}},
		{"Scan on a zero Table", mapper.ErrInvalidOption, "zero Table", func(ctx context.Context, _ *ddbtest.CountingClient) error {
			for _, err := range zeroTable.Scan(ctx) {
				return err
			}
			return nil
		}},
		{"GetAll on a nil *Table", mapper.ErrInvalidOption, "nil *Table", func(ctx context.Context, _ *ddbtest.CountingClient) error {
			_, err := nilTable.GetAll(ctx, []bItem{{PK: "p"}})
			return err
		}},
		{"PutAll on a zero Table", mapper.ErrInvalidOption, "zero Table", func(ctx context.Context, _ *ddbtest.CountingClient) error {
			return zeroTable.PutAll(ctx, []*bItem{item(func(*bItem) {})}, mapper.Unversioned())
		}},
		{"DeleteAll on a nil *Table", mapper.ErrInvalidOption, "nil *Table", func(ctx context.Context, _ *ddbtest.CountingClient) error {
			return nilTable.DeleteAll(ctx, []bItem{{PK: "p"}}, mapper.Unversioned())
		}},
		{"PutOp on a nil *Table", mapper.ErrInvalidOption, "nil *Table", func(ctx context.Context, c *ddbtest.CountingClient) error {
			return commit(ctx, c, nilTable.PutOp(item(func(*bItem) {})))
		}},
		{"Key on a zero Table", mapper.ErrInvalidOption, "zero Table", func(context.Context, *ddbtest.CountingClient) error {
			_, err := zeroTable.Key(bItem{PK: "p"})
			return err
		}},
		{"NewTable with a nil client", mapper.ErrInvalidOption, "client", func(context.Context, *ddbtest.CountingClient) error {
			_, err := mapper.NewTable[bItem](nil, "t")
			return err
		}},
		{"NewTable with a nil *dynamodb.Client", mapper.ErrInvalidOption, "client", func(context.Context, *ddbtest.CountingClient) error {
			var dc *dynamodb.Client
			_, err := mapper.NewTable[bItem](dc, "t")
			return err
		}},
		{"NewTable without a name", mapper.ErrInvalidOption, "table name", func(_ context.Context, c *ddbtest.CountingClient) error {
			_, err := mapper.NewTable[bItem](c, "")
			return err
		}},
		{"Modify with a nil fn", mapper.ErrInvalidOption, "fn is nil", func(ctx context.Context, c *ddbtest.CountingClient) error {
			_, err := table(c).Modify(ctx, bItem{PK: "p", SK: "s"}, nil)
			return err
		}},

		// Keys over DynamoDB's limits.
		{"Put: hash key of 2,049 bytes", mapper.ErrInvalidItem, `"pk"`, put(func(it *bItem) { it.PK = long(2049) })},
		{"Get: hash key of 2,049 bytes", mapper.ErrInvalidItem, `"pk"`, func(ctx context.Context, c *ddbtest.CountingClient) error {
			_, err := table(c).Get(ctx, bItem{PK: long(2049), SK: "s"})
			return err
		}},
		{"Put: range key of 1,025 bytes", mapper.ErrInvalidItem, `"sk"`, put(func(it *bItem) { it.SK = long(1025) })},
		{"Get: range key of 1,025 bytes", mapper.ErrInvalidItem, `"sk"`, func(ctx context.Context, c *ddbtest.CountingClient) error {
			_, err := table(c).Get(ctx, bItem{PK: "p", SK: long(1025)})
			return err
		}},
		{"Put: hash key of 683 euro signs (2,049 bytes)", mapper.ErrInvalidItem, "2049 bytes", put(func(it *bItem) { it.PK = strings.Repeat("€", 683) })},
		{"Delete: hash key too long", mapper.ErrInvalidItem, `"pk"`, func(ctx context.Context, c *ddbtest.CountingClient) error {
			return table(c).Delete(ctx, bItem{PK: long(3000), SK: "s"})
		}},
		{"Update: hash key too long", mapper.ErrInvalidItem, `"pk"`, func(ctx context.Context, c *ddbtest.CountingClient) error {
			_, err := table(c).Update(ctx, bItem{PK: long(2049), SK: "s"}, update.Set("f", 1))
			return err
		}},
		{"Modify: range key too long", mapper.ErrInvalidItem, `"sk"`, func(ctx context.Context, c *ddbtest.CountingClient) error {
			_, err := table(c).Modify(ctx, bItem{PK: "p", SK: long(1025)}, func(*bItem) error { return nil })
			return err
		}},
		{"Save: hash key too long", mapper.ErrInvalidItem, `"pk"`, func(ctx context.Context, c *ddbtest.CountingClient) error {
			return table(c).Save(ctx, item(func(it *bItem) { it.PK = long(2049) }))
		}},
		{"PutOp: hash key too long", mapper.ErrInvalidItem, `"pk"`, func(ctx context.Context, c *ddbtest.CountingClient) error {
			return commit(ctx, c, table(c).PutOp(item(func(it *bItem) { it.PK = long(2049) })))
		}},
		{"DeleteOp: range key too long", mapper.ErrInvalidItem, `"sk"`, func(ctx context.Context, c *ddbtest.CountingClient) error {
			return commit(ctx, c, table(c).DeleteOp(bItem{PK: "p", SK: long(1025)}))
		}},
		{"CheckOp: hash key too long", mapper.ErrInvalidItem, `"pk"`, func(ctx context.Context, c *ddbtest.CountingClient) error {
			return commit(ctx, c, table(c).CheckOp(bItem{PK: long(2049), SK: "s", V: 1}))
		}},
		{"UpdateOp: hash key too long", mapper.ErrInvalidItem, `"pk"`, func(ctx context.Context, c *ddbtest.CountingClient) error {
			return commit(ctx, c, table(c).UpdateOp(bItem{PK: long(2049), SK: "s"}, update.Set("f", 1)))
		}},
		{"GetAll: one key too long", mapper.ErrInvalidItem, `"pk"`, func(ctx context.Context, c *ddbtest.CountingClient) error {
			_, err := table(c).GetAll(ctx, []bItem{{PK: "p", SK: "s"}, {PK: long(2049), SK: "s"}})
			return err
		}},
		{"PutAll: one key too long", mapper.ErrInvalidItem, `"sk"`, func(ctx context.Context, c *ddbtest.CountingClient) error {
			return table(c).PutAll(ctx, []*bItem{item(func(*bItem) {}), item(func(it *bItem) { it.SK = long(1025) })}, mapper.Unversioned())
		}},
		{"DeleteAll: one key too long", mapper.ErrInvalidItem, `"pk"`, func(ctx context.Context, c *ddbtest.CountingClient) error {
			return table(c).DeleteAll(ctx, []bItem{{PK: long(2049), SK: "s"}}, mapper.Unversioned())
		}},
		{"Put: empty hash key", mapper.ErrInvalidItem, "empty", put(func(it *bItem) { it.PK = "" })},
		{"Put: binary hash key of 2,049 bytes", mapper.ErrInvalidItem, `"k"`, func(ctx context.Context, c *ddbtest.CountingClient) error {
			tb, err := mapper.NewTable[bBinKey](c, "t")
			if err != nil {
				return err
			}
			return tb.Put(ctx, &bBinKey{K: make([]byte, 2049)})
		}},
		{"Key: hash key too long", mapper.ErrInvalidItem, `"pk"`, func(_ context.Context, c *ddbtest.CountingClient) error {
			_, err := table(c).Key(bItem{PK: long(2049), SK: "s"})
			return err
		}},

		// Values DynamoDB refuses.
		{"Put: NaN", mapper.ErrInvalidItem, `"f"`, put(func(it *bItem) { it.F = nan })},
		{"Put: +Inf", mapper.ErrInvalidItem, `"f"`, put(func(it *bItem) { it.F = inf })},
		{"Put: -Inf", mapper.ErrInvalidItem, `"f"`, put(func(it *bItem) { it.F = -inf })},
		{"Put: *float64 NaN", mapper.ErrInvalidItem, `"pf"`, put(func(it *bItem) { it.PF = &nan })},
		{"Put: float32 Inf", mapper.ErrInvalidItem, `"f32"`, put(func(it *bItem) { it.F32 = float32(inf) })},
		{"Put: 1e300 (over DynamoDB's range)", mapper.ErrInvalidItem, "range", put(func(it *bItem) { it.F = 1e300 })},
		{"Put: 1e-200 (under DynamoDB's range)", mapper.ErrInvalidItem, "range", put(func(it *bItem) { it.F = 1e-200 })},
		{"Put: NaN in a list", mapper.ErrInvalidItem, "fl[1]", put(func(it *bItem) { it.FL = []float64{1, nan} })},
		{"Put: Inf in a number set", mapper.ErrInvalidItem, "ns", put(func(it *bItem) { it.NS = []float64{inf} })},
		{"Put: NaN in a map", mapper.ErrInvalidItem, "fm.a", put(func(it *bItem) { it.FM = map[string]float64{"a": nan} })},
		{"Put: NaN in a nested struct", mapper.ErrInvalidItem, "in.x", put(func(it *bItem) { it.In = &bInner{X: nan} })},
		{"Put: any holding a chan", mapper.ErrInvalidItem, "Any", put(func(it *bItem) { it.Any = make(chan int) })},
		{"Put: map[string]any holding a func", mapper.ErrInvalidItem, "AM[hook]", put(func(it *bItem) { it.AM = map[string]any{"hook": func() {}} })},
		{"Put: []any holding a complex", mapper.ErrInvalidItem, "AL[1]", put(func(it *bItem) { it.AL = []any{1, complex(1, 2)} })},
		{"Put: any holding NaN", mapper.ErrInvalidItem, "encoding Any", put(func(it *bItem) { it.Any = nan })},
		{"Put: map[string]any nested NaN", mapper.ErrInvalidItem, "am.m.x", put(func(it *bItem) { it.AM = map[string]any{"m": map[string]any{"x": nan}} })},
		{"Put: any holding a struct of unexported fields", mapper.ErrInvalidItem, "only unexported fields", put(func(it *bItem) { it.Any = opaque{1} })},
		{"Put: NaN in an If condition", mapper.ErrInvalidItem, "NaN", func(ctx context.Context, c *ddbtest.CountingClient) error {
			return table(c).Put(ctx, item(func(*bItem) {}), mapper.If(expression.Name("f").LessThan(expression.Value(nan))))
		}},
		{"Query: NaN in the key condition", mapper.ErrInvalidItem, "NaN", func(ctx context.Context, c *ddbtest.CountingClient) error {
			for _, err := range table(c).Query(ctx, expression.Key("pk").Equal(expression.Value("p")).And(expression.Key("sk").LessThan(expression.Value(nan)))) {
				return err
			}
			return nil
		}},
		{"Scan: Inf in a filter", mapper.ErrInvalidItem, "Inf", func(ctx context.Context, c *ddbtest.CountingClient) error {
			for _, err := range table(c).Scan(ctx, mapper.Filter(expression.Name("f").GreaterThan(expression.Value(inf)))) {
				return err
			}
			return nil
		}},
		{"Save: NaN", mapper.ErrInvalidItem, `"f"`, func(ctx context.Context, c *ddbtest.CountingClient) error {
			return table(c).Save(ctx, item(func(it *bItem) { it.F = nan }))
		}},
		{"PutOp: Inf", mapper.ErrInvalidItem, `"f"`, func(ctx context.Context, c *ddbtest.CountingClient) error {
			return commit(ctx, c, table(c).PutOp(item(func(it *bItem) { it.F = inf })))
		}},
		{"PutAll: NaN in the second item", mapper.ErrInvalidItem, "items[1]", func(ctx context.Context, c *ddbtest.CountingClient) error {
			return table(c).PutAll(ctx, []*bItem{item(func(*bItem) {}), item(func(it *bItem) { it.SK = "t"; it.F = nan })}, mapper.Unversioned())
		}},
		{"Update: update.Set NaN", update.ErrInvalidValue, "NaN", func(ctx context.Context, c *ddbtest.CountingClient) error {
			_, err := table(c).Update(ctx, bItem{PK: "p", SK: "s"}, update.Set("f", nan))
			return err
		}},
		{"Update: update.Add Inf (an invalid update)", mapper.ErrInvalidOption, "Inf", func(ctx context.Context, c *ddbtest.CountingClient) error {
			_, err := table(c).Update(ctx, bItem{PK: "p", SK: "s"}, update.Add("f", inf))
			return err
		}},
		{"UpdateOp: update.Set NaN", update.ErrInvalidValue, "NaN", func(ctx context.Context, c *ddbtest.CountingClient) error {
			return commit(ctx, c, table(c).UpdateOp(bItem{PK: "p", SK: "s"}, update.Set("f", nan)))
		}},

		// Items over 400 KB.
		{"Put: item over 400 KB", mapper.ErrItemTooLarge, `"text"`, put(func(it *bItem) { it.Text = huge })},
		{"Put: 500 attributes of 820 bytes in a map", mapper.ErrItemTooLarge, `"many"`, put(func(it *bItem) { it.Many = tooMany })},
		{"Save: item over 400 KB", mapper.ErrItemTooLarge, `"text"`, func(ctx context.Context, c *ddbtest.CountingClient) error {
			return table(c).Save(ctx, item(func(it *bItem) { it.Text = huge }))
		}},
		{"PutOp: item over 400 KB", mapper.ErrItemTooLarge, `"text"`, func(ctx context.Context, c *ddbtest.CountingClient) error {
			return commit(ctx, c, table(c).PutOp(item(func(it *bItem) { it.Text = huge })))
		}},
		{"PutAll: item over 400 KB", mapper.ErrItemTooLarge, `"text"`, func(ctx context.Context, c *ddbtest.CountingClient) error {
			return table(c).PutAll(ctx, []*bItem{item(func(it *bItem) { it.Text = huge })}, mapper.Unversioned())
		}},
		{"Update: a value over 400 KB", mapper.ErrItemTooLarge, "400", func(ctx context.Context, c *ddbtest.CountingClient) error {
			_, err := table(c).Update(ctx, bItem{PK: "p", SK: "s"}, update.Set("text", huge+"x"))
			return err
		}},

		// The update builder keeps its first error.
		{"update.Set NaN", update.ErrInvalidValue, "NaN", func(context.Context, *ddbtest.CountingClient) error { return build(update.Set("a", nan)) }},
		{"update.Add +Inf", update.ErrInvalidValue, "Inf", func(context.Context, *ddbtest.CountingClient) error { return build(update.Add("n", inf)) }},
		{"update.SetIfNotExists -Inf", update.ErrInvalidValue, "Inf", func(context.Context, *ddbtest.CountingClient) error { return build(update.SetIfNotExists("n", -inf)) }},
		{"update.Append NaN element", update.ErrInvalidValue, "l[0]", func(context.Context, *ddbtest.CountingClient) error { return build(update.Append("l", []float64{nan})) }},
		{"update.Set map holding a chan", update.ErrInvalidValue, "chan", func(context.Context, *ddbtest.CountingClient) error {
			return build(update.Set("m", map[string]any{"c": make(chan int)}))
		}},
		{"update.Set complex", update.ErrInvalidValue, "complex128", func(context.Context, *ddbtest.CountingClient) error { return build(update.Set("z", complex(1, 2))) }},
		{"update.Set 1e300", update.ErrInvalidValue, "range", func(context.Context, *ddbtest.CountingClient) error { return build(update.Set("a", 1e300)) }},
		{"update: first error kept", update.ErrInvalidValue, `Set("a")`, func(context.Context, *ddbtest.CountingClient) error { return build(update.Set("a", nan).Set("", 1)) }},
		{"update.Set empty string set", update.ErrInvalidValue, "empty string set", func(context.Context, *ddbtest.CountingClient) error {
			return build(update.Set("s", &types.AttributeValueMemberSS{}))
		}},

		// Raw transaction ops, and transactions without a client.
		{"txn.Put NaN", txn.ErrInvalidItem, "NaN", func(ctx context.Context, c *ddbtest.CountingClient) error {
			return commit(ctx, c, txn.Put("t", rawKey, map[string]types.AttributeValue{"pk": rawKey["pk"], "n": &types.AttributeValueMemberN{Value: "NaN"}}))
		}},
		{"txn.Put item over 400 KB", txn.ErrInvalidItem, `"big"`, func(ctx context.Context, c *ddbtest.CountingClient) error {
			return commit(ctx, c, txn.Put("t", rawKey, map[string]types.AttributeValue{"pk": rawKey["pk"], "big": &types.AttributeValueMemberS{Value: huge}}))
		}},
		{"txn.Update key over 2,048 bytes", txn.ErrInvalidItem, `"pk"`, func(ctx context.Context, c *ddbtest.CountingClient) error {
			return commit(ctx, c, txn.Update("t", map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: long(2049)}}, update.Set("a", 1)))
		}},
		{"txn.Delete empty key", txn.ErrInvalidItem, `"pk"`, func(ctx context.Context, c *ddbtest.CountingClient) error {
			return commit(ctx, c, txn.Delete("t", map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{}}))
		}},
		{"txn.Check NaN in its condition", txn.ErrInvalidItem, "NaN", func(ctx context.Context, c *ddbtest.CountingClient) error {
			return commit(ctx, c, txn.Check("t", rawKey, expression.Name("n").Equal(expression.Value(nan))))
		}},
		{"txn.Update NaN", update.ErrInvalidValue, "NaN", func(ctx context.Context, c *ddbtest.CountingClient) error {
			return commit(ctx, c, txn.Update("t", rawKey, update.Set("a", nan)))
		}},
		{"txn.New(nil): Commit", txn.ErrInvalidOption, "nil client", func(ctx context.Context, c *ddbtest.CountingClient) error {
			tx := txn.New(nil)
			_ = tx.Add(txn.Delete("t", rawKey))
			return tx.Commit(ctx)
		}},
		{"txn.New(nil *dynamodb.Client): Commit", txn.ErrInvalidOption, "nil client", func(ctx context.Context, c *ddbtest.CountingClient) error {
			var dc *dynamodb.Client
			tx := txn.New(dc)
			_ = tx.Add(txn.Delete("t", rawKey))
			return tx.Commit(ctx)
		}},
		{"nil *Tx: Add", txn.ErrInvalidOption, "nil *Tx", func(context.Context, *ddbtest.CountingClient) error {
			var tx *txn.Tx
			return tx.Add(txn.Delete("t", rawKey))
		}},
		{"nil *Tx: Commit", txn.ErrInvalidOption, "nil *Tx", func(ctx context.Context, _ *ddbtest.CountingClient) error {
			var tx *txn.Tx
			return tx.Commit(ctx)
		}},
		{"txn.Get with a nil client", txn.ErrInvalidOption, "nil client", func(ctx context.Context, _ *ddbtest.CountingClient) error {
			var m map[string]types.AttributeValue
			return txn.Get(ctx, nil, txn.GetItem("t", rawKey, &m))
		}},

		// pessimistic.
		{"Release of a nil *Lease", pessimistic.ErrNotHeld, "nil *Lease", func(ctx context.Context, _ *ddbtest.CountingClient) error {
			var l *pessimistic.Lease
			return l.Release(ctx)
		}},
		{"Release of a nil *ItemLock", pessimistic.ErrNotHeld, "nil *Lease", func(ctx context.Context, _ *ddbtest.CountingClient) error {
			var l *pessimistic.ItemLock[bItem]
			return l.Release(ctx)
		}},
		{"SaveAndRelease of a nil *ItemLock", pessimistic.ErrNotHeld, "nil *Lease", func(ctx context.Context, _ *ddbtest.CountingClient) error {
			var l *pessimistic.ItemLock[bItem]
			return l.SaveAndRelease(ctx, item(func(*bItem) {}))
		}},
		{"Acquire on a nil *Locker", pessimistic.ErrClosed, "nil *Locker", func(ctx context.Context, _ *ddbtest.CountingClient) error {
			var l *pessimistic.Locker
			_, err := l.Acquire(ctx, "x")
			return err
		}},
		{"Do on a nil *Locker", pessimistic.ErrClosed, "nil *Locker", func(ctx context.Context, _ *ddbtest.CountingClient) error {
			var l *pessimistic.Locker
			return l.Do(ctx, "x", func(context.Context, *pessimistic.Lease) error { return nil })
		}},
		{"pessimistic.New with a nil client", pessimistic.ErrInvalidOption, "client", func(context.Context, *ddbtest.CountingClient) error {
			_, err := pessimistic.New(nil, "locks")
			return err
		}},
		{"pessimistic.New without a table", pessimistic.ErrInvalidOption, "table", func(_ context.Context, c *ddbtest.CountingClient) error {
			_, err := pessimistic.New(c, "")
			return err
		}},
		{"pessimistic.New with a negative lease", pessimistic.ErrInvalidOption, "LeaseDuration", func(_ context.Context, c *ddbtest.CountingClient) error {
			_, err := pessimistic.New(c, "locks", pessimistic.LeaseDuration(-time.Second))
			return err
		}},
		{"LockItem on a nil *Table", mapper.ErrInvalidOption, "nil *Table", func(ctx context.Context, _ *ddbtest.CountingClient) error {
			_, _, err := pessimistic.LockItem(ctx, nilTable, bItem{PK: "p", SK: "s"})
			return err
		}},
		{"LockItem: hash key too long", mapper.ErrInvalidItem, `"pk"`, func(ctx context.Context, c *ddbtest.CountingClient) error {
			_, _, err := pessimistic.LockItem(ctx, table(c), bItem{PK: long(2049), SK: "s"})
			return err
		}},

		// dynamolocal: an endpoint where nothing listens.
		{"dynamolocal.Attach to a refused port", syscall.ECONNREFUSED, "connection refused", func(ctx context.Context, _ *ddbtest.CountingClient) error {
			start := time.Now()
			_, err := dynamolocal.Attach(ctx, refusedPort())
			if time.Since(start) > 5*time.Second {
				return fmt.Errorf("took %v (want under 5 s): %w", time.Since(start), err)
			}
			if n := strings.Count(fmt.Sprint(err), "dynamolocal:"); n != 1 {
				return fmt.Errorf("\"dynamolocal:\" %d times in %w", n, err)
			}
			return err
		}},
	}

	require := assert.New(t)
	require.GreaterOrEqual(len(cases), 80)
	var panics, requests, failed int
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := &ddbtest.CountingClient{} // counts calls and answers none
			var err error
			panicked := func() (p any) {
				defer func() { p = recover() }()
				err = tc.run(context.Background(), c)
				return nil
			}()
			if panicked != nil {
				panics++
				t.Fatalf("panic: %v", panicked)
			}
			if n := c.Total(); n > 0 {
				requests += int(n)
				t.Errorf("%d requests sent", n)
			}
			if !assert.Error(t, err) {
				failed++
				return
			}
			t.Log(err)
			if !assert.ErrorIs(t, err, tc.sentinel) || !assert.ErrorContains(t, err, tc.mention) {
				failed++
			}
			assert.NotErrorIs(t, err, ddbtest.ErrNoClient, "the mistake was found before a call")
		})
	}
	t.Logf("%d bad inputs: %d panics, %d requests sent, %d without the expected error", len(cases), panics, requests, failed)
	assert.Zero(t, panics)
	assert.Zero(t, requests)
}
