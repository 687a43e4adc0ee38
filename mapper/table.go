package mapper

import (
	"context"
	"fmt"
	"math"
	"reflect"
	"strconv"
	"sync/atomic"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/optimist-dynamo/optimist/internal/attrs"
	"github.com/optimist-dynamo/optimist/internal/ddbapi"
	"github.com/optimist-dynamo/optimist/internal/plan"
	"github.com/optimist-dynamo/optimist/internal/replica"
	"github.com/optimist-dynamo/optimist/internal/rnd"
	"github.com/optimist-dynamo/optimist/internal/unitproto"
	"github.com/optimist-dynamo/optimist/observe"
)

// Table maps the struct type T to a DynamoDB table. It is safe for
// concurrent use; create one per table and type, and share it.
type Table[T any] struct {
	client Client
	name   string
	nameP  *string
	s      *schema
	c      *codec
	opts   TableOptions

	pt *plan.Table // what its writes share

	capacity bool // the observer asks for the capacity consumed

	turns turns // Modify's turns per key

	replicas *replica.Guard // refuses conditional writes to an eventually consistent global table

	tokens tokens // the write tokens of this Table's writes
}

// NewTable returns a Table for items of type T stored in the table name.
// The struct tags of T are read once per type and cached; a type that cannot
// be mapped is an error matching [ErrInvalidSchema] (a [*SchemaError] names
// the field and the problem), as is a nil option or client
// ([ErrInvalidOption]). NewTable makes no call to DynamoDB: use
// [Table.Check] to compare the table with T, with a context of yours.
//
// Every field either reads back what was written or is refused here,
// with a [*SchemaError] naming it. Types that implement
// encoding.TextMarshaler and TextUnmarshaler (netip.Addr, big.Int, uuid
// types, ...) are stored as strings (S), and types that implement
// encoding.BinaryMarshaler and BinaryUnmarshaler as binary (B), as
// encoding/json treats them; attributevalue.Marshaler comes first, and
// time.Time keeps attributevalue's encoding (RFC 3339 text, or a number
// with unixtime). Refused, all the way down through pointers, slices, maps
// and nested structs: complex numbers, channels, functions, uintptr and
// unsafe pointers (attributevalue drops them without a word), structs whose
// fields are all unexported and that have no marshaling methods (stored as
// an empty map, read back as zero), a marshaler without its unmarshaler
// (or the reverse), a MarshalText on the pointer where values are not
// addressable (map values: use pointers), map keys other than strings,
// numbers, bools and text marshalers, interfaces with methods, and
// unixtime inside a value encoded as text. Values of type any (and
// map[string]any, []any) are checked when they are written: a value
// DynamoDB cannot hold is an [ErrInvalidItem] naming the field path, and
// nothing is sent. Read back, values in an any come as attributevalue
// decodes them (string, float64, bool, []any, map[string]any, []byte).
//
// Items that hold a text marshaler's value stored by its kind (a [16]byte
// UUID as B, a named int as N, as attributevalue alone stores them) still
// read back (a B goes through UnmarshalBinary, an N through the number
// decoder), and are rewritten as S. A key field of such a type has type S,
// which a table whose key is B or N refuses: give the type a
// MarshalDynamoDBAttributeValue method to keep such a key.
func NewTable[T any](c Client, name string, opts ...func(*TableOptions)) (*Table[T], error) {
	s, err := schemaOf(reflect.TypeOf((*T)(nil)).Elem())
	if err != nil {
		return nil, err
	}
	return newTable[T](c, name, s, opts)
}

// newTable is NewTable with the schema s (an entity's, for NewEntity).
func newTable[T any](c Client, name string, s *schema, opts []func(*TableOptions)) (*Table[T], error) {
	if ddbapi.IsNil(c) {
		return nil, fmt.Errorf("%w: NewTable needs a client", ErrInvalidOption)
	}
	if name == "" {
		return nil, fmt.Errorf("%w: NewTable needs a table name", ErrInvalidOption)
	}
	o := TableOptions{
		TokenAttribute: defaultToken,
		MaxAttempts:    defaultMaxAttempts,
		BackoffBase:    defaultBackoffBase,
		BackoffMax:     defaultBackoffMax,
	}
	for i, fn := range opts {
		if fn == nil {
			return nil, fmt.Errorf("%w: NewTable's option %d is nil", ErrInvalidOption, i+1)
		}
		fn(&o)
	}
	if o.Observer != nil && ddbapi.IsNil(o.Observer) {
		return nil, fmt.Errorf("%w: TableOptions.Observer holds a nil %T; set it to nil for none", ErrInvalidOption, o.Observer)
	}
	if f, clash := s.byName[o.TokenAttribute]; clash && o.TokenAttribute != "" {
		return nil, &SchemaError{Type: s.typ, Field: f.goPath, Problem: fmt.Sprintf(
			"attribute %q is the table's write-token attribute; rename the field or set TableOptions.TokenAttribute", o.TokenAttribute)}
	}
	if err := o.policy().Check(); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalidOption, err)
	}
	version := ""
	if s.version != nil {
		version = s.version.name
	}
	t := &Table[T]{
		client: c,
		name:   name,
		nameP:  aws.String(name),
		s:      s,
		c:      newCodec(s, len(o.EncoderOptions) > 0, o.EncoderOptions, o.DecoderOptions),
		opts:   o,
		pt:     plan.NewTable(name, s.hash.name, version),

		capacity: observe.WantsCapacity(o.Observer),
		replicas: replica.NewGuard(name, o.WriteRegion),
	}
	t.c.table = name
	t.pt.Replicas = t.replicas // a transaction's ops are guarded as the table's own writes
	t.pt.Units = new(unitproto.Memory)
	t.tokens.prefix = strconv.FormatUint(rnd.Uint64(), 36) + "."
	return t, nil
}

// Name returns the table's name.
func (t *Table[T]) Name() string {
	if t == nil {
		return ""
	}
	return t.name
}

// Client returns the client the table calls.
func (t *Table[T]) Client() Client {
	if t == nil {
		return nil
	}
	return t.client
}

// Get reads the item with the key of key (only its key fields are used) with
// one GetItem, strongly consistent unless [ConsistentRead](false) is given.
// A missing item is an error matching [ErrNotFound]. Options:
// [ConsistentRead], [Project] (the item is then partial: do not Put it back),
// [ReadCapacity]; others are an error matching [ErrInvalidOption], and
// nothing is sent.
func (t *Table[T]) Get(ctx context.Context, key T, opts ...ReadOption) (*T, error) {
	if err := t.usable(); err != nil {
		return nil, err
	}
	cfg, err := newReadConfig(callGet, opts)
	if err != nil {
		return nil, err
	}
	k, err := t.c.keyOf(reflect.ValueOf(&key).Elem())
	if err != nil {
		return nil, err
	}
	if len(cfg.project) > 0 {
		return t.getProjected(ctx, k, &cfg)
	}
	return t.getItem(ctx, k, cfg.consistent, nil, cfg.capacity)
}

// get makes one GetItem of the item with key; in may carry a projection.
func (t *Table[T]) get(ctx context.Context, key map[string]types.AttributeValue, consistent bool, in *dynamodb.GetItemInput) (*T, error) {
	return t.getItem(ctx, key, consistent, in, nil)
}

// getItem is get, adding the capacity consumed to ca if it is not nil.
func (t *Table[T]) getItem(ctx context.Context, key map[string]types.AttributeValue, consistent bool, in *dynamodb.GetItemInput, ca *capacityAdder) (*T, error) {
	item, err := t.getVisible(ctx, key, consistent, in, ca)
	if err != nil {
		return nil, err
	}
	if len(item) == 0 {
		return nil, fmt.Errorf("%w: %s %s", ErrNotFound, t.name, attrs.FormatKey(key))
	}
	return decodeItem[T](t.c, item)
}

// getVisible makes one GetItem of the item with key (in, if not nil, may
// carry a projection), adds the capacity consumed to ca if it is not nil,
// and returns the item as readers see it (a unit of work's uncommitted
// change resolved), nil if there is none.
func (t *Table[T]) getVisible(ctx context.Context, key map[string]types.AttributeValue, consistent bool, in *dynamodb.GetItemInput, ca *capacityAdder) (map[string]types.AttributeValue, error) {
	if in == nil {
		in = &dynamodb.GetItemInput{}
	}
	in.TableName, in.Key, in.ConsistentRead = t.nameP, key, aws.Bool(consistent)
	in.ReturnConsumedCapacity = ca.returnCapacity()
	out, err := t.client.GetItem(ctx, in)
	if err != nil {
		return nil, fmt.Errorf("mapper: GetItem on %s %s: %w", t.name, attrs.FormatKey(key), err)
	}
	ca.add(out.ConsumedCapacity, false)
	return t.visible(ctx, out.Item)
}

// withKey returns a zero T with the key fields of kv.
func (t *Table[T]) withKey(kv reflect.Value) *T {
	out := new(T)
	ov := reflect.ValueOf(out).Elem()
	if t.s.ent != nil {
		t.s.ent.withKey(kv, ov)
		return out
	}
	for _, f := range t.s.keys {
		ov.FieldByIndex(f.index).Set(kv.FieldByIndex(f.index))
	}
	return out
}

func isUnsigned(k reflect.Kind) bool {
	switch k {
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return true
	}
	return false
}

func versionOf(v reflect.Value) (int64, error) {
	if isUnsigned(v.Kind()) {
		u := v.Uint()
		if u > math.MaxInt64 {
			return 0, fmt.Errorf("%w: version %d is out of range: versions go from 0 to %d (int64's maximum), whatever the field's type", ErrInvalidItem, u, int64(math.MaxInt64))
		}
		return int64(u), nil
	}
	n := v.Int()
	if n < 0 {
		return 0, fmt.Errorf("mapper: negative version %d", n)
	}
	return n, nil
}

// overflows reports whether the version n (the one after a version read
// from v, so n < 0 means int64 wrapped) does not fit v's type.
func overflows(v reflect.Value, n int64) bool {
	if n < 0 {
		return true
	}
	if isUnsigned(v.Kind()) {
		return v.OverflowUint(uint64(n))
	}
	return v.OverflowInt(n)
}

// versionOverflow is the error of a version that cannot be incremented in
// its field's type: the write is refused rather than wrapped.
func versionOverflow(table string, key map[string]types.AttributeValue, f *field, v int64) error {
	return fmt.Errorf("%w: version %d of %s %s cannot be incremented in %s (a %v): the next would not fit, so the write is refused rather than wrapped%s",
		ErrInvalidItem, v, table, attrs.FormatKey(key), f.goPath, f.typ, widen(f))
}

// widen is the advice of a version overflow: a wider field, while there is one.
func widen(f *field) string {
	if f.typ.Bits() < 64 {
		return "; widen the field (int64)"
	}
	return ""
}

// atCeiling is the error of an Update with no version check refused
// because the stored version is at its field's ceiling (w.Ceiling).
func (t *Table[T]) atCeiling(w *plan.Write, item map[string]types.AttributeValue, err error) error {
	stored, _ := attrs.Int64(item[t.s.version.name])
	return fmt.Errorf("%w (%w)", versionOverflow(t.name, t.keyOfWrite(w), t.s.version, stored), err)
}

// versionCeiling is the largest version a field of type typ holds: its
// type's maximum, and never more than int64's (versions are int64s; a
// uint64 field stops there too). An Update with no version check adds 1
// to the stored version on the condition that it is below it.
func versionCeiling(typ reflect.Type) int64 {
	bits := typ.Bits()
	if isUnsigned(typ.Kind()) {
		if bits >= 64 {
			return math.MaxInt64
		}
		return int64(1)<<bits - 1
	}
	return int64(1)<<(bits-1) - 1
}

func setVersion(v reflect.Value, n int64) {
	if isUnsigned(v.Kind()) {
		v.SetUint(uint64(n))
		return
	}
	v.SetInt(n)
}

// tokens makes write tokens: a random prefix per Table and a counter, so
// they are unique across processes without a random draw per write. The
// prefix is drawn per Table, not per process, so that a simulation that
// fixes the random draws (dynamolocal's runner) sees the same tokens each
// time it runs a seed in the same process.
type tokens struct {
	prefix  string
	counter atomic.Uint64
}

func (t *Table[T]) newToken() string {
	var buf [32]byte
	b := append(buf[:0], t.tokens.prefix...)
	return string(strconv.AppendUint(b, t.tokens.counter.Add(1), 36))
}
