package mapper

import (
	"context"
	"fmt"
	"iter"
	"math"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
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
		if err := t.usable(); err != nil {
			yield(nil, err)
			return
		}
		c, err := newReadConfig(callQuery, opts)
		var in *dynamodb.QueryInput
		if err == nil {
			in, err = t.buildQuery(&c, key)
		}
		if err != nil {
			yield(nil, err)
			return
		}
		t.iterate(&c, t.queryPages(ctx, &c, in), yield)
	}
}

// queryPages returns the fetchFunc of a Query: one call per page.
func (t *Table[T]) queryPages(ctx context.Context, c *readConfig, in *dynamodb.QueryInput) fetchFunc {
	return func(limit *int32) ([]map[string]types.AttributeValue, bool, error) {
		in.Limit = limit
		out, err := t.client.Query(ctx, in)
		if err != nil {
			return nil, false, fmt.Errorf("mapper: Query on %s: %w", describe(t.name, c.index), err)
		}
		c.capacity.add(out.ConsumedCapacity, false)
		in.ExclusiveStartKey = out.LastEvaluatedKey
		items, err := t.visibleAll(ctx, out.Items, c.filterCheck, c.keyCheck)
		return items, len(out.LastEvaluatedKey) > 0, err
	}
}

func (t *Table[T]) buildQuery(c *readConfig, key expression.KeyConditionBuilder) (*dynamodb.QueryInput, error) {
	if !key.IsSet() {
		return nil, fmt.Errorf("%w: Query needs a key condition, such as expression.Key(%q).Equal(expression.Value(v))", ErrInvalidOption, t.s.hash.name)
	}
	t.s.ent.typed(c)
	start, err := t.startKey(c)
	if err != nil {
		return nil, err
	}
	e, _, err := t.readExpression(c, &key)
	if err != nil {
		return nil, err
	}
	in := &dynamodb.QueryInput{
		ReturnConsumedCapacity:    c.capacity.returnCapacity(),
		TableName:                 t.nameP,
		KeyConditionExpression:    e.KeyCondition(),
		FilterExpression:          e.Filter(),
		ProjectionExpression:      e.Projection(),
		ExpressionAttributeNames:  e.Names(),
		ExpressionAttributeValues: e.Values(),
		ExclusiveStartKey:         start,
	}
	if c.index != "" {
		in.IndexName = aws.String(c.index)
	}
	if c.consistent {
		in.ConsistentRead = aws.Bool(true)
	}
	if c.descending {
		in.ScanIndexForward = aws.Bool(false)
	}
	return in, nil
}

// fetchFunc reads the next page: its items, and whether there are more.
type fetchFunc func(limit *int32) (items []map[string]types.AttributeValue, more bool, err error)

// iterate yields the items of fetch's pages, one page at a time, until the
// last page, c.limit items, an error (yielded, then the end) or yield
// returning false (no call is made after that).
func (t *Table[T]) iterate(c *readConfig, fetch fetchFunc, yield func(*T, error) bool) {
	n := 0
	for {
		items, more, err := fetch(pageLimit(c, n))
		if err != nil {
			yield(nil, err)
			return
		}
		for _, it := range items {
			v, err := decodeItem[T](t.c, it)
			if err != nil {
				yield(nil, err)
				return
			}
			if !yield(v, nil) {
				return
			}
			if n++; c.limit > 0 && n >= c.limit {
				return
			}
		}
		if !more {
			return
		}
	}
}

// pageLimit returns DynamoDB's Limit for the next page, when n items have
// been returned: PageSize, capped without a filter at the items still
// wanted.
func pageLimit(c *readConfig, n int) *int32 {
	l := c.pageSize
	if c.limit > 0 && len(c.filters) == 0 {
		if rest := c.limit - n; l == 0 || rest < l {
			l = rest
		}
	}
	if l <= 0 {
		return nil
	}
	return aws.Int32(int32(min(l, math.MaxInt32)))
}

func describe(name, index string) string {
	if index == "" {
		return name
	}
	return name + " index " + index
}
