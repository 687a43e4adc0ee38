package mapper

import (
	"context"
	"errors"
	"fmt"

	"github.com/optimist-dynamo/optimist/internal/ddbapi"
	"github.com/optimist-dynamo/optimist/internal/tabledef"
)

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

// Check compares the table with T: its key schema (names and types of the
// hash and range keys), and each secondary index T's tags name (it exists,
// global or local as tagged, with the keys and key types tagged). It makes
// one DescribeTable call and reports every difference in one
// [*MismatchError] (matching [ErrSchemaMismatch]), each naming the field,
// the attribute, and what was expected and found (for a missing index, or
// one global where the tags say local, the field whose tag defines it); nil
// if the table matches. Indexes of the table that T does not name,
// projections, billing and TTL are not checked (TTL needs a second call,
// DescribeTimeToLive). [NewTable] makes no call, so call Check at start-up
// to learn of a mismatch before the first request fails with DynamoDB's
// "The provided key element does not match the schema".
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
	_, diffs, err := tabledef.Check(ctx, dc, d)
	if err != nil {
		return fmt.Errorf("mapper: Check of %s: DescribeTable: %w", t.name, err)
	}
	return t.s.mismatch(t.name, diffs)
}
