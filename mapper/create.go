package mapper

import (
	"context"
	"errors"
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
	"github.com/optimist-dynamo/optimist/internal/unitlock"
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
	parts := make([]string, len(e.Mismatches))
	for i, m := range e.Mismatches {
		parts[i] = m.String()
	}
	return fmt.Sprintf("mapper: table %s does not match %v (%d difference(s)): %s", e.Table, e.Type, len(e.Mismatches), strings.Join(parts, "; "))
}

// Is reports whether target is [ErrSchemaMismatch].
func (e *MismatchError) Is(target error) bool { return target == ErrSchemaMismatch }

func (s *schema) mismatch(table string, diffs []tabledef.Diff) error {
	if len(diffs) == 0 {
		return nil
	}
	e := &MismatchError{Table: table, Type: s.typ}
	for _, d := range diffs {
		m := Mismatch{Index: d.Index, Part: d.Part, Attribute: d.Attribute, Expected: d.Expected, Actual: d.Actual}
		if f := s.byName[d.Attribute]; f != nil {
			m.Field = f.goPath
		}
		e.Mismatches = append(e.Mismatches, m)
	}
	return e
}

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
func CreateTable[T any](ctx context.Context, c TableClient, name string, opts ...CreateOption) error {
	s, err := schemaOf(reflect.TypeOf((*T)(nil)).Elem())
	if err != nil {
		return err
	}
	if isNil(c) || name == "" {
		return fmt.Errorf("%w: CreateTable needs a client and a table name", ErrInvalidOption)
	}
	var o CreateOptions
	for i, fn := range opts {
		if fn == nil {
			return fmt.Errorf("%w: CreateTable's option %d is nil", ErrInvalidOption, i+1)
		}
		fn(&o)
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

// tableDef returns the definition of a table for s, with the options o
// (nil when only the keys and indexes matter, as for Check).
func (s *schema) tableDef(name string, o *CreateOptions) (*tabledef.Def, error) {
	key := func(f *field) (tabledef.Key, error) {
		if f == nil {
			return tabledef.Key{}, nil
		}
		t, err := attrType(f)
		return tabledef.Key{Name: f.name, Type: t}, err
	}
	d := &tabledef.Def{Name: name}
	var err error
	if d.Hash, err = key(s.hash); err != nil {
		return nil, err
	}
	if d.Range, err = key(s.rng); err != nil {
		return nil, err
	}
	if s.ttl != nil {
		d.TTL = s.ttl.name
	}
	named := map[string]*index{}
	for _, ix := range s.indexes {
		named[ix.name] = ix
		di := tabledef.Index{Name: ix.name, Local: ix.local}
		if di.Hash, err = key(ix.hash); err != nil {
			return nil, err
		}
		if di.Range, err = key(ix.rng); err != nil {
			return nil, err
		}
		if o != nil {
			if p, ok := o.Projections[ix.name]; ok {
				if p.ProjectionType == types.ProjectionTypeInclude && !slices.Contains(p.NonKeyAttributes, unitlock.Attr) {
					// Readers need the lock of units (package unit) to
					// show a held item in its committed state.
					p.NonKeyAttributes = append(slices.Clone(p.NonKeyAttributes), unitlock.Attr)
				}
				di.Projection = &p
			}
			if tp, ok := o.IndexThroughput[ix.name]; ok {
				di.Throughput = &tp
			}
		}
		d.Indexes = append(d.Indexes, di)
	}
	if o == nil {
		return d, nil
	}
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%w: CreateTable: "+format, append([]any{ErrInvalidOption}, args...)...)
	}
	for ix, p := range o.Projections {
		switch {
		case named[ix] == nil:
			return nil, bad("projection of index %q, which %v does not name in an index or localIndex tag", ix, s.typ)
		case p.ProjectionType == types.ProjectionTypeInclude && len(p.NonKeyAttributes) == 0:
			return nil, bad("ProjectInclude(%q) needs at least one attribute", ix)
		}
	}
	for ix, tp := range o.IndexThroughput {
		switch {
		case named[ix] == nil:
			return nil, bad("throughput of index %q, which %v does not name in an index tag", ix, s.typ)
		case named[ix].local:
			// A local index shares the table's capacity; DynamoDB has no
			// throughput setting for it, so the option could only be lost.
			return nil, bad("IndexThroughput(%q): %s is a local index, which uses the table's throughput and has none of its own", ix, ix)
		}
		if o.Throughput == nil {
			return nil, bad("IndexThroughput(%q) on an on-demand table: give Provisioned too", ix)
		}
		if err := checkThroughput(&tp); err != nil {
			return nil, bad("IndexThroughput(%q): %v", ix, err)
		}
	}
	if o.Throughput != nil {
		if err := checkThroughput(o.Throughput); err != nil {
			return nil, bad("Provisioned: %v", err)
		}
	}
	if o.Wait < 0 {
		return nil, bad("MaxWait(%v): need a positive duration", o.Wait)
	}
	d.Throughput, d.Wait, d.Customize = o.Throughput, o.Wait, o.Input
	return d, nil
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

// Check compares the table with T: its key schema (names and types of the
// hash and range keys), and each secondary index T's tags name (it exists,
// global or local as tagged, with the keys and key types tagged). It makes
// one DescribeTable call and reports every difference in one
// [*MismatchError] (matching [ErrSchemaMismatch]), each naming the field,
// the attribute, and what was expected and found; nil if the table matches.
// Indexes of the table that T does not name, projections, billing and TTL
// are not checked (TTL needs a second call, DescribeTimeToLive).
//
// The table's [Client] need not have DescribeTable; Check asserts that it
// does, and returns an error matching [errors.ErrUnsupported] if not (a
// *dynamodb.Client has it).
func (t *Table[T]) Check(ctx context.Context) error {
	if err := t.usable(); err != nil {
		return err
	}
	dc, ok := t.client.(ddbapi.Describer)
	if !ok {
		return fmt.Errorf("mapper: Check of %s: the table's client (%T) has no DescribeTable method: %w", t.name, t.client, errors.ErrUnsupported)
	}
	d, err := t.s.tableDef(t.name, nil)
	if err != nil {
		return err
	}
	out, err := dc.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: t.nameP})
	if err != nil {
		return fmt.Errorf("mapper: Check of %s: DescribeTable: %w", t.name, err)
	}
	return t.s.mismatch(t.name, tabledef.Compare(out.Table, d, false))
}
