package mapper

import (
	"context"
	"fmt"
	"math"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// A pager sends one read, a Query or a Scan, a page at a time: Query,
// Scan, One, Count, ScanCount and Collection.Query all read through one,
// so that the input is built, each page's capacity counted, the next page
// asked for and the items a unit holds shown in one place.
type pager struct {
	client Client
	c      *readConfig
	query  *dynamodb.QueryInput // the read, a Query,
	scan   *dynamodb.ScanInput  // or a Scan
	where  string               // the table and index read, for errors
	// visible shows the items of a page a unit of work holds in their
	// committed state ([Table.visibleAll]).
	visible func(ctx context.Context, items []map[string]types.AttributeValue, checks ...*recheck) ([]map[string]types.AttributeValue, error)
}

// pager returns the pager of a read of c: a Query with key, a Scan with
// key nil. A count read (c.count) selects COUNT.
func (t *Table[T]) pager(c *readConfig, key *expression.KeyConditionBuilder) (*pager, error) {
	start, err := t.startKey(c)
	if err != nil {
		return nil, err
	}
	e, _, err := t.readExpression(c, key)
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
	if c.count {
		in.Select = types.SelectCount
	}
	p := &pager{client: t.client, c: c, where: describe(t.name, c.index), visible: t.visibleAll}
	if key != nil {
		p.query = in
	} else {
		p.scan = scanInput(in)
	}
	return p, nil
}

// scanInput is the Scan of what q reads, without its key condition (a
// Scan has no order to reverse).
func scanInput(q *dynamodb.QueryInput) *dynamodb.ScanInput {
	return &dynamodb.ScanInput{
		ReturnConsumedCapacity:    q.ReturnConsumedCapacity,
		TableName:                 q.TableName,
		IndexName:                 q.IndexName,
		FilterExpression:          q.FilterExpression,
		ProjectionExpression:      q.ProjectionExpression,
		ExpressionAttributeNames:  q.ExpressionAttributeNames,
		ExpressionAttributeValues: q.ExpressionAttributeValues,
		ExclusiveStartKey:         q.ExclusiveStartKey,
		ConsistentRead:            q.ConsistentRead,
		Select:                    q.Select,
	}
}

// segment returns the pager of segment seg of p's parallel Scan (p itself
// when the Scan is not parallel).
func (p *pager) segment(seg int) *pager {
	if p.c.segments == 0 {
		return p
	}
	in := *p.scan
	in.Segment, in.TotalSegments = aws.Int32(int32(seg)), aws.Int32(int32(p.c.segments))
	s := *p
	s.scan, s.where = &in, fmt.Sprintf("%s, segment %d of %d", p.where, seg, p.c.segments)
	return &s
}

// next reads the next page, of at most limit items (nil: DynamoDB's):
// the items it shows, its count (for Select=COUNT) and whether there are
// more pages.
func (p *pager) next(ctx context.Context, limit *int32) (items []map[string]types.AttributeValue, count int, more bool, err error) {
	var last map[string]types.AttributeValue
	var cc *types.ConsumedCapacity
	op := "Query"
	if p.scan != nil {
		op, p.scan.Limit = "Scan", limit
		var out *dynamodb.ScanOutput
		if out, err = p.client.Scan(ctx, p.scan); err == nil {
			items, count, last, cc = out.Items, int(out.Count), out.LastEvaluatedKey, out.ConsumedCapacity
		}
	} else {
		p.query.Limit = limit
		var out *dynamodb.QueryOutput
		if out, err = p.client.Query(ctx, p.query); err == nil {
			items, count, last, cc = out.Items, int(out.Count), out.LastEvaluatedKey, out.ConsumedCapacity
		}
	}
	if err != nil {
		if p.c.count {
			op += " (count)"
		}
		return nil, 0, false, fmt.Errorf("mapper: %s on %s: %w", op, p.where, err)
	}
	p.c.capacity.add(cc, false)
	if p.scan != nil {
		p.scan.ExclusiveStartKey = last
	} else {
		p.query.ExclusiveStartKey = last
	}
	items, err = p.visible(ctx, items, p.c.filterCheck, p.c.keyCheck)
	return items, count, len(last) > 0, err
}

// countAll adds up the counts of every page of a count read.
func (p *pager) countAll(ctx context.Context) (int, error) {
	n := 0
	for {
		_, count, more, err := p.next(ctx, pageLimit(p.c, 0))
		if err != nil {
			return 0, err
		}
		n += count
		if !more {
			return n, nil
		}
	}
}

// iterate yields the items of p's pages, each decoded, one page at a time,
// until the last page, c.limit items, an error (yielded, then the end) or
// yield returning false (no call is made after that).
func iterate[V any](ctx context.Context, p *pager, decode func(map[string]types.AttributeValue) (V, error), yield func(V, error) bool) {
	var zero V
	n := 0
	for {
		items, _, more, err := p.next(ctx, pageLimit(p.c, n))
		if err != nil {
			yield(zero, err)
			return
		}
		for _, it := range items {
			v, err := decode(it)
			if err != nil {
				yield(zero, err)
				return
			}
			if !yield(v, nil) {
				return
			}
			if n++; p.c.limit > 0 && n >= p.c.limit {
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
