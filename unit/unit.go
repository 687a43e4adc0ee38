package unit

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/optimist-dynamo/optimist/internal/attrs"
	"github.com/optimist-dynamo/optimist/internal/plan"
	"github.com/optimist-dynamo/optimist/internal/unitlock"
	"github.com/optimist-dynamo/optimist/mapper"
	"github.com/optimist-dynamo/optimist/txn"
)

// Unit is a unit of work: items locked by [Get] or written by ops given to
// [Unit.Add], committed all together by [Unit.Commit] or released by
// [Unit.Rollback]. A Unit is for one goroutine.
type Unit struct {
	c     Client
	o     options
	id    string
	start int64 // o.clock's time at Begin, unix nanoseconds: the unit's age for wait-die

	items map[string]*item
	order []*item

	page, pageLen, pageBytes int // the page being filled, and its size

	done    bool
	aborted atomic.Bool // the heartbeat found the record aborted
	stop    context.CancelFunc
	beating sync.WaitGroup
}

// item is one item the unit locked or will write.
type item struct {
	table string
	key   map[string]types.AttributeValue
	id    string
	w     *plan.Write // the op's write; nil: only read

	logged      bool
	locked      bool
	placeholder bool                            // the item did not exist; the lock made it
	before      map[string]types.AttributeValue // the item when locked, without the lock; nil if none
	prepared    bool
	uncertain   bool // a prepare's outcome is unknown: read the item before undoing it
}

// lockState is the unit's idea of the item's lock, for finishItem; nil
// when the unit does not know it.
func (it *item) lockState(id string) *unitlock.Lock {
	if it.uncertain {
		return nil
	}
	l := &unitlock.Lock{Unit: id, Placeholder: it.placeholder, Prepared: it.prepared}
	if it.prepared {
		l.Deleted = it.w.Kind == plan.WriteDelete
		l.Before = it.before
	}
	return l
}

// ID returns the unit's id, the key of its record in the coordinator table.
func (u *Unit) ID() string { return u.id }

// Begin starts a unit of work whose record is kept in the coordinator
// table named by the [Coordinator] option (required). It writes the record
// (one PutItem) and starts heartbeats: one UpdateItem every [Heartbeat]
// until Commit or Rollback. Options: Coordinator, [LeaseDuration],
// [Heartbeat], [Wait], [Owner], [Clock].
func Begin(ctx context.Context, c Client, opts ...Option) (*Unit, error) {
	o, err := newOptions(opts)
	if err != nil {
		return nil, err
	}
	if o.coord == "" {
		return nil, fmt.Errorf("%w: Begin needs Coordinator(table)", ErrInvalidOption)
	}
	if c == nil {
		return nil, fmt.Errorf("%w: Begin needs a client", ErrInvalidOption)
	}
	var b [12]byte
	_, _ = rand.Read(b[:])
	u := &Unit{c: c, o: o, id: hex.EncodeToString(b[:]), start: o.clock.Now().UnixNano(), items: map[string]*item{}}
	_, err = c.PutItem(ctx, &dynamodb.PutItemInput{
		TableName: aws.String(o.coord),
		Item: map[string]types.AttributeValue{
			unitlock.RecID:      avS(u.id),
			unitlock.RecState:   avS(unitlock.StateActive),
			unitlock.RecBeat:    attrs.N(0),
			unitlock.RecOwner:   avS(o.owner),
			unitlock.RecLease:   attrs.N(o.lease.Milliseconds()),
			unitlock.RecStarted: attrs.N(u.start),
		},
		ConditionExpression:      aws.String("attribute_not_exists(#id)"),
		ExpressionAttributeNames: map[string]string{"#id": unitlock.RecID},
	})
	if _, ok := ccf(err); ok {
		err = nil // our own first attempt, whose response was lost: the id is random
	}
	if err != nil {
		return nil, fmt.Errorf("unit: Begin: writing the record in %s: %w", o.coord, err)
	}
	hctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	u.stop = cancel
	u.beating.Add(1)
	go u.heartbeats(hctx)
	return u, nil
}

// heartbeats bumps the record's counter every o.heartbeat while the
// record is active. Others decide the unit died only after seeing the
// counter unchanged for a full lease.
func (u *Unit) heartbeats(ctx context.Context) {
	defer u.beating.Done()
	for {
		if u.o.clock.Sleep(ctx, u.o.heartbeat) != nil {
			return
		}
		_, err := u.c.UpdateItem(ctx, &dynamodb.UpdateItemInput{
			TableName: aws.String(u.o.coord), Key: recordKey(u.id),
			UpdateExpression:                    aws.String("ADD #hb :one"),
			ConditionExpression:                 aws.String("#st = :active"),
			ExpressionAttributeNames:            map[string]string{"#hb": unitlock.RecBeat, "#st": unitlock.RecState},
			ExpressionAttributeValues:           map[string]types.AttributeValue{":one": attrs.N(1), ":active": avS(unitlock.StateActive)},
			ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld,
		})
		if e, ok := ccf(err); ok {
			if parseRecord(e.Item).state != unitlock.StateCommitted {
				u.aborted.Store(true)
			}
			return
		}
	}
}

func (u *Unit) stopHeartbeats() {
	u.stop()
	u.beating.Wait()
}

// check returns the error of a unit that cannot go on.
func (u *Unit) check() error {
	if u.done {
		return ErrDone
	}
	if u.aborted.Load() {
		return ErrAborted
	}
	return nil
}

// itemFor returns the unit's entry for an item, making it if needed.
func (u *Unit) itemFor(table string, key map[string]types.AttributeValue) *item {
	id := unitlock.ItemID(table, key)
	if it, ok := u.items[id]; ok {
		return it
	}
	it := &item{table: table, key: key, id: id}
	u.items[id] = it
	u.order = append(u.order, it)
	return it
}

// Get is a locking read: it locks the item with the key of key in table
// for u and returns its committed state. A missing item is an error
// matching mapper.ErrNotFound and stays locked, so u may create it. An
// item held by another live unit is waited for as [Wait] says, then an
// error matching [ErrLocked]. Reading an item u already holds makes no
// call and returns its state as of the lock (ops given to Add apply only
// at Commit).
//
// Cost: one UpdateItem to log the item in the unit's page (so that
// recovery finds the lock) and one UpdateItem that takes the lock and
// returns the item (ALL_NEW); an item that does not exist takes a PutItem
// more (the placeholder). On any error other than ErrLocked the lock may
// have been taken: Rollback, or leave it to recovery.
func Get[T any](ctx context.Context, u *Unit, table *mapper.Table[T], key T) (*T, error) {
	if err := u.check(); err != nil {
		return nil, err
	}
	k, err := table.Key(key)
	if err != nil {
		return nil, err
	}
	it := u.itemFor(table.Name(), k)
	if !it.locked {
		if err := u.log(ctx, []*item{it}); err != nil {
			return nil, err
		}
		if err := u.lockItem(ctx, it); err != nil {
			return nil, err
		}
	}
	if it.placeholder {
		return nil, fmt.Errorf("%w: %s %s (locked by unit %s)", mapper.ErrNotFound, it.table, attrs.FormatKey(k), u.id)
	}
	return table.Decode(it.before)
}

// Add adds writes to the unit: ops made by a mapper.Table's PutOp,
// UpdateOp, DeleteOp or CheckOp (or txn.Put, Update, Delete, Check), with
// their version checks and conditions. Nothing is sent: items not yet
// locked are locked by Commit, and every op is checked and applied there.
// At most one op per item; an op that cannot be built, an update of the
// lock attribute, or a second op on one item is an error and the unit is
// unchanged.
func (u *Unit) Add(ops ...txn.Op) error {
	if err := u.check(); err != nil {
		return err
	}
	seen := map[string]bool{}
	writes := make([]*plan.Write, len(ops))
	for i, op := range ops {
		w, err := plan.OpWrite(op)
		if err != nil {
			return fmt.Errorf("unit: Add: op %d: %w", i, err)
		}
		if w.Kind == plan.WritePut {
			if _, ok := w.Item[unitlock.Attr]; ok {
				return fmt.Errorf("unit: Add: op %d writes the lock attribute %q", i, unitlock.Attr)
			}
		}
		for _, a := range w.Actions {
			if a.Path.Attribute() == unitlock.Attr {
				return fmt.Errorf("unit: Add: op %d updates the lock attribute %q", i, unitlock.Attr)
			}
		}
		id := unitlock.ItemID(w.T.Name, w.Key)
		if seen[id] || (u.items[id] != nil && u.items[id].w != nil) {
			return fmt.Errorf("%w: %s %s in unit %s", txn.ErrDuplicateItem, w.T.Name, attrs.FormatKey(w.Key), u.id)
		}
		seen[id] = true
		writes[i] = w
	}
	for _, w := range writes {
		u.itemFor(w.T.Name, w.Key).w = w
	}
	return nil
}

// Limits of a unit's pages (the lists of its items in the coordinator
// table): well under DynamoDB's 400 KB item limit.
const (
	pageItems = 2000
	pageBytes = 300 << 10
)

// log writes the items not yet logged to the unit's pages, before they are
// locked: recovery finds every lock the unit may hold there. Pages are
// string sets, so a retried ADD is harmless. One UpdateItem per page
// touched.
func (u *Unit) log(ctx context.Context, items []*item) error {
	var refs []string
	var which []*item
	for _, it := range items {
		if it.logged {
			continue
		}
		ref, err := unitlock.EncodeKey(it.table, it.key)
		if err != nil {
			return err
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
		_, err := u.c.UpdateItem(ctx, &dynamodb.UpdateItemInput{
			TableName: aws.String(u.o.coord), Key: pageKey(u.id, u.page),
			UpdateExpression:          aws.String("ADD #items :refs"),
			ExpressionAttributeNames:  map[string]string{"#items": unitlock.RecItems},
			ExpressionAttributeValues: map[string]types.AttributeValue{":refs": &types.AttributeValueMemberSS{Value: refs[:n]}},
		})
		if err != nil {
			return fmt.Errorf("unit: logging items of unit %s: %w", u.id, err)
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

// lockMap is the lock the unit stores in an item.
func (u *Unit) lockMap(placeholder bool) *types.AttributeValueMemberM {
	m := map[string]types.AttributeValue{
		unitlock.FUnit:        avS(u.id),
		unitlock.FCoordinator: avS(u.o.coord),
		unitlock.FOwner:       avS(u.o.owner),
	}
	if placeholder {
		m[unitlock.FPlaceholder] = avTrue
	}
	return &types.AttributeValueMemberM{Value: m}
}

// lockItem takes the lock of one item, waiting for (or recovering) other
// units that hold it.
func (u *Unit) lockItem(ctx context.Context, it *item) error {
	c := contention{}
	for {
		stored, holder, err := u.tryLock(ctx, it)
		if err != nil {
			return err
		}
		if holder == nil {
			l, _ := unitlock.Parse(stored)
			it.locked, it.placeholder = true, l.Placeholder
			if !it.placeholder {
				it.before = unitlock.Strip(stored)
			}
			return nil
		}
		if err := u.contend(ctx, it, holder, &c); err != nil {
			return err
		}
	}
}

// tryLock makes one attempt at the lock: a conditional UpdateItem on an
// existing item (ALL_NEW), or a PutItem of a placeholder for a missing
// one. It returns the item as stored with our lock, or the other unit's
// lock that holds it.
func (u *Unit) tryLock(ctx context.Context, it *item) (map[string]types.AttributeValue, *unitlock.Lock, error) {
	var anyKey string
	for k := range it.key {
		anyKey = k
		break
	}
	names := map[string]string{"#lk": unitlock.Attr, "#u": unitlock.FUnit, "#k": anyKey}
	for range 10 {
		out, err := u.c.UpdateItem(ctx, &dynamodb.UpdateItemInput{
			TableName: aws.String(it.table), Key: it.key,
			UpdateExpression:                    aws.String("SET #lk = if_not_exists(#lk, :lock)"),
			ConditionExpression:                 aws.String("attribute_exists(#k) AND (attribute_not_exists(#lk) OR #lk.#u = :me)"),
			ExpressionAttributeNames:            names,
			ExpressionAttributeValues:           map[string]types.AttributeValue{":lock": u.lockMap(false), ":me": avS(u.id)},
			ReturnValues:                        types.ReturnValueAllNew,
			ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld,
		})
		if err == nil {
			return out.Attributes, nil, nil
		}
		e, ok := ccf(err)
		if !ok {
			return nil, nil, fmt.Errorf("unit: locking %s %s: %w", it.table, attrs.FormatKey(it.key), err)
		}
		if len(e.Item) > 0 {
			l, _ := unitlock.Parse(e.Item)
			if l != nil && l.Unit != u.id {
				return nil, l, nil
			}
			continue // changed under us; try again
		}
		// No item: lock it with a placeholder that readers take for none.
		ph := make(map[string]types.AttributeValue, len(it.key)+1)
		for k, v := range it.key {
			ph[k] = v
		}
		ph[unitlock.Attr] = u.lockMap(true)
		_, err = u.c.PutItem(ctx, &dynamodb.PutItemInput{
			TableName: aws.String(it.table), Item: ph,
			ConditionExpression:                 aws.String("attribute_not_exists(#k)"),
			ExpressionAttributeNames:            map[string]string{"#k": anyKey},
			ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld,
		})
		if err == nil {
			return ph, nil, nil
		}
		if e, ok = ccf(err); !ok {
			return nil, nil, fmt.Errorf("unit: locking %s %s: %w", it.table, attrs.FormatKey(it.key), err)
		}
		if l, ok := unitlock.Parse(e.Item); ok {
			if l.Unit == u.id {
				return e.Item, nil, nil // our own placeholder: a retry after a lost response
			}
			return nil, l, nil
		}
	}
	return nil, nil, fmt.Errorf("unit: locking %s %s: the item keeps changing", it.table, attrs.FormatKey(it.key))
}

// contention is what a unit saw while trying to lock one item.
type contention struct {
	since time.Time // when it first met a live holder
	unit  string    // that holder
	beat  string    // its counter then
}

// contend deals with another unit's lock on it: a finished holder's lock
// is applied or undone, a dead holder (its counter unchanged for a full
// lease on our clock) is aborted and its lock undone; a live one is waited
// for, unless u is younger (wait-die) or its wait is over. It returns nil
// to try the lock again.
func (u *Unit) contend(ctx context.Context, it *item, h *unitlock.Lock, c *contention) error {
	rec, err := readRecord(ctx, u.c, h.Coordinator, h.Unit)
	if err != nil {
		return err
	}
	switch {
	case rec.state == unitlock.StateCommitted:
		return finishItem(ctx, u.c, it.table, it.key, h.Unit, true, nil)
	case rec.state != unitlock.StateActive: // aborted, or no record
		return finishItem(ctx, u.c, it.table, it.key, h.Unit, false, nil)
	}
	if observe(h.Coordinator, h.Unit, rec.beat, rec.lease, u.o.clock) {
		st, err := setState(ctx, u.c, h.Coordinator, h.Unit, unitlock.StateAborted, rec.beat)
		if err != nil {
			return fmt.Errorf("unit: aborting dead unit %s: %w", h.Unit, err)
		}
		forget(h.Coordinator, h.Unit)
		return finishItem(ctx, u.c, it.table, it.key, h.Unit, st == unitlock.StateCommitted, nil)
	}
	now := u.o.clock.Now()
	if c.unit != h.Unit {
		*c = contention{since: now, unit: h.Unit, beat: rec.beat}
	}
	locked := &LockedError{Table: it.table, Key: it.key, Unit: h.Unit, Owner: h.Owner}
	younger := u.start > rec.started || (u.start == rec.started && u.id > h.Unit)
	if younger || (u.o.waitSet && now.Sub(c.since) >= u.o.wait) {
		return locked
	}
	if err := u.o.clock.Sleep(ctx, u.o.poll()); err != nil {
		locked.Err = err
		return locked
	}
	return nil
}
