package txn

import (
	"context"
	"fmt"
	"sync"

	"github.com/optimist-dynamo/optimist/internal/errs"
	"github.com/optimist-dynamo/optimist/internal/replica"

	"github.com/optimist-dynamo/optimist/internal/procmem"
)

// ErrGlobalTable is returned by Commit, before anything is sent, when an
// op that relies on a condition (a version check, a fence, an If, a Check
// op, or any op of a versioned type) writes to a global table in
// multi-Region eventual consistency, where a condition is checked only
// against the writer's Region and concurrent writes in two Regions are
// settled by last writer wins. The mapper's ops follow their Table's
// WriteRegion; raw ops ([Put], [Update], [Delete], [Check]) the Tx's
// [WriteRegion]. It is one value with mapper.ErrGlobalTable.
var ErrGlobalTable = errs.ErrGlobalTable

// WriteRegion names the one AWS Region every write to the tables of the
// transaction's raw ops goes to, for a global table whose other Regions
// only read: their conditional ops are then allowed from a client in that
// Region (and refused from another), with no DescribeTable. The mapper's
// ops follow their own Table's WriteRegion.
func WriteRegion(region string) Option {
	return func(o *Options) { o.WriteRegion = region }
}

// rawGuards holds one guard per table and write Region for the process:
// whether a table is global is learnt once, not once per transaction.
var rawGuards sync.Map // table + "\x00" + region -> *replica.Guard

func init() { procmem.Register(rawGuards.Clear) }

// checkReplicas refuses the transaction if one of its ops relies on a
// condition on an eventually consistent global table.
func (tx *Tx) checkReplicas(ctx context.Context) error {
	for i, op := range tx.ops {
		w := op.write()
		if w == nil || w.T == nil || !w.Protected() {
			continue
		}
		g := w.T.Replicas
		if g == nil {
			key := w.T.Name + "\x00" + tx.cfg.WriteRegion
			v, ok := rawGuards.Load(key)
			if !ok {
				v, _ = rawGuards.LoadOrStore(key, replica.NewGuard(w.T.Name, tx.cfg.WriteRegion))
			}
			g = v.(*replica.Guard)
		}
		if err := g.Check(ctx, tx.client); err != nil {
			return fmt.Errorf("txn: op %d (%s on %s): %w", i, op.kind(), w.T.Name, err)
		}
	}
	return nil
}
