package unit

import (
	"context"
	"fmt"
	"sync"

	"github.com/optimist-dynamo/optimist/internal/replica"
	"github.com/optimist-dynamo/optimist/internal/unitproto"

	"github.com/optimist-dynamo/optimist/internal/procmem"
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
		if err := u.checkReplicas(ctx, it.table); err != nil {
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

// replicaGuards holds one guard per table and write Region for the
// process: whether a table is global is learnt once, not once per unit.
var replicaGuards sync.Map // table + "\x00" + region -> *replica.Guard

func init() { procmem.Register(replicaGuards.Clear) }

// checkReplicas refuses to write to table if it is a global table in
// multi-Region eventual consistency (see [WriteRegion]). Every item is
// logged before it is locked, and the coordinator checked at Begin, so
// nothing of the unit is written to such a table.
func (u *Unit) checkReplicas(ctx context.Context, table string) error {
	g, ok := replicaGuards.Load(table + "\x00" + u.o.region)
	if !ok {
		g, _ = replicaGuards.LoadOrStore(table+"\x00"+u.o.region, replica.NewGuard(table, u.o.region))
	}
	if err := g.(*replica.Guard).Check(ctx, u.c); err != nil {
		return fmt.Errorf("unit: %w", err)
	}
	return nil
}
