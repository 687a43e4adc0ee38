package pessimistic

import (
	"context"
	"fmt"
	"iter"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/optimist-dynamo/optimist/internal/attrs"
	"github.com/optimist-dynamo/optimist/internal/ddbapi"
	"github.com/optimist-dynamo/optimist/internal/plan"
)

// Info is a lock's record as read by [Locker.Inspect] or [Locker.List]:
// what is recorded, not a judgement of whether the holder is alive. A
// holder that crashed stays recorded until a waiter takes the lock over
// (after a full lease without a heartbeat) or an operator removes it with
// [Locker.ForceRelease]; to tell, inspect twice a lease apart: a live
// holder's Version changes with every heartbeat.
type Info struct {
	Name string // the lock's name

	// Held reports whether anyone holds the lock. A lock nobody holds, or
	// that has no record at all (never acquired, or removed by TTL), is
	// not an error: Held is false, and the holder's fields below are
	// empty.
	Held bool

	// The holder (for a FIFO lock, the head of the queue, Queue[0]).
	Owner   string        // the holder's Owner
	Token   int64         // its fencing token (FIFO: its ticket)
	Lease   time.Duration // its lease duration
	Version string        // its record version: changes with every heartbeat
	Data    []byte        // what it stored with Data (nil: none)

	// Fence is the lock's fence counter: the last token handed out (0: no
	// record). After ForceRelease it is a token no holder has (see
	// [Locker.ForceRelease]).
	Fence int64

	// FIFO reports whether the record has a FIFO queue; Queue lists its
	// entries in ticket order, holder first.
	FIFO  bool
	Queue []QueueEntry
}

// QueueEntry is a waiter of a FIFO lock (or its holder, the first entry).
type QueueEntry struct {
	Owner   string
	Ticket  int64 // the place in the queue, and the fencing token when it holds the lock
	Lease   time.Duration
	Version string // changes with every heartbeat of the waiter
	Data    []byte
}

// infoOf reads a lock's record (nil: none).
func infoOf(name string, item map[string]types.AttributeValue) *Info {
	h := holderOf(item)
	info := &Info{Name: name, Fence: h.token}
	if h.owner != "" {
		info.Held, info.Owner, info.Token, info.Lease, info.Version, info.Data = true, h.owner, h.token, h.lease, h.rvn, h.data
	}
	if _, ok := item[attrQueueTickets]; ok {
		info.FIFO = true
		for _, e := range parseQueue(item) {
			info.Queue = append(info.Queue, QueueEntry{Owner: e.owner, Ticket: e.token, Lease: e.lease, Version: e.rvn, Data: e.data})
		}
		if !info.Held && len(info.Queue) > 0 {
			head := info.Queue[0]
			info.Held, info.Owner, info.Token, info.Lease, info.Version, info.Data = true, head.Owner, head.Ticket, head.Lease, head.Version, head.Data
		}
	}
	return info
}

// Inspect returns the record of the lock called name: its holder, token,
// lease, record version, data and fence counter, and for a FIFO lock its
// queue. A lock that nobody holds, or that has never been acquired, is not
// an error: its Info says Held false. It is one consistent GetItem (one
// read unit per 4 KB of the record, which for a FIFO lock holds the
// queue), and changes nothing.
func (l *Locker) Inspect(ctx context.Context, name string) (*Info, error) {
	if err := l.usable(); err != nil {
		return nil, err
	}
	if name == "" {
		return nil, errNoName
	}
	if err := l.ready(ctx); err != nil {
		return nil, err
	}
	item, err := ddbapi.ReadItem(ctx, l.client, l.tableP, l.key(name, lockSK))
	if err != nil {
		return nil, fmt.Errorf("pessimistic: inspect %q: %w", name, err)
	}
	return infoOf(name, item), nil
}

// List returns the locks of the table, held or not, in the order of the
// table's Scan (not sorted). It is a consistent Scan of the lock table that
// follows its pages (one page per MB read; the Scan reads, and is charged
// for, every item of the table), keeping only lock records (sk "lock").
// An error ends the sequence. It changes nothing.
func (l *Locker) List(ctx context.Context) iter.Seq2[*Info, error] {
	return func(yield func(*Info, error) bool) {
		if err := l.ready(ctx); err != nil {
			yield(nil, err)
			return
		}
		in := &dynamodb.ScanInput{
			TableName:                 l.tableP,
			ConsistentRead:            aws.Bool(true),
			FilterExpression:          aws.String("#sk = :lock"),
			ExpressionAttributeNames:  map[string]string{"#sk": attrSK},
			ExpressionAttributeValues: map[string]types.AttributeValue{":lock": attrs.S(lockSK)},
		}
		for {
			out, err := l.client.Scan(ctx, in)
			if err != nil {
				yield(nil, fmt.Errorf("pessimistic: list the locks of %s: %w", aws.ToString(l.tableP), err))
				return
			}
			for _, item := range out.Items {
				name, _ := item[attrPK].(*types.AttributeValueMemberS)
				if name == nil {
					continue
				}
				if !yield(infoOf(name.Value, item), nil) {
					return
				}
			}
			if len(out.LastEvaluatedKey) == 0 {
				return
			}
			in.ExclusiveStartKey = out.LastEvaluatedKey
		}
	}
}

// ForceRelease removes the holder of the lock called name, whoever it is,
// for an operator who knows that the holder is dead (and does not want to
// wait a lease for a waiter to take over). It also adds one to the lock's
// fence counter. The holder, if it is alive after all, finds its lease
// lost at its next heartbeat (Err is [ErrLeaseLost], its context ends), and
// its Release returns [ErrNotHeld].
//
// "Whoever it is" includes a holder that took the lock over a moment ago:
// between an operator's look and this call, a dead holder's lease may run
// out and a waiter take over. [Locker.ForceReleaseIf] removes only the
// holder the operator saw, and is what an operator's tool should use.
//
// For a lease lock it is one conditional UpdateItem that removes owner,
// record version, lease and data and keeps the record. For a FIFO lock it
// removes the head of the queue only (one more UpdateItem, conditional on
// that entry): the waiters keep their places, and the next one holds the
// lock with its ticket. A lock that nobody holds (or that has no record)
// is an error matching [ErrNotHeld], and nothing is changed. The removed
// holder is reported to the Locker's [Observer] ([observe.LockForced],
// with its Owner and Token), and the record keeps it, so that the next
// holder's acquisition is reported as [observe.LockTakenOver].
//
// Fencing: the holders after ForceRelease have higher tokens than the one
// removed, so the first fenced write (mapper.Fence) of any of them refuses
// the old holder's late writes from then on. Until then a resource knows
// nothing of it: to cut the old holder off at once, write the resource's
// fence attribute with the counter that [Locker.Inspect] then reports
// (Info.Fence). The bump makes that a token no holder has: above the old
// holder's, so its writes are refused, and below the next holder's, so
// theirs are not. (For a FIFO lock, the waiters already queued have
// tickets below it: fence at Info.Fence only when the queue is empty.)
func (l *Locker) ForceRelease(ctx context.Context, name string) error {
	return l.forceRelease(ctx, name, nil)
}

// ForceReleaseIf is [Locker.ForceRelease] fenced on the holder: it removes
// the holder of the lock called name only if that is still owner with
// token (for a FIFO lock, the head of the queue with that ticket), as an
// operator saw it with [Locker.Inspect] or [Locker.List] (Info.Owner and
// Info.Token). If someone else holds the lock now (the holder seen lost
// it, and a waiter took it over), nothing is changed and the error is a
// [*HolderChangedError] naming the current holder (matching
// [ErrHolderChanged]); if nobody holds it, nothing is changed and the
// error matches [ErrNotHeld]. It costs what ForceRelease costs: one
// conditional UpdateItem, and for a FIFO lock one more.
func (l *Locker) ForceReleaseIf(ctx context.Context, name, owner string, token int64) error {
	if owner == "" || token == 0 {
		return fmt.Errorf("%w: ForceReleaseIf needs the holder's owner and token (from Inspect)", ErrInvalidOption)
	}
	return l.forceRelease(ctx, name, &holder{owner: owner, token: token})
}

// forceRelease is ForceRelease (want nil) and ForceReleaseIf.
func (l *Locker) forceRelease(ctx context.Context, name string, want *holder) error {
	if err := l.usable(); err != nil {
		return err
	}
	if name == "" {
		return errNoName
	}
	if err := l.ready(ctx); err != nil {
		return err
	}
	key := l.key(name, lockSK)
	ttl := l.opts.ttlValue()
	names := map[string]string{"#o": attrOwner, "#r": attrRvn, "#l": attrLease, "#d": attrData, "#f": attrFence, "#t": attrTTL,
		"#fo": attrGoneOwner, "#ft": attrGoneToken}
	values := map[string]types.AttributeValue{":one": attrs.N(1), ":t": ttl}
	cond := "attribute_exists(#o)"
	if want != nil {
		cond = "#o = :owner AND #f = :token"
		values[":owner"], values[":token"] = attrs.S(want.owner), attrs.N(want.token)
	}
	req := &plan.Request{Update: &dynamodb.UpdateItemInput{
		TableName: l.tableP,
		Key:       key,
		// The removed holder stays in the record (fo, ft: SET reads the
		// item as it was), so that the next holder knows it took over from
		// a forced one.
		UpdateExpression:                    aws.String("REMOVE #o, #r, #l, #d SET #f = #f + :one, #t = :t, #fo = #o, #ft = #f"),
		ConditionExpression:                 aws.String(cond),
		ExpressionAttributeNames:            names,
		ExpressionAttributeValues:           values,
		ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld,
	}}
	// A lost answer landed if the lock is free, which is what was asked
	// (for a fenced release, only if the counter is where our removal left
	// it).
	freed := func(item map[string]types.AttributeValue) bool {
		now := holderOf(item)
		return len(item) > 0 && now.owner == "" && len(parseQueue(item)) == 0 && (want == nil || now.token == want.token+1)
	}
	res := plan.Exec(ctx, l.client, req, plan.Call{
		ReturnValues: types.ReturnValueUpdatedOld, // the holder removed, for the event (no extra cost)
		Settle:       plan.Settle{Ours: freed},
	})
	switch {
	case res.Outcome == plan.Applied && !res.Lost():
		h := holderOf(res.Item)
		l.forced(ctx, name, h.owner, h.token)
		return nil
	case res.Outcome == plan.Applied && want == nil:
		l.forced(ctx, name, "", 0)
		return nil
	case res.Outcome == plan.Applied:
		l.forced(ctx, name, want.owner, want.token)
		return nil
	case res.Outcome == plan.Failed, res.Outcome == plan.Unknown && !res.Seen():
		return fmt.Errorf("pessimistic: force release %q: %w", name, errOf(res))
	}
	item := res.Item
	now := holderOf(item)
	queue := parseQueue(item)
	if want != nil && now.owner != "" { // a lease lock, held by another than the one seen
		return &HolderChangedError{Name: name, Owner: want.owner, Token: want.token, NowOwner: now.owner, NowToken: now.token}
	}
	if len(queue) == 0 {
		if want != nil {
			return fmt.Errorf("%w: force release %q: %s (token %d) does not hold it any more, and nobody does; nothing removed", ErrNotHeld, name, want.owner, want.token)
		}
		return fmt.Errorf("%w: force release %q: not held by anyone", ErrNotHeld, name)
	}
	head := queue[0]
	if want != nil && (head.owner != want.owner || head.token != want.token) {
		return &HolderChangedError{Name: name, Owner: want.owner, Token: want.token, NowOwner: head.owner, NowToken: head.token}
	}
	return l.forceReleaseHead(ctx, name, key, ttl, head)
}

// forceReleaseHead removes head, the entry seen at the head of a FIFO
// lock's queue, in one conditional UpdateItem.
func (l *Locker) forceReleaseHead(ctx context.Context, name string, key map[string]types.AttributeValue, ttl types.AttributeValue, head entry) error {
	res := plan.Exec(ctx, l.client, &plan.Request{Update: &dynamodb.UpdateItemInput{
		TableName:        l.tableP,
		Key:              key,
		UpdateExpression: aws.String("REMOVE #qt.#id, #qw.#id SET #f = #f + :one, #t = :t, #fo = #qw.#id.#eo, #ft = #qt.#id"),
		// The entry's ticket never changes, and a lower one never appears
		// later: the entry seen at the head, still there, is still the head.
		ConditionExpression: aws.String("#qt.#id = :ticket AND #qw.#id.#eo = :owner"),
		ExpressionAttributeNames: map[string]string{"#qt": attrQueueTickets, "#qw": attrQueueEntries, "#id": head.id, "#eo": entryOwner,
			"#f": attrFence, "#t": attrTTL, "#fo": attrGoneOwner, "#ft": attrGoneToken},
		ExpressionAttributeValues:           map[string]types.AttributeValue{":one": attrs.N(1), ":t": ttl, ":ticket": attrs.N(head.token), ":owner": attrs.S(head.owner)},
		ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld,
	}}, plan.Call{Settle: plan.Settle{Ours: func(item map[string]types.AttributeValue) bool {
		// A lost answer landed if the entry is gone and the record names it
		// as the holder removed, as our write does.
		for _, e := range parseQueue(item) {
			if e.id == head.id {
				return false
			}
		}
		gone, _ := item[attrGoneOwner].(*types.AttributeValueMemberS)
		token, _ := attrs.Int64(item[attrGoneToken])
		return gone != nil && gone.Value == head.owner && token == head.token
	}}})
	switch res.Outcome {
	case plan.Applied:
		l.forced(ctx, name, head.owner, head.token)
		return nil
	case plan.Refused:
		return fmt.Errorf("%w: force release %q: its holder %s (ticket %d) left the queue meanwhile; nothing removed", ErrNotHeld, name, head.owner, head.token)
	}
	err := errOf(res)
	return fmt.Errorf("pessimistic: force release %q: removing the head of the queue (%s, ticket %d): %w", name, head.owner, head.token, err)
}

var errNoName = fmt.Errorf("%w: a lock needs a name", ErrInvalidOption)

// usable checks that the Locker can make calls: not nil, not closed.
func (l *Locker) usable() error {
	if l == nil {
		return errNilLocker
	}
	if l.client == nil {
		return errZeroLocker
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return ErrClosed
	}
	return nil
}

// errOf is the error of a write the executor did not settle: the call's,
// or that of the attempt whose answer was lost.
func errOf(res plan.Result) error {
	if res.Err != nil {
		return res.Err
	}
	return res.LostErr
}
