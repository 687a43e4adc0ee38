package pessimistic

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/optimist-dynamo/optimist/internal/attrs"
	"github.com/optimist-dynamo/optimist/internal/plan"
	"github.com/optimist-dynamo/optimist/internal/retry"
	"github.com/optimist-dynamo/optimist/internal/unitproto"
	"github.com/optimist-dynamo/optimist/mapper"
	"github.com/optimist-dynamo/optimist/update"
)

// ItemLock is a lock held in an item itself (see [LockItem]): two
// attributes beside the item's own, kept alive by heartbeats like a
// [Lease]. Its methods are safe for concurrent use.
type ItemLock[T any] struct {
	table *mapper.Table[T]
	lease *Lease
}

// Context returns a context that is canceled when the lock is released or
// lost.
func (l *ItemLock[T]) Context() context.Context {
	if l == nil {
		return canceledContext
	}
	return l.lease.Context()
}

// Err returns why the lock ended early (see [Lease.Err]).
func (l *ItemLock[T]) Err() error {
	if l == nil {
		return errNilLease
	}
	return l.lease.Err()
}

// Release removes the lock's attributes from the item with one conditional
// UpdateItem, on the condition that the lock is still ours ([ErrNotHeld]
// otherwise), leaving the item as it is.
func (l *ItemLock[T]) Release(ctx context.Context) error {
	if l == nil {
		return errNilLease
	}
	return l.lease.Release(ctx)
}

// SaveAndRelease writes item and removes the lock's attributes in one
// conditional UpdateItem (mapper's Table.Save): on the condition that the
// lock is still ours, and, if T is versioned, that the stored version is
// item's (which LockItem returned). Attributes outside the struct survive.
// On success item gets its new version. If the lock was lost, nothing is
// written and the error matches [ErrNotHeld]. If the item was changed by a
// writer that did not take the lock (the version moved), nothing is written,
// the lock is released all the same, and the error matches
// version.ErrConflict; so too for any other failure of the write that
// leaves the lock ours (mapper.ErrUnknownOutcome, say).
func (l *ItemLock[T]) SaveAndRelease(ctx context.Context, item *T) error {
	if l == nil || l.lease == nil {
		return errNilLease
	}
	if item == nil {
		return fmt.Errorf("%w: SaveAndRelease of a nil item", ErrInvalidOption)
	}
	s := l.lease
	return s.finish(ctx, "SaveAndRelease", func(ctx context.Context, cur string) (bool, error) {
		ours := expression.Name(s.o.ItemOwnerAttr).Equal(expression.Value(s.o.Owner)).
			And(expression.Name(s.o.ItemLeaseAttr).AppendName(expression.Name(leaseRvn)).Equal(expression.Value(cur)))
		// Save resolves a lost response by its own write token.
		// (its unknown outcome is an error, never a failed condition).
		return false, l.table.Save(ctx, item, mapper.If(ours), mapper.Also(update.Remove(s.o.ItemOwnerAttr).Remove(s.o.ItemLeaseAttr)))
	})
}

// Inside the lease attribute of a locked item (a map): the record version
// and the lease duration in milliseconds.
const (
	leaseRvn = "rvn"
	leaseMs  = "ms"
)

// LockItem takes a lock held in the item with the key of key, and returns
// the item as it is now, read by the same call: a locking read. It is one
// UpdateItem (ALL_NEW) that sets the owner and lease attributes
// ([ItemLockAttributes], defaults "lockOwner" and "lockLease"; they must
// not be fields of T) on the condition that the item exists and is not
// locked. A missing item is an error matching mapper.ErrNotFound, and is not
// created. A locked item is a [*NotAcquiredError] (matching [ErrNotAcquired]) after
// the [Wait] (by default until ctx ends); a lock whose holder stopped
// renewing it is taken over after a full lease, as with [Locker.Acquire].
//
// The lock is renewed by heartbeats until [ItemLock.SaveAndRelease] or
// [ItemLock.Release]. Writers that do not take the lock are not kept out:
// combine item locks with a version field, so that such a write makes the
// holder's save conflict instead of being overwritten.
func LockItem[T any](ctx context.Context, table *mapper.Table[T], key T, opts ...Option) (*T, *ItemLock[T], error) {
	o, err := defaultOptions().resolve(opts)
	if err != nil {
		return nil, nil, err
	}
	if o.Data != nil {
		return nil, nil, fmt.Errorf("%w: Data: an item lock keeps no data (only its owner and lease, in the item)", ErrInvalidOption)
	}
	for _, a := range []string{o.ItemOwnerAttr, o.ItemLeaseAttr} {
		if table.Stores(a) || strings.ContainsAny(a, ".[]") {
			return nil, nil, fmt.Errorf("%w: the item lock attribute %q must not be a field of the item, nor hold '.', '[' or ']'", ErrInvalidOption, a)
		}
	}
	k, err := table.Key(key)
	if err != nil {
		return nil, nil, err
	}
	if err := checkItemTable(ctx, table, key); err != nil {
		return nil, nil, err
	}
	rec := &record{
		client: table.Client(), table: aws.String(table.Name()), key: k,
		owner:   plan.Top(o.ItemOwnerAttr),
		rvn:     plan.Path{{Name: o.ItemLeaseAttr}, {Name: leaseRvn}},
		release: []plan.Path{plan.Top(o.ItemOwnerAttr), plan.Top(o.ItemLeaseAttr)},
		parse:   itemHolder(o.ItemOwnerAttr, o.ItemLeaseAttr),
		item:    true,
	}
	name := table.Name() + " " + attrs.FormatKey(k)
	w := newWaiter(o)
	for tries := 1; ; tries++ {
		rvn, sent := newRvn(), time.Now()
		item, h, err := lockItemOnce(ctx, table, rec, o, rvn, w.takeover())
		if err != nil {
			return nil, nil, fmt.Errorf("pessimistic: lock %s: %w", name, err)
		}
		if item != nil {
			v, err := table.Decode(item)
			if err != nil {
				return nil, nil, err
			}
			lease := newLease(rec, name, 0, rvn, sent, o, leaseParent(ctx, o, true))
			lease.observeHeld(ctx, "LockItem", tries, nil)
			return v, &ItemLock[T]{table: table, lease: lease}, nil
		}
		w.saw(h.rvn, h.lease)
		pause, ok := w.next()
		if !ok {
			return nil, nil, &NotAcquiredError{Name: name, Owner: h.owner}
		}
		if err := retry.Sleep(ctx, pause); err != nil {
			return nil, nil, fmt.Errorf("pessimistic: lock %s (held by %s): %w", name, h.owner, err)
		}
	}
}

// checkItemTable refuses an item lock on a global table in multi-Region
// eventual consistency, as the table's own conditional writes are refused
// (mapper.ErrGlobalTable, same value as ErrGlobalTable), with the table's
// guard and so its WriteRegion: a lease held in an item is a condition,
// which another Region would not see. The guard is reached through the
// write plan of an op of the table, which carries it.
func checkItemTable[T any](ctx context.Context, table *mapper.Table[T], key T) error {
	w, err := plan.OpWrite(table.CheckOp(key, mapper.Unversioned(), mapper.If(expression.AttributeExists(expression.Name(table.HashKey())))))
	if err != nil || w.T == nil || w.T.Replicas == nil {
		return err
	}
	if err := w.T.Replicas.Check(ctx, table.Client()); err != nil {
		return fmt.Errorf("pessimistic: lock item of %s: %w", table.Name(), err)
	}
	return nil
}

// lockItemOnce makes one attempt; it returns the item, or its holder.
func lockItemOnce[T any](ctx context.Context, table *mapper.Table[T], rec *record, o Options, rvn, takeover string) (map[string]types.AttributeValue, holder, error) {
	// An item a unit of work (package unit) holds is not locked here: its
	// unit's write is still to be applied.
	free := expression.AttributeNotExists(rec.owner.Name())
	if takeover != "" {
		free = free.Or(rec.rvn.Name().Equal(expression.Value(takeover)))
	}
	w := &plan.Write{Kind: plan.WriteUpdate, T: plan.NewTable(aws.ToString(rec.table), "", ""), Key: rec.key, Guard: true,
		Conds: []expression.ConditionBuilder{
			expression.AttributeExists(plan.Top(table.HashKey()).Name()),
			free,
		},
		Actions: []plan.Action{
			set(rec.owner, attrs.S(o.Owner)),
			set(plan.Top(o.ItemLeaseAttr), &types.AttributeValueMemberM{Value: map[string]types.AttributeValue{
				leaseRvn: attrs.S(rvn), leaseMs: attrs.N(o.LeaseDuration.Milliseconds()),
			}}),
		},
	}
	req, err := w.Render()
	if err != nil {
		return nil, holder{}, err
	}
	res, err := claim(ctx, rec.client, req, rec.read, func(item map[string]types.AttributeValue) bool {
		h := rec.parse(item)
		return h.owner == o.Owner && h.rvn == rvn
	})
	switch {
	case err != nil:
		return nil, holder{}, err
	case !res.won && len(res.item) == 0:
		return nil, holder{}, fmt.Errorf("%w (an item lock never creates the item)", mapper.ErrNotFound)
	case !res.won:
		if le := unitproto.Locked(aws.ToString(rec.table), rec.key, res.item, nil); le != nil {
			return nil, holder{}, le
		}
		return nil, rec.parse(res.item), nil
	case res.late && ctx.Err() != nil:
		// Ours, but the caller has given up: give it back.
		lease := newLease(rec, "", 0, rvn, time.Now(), o, context.WithoutCancel(ctx))
		return nil, holder{}, errors.Join(ctx.Err(), lease.releaseDetached(ctx))
	}
	return res.item, holder{}, nil
}

// itemHolder reads an item lock's attributes.
func itemHolder(ownerAttr, leaseAttr string) func(map[string]types.AttributeValue) holder {
	return func(item map[string]types.AttributeValue) holder {
		var h holder
		if v, ok := item[ownerAttr].(*types.AttributeValueMemberS); ok {
			h.owner = v.Value
		}
		if m, ok := item[leaseAttr].(*types.AttributeValueMemberM); ok {
			if v, ok := m.Value[leaseRvn].(*types.AttributeValueMemberS); ok {
				h.rvn = v.Value
			}
			ms, _ := attrs.Int64(m.Value[leaseMs])
			h.lease = time.Duration(ms) * time.Millisecond
		}
		return h
	}
}
