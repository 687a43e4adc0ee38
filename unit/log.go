package unit

import (
	"context"
	"fmt"

	"github.com/optimist-dynamo/optimist/internal/plan"
	"github.com/optimist-dynamo/optimist/internal/replica"
	"github.com/optimist-dynamo/optimist/internal/unitproto"
)

// Limits of a unit's pages (the lists of its items in the coordinator
// table): shared with readers, which tell a unit's last page by them.
const (
	pageItems = unitproto.PageItems
	pageBytes = unitproto.PageBytes
)

// log writes the items not yet logged to the unit's pages, before they are
// locked: recovery finds every lock the unit may hold there. One
// UpdateItem per page touched (unitproto.Coordinator.Log).
func (u *Unit) log(ctx context.Context, items []*item) error {
	var refs []string
	var which []*item
	for _, it := range items {
		if it.logged {
			continue
		}
		if err := u.checkReplicas(ctx, it.table, it.pt); err != nil {
			return err
		}
		ref, err := unitproto.EncodeKey(it.table, it.key)
		if err != nil {
			return fmt.Errorf("%w: %w", ErrInvalidOption, err)
		}
		refs = append(refs, ref)
		which = append(which, it)
	}
	for len(refs) > 0 {
		n, size := 0, 0
		for n < len(refs) && u.pageLen+n < pageItems && u.pageBytes+size+len(refs[n]) < pageBytes {
			size += len(refs[n])
			n++
		}
		if n == 0 {
			u.page, u.pageLen, u.pageBytes = u.page+1, 0, 0
			continue
		}
		page := u.page
		_, err := send(ctx, u, func(ctx context.Context) (struct{}, error) {
			return struct{}{}, u.coord.Log(ctx, u.id, page, refs[:n], u.o.lease)
		})
		if err != nil {
			return err
		}
		for _, it := range which[:n] {
			it.logged = true
		}
		u.pageLen += n
		u.pageBytes += size
		refs, which = refs[n:], which[n:]
	}
	return nil
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
