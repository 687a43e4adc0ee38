package unit

import (
	"context"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/optimist-dynamo/optimist/internal/plan"
	"github.com/optimist-dynamo/optimist/internal/replica"
)

// log writes the items not yet logged to the unit's pages, before they are
// locked: recovery finds every lock the unit may hold there. One
// UpdateItem per page touched (unitproto.Holder.Log), each through send.
func (u *Unit) log(ctx context.Context, items []*item) error {
	var which []*item
	for _, it := range items {
		if it.logged {
			continue
		}
		if err := u.checkReplicas(ctx, it.table, it.pt); err != nil {
			return err
		}
		which = append(which, it)
	}
	n, err := u.h.Log(ctx, len(which), func(i int) (string, map[string]types.AttributeValue) { return which[i].table, which[i].key },
		func(ctx context.Context, write func(context.Context) error) error {
			_, err := send(ctx, u, func(ctx context.Context) (struct{}, error) { return struct{}{}, write(ctx) })
			return err
		})
	for _, it := range which[:n] {
		it.logged = true
	}
	return err
}

// checkReplicas refuses to write to table if it is a global table in
// multi-Region eventual consistency (see [WriteRegion]). Every item is
// logged before it is locked, and the coordinator checked at Begin, so
// nothing of the unit is written to such a table. The guard of a
// mapper.Table (pt's) serves when it was made for the unit's WriteRegion
// (both none: what DescribeTable said is learnt once per Table); other
// tables get guards of the unit's, learnt once per unit.
func (u *Unit) checkReplicas(ctx context.Context, table string, pt *plan.Table) error {
	g := u.guards[table]
	switch {
	case g != nil:
	case pt != nil && pt.Replicas != nil && pt.Replicas.Home() == u.o.region:
		g = pt.Replicas
	default:
		if u.guards == nil {
			u.guards = map[string]*replica.Guard{}
		}
		g = replica.NewGuard(table, u.o.region)
		u.guards[table] = g
	}
	if err := g.Check(ctx, u.c); err != nil {
		return fmt.Errorf("unit: %w", err)
	}
	return nil
}
