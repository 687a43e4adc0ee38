package mapper

import (
	"context"
	"fmt"
	"reflect"
	"slices"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/optimist-dynamo/optimist/internal/ddbapi"
	"github.com/optimist-dynamo/optimist/internal/tabledef"
)

// CreateTable creates the design's table: the key d.PK (S), and d.SK (S)
// if set, and a global secondary index for each of d.Indexes with its keys
// (S) and projection ALL, or [ProjectInclude]'s attributes and the type
// attribute ([ProjectKeysOnly] is refused: a collection could not tell the
// types of its items); on-demand billing unless [Provisioned]; TTL on d.TTL
// if set.
// It behaves as the generic [CreateTable] does otherwise: it waits until
// the table and its indexes are ACTIVE, an existing table with the same
// layout is not an error, and one with another layout is a
// [*MismatchError] (matching [ErrSchemaMismatch]) and is left unchanged.
func (d Design) CreateTable(ctx context.Context, c TableClient, opts ...CreateOption) error {
	s, err := d.schema()
	if err != nil {
		return err
	}
	if ddbapi.IsNil(c) {
		return fmt.Errorf("%w: CreateTable needs a client", ErrInvalidOption)
	}
	o, err := createOptions(opts)
	if err != nil {
		return err
	}
	typeAttr := d.TypeAttr
	if typeAttr == "" {
		typeAttr = DefaultTypeAttr
	}
	for ix, p := range o.Projections {
		switch p.ProjectionType {
		case types.ProjectionTypeKeysOnly:
			// Its items would lack the type attribute: a collection could
			// decode none of them.
			return fmt.Errorf("%w: CreateTable: ProjectKeysOnly(%q): an overloaded index must project the type attribute %q; use ProjectInclude, which adds it", ErrInvalidOption, ix, typeAttr)
		case types.ProjectionTypeInclude:
			if !slices.Contains(p.NonKeyAttributes, typeAttr) {
				p.NonKeyAttributes = append(slices.Clone(p.NonKeyAttributes), typeAttr)
				o.Projections[ix] = p
			}
		}
	}
	def, err := s.tableDef(d.Table, &o)
	if err != nil {
		return err
	}
	diffs, err := tabledef.Create(ctx, c, def)
	if err != nil {
		return fmt.Errorf("mapper: CreateTable %s: %w", d.Table, err)
	}
	return s.mismatch(d.Table, diffs)
}

// Check compares the table with the design, with one DescribeTable call:
// the key schema, and each overloaded index (it exists, is global, with the
// key attributes and types of the design). Every difference is in one
// [*MismatchError] (matching [ErrSchemaMismatch]); nil if the table
// matches. Other indexes of the table, projections, billing and TTL are not
// compared. [Table.Check] of any of the design's entities makes the same
// comparison.
func (d Design) Check(ctx context.Context, c TableClient) error {
	s, err := d.schema()
	if err != nil {
		return err
	}
	if ddbapi.IsNil(c) {
		return fmt.Errorf("%w: Check needs a client", ErrInvalidOption)
	}
	def, err := s.tableDef(d.Table, nil)
	if err != nil {
		return err
	}
	_, diffs, err := tabledef.Check(ctx, c, def)
	if err != nil {
		return fmt.Errorf("mapper: Check of %s: DescribeTable: %w", d.Table, err)
	}
	return s.mismatch(d.Table, diffs)
}

// designRow stands for the design in a schema that has no struct type.
type designRow struct{}

// schema returns the schema of the design's table alone: its keys and
// indexes, no fields.
func (d Design) schema() (*schema, error) {
	s, err := buildSchemaOf(reflect.TypeOf(designRow{}), true)
	if err != nil {
		return nil, err
	}
	s.typ = reflect.TypeOf(d)
	// An entity with constant templates completes it as NewEntity would,
	// with the same checks of the design.
	e := Entity{Type: "design", Key: Keys{PK: "p"}}
	if d.SK != "" {
		e.Key.SK = "s"
	}
	if d.TypeAttr == "" {
		d.TypeAttr = DefaultTypeAttr
	}
	if _, err := newEntity(s, d, e); err != nil {
		return nil, err
	}
	if d.TTL != "" {
		s.ttl = &field{name: d.TTL, goPath: "TTL", typ: reflect.TypeOf(int64(0))}
	}
	return s, nil
}
