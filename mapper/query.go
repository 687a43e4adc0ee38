package mapper

import (
	"context"
	"fmt"
	"iter"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// Query returns an iterator over the items whose key matches key, following
// every page: one Query call per page, a page ending after [PageSize] items
// evaluated or at 1 MB. The key condition is built with the SDK's
// expression package: expression.Key("pk").Equal(expression.Value(v)),
// and optionally .And() a condition on the sort key (Equal, LessThan,
// LessThanEqual, GreaterThan, GreaterThanEqual, Between, BeginsWith).
// Items come in sort key order ([Descending] for the reverse).
//
// Reads are eventually consistent unless [ConsistentRead](true) is given
// (not possible on a global secondary index). Each call is charged for the
// total size of the items it evaluates, rounded up to 4 KB, whatever a
// [Filter] then drops; eventually consistent reads cost half. Options:
// [Index], [Filter], [Project], [Descending], [Limit], [PageSize],
// [StartAfter], [ConsistentRead], [ReadCapacity]; invalid options are the
// iterator's first and only error, before any call. To serve results a page
// at a time, use [Limit], and take the cursor after the last item returned
// with [Table.CursorAfter].
//
// Each range over the iterator runs the query anew. After an error the
// iteration ends; breaking out of the loop makes no further call.
func (t *Table[T]) Query(ctx context.Context, key expression.KeyConditionBuilder, opts ...ReadOption) iter.Seq2[*T, error] {
	return func(yield func(*T, error) bool) {
		p, err := t.readPager(callQuery, opts, &key, false)
		if err != nil {
			yield(nil, err)
			return
		}
		iterate(ctx, p, t.decode, yield)
	}
}

// readPager begins a read of call: a Query of key, or a Scan with key nil
// (count: a count by either). It checks the Table and the options, and
// returns the pager that makes the read.
func (t *Table[T]) readPager(call readCall, opts []ReadOption, key *expression.KeyConditionBuilder, count bool) (*pager, error) {
	if err := t.usable(); err != nil {
		return nil, err
	}
	c, err := newReadConfig(call, opts)
	if err != nil {
		return nil, err
	}
	if key != nil && !key.IsSet() {
		return nil, fmt.Errorf("%w: Query needs a key condition, such as expression.Key(%q).Equal(expression.Value(v))", ErrInvalidOption, t.s.hash.name)
	}
	c.count = count
	t.s.ent.typed(&c)
	return t.pager(&c, key)
}

// decode decodes an item of a page.
func (t *Table[T]) decode(item map[string]types.AttributeValue) (*T, error) {
	return decodeItem[T](t.c, item)
}
