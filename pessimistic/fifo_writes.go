package pessimistic

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"

	"github.com/optimist-dynamo/optimist/internal/attrs"
	"github.com/optimist-dynamo/optimist/internal/ddbapi"
	"github.com/optimist-dynamo/optimist/internal/plan"
)

// queueRecord is where the lease of the waiter with entry id lives: its
// entry in the queue of the lock called name.
func (l *Locker) queueRecord(name, id string, q *fifoQueue) *record {
	return &record{
		client: l.client, table: l.tableP, key: l.key(name, lockSK),
		owner:   plan.Path{{Name: attrQueueEntries}, {Name: id}, {Name: entryOwner}},
		rvn:     plan.Path{{Name: attrQueueEntries}, {Name: id}, {Name: entryRvn}},
		ttl:     true,
		release: []plan.Path{{{Name: attrQueueEntries}, {Name: id}}, {{Name: attrQueueTickets}, {Name: id}}},
		parse: func(item map[string]types.AttributeValue) holder {
			ticket, _ := attrs.Int64(mapValue(item, attrQueueTickets, id))
			return entryHolder(mapValue(item, attrQueueEntries, id), ticket)
		},
		released: q.published,
		holds:    true,
	}
}

func mapValue(item map[string]types.AttributeValue, attr, key string) types.AttributeValue {
	if m, ok := item[attr].(*types.AttributeValueMemberM); ok {
		return m.Value[key]
	}
	return nil
}

// readQueue reads the lock's record (consistently) into q.
func (l *Locker) readQueue(ctx context.Context, name string, q *fifoQueue) error {
	sent := time.Now()
	item, err := ddbapi.ReadItem(ctx, l.client, l.tableP, l.key(name, lockSK))
	if err != nil {
		return fmt.Errorf("pessimistic: acquire %q: reading the queue: %w", name, err)
	}
	q.publish(item, sent)
	return nil
}

// join puts a new entry at the end of the queue with one UpdateItem, and
// returns its lease and ticket. The write is conditioned on the entry's id
// being new, so a resend after a lost response can never queue the waiter
// twice: the resend fails its condition and the item it returns, like a
// read after a lost answer, shows the entry as ours (see claim). The first
// join on a lock that has never had a queue finds no maps to write into:
// it creates them (one idempotent UpdateItem) and joins again.
func (l *Locker) join(ctx context.Context, name string, parent context.Context, o Options, q *fifoQueue) (*Lease, int64, error) {
	maxQueue := MaxQueue
	if o.maxQueue > 0 {
		maxQueue = o.maxQueue
	}
	for try := 1; ; try++ {
		id, rvn := newRvn()+newRvn(), newRvn()
		rec := l.queueRecord(name, id, q)
		names := map[string]string{"#f": attrFence, "#qt": attrQueueTickets, "#qw": attrQueueEntries, "#id": id, "#t": attrTTL}
		e := map[string]types.AttributeValue{
			entryOwner: attrs.S(o.Owner), entryRvn: attrs.S(rvn), entryLease: attrs.N(o.LeaseDuration.Milliseconds()),
		}
		if o.Data != nil {
			e[entryData] = &types.AttributeValueMemberB{Value: o.Data}
		}
		sent := time.Now()
		res, err := claim(ctx, l.client, rawUpdate(&dynamodb.UpdateItemInput{
			TableName: l.tableP,
			Key:       rec.key,
			// The counter starts from the wall clock in milliseconds, as
			// the lease lock's does (see tryAcquire).
			UpdateExpression:         aws.String("SET #f = if_not_exists(#f, :base) + :one, #qt.#id = if_not_exists(#f, :base) + :one, #qw.#id = :e, #t = :t"),
			ConditionExpression:      aws.String("attribute_exists(#qt) AND attribute_not_exists(#qt.#id) AND size(#qt) < :max"),
			ExpressionAttributeNames: names,
			ExpressionAttributeValues: map[string]types.AttributeValue{
				":base": attrs.N(time.Now().UnixMilli()), ":one": attrs.N(1), ":max": attrs.N(int64(maxQueue)), ":t": o.ttlValue(),
				":e": &types.AttributeValueMemberM{Value: e},
			},
		}), rec.read, func(item map[string]types.AttributeValue) bool {
			h := rec.parse(item)
			return h.owner == o.Owner && h.rvn == rvn
		})
		switch {
		case tooLarge(err):
			return nil, 0, fmt.Errorf("%w: %q: the queue's item would pass DynamoDB's 400 KB limit: %w", ErrQueueFull, name, err)
		case err != nil:
			return nil, 0, fmt.Errorf("pessimistic: acquire %q: joining the queue: %w", name, err)
		case res.won:
			q.publish(res.item, sent)
			ticket := rec.parse(res.item).token
			lease, err := l.startLease(rec, name, ticket, rvn, sent, o, parent)
			if err == nil && res.late && ctx.Err() != nil {
				return nil, 0, errors.Join(fmt.Errorf("pessimistic: acquire %q: %w", name, ctx.Err()), lease.releaseDetached(ctx))
			}
			return lease, ticket, err
		}
		tickets, ok := res.item[attrQueueTickets].(*types.AttributeValueMemberM)
		if ok && len(tickets.Value) >= maxQueue {
			q.publish(res.item, sent)
			return nil, 0, fmt.Errorf("%w: %q has %d waiters (at most %d)", ErrQueueFull, name, len(tickets.Value), maxQueue)
		}
		if !tries.More(try) {
			return nil, 0, fmt.Errorf("pessimistic: acquire %q: joining the queue: refused %d times", name, try)
		}
		if !ok {
			// No queue yet: create its maps, whoever else does too.
			empty := &types.AttributeValueMemberM{Value: map[string]types.AttributeValue{}}
			w := &plan.Write{Kind: plan.WriteUpdate, T: plan.NewTable(aws.ToString(l.tableP), "", ""), Key: rec.key, Actions: []plan.Action{
				{Kind: plan.SetIfNotExists, Path: plan.Top(attrQueueTickets), Value: empty},
				{Kind: plan.SetIfNotExists, Path: plan.Top(attrQueueEntries), Value: empty},
				set(plan.Top(attrTTL), o.ttlValue()),
			}}
			if err := l.createQueue(ctx, w); err != nil {
				return nil, 0, fmt.Errorf("pessimistic: acquire %q: creating the queue: %w", name, err)
			}
		}
		// (Otherwise the random id was taken: join again with another.)
	}
}

// tooLarge reports whether err is DynamoDB's refusal of an item over 400 KB.
func tooLarge(err error) bool {
	var ae smithy.APIError
	return errors.As(err, &ae) && ae.ErrorCode() == "ValidationException" &&
		strings.Contains(strings.ToLower(ae.ErrorMessage()), "size")
}

// removeAbandoned removes entries seen unchanged for their lease, each on
// the condition that it still holds the record version seen, in batches of
// one UpdateItem. If any was renewed after all (or is gone), the item the
// failed condition returns is the new snapshot, and the waiters look again.
func (l *Locker) removeAbandoned(ctx context.Context, name string, q *fifoQueue, abandoned []entry) error {
	batch := abandoned[:min(len(abandoned), removeBatch)]
	last := batch[len(batch)-1] // the highest ticket: the one whose turn was last
	w := &plan.Write{Kind: plan.WriteUpdate, T: plan.NewTable(aws.ToString(l.tableP), "", ""), Key: l.key(name, lockSK)}
	for _, e := range batch {
		w.Actions = append(w.Actions,
			plan.Action{Kind: plan.Remove, Path: plan.Path{{Name: attrQueueTickets}, {Name: e.id}}},
			plan.Action{Kind: plan.Remove, Path: plan.Path{{Name: attrQueueEntries}, {Name: e.id}}})
		rvn := plan.Path{{Name: attrQueueEntries}, {Name: e.id}, {Name: entryRvn}}
		w.Conds = append(w.Conds, rvn.Name().Equal(expression.Value(e.rvn)))
	}
	w.Actions = append(w.Actions, set(plan.Top(attrGoneOwner), attrs.S(last.owner)), set(plan.Top(attrGoneToken), attrs.N(last.token)))
	r, err := w.Render()
	if err != nil {
		return err
	}
	sent := time.Now()
	res := plan.Exec(ctx, l.client, r, plan.Call{ReturnValues: types.ReturnValueAllNew, Settle: plan.Settle{
		// A lost answer landed if the batch is gone and the record names
		// its last entry as the holder removed, as our write does.
		Ours: func(item map[string]types.AttributeValue) bool {
			for _, e := range parseQueue(item) {
				if slices.ContainsFunc(batch, func(b entry) bool { return b.id == e.id }) {
					return false
				}
			}
			h := holderOf(map[string]types.AttributeValue{attrOwner: item[attrGoneOwner], attrFence: item[attrGoneToken]})
			return h.owner == last.owner && h.token == last.token
		},
	}})
	switch {
	case res.Outcome == plan.Applied:
		q.published(res.Item, sent)
		return nil
	case res.Outcome == plan.Refused, res.Outcome == plan.Unknown && res.Seen():
		q.publish(res.Item, sent)
		return nil
	}
	return fmt.Errorf("pessimistic: acquire %q: removing %d abandoned queue entries (first %s's): %w", name, len(batch), batch[0].owner, errOf(res))
}

// createQueue sends w, the write that creates a FIFO lock's queue if it
// has none (SET if_not_exists: a second one is harmless). A lost answer
// landed if the queue's maps are there.
func (l *Locker) createQueue(ctx context.Context, w *plan.Write) error {
	r, err := w.Render()
	if err != nil {
		return err
	}
	res := plan.Exec(ctx, l.client, r, plan.Call{Settle: plan.Settle{Ours: func(item map[string]types.AttributeValue) bool {
		_, ok := item[attrQueueTickets].(*types.AttributeValueMemberM)
		return ok
	}}})
	if res.Outcome != plan.Applied {
		return errOf(res)
	}
	return nil
}
