package pessimistic

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/optimist-dynamo/optimist/internal/attempt"
	"github.com/optimist-dynamo/optimist/internal/attrs"
	"github.com/optimist-dynamo/optimist/internal/retry"
)

// FIFO locks queue their waiters in the lock's partition, after its record:
// one row per waiter, sorted by a ticket of fixed width, so that the string
// order of the sort keys is the order of the tickets (unpadded, "10" would
// sort before "9").
const (
	queuePrefix = "q#"
	// queuePage is the page size of a queue read once the head looks
	// abandoned; while the head is renewed, one row is all a waiter needs.
	queuePage = 100
)

func queueSK(ticket int64) string { return fmt.Sprintf("%s%020d", queuePrefix, ticket) }

// queueRecord is the row of a waiter (and, at the head, of the holder).
func (l *Locker) queueRecord(name, sk string) *record {
	return &record{
		client: l.client, table: l.tableP, key: l.key(name, sk),
		names:  map[string]string{"#o": attrOwner, "#r": attrRvn},
		rvnRef: "#r", ttl: true,
		parse: holderOf,
	}
}

// acquireFIFO takes a ticket and queues, then waits until no live row is
// ahead of its own: then it holds the lock. The lease lives in its queue
// row, whose heartbeats start at once, so that a long wait does not make
// the waiter look abandoned to those behind it.
func (l *Locker) acquireFIFO(ctx context.Context, name string, parent context.Context, o options) (*Lease, error) {
	noWait := o.waitSet && o.wait == 0
	seen := l.memory.recallQueue(name, o.clock)
	if noWait {
		// Look before queueing: a held lock is refused with no row written.
		// (Rows this Locker saw unchanged for a lease, in earlier calls,
		// are removed as abandoned.)
		ahead, n, err := l.firstAhead(ctx, name, "", seen, o)
		l.memory.rememberQueue(name, seen)
		if err != nil {
			return nil, err
		}
		if ahead != nil {
			return nil, &LockedError{Name: name, Owner: ahead.owner, Token: ahead.token, Queued: n}
		}
	}
	w := newWaiter(o)
	lease, err := l.enqueue(ctx, name, parent, o)
	if err != nil {
		return nil, err
	}
	giveUp := func(err error) (*Lease, error) {
		if errors.Is(lease.Err(), ErrClosed) {
			return nil, err // like a crash: the row stays until it is seen abandoned
		}
		return nil, errors.Join(err, ignoreNotHeld(lease.releaseDetached(ctx)))
	}
	sk := lease.rec.key[attrSK].(*types.AttributeValueMemberS).Value
	for {
		ahead, n, err := l.firstAhead(ctx, name, sk, seen, o)
		l.memory.rememberQueue(name, seen)
		switch {
		case err != nil:
			return giveUp(err)
		case lease.Err() != nil:
			return giveUp(fmt.Errorf("pessimistic: acquire %q: lost our place in the queue: %w", name, lease.Err()))
		case ahead == nil:
			return lease, nil // at the head of the queue
		}
		if obs := seen[ahead.sk]; obs != nil {
			w.obs = *obs // so that the pause ends when the row ahead may be cleared
		}
		pause, ok := w.next()
		if !ok || noWait {
			return giveUp(&LockedError{Name: name, Owner: ahead.owner, Token: ahead.token, Queued: n})
		}
		if err := o.clock.Sleep(ctx, pause); err != nil {
			return giveUp(fmt.Errorf("pessimistic: acquire %q (held by %s): %w", name, ahead.owner, err))
		}
	}
}

func ignoreNotHeld(err error) error {
	if errors.Is(err, ErrNotHeld) {
		return nil
	}
	return err
}

// enqueue takes the next ticket and writes the queue row in one
// transaction: the counter is set to the ticket on the condition that it
// still holds the value read, and the row is put. A lower ticket can
// therefore never appear behind a higher one: a ticket's row exists from
// the moment the ticket is taken.
func (l *Locker) enqueue(ctx context.Context, name string, parent context.Context, o options) (*Lease, error) {
	out, err := l.client.GetItem(ctx, &dynamodb.GetItemInput{TableName: l.tableP, Key: l.key(name, lockSK), ConsistentRead: aws.Bool(true)})
	if err != nil {
		return nil, fmt.Errorf("pessimistic: acquire %q: reading the ticket counter: %w", name, err)
	}
	prev, exists := attrs.Int64(out.Item[attrFence])
	for try := 1; ; try++ {
		ticket := prev + 1
		counter := &types.Update{
			TableName:                           l.tableP,
			Key:                                 l.key(name, lockSK),
			UpdateExpression:                    aws.String("SET #f = :t, #tt = :ttl"),
			ExpressionAttributeNames:            map[string]string{"#f": attrFence, "#tt": attrTTL},
			ExpressionAttributeValues:           map[string]types.AttributeValue{":t": attrs.N(ticket), ":ttl": o.ttlValue()},
			ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld,
		}
		if exists {
			counter.ConditionExpression = aws.String("#f = :prev")
			counter.ExpressionAttributeValues[":prev"] = attrs.N(prev)
		} else {
			// A new counter starts from the wall clock, as Acquire's does.
			ticket = time.Now().UnixMilli() + 1
			counter.ExpressionAttributeValues[":t"] = attrs.N(ticket)
			counter.ConditionExpression = aws.String("attribute_not_exists(#f)")
		}
		rvn, sk, sent := newRvn(), queueSK(ticket), o.clock.Now()
		rec := l.queueRecord(name, sk)
		row := &types.Put{
			TableName: l.tableP,
			Item: map[string]types.AttributeValue{
				attrPK: attrs.S(name), attrSK: attrs.S(sk),
				attrOwner: attrs.S(o.owner), attrRvn: attrs.S(rvn), attrFence: attrs.N(ticket),
				attrLease: attrs.N(o.lease.Milliseconds()), attrTTL: o.ttlValue(),
			},
			ConditionExpression:      aws.String("attribute_not_exists(#pk)"),
			ExpressionAttributeNames: map[string]string{"#pk": attrPK},
		}
		var att attempt.Tracker
		_, err := l.client.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{
			TransactItems: []types.TransactWriteItem{{Update: counter}, {Put: row}},
		}, att.Option)
		if err == nil {
			return l.startLease(rec, name, ticket, rvn, sent, o, parent)
		}
		var tce *types.TransactionCanceledException
		if !errors.As(err, &tce) || len(tce.CancellationReasons) != 2 {
			err = fmt.Errorf("pessimistic: acquire %q: queueing: %w", name, err)
			if !att.Ambiguous {
				return nil, err
			}
			// The row may have been written: a row nobody renews would
			// hold everyone behind it up for a lease. Look, and if it is
			// ours, carry on with it, or take it back.
			if _, ours := rec.resolve(ctx, o.owner, rvn); !ours {
				return nil, err
			}
			lease, lerr := l.startLease(rec, name, ticket, rvn, sent, o, parent)
			if lerr != nil || ctx.Err() == nil {
				return lease, lerr
			}
			return nil, errors.Join(err, lease.releaseDetached(ctx))
		}
		switch code := aws.ToString(tce.CancellationReasons[0].Code); code {
		case "ConditionalCheckFailed":
			// Another waiter took the ticket: the reason carries the counter.
			prev, exists = attrs.Int64(tce.CancellationReasons[0].Item[attrFence])
		case "TransactionConflict", "ThrottlingError", "None":
		default:
			return nil, fmt.Errorf("pessimistic: acquire %q: queueing: %w", name, err)
		}
		if err := retry.Sleep(ctx, retry.Backoff(try, time.Millisecond, 50*time.Millisecond)); err != nil {
			return nil, fmt.Errorf("pessimistic: acquire %q: queueing: %w", name, err)
		}
	}
}

// queued is a row of the queue, as read.
type queued struct {
	holder
	sk string
}

// firstAhead reads the queue from its head, with strongly consistent
// Query pages, up to the row mine ("" for the whole queue), and returns the
// first live row and how many rows it saw. Rows whose record version stayed
// the same for their lease (on this process's clock, tracked in seen) are
// abandoned: they are deleted, on the condition that they still hold that
// version, and skipped.
//
// While the head is renewed, a page of one row tells all there is to know,
// at the cost of one read unit. Once the head has looked the same for half
// its lease, pages of 100 rows are read, so that the rows behind it are
// watched too and, if a crash left many of them, they are recognised as
// abandoned together rather than one lease after another.
func (l *Locker) firstAhead(ctx context.Context, name, mine string, seen map[string]*observed, o options) (*queued, int, error) {
	page := int32(1)
	for _, obs := range seen {
		if obs.head && o.clock.Now().Sub(obs.since) >= obs.lease/2 {
			page = queuePage
		}
	}
	in := &dynamodb.QueryInput{
		TableName:                 l.tableP,
		ConsistentRead:            aws.Bool(true),
		Limit:                     aws.Int32(page),
		KeyConditionExpression:    aws.String("#pk = :n AND begins_with(#sk, :q)"),
		ExpressionAttributeNames:  map[string]string{"#pk": attrPK, "#sk": attrSK},
		ExpressionAttributeValues: map[string]types.AttributeValue{":n": attrs.S(name), ":q": attrs.S(queuePrefix)},
	}
	if mine != "" {
		in.KeyConditionExpression = aws.String("#pk = :n AND #sk BETWEEN :q AND :last")
		in.ExpressionAttributeValues[":last"] = attrs.S(beforeSK(mine))
	}
	present := map[string]bool{}
	n := 0
	for {
		out, err := l.client.Query(ctx, in)
		if err != nil {
			return nil, n, fmt.Errorf("pessimistic: acquire %q: reading the queue: %w", name, err)
		}
		rows := make([]*queued, len(out.Items))
		for i, item := range out.Items {
			q := &queued{holder: holderOf(item)}
			if v, ok := item[attrSK].(*types.AttributeValueMemberS); ok {
				q.sk = v.Value
			}
			rows[i] = q
			// Observe every row of the page, those behind the first live
			// one too: they cost no extra read, and a row that stays
			// abandoned is then recognised a lease after it was first seen.
			present[q.sk] = true
			if obs := seen[q.sk]; obs == nil || obs.rvn != q.rvn {
				seen[q.sk] = &observed{rvn: q.rvn, since: o.clock.Now(), lease: q.lease, clock: o.clock}
			}
			seen[q.sk].head = false
		}
		for _, q := range rows {
			n++
			if o.clock.Now().Sub(seen[q.sk].since) < q.lease {
				seen[q.sk].head = true
				forget(seen, present, q.sk)
				return q, n, nil
			}
			removed, err := l.removeAbandoned(ctx, name, q)
			if err != nil {
				return nil, n, err
			}
			if !removed { // renewed after all: live
				seen[q.sk].head = true
				forget(seen, present, q.sk)
				return q, n, nil
			}
		}
		if len(out.LastEvaluatedKey) == 0 {
			forget(seen, present, "\xff")
			return nil, n, nil
		}
		in.ExclusiveStartKey = out.LastEvaluatedKey
	}
}

// forget drops the observations of rows up to upTo that this pass did not
// find: they are gone. Rows after it were not read this time, and keep
// theirs, so that a row that stays abandoned is recognised a lease after
// it was first seen, not a lease after the rows ahead of it went.
func forget(seen map[string]*observed, present map[string]bool, upTo string) {
	for sk := range seen {
		if sk <= upTo && !present[sk] {
			delete(seen, sk)
		}
	}
}

// beforeSK returns the greatest queue sort key before sk (tickets are
// fixed width, so one less in the ticket is one less in the order).
func beforeSK(sk string) string {
	t, err := strconv.ParseInt(sk[len(queuePrefix):], 10, 64)
	if err != nil || t == 0 {
		return queuePrefix
	}
	return queueSK(t - 1)
}

// removeAbandoned deletes an abandoned queue row, if it still holds the
// record version that was observed unchanged for a lease.
func (l *Locker) removeAbandoned(ctx context.Context, name string, q *queued) (bool, error) {
	_, err := l.client.DeleteItem(ctx, &dynamodb.DeleteItemInput{
		TableName:                           l.tableP,
		Key:                                 l.key(name, q.sk),
		ConditionExpression:                 aws.String("#r = :r"),
		ExpressionAttributeNames:            map[string]string{"#r": attrRvn},
		ExpressionAttributeValues:           map[string]types.AttributeValue{":r": attrs.S(q.rvn)},
		ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld,
	})
	switch {
	case err == nil:
		return true, nil
	case isConditionFailed(err):
		return len(conditionItem(err)) == 0, nil // gone already, or renewed after all
	}
	return false, fmt.Errorf("pessimistic: acquire %q: removing the abandoned queue row of %s: %w", name, q.owner, err)
}
