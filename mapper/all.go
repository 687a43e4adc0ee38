package mapper

import (
	"fmt"
	"iter"
)

// All collects the items of seq, a [Table.Query] or [Table.Scan] (or any
// sequence of items and errors), into a slice. It stops at the first
// error, which ends the query (no further page is read), and returns it
// with the items collected before it. It makes no call of its own: the
// calls are the sequence's, one Query or Scan per page, and every page is
// read into memory, so bound large reads with Limit or a key condition.
//
//	items, err := mapper.All(table.Query(ctx, key))
func All[T any](seq iter.Seq2[*T, error]) ([]*T, error) {
	if seq == nil {
		return nil, fmt.Errorf("%w: All(nil)", ErrInvalidOption)
	}
	var items []*T
	for item, err := range seq {
		if err != nil {
			return items, err
		}
		items = append(items, item)
	}
	return items, nil
}
