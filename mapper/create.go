package mapper

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/optimist-dynamo/optimist/internal/ddbapi"
	"github.com/optimist-dynamo/optimist/internal/tabledef"
	"github.com/optimist-dynamo/optimist/internal/unitproto"
)

// TableClient has the control-plane calls [CreateTable] makes, with the
// SDK's exact signatures: CreateTable, DescribeTable, UpdateTimeToLive and
// DescribeTimeToLive; a *dynamodb.Client satisfies it. It is apart from
// [Client] so that fakes of Client need not grow these methods.
type TableClient interface {
	ddbapi.TableAdmin // CreateTable, DescribeTable, UpdateTimeToLive, DescribeTimeToLive
}

var _ TableClient = (*dynamodb.Client)(nil)

// MismatchError lists every difference found between a struct type and a
// table. It matches [ErrSchemaMismatch].
type MismatchError struct {
	Table      string
	Type       reflect.Type
	Mismatches []Mismatch
}

// Mismatch is one difference between what a struct's tags (and the
// options of [CreateTable]) ask for and what the table has. For Part
// "index" (an index missing, or global where the tags say local or the
// reverse), Field and Attribute name the field whose tag defines the
// index: a global index's hash key, a local index's range key.
type Mismatch struct {
	Index     string // secondary index concerned, "" for the table itself
	Part      string // "hash key", "range key", "index", "projection" or "ttl"
	Field     string // Go field path of the attribute expected, "" if none
	Attribute string // attribute name expected, "" if none
	Expected  string // what the struct asks for, e.g. `pk (S)`, "none"
	Actual    string // what the table has, e.g. `id (S)`, "none", "no such index"
}

func (m Mismatch) String() string {
	var b strings.Builder
	if m.Index != "" {
		b.WriteString("index " + m.Index + ": ")
	}
	b.WriteString(m.Part)
	if m.Field != "" {
		b.WriteString(" (field " + m.Field + ")")
	}
	fmt.Fprintf(&b, ": want %s, table has %s", m.Expected, m.Actual)
	return b.String()
}

func (e *MismatchError) Error() string {
	if e == nil {
		return "<nil MismatchError>"
	}
	parts := make([]string, len(e.Mismatches))
	for i, m := range e.Mismatches {
		parts[i] = m.String()
	}
	return fmt.Sprintf("mapper: table %s does not match %v (%d difference(s)): %s", e.Table, e.Type, len(e.Mismatches), strings.Join(parts, "; "))
}

// Is reports whether target is [ErrSchemaMismatch].
func (e *MismatchError) Is(target error) bool { return target == ErrSchemaMismatch }

// CreateOptions configure [CreateTable]; pass functions that change them
// (such as [Provisioned] or [ProjectKeysOnly]). The zero value creates an
// on-demand table whose indexes project every attribute, and waits up to
// 5 minutes for it.
type CreateOptions struct {
	// Throughput, if set, creates a provisioned table with it (and each
	// global index with it too, unless IndexThroughput names the index);
	// nil creates an on-demand (PAY_PER_REQUEST) table.
	Throughput      *types.ProvisionedThroughput
	IndexThroughput map[string]types.ProvisionedThroughput
	// Projections sets the projection of the indexes it names; the others
	// project ALL attributes (so a Query of the index returns whole items).
	Projections map[string]types.Projection
	// Wait bounds the wait until the table and its global indexes are
	// ACTIVE (default 5 minutes; ctx may end it sooner).
	Wait time.Duration
	// Input, if set, is called on the CreateTableInput before it is sent,
	// for settings CreateTable has no option for (streams, encryption,
	// tags, table class, deletion protection). What it changes is not
	// compared when the table exists already.
	Input func(*dynamodb.CreateTableInput)
}

// A CreateOption changes the [CreateOptions] of one [CreateTable] call.
type CreateOption = func(*CreateOptions)

// Provisioned creates a table with provisioned capacity (read and write
// capacity units per second) instead of on-demand; each global index gets
// the same unless [IndexThroughput] says otherwise.
func Provisioned(read, write int64) CreateOption {
	return func(o *CreateOptions) {
		o.Throughput = &types.ProvisionedThroughput{ReadCapacityUnits: aws.Int64(read), WriteCapacityUnits: aws.Int64(write)}
	}
}

// IndexThroughput sets the provisioned capacity of the global index
// index, on a [Provisioned] table. A local index has no capacity of its
// own (it uses the table's): naming one is an [ErrInvalidOption].
func IndexThroughput(index string, read, write int64) CreateOption {
	return func(o *CreateOptions) {
		if o.IndexThroughput == nil {
			o.IndexThroughput = map[string]types.ProvisionedThroughput{}
		}
		o.IndexThroughput[index] = types.ProvisionedThroughput{ReadCapacityUnits: aws.Int64(read), WriteCapacityUnits: aws.Int64(write)}
	}
}

// ProjectKeysOnly makes the index index hold only the key attributes of
// the table and the index (projection KEYS_ONLY): smaller and cheaper,
// but its items decode with every other field zero.
func ProjectKeysOnly(index string) CreateOption {
	return projectionOpt(index, types.Projection{ProjectionType: types.ProjectionTypeKeysOnly})
}

// ProjectInclude makes the index index hold the key attributes and attrs
// (projection INCLUDE), and "optimist_unit", the attribute in which units
// of work (package unit) keep their locks, so that readers of the index
// show items a unit holds in their committed state.
func ProjectInclude(index string, attrs ...string) CreateOption {
	return projectionOpt(index, types.Projection{ProjectionType: types.ProjectionTypeInclude, NonKeyAttributes: attrs})
}

func projectionOpt(index string, p types.Projection) CreateOption {
	return func(o *CreateOptions) {
		if o.Projections == nil {
			o.Projections = map[string]types.Projection{}
		}
		o.Projections[index] = p
	}
}

// MaxWait bounds how long CreateTable waits for the table and its global
// indexes to become ACTIVE.
func MaxWait(d time.Duration) CreateOption {
	return func(o *CreateOptions) { o.Wait = d }
}

// CreateTable creates the table name for items of type T, from T's tags:
// the key schema (hash, range), an attribute definition for every key
// attribute, a global secondary index for each name in `index` tags and a
// local one for each name in `localIndex` tags (projection ALL unless
// [ProjectKeysOnly] or [ProjectInclude] says otherwise), on-demand billing
// unless [Provisioned], and TTL enabled on the field tagged ttl.
//
// It calls CreateTable, then DescribeTable until the table and its global
// indexes are ACTIVE (at most 5 minutes, or [MaxWait]), then
// UpdateTimeToLive if T has a ttl field. If the table exists already with
// the same keys, key types, indexes (as T names them; other indexes of the
// table are allowed) and projections, it is not an error: CreateTable waits
// for it to be ACTIVE and makes sure TTL is on (DescribeTimeToLive, then
// UpdateTimeToLive if it is off). If it exists with a different schema,
// nothing is changed and the error is a [*MismatchError] naming each
// difference, matching [ErrSchemaMismatch]. Billing mode and throughput of
// an existing table are not compared. A type that cannot be mapped is a
// [*SchemaError] and invalid options are [ErrInvalidOption], before any call.
// Since indexes the struct does not name are not a difference, several
// types may share one table, each naming the indexes it uses.
//
// Secondary indexes are named in tags of their own, as guregu/dynamo names
// them, and the TTL attribute in the dynamo tag:
//
//	type Order struct {
//		Customer string    `dynamo:"customer,hash"`
//		ID       string    `dynamo:"id,range"`
//		Status   string    `dynamo:"status" index:"by-status,hash"`
//		Placed   int64     `dynamo:"placed" index:"by-status,range" localIndex:"by-placed,range"`
//		Email    *string   `dynamo:"email,omitempty" index:"by-email,hash;by-email-placed,hash"`
//		Expires  time.Time `dynamo:"expires,ttl,unixtime"`
//	}
//
// `index:"Name,hash"` and `index:"Name,range"` make the field the hash or
// range key of the global secondary index Name; `localIndex:"Name,range"`
// makes it the range key of the local index Name (whose hash key is the
// table's). A field that is a key of several indexes lists them in one
// value separated by ';' (`index:"a,hash;b,hash"`), or repeats the key as
// guregu/dynamo allows (`index:"a,hash" index:"b,hash"`: every occurrence
// counts, where reflect's StructTag.Get sees only the first; staticcheck
// reports repeated keys as SA5008, the ';' form avoids that). The ttl
// option marks the attribute DynamoDB's TTL reads: an integer of epoch
// seconds, or a time.Time tagged unixtime (a pointer to either: items
// without it never expire). [NewTable] and CreateTable refuse, as a
// [*SchemaError]: an unknown option or a missing hash/range word, an index
// name DynamoDB would refuse, an index named twice on one field, a global
// index with a range key but no hash key, two hash or two range keys for
// one index, a name used as both global and local index, a local index on
// a table without a range key or on the table's own range key, an index
// key of a type that is not S, N or B (or with nullempty or a set option),
// and a second ttl field or one of another type.
//
// Sparse indexes: DynamoDB refuses an item whose index key attribute is an
// empty string or binary, or NULL (a ValidationException naming the
// index). So a field that is a key of a secondary index, global or local,
// but not of the table, is left out of the item when it is empty or nil,
// with or without omitempty: Put, PutAll, PutOp, Modify and Save write the
// item without it (Save removes the attribute), the item is absent from
// that index, and the field reads back as the zero value. An empty table
// key is still an [ErrInvalidItem].
func CreateTable[T any](ctx context.Context, c TableClient, name string, opts ...CreateOption) error {
	s, err := schemaOf(reflect.TypeOf((*T)(nil)).Elem())
	if err != nil {
		return err
	}
	if ddbapi.IsNil(c) || name == "" {
		return fmt.Errorf("%w: CreateTable needs a client and a table name", ErrInvalidOption)
	}
	o, err := createOptions(opts)
	if err != nil {
		return err
	}
	d, err := s.tableDef(name, &o)
	if err != nil {
		return err
	}
	diffs, err := tabledef.Create(ctx, c, d)
	if err != nil {
		return fmt.Errorf("mapper: CreateTable %s: %w", name, err)
	}
	return s.mismatch(name, diffs)
}

// createOptions applies opts, refusing a nil one.
func createOptions(opts []CreateOption) (CreateOptions, error) {
	var o CreateOptions
	for i, fn := range opts {
		if fn == nil {
			return o, fmt.Errorf("%w: CreateTable's option %d is nil", ErrInvalidOption, i+1)
		}
		fn(&o)
	}
	return o, nil
}

// tableDef returns the definition of a table for s, with the options o
// (nil when only the keys and indexes matter, as for Check).
func (s *schema) tableDef(name string, o *CreateOptions) (*tabledef.Def, error) {
	d := &tabledef.Def{Name: name}
	var err error
	if d.Hash, err = keyDef(s.hash); err != nil {
		return nil, err
	}
	if d.Range, err = keyDef(s.rng); err != nil {
		return nil, err
	}
	if s.ttl != nil {
		d.TTL = s.ttl.name
	}
	for _, ix := range s.indexes {
		di, err := ix.def(o)
		if err != nil {
			return nil, err
		}
		d.Indexes = append(d.Indexes, di)
	}
	if o == nil {
		return d, nil
	}
	if err := s.checkCreateOptions(o); err != nil {
		return nil, err
	}
	d.Throughput, d.Wait, d.Customize = o.Throughput, o.Wait, o.Input
	return d, nil
}

// keyDef is the key attribute of f; none for a nil f.
func keyDef(f *field) (tabledef.Key, error) {
	if f == nil {
		return tabledef.Key{}, nil
	}
	t, err := attrType(f)
	return tabledef.Key{Name: f.name, Type: t}, err
}

// def is the definition of the index, with the projection and throughput
// o gives it (o may be nil).
func (ix *index) def(o *CreateOptions) (tabledef.Index, error) {
	di := tabledef.Index{Name: ix.name, Local: ix.local}
	var err error
	if di.Hash, err = keyDef(ix.hash); err != nil {
		return di, err
	}
	if di.Range, err = keyDef(ix.rng); err != nil {
		return di, err
	}
	if o == nil {
		return di, nil
	}
	if p, ok := o.Projections[ix.name]; ok {
		if p.ProjectionType == types.ProjectionTypeInclude && !slices.Contains(p.NonKeyAttributes, unitproto.Attr) {
			// Readers need the lock of units (package unit) to show a held
			// item in its committed state.
			p.NonKeyAttributes = append(slices.Clone(p.NonKeyAttributes), unitproto.Attr)
		}
		di.Projection = &p
	}
	if tp, ok := o.IndexThroughput[ix.name]; ok {
		di.Throughput = &tp
	}
	return di, nil
}

// checkCreateOptions refuses options that name indexes s does not have, or
// that DynamoDB would refuse.
func (s *schema) checkCreateOptions(o *CreateOptions) error {
	named := map[string]*index{}
	for _, ix := range s.indexes {
		named[ix.name] = ix
	}
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%w: CreateTable: "+format, append([]any{ErrInvalidOption}, args...)...)
	}
	for ix, p := range o.Projections {
		switch {
		case named[ix] == nil:
			return bad("projection of index %q, which %v does not name in an index or localIndex tag", ix, s.typ)
		case p.ProjectionType == types.ProjectionTypeInclude && len(p.NonKeyAttributes) == 0:
			return bad("ProjectInclude(%q) needs at least one attribute", ix)
		}
	}
	for ix, tp := range o.IndexThroughput {
		switch {
		case named[ix] == nil:
			return bad("throughput of index %q, which %v does not name in an index tag", ix, s.typ)
		case named[ix].local:
			// A local index shares the table's capacity; DynamoDB has no
			// throughput setting for it, so the option could only be lost.
			return bad("IndexThroughput(%q): %s is a local index, which uses the table's throughput and has none of its own", ix, ix)
		}
		if o.Throughput == nil {
			return bad("IndexThroughput(%q) on an on-demand table: give Provisioned too", ix)
		}
		if err := checkThroughput(&tp); err != nil {
			return bad("IndexThroughput(%q): %v", ix, err)
		}
	}
	if o.Throughput != nil {
		if err := checkThroughput(o.Throughput); err != nil {
			return bad("Provisioned: %v", err)
		}
	}
	if o.Wait < 0 {
		return bad("MaxWait(%v): need a positive duration", o.Wait)
	}
	return nil
}

func checkThroughput(t *types.ProvisionedThroughput) error {
	if aws.ToInt64(t.ReadCapacityUnits) < 1 || aws.ToInt64(t.WriteCapacityUnits) < 1 {
		return fmt.Errorf("need at least 1 read and 1 write capacity unit, got %d and %d", aws.ToInt64(t.ReadCapacityUnits), aws.ToInt64(t.WriteCapacityUnits))
	}
	return nil
}

// attrType returns the DynamoDB type of key attribute f. A type with its own
// encoding (attributevalue.Marshaler) is asked: its zero value is encoded,
// and must come out as S, N or B.
func attrType(f *field) (types.ScalarAttributeType, error) {
	t, err := keyType(f.typ, f.tag)
	if err != nil || t != "" {
		return t, err
	}
	base := f.typ
	if base.Kind() == reflect.Pointer {
		base = base.Elem()
	}
	av, err := attributevalue.Marshal(reflect.New(base).Interface())
	switch av.(type) {
	case *types.AttributeValueMemberS:
		return types.ScalarAttributeTypeS, nil
	case *types.AttributeValueMemberN:
		return types.ScalarAttributeTypeN, nil
	case *types.AttributeValueMemberB:
		return types.ScalarAttributeTypeB, nil
	}
	return "", fmt.Errorf("mapper: key attribute %q (%s, type %v with its own encoding): cannot tell whether it is stored as S, N or B; its zero value encodes as %T (err %v)", f.name, f.goPath, f.typ, av, err)
}
