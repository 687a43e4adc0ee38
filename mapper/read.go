package mapper

import (
	"context"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/optimist-dynamo/optimist/internal/attrs"
	"github.com/optimist-dynamo/optimist/internal/cond"
	"github.com/optimist-dynamo/optimist/internal/unitproto"
)

// projection returns the attribute names of a ProjectionExpression: the
// first user of them those asked for, then the key attributes of the table
// and the index not among them. nil means no projection.
func (t *Table[T]) projection(c *readConfig, extra []string) (names []string, user int) {
	if len(c.project) == 0 {
		return nil, 0
	}
	out := make([]string, 0, len(c.project)+4)
	seen := make(map[string]bool, len(c.project)+4)
	add := func(name string) {
		if !seen[name] {
			seen[name] = true
			out = append(out, name)
		}
	}
	for _, a := range c.project {
		add(a)
	}
	user = len(out)
	for _, f := range t.s.keys {
		add(f.name)
	}
	for _, k := range c.indexKeys {
		add(k)
	}
	for _, n := range t.s.ent.projected() {
		add(n)
	}
	for _, n := range extra {
		add(n)
	}
	add(unitproto.Attr) // to show an item a unit locked in its committed state
	return out, user
}

// readExpression builds the expressions of a read: key condition (Query
// only), filter and projection. ok is false when there are none.
func (t *Table[T]) readExpression(c *readConfig, key *expression.KeyConditionBuilder) (e expression.Expression, ok bool, err error) {
	if err := t.checkIndexRead(c); err != nil {
		return e, false, err
	}
	b := expression.NewBuilder()
	if key != nil {
		b, ok = b.WithKeyCondition(*key), true
	}
	filter, filterNames, err := readFilter(c)
	if err != nil {
		return e, false, err
	}
	if filter.IsSet() {
		b, ok = b.WithFilter(filter), true
	}
	if names, user := t.projection(c, filterNames); names != nil {
		// User names may be paths (a.b[2]); key attribute names are taken
		// as they are.
		nb := make([]expression.NameBuilder, len(names))
		for i, n := range names {
			if i < user {
				nb[i] = expression.Name(n)
			} else {
				nb[i] = expression.NameNoDotSplit(n)
			}
		}
		b, ok = b.WithProjection(expression.NamesList(nb[0], nb[1:]...)), true
	}
	if !ok {
		return e, false, nil
	}
	if e, err = b.Build(); err != nil {
		return e, false, fmt.Errorf("%w: %v", ErrInvalidOption, err)
	}
	if err := attrs.CheckItem(e.Values()); err != nil {
		return e, false, fmt.Errorf("%w: in the key condition or filter: value %v", ErrInvalidItem, err)
	}
	if err := t.checkKeyCondition(c, e); err != nil {
		return e, false, err
	}
	if c.filterCheck, err = newRecheck(e.Filter(), e); err != nil {
		return e, false, err
	}
	if c.index != "" {
		if c.keyCheck, err = newRecheck(e.KeyCondition(), e); err != nil {
			return e, false, err
		}
	}
	return e, true, nil
}

// readFilter returns the FilterExpression of a read: the caller's filters
// ANDed, adapted to items that units hold (unset when there is none), and
// the attributes the filter reads when they must be added to a projection.
func readFilter(c *readConfig) (filter expression.ConditionBuilder, names []string, err error) {
	var user expression.ConditionBuilder
	switch len(c.filters) {
	case 0:
	case 1:
		user = c.filters[0]
	default:
		user = expression.And(c.filters[0], c.filters[1], c.filters[2:]...)
	}
	if c.count {
		notHeldMissing := unitproto.NotPlaceholder()
		if user.IsSet() {
			notHeldMissing = user.And(notHeldMissing)
		}
		return notHeldMissing, nil, nil
	}
	if !user.IsSet() {
		return user, nil, nil
	}
	// Items a unit has prepared come back whatever the filter says:
	// DynamoDB evaluates it on the item as stored, and the reader evaluates
	// it again on the committed state it shows (recheck). On that state,
	// stripped of the lock, the second term is false.
	filter = user.Or(unitproto.PreparedCond())
	if len(c.project) > 0 {
		// The reader needs the attributes the filter reads.
		fe, err := expression.NewBuilder().WithFilter(user).Build()
		if err != nil {
			return filter, nil, fmt.Errorf("%w: %v", ErrInvalidOption, err)
		}
		for _, n := range fe.Names() {
			names = append(names, n)
		}
	}
	return filter, names, nil
}

// newRecheck parses a condition of e for evaluating it again on items a
// unit holds; nil when there is none.
func newRecheck(expr *string, e expression.Expression) (*recheck, error) {
	if expr == nil {
		return nil, nil
	}
	x, err := cond.Parse(*expr)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrInvalidOption, err)
	}
	return &recheck{expr: x, names: e.Names(), values: e.Values()}, nil
}

// Get with a projection: GetItem with a ProjectionExpression.
func (t *Table[T]) getProjected(ctx context.Context, key map[string]types.AttributeValue, c *readConfig) (*T, error) {
	e, _, err := t.readExpression(c, nil)
	if err != nil {
		return nil, err
	}
	return t.getItem(ctx, key, c.consistent, &dynamodb.GetItemInput{
		ProjectionExpression:     e.Projection(),
		ExpressionAttributeNames: e.Names(),
	}, c.capacity)
}
