package unit

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/optimist-dynamo/optimist/internal/attrs"
	"github.com/optimist-dynamo/optimist/internal/obs"
	"github.com/optimist-dynamo/optimist/internal/plan"
	"github.com/optimist-dynamo/optimist/internal/unitlock"
	"github.com/optimist-dynamo/optimist/mapper"
	"github.com/optimist-dynamo/optimist/observe"
	"github.com/optimist-dynamo/optimist/txn"
)

// Unit is a unit of work: items locked by [Get] or written by ops given to
// [Unit.Add], committed all together by [Unit.Commit] or released by
// [Unit.Rollback]. A Unit is for one goroutine.
type Unit struct {
	c     Client
	o     options
	id    string
	start int64 // o.clock's time at Begin (or KeepAge's), unix nanoseconds: the unit's age for wait-die

	items map[string]*item
	order []*item

	page, pageLen, pageBytes int // the page being filled, and its size

	done      bool
	aborted   atomic.Bool  // the heartbeat found the record aborted
	confirmed atomic.Int64 // when the record was last seen active (o.clock, unix nanoseconds)
	stop      context.CancelFunc
	beating   sync.WaitGroup
	sends     sync.WaitGroup // lock and log writes not yet answered (see send)

	span obs.Span // the Unit span, until it ends (zero without an observer)
}

// item is one item the unit locked or will write.
type item struct {
	table string
	key   map[string]types.AttributeValue
	id    string
	w     *plan.Write // the op's write; nil: only read

	logged      bool
	locked      bool                            // the item holds our lock
	placeholder bool                            // the item did not exist; our lock made it
	stored      map[string]types.AttributeValue // the item as locked, without the lock; nil if none
	prepared    bool                            // our lock holds the op's write
	checked     bool                            // a check op passed on the lock
	uncertain   bool                            // a lock's outcome is unknown: read the item before finishing it
}

// lockState is the unit's idea of the item's lock, for unitlock.Finish;
// nil when the unit does not know it.
func (it *item) lockState(u *Unit) *unitlock.Lock {
	if it.uncertain || !it.locked {
		return nil
	}
	m := unitlock.NewLock(u.id, u.o.coord, u.o.owner, it.placeholder)
	if it.prepared {
		in, err := unitlock.Intent(it.w)
		if err != nil {
			return nil
		}
		for k, v := range in {
			m[k] = v
		}
	}
	l, _ := unitlock.Parse(map[string]types.AttributeValue{unitlock.Attr: &types.AttributeValueMemberM{Value: m}})
	return l
}

// ID returns the unit's id, the key of its record in the coordinator table.
func (u *Unit) ID() string { return u.id }

// Started returns when the unit began, by its clock: its age for
// wait-die (see [KeepAge]).
func (u *Unit) Started() time.Time { return time.Unix(0, u.start) }

// live units of this process, by coordinator and id: Recover can tell at
// once that a unit is alive when it runs here with recent heartbeats.
var live sync.Map // string -> *Unit

// Begin starts a unit of work whose record is kept in the coordinator
// table named by the [Coordinator] option (required). It writes the record
// (one PutItem) and starts heartbeats: one UpdateItem every [Heartbeat]
// until Commit or Rollback. Options: Coordinator, [LeaseDuration],
// [Heartbeat], [Wait], [Owner], [Clock], [KeepAge].
func Begin(ctx context.Context, c Client, opts ...Option) (*Unit, error) {
	o, err := newOptions(opts)
	if err != nil {
		return nil, err
	}
	if o.coord == "" {
		return nil, fmt.Errorf("%w: Begin needs Coordinator(table)", ErrInvalidOption)
	}
	if isNilClient(c) {
		return nil, fmt.Errorf("%w: Begin needs a client", ErrInvalidOption)
	}
	var b [12]byte
	_, _ = rand.Read(b[:])
	now := o.clock.Now()
	u := &Unit{c: c, o: o, id: hex.EncodeToString(b[:]), start: now.UnixNano(), items: map[string]*item{}}
	if !o.started.IsZero() {
		u.start = o.started.UnixNano()
	}
	ctx, u.span = obs.Start(ctx, o.observer, observe.Event{Kind: observe.Unit, Op: "Begin", Table: o.coord, Name: u.id})
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
		err = fmt.Errorf("unit: Begin: writing the record in %s: %w", o.coord, err)
		u.end("Begin", err)
		return nil, err
	}
	u.confirmed.Store(now.UnixNano())
	hctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	u.stop = cancel
	u.beating.Add(1)
	live.Store(unitlock.StateKey(o.coord, u.id), u)
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
		if _, err := u.beat(ctx); err != nil && ctx.Err() == nil {
			u.point(ctx, observe.HeartbeatFailed, "Heartbeat", err)
			if errors.Is(err, ErrAborted) {
				return
			}
		}
	}
}

// beat bumps the counter once and notes that the record is active; a
// record that is not active any more (recovery aborted it) marks the unit
// aborted.
func (u *Unit) beat(ctx context.Context) (bool, error) {
	sent := u.o.clock.Now()
	alive, state, err := unitlock.Beat(ctx, u.c, u.o.coord, u.id)
	switch {
	case err != nil:
		return false, err
	case alive:
		u.confirmed.Store(sent.UnixNano())
		return true, nil
	case state != unitlock.StateCommitted:
		u.aborted.Store(true)
		return false, ErrAborted
	}
	return false, nil
}

// alive makes sure, before the unit takes a lock, that its record is still
// active: if it was not seen active for half a lease (a long pause, a
// partition), one heartbeat first. A unit that paused past its lease and
// was rolled back by recovery so learns it before it takes a lock that
// nobody would release.
func (u *Unit) alive(ctx context.Context) error {
	if u.aborted.Load() {
		return ErrAborted
	}
	if u.o.clock.Now().Sub(time.Unix(0, u.confirmed.Load())) < u.o.lease/2 {
		return nil
	}
	if _, err := u.beat(ctx); err != nil {
		return err
	}
	return nil
}

// beatSince reports whether the unit's record was seen active, by a
// heartbeat sent after t.
func (u *Unit) beatSince(t time.Time) bool {
	// (Not u.done: Recover asks from its own goroutine. A unit that ended
	// has left the registry, and its heartbeats stopped.)
	return !u.aborted.Load() && u.confirmed.Load() > t.UnixNano()
}

func (u *Unit) stopHeartbeats() {
	u.stop()
	u.beating.Wait()
	live.Delete(unitlock.StateKey(u.o.coord, u.id))
}

// check returns the error of a unit that cannot go on.
func (u *Unit) check() error {
	if u == nil {
		return fmt.Errorf("%w: a nil *Unit; start one with Begin", ErrInvalidOption)
	}
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
		if err := u.alive(ctx); err != nil {
			return nil, err
		}
		if err := u.log(ctx, []*item{it}); err != nil {
			return nil, err
		}
		if err := u.lockForRead(ctx, it); err != nil {
			return nil, err
		}
	}
	if it.placeholder {
		return nil, fmt.Errorf("%w: %s %s (locked by unit %s)", mapper.ErrNotFound, it.table, attrs.FormatKey(k), u.id)
	}
	return table.Decode(it.stored)
}

// GetAll is [Get] for many items of one table: it locks the items with the
// keys of keys for u and returns their committed states, result[i] for
// keys[i]. Items that do not exist are nil in the result, stay locked (u
// may create them), and are listed in a *mapper.MissingError (matching
// mapper.ErrNotFound), returned with the items found. Items held by other
// units are waited for as [Wait] says; the first error ends GetAll (the
// locks taken so far stay with u).
//
// Cost: the keys are logged together, one UpdateItem per page of about
// 2,000 (where Get logs each key with a write of its own), then one
// UpdateItem per item to lock it and return it (a PutItem more for an item
// that does not exist), a few at a time.
func GetAll[T any](ctx context.Context, u *Unit, table *mapper.Table[T], keys []T) ([]*T, error) {
	if err := u.check(); err != nil {
		return nil, err
	}
	items := make([]*item, len(keys))
	for i := range keys {
		k, err := table.Key(keys[i])
		if err != nil {
			return nil, fmt.Errorf("%w (GetAll keys[%d])", err, i)
		}
		items[i] = u.itemFor(table.Name(), k)
	}
	if err := u.alive(ctx); err != nil {
		return nil, err
	}
	if err := u.log(ctx, items); err != nil {
		return nil, err
	}
	pctx, cancel := context.WithCancel(ctx)
	defer cancel()
	errs := make([]error, len(items))
	parallel(pctx, len(items), u.o.workers, func(pctx context.Context, i int) {
		if it := items[i]; !it.locked && pctx.Err() == nil {
			if errs[i] = u.lockForRead(pctx, it); errs[i] != nil {
				cancel()
			}
		}
	})
	if err := errors.Join(errs...); err != nil {
		for _, e := range errs {
			if e != nil && !errors.Is(e, context.Canceled) {
				return nil, e
			}
		}
		return nil, err
	}
	out := make([]*T, len(keys))
	var missing []int
	for i, it := range items {
		if it.placeholder {
			missing = append(missing, i)
			continue
		}
		v, err := table.Decode(it.stored)
		if err != nil {
			return nil, err
		}
		out[i] = v
	}
	if len(missing) > 0 {
		return out, &mapper.MissingError{Table: table.Name(), Keys: missing}
	}
	return out, nil
}

// Add adds writes to the unit: ops made by a mapper.Table's PutOp,
// UpdateOp, DeleteOp or CheckOp (or txn.Put, Update, Delete, Check), with
// their version checks and conditions. Nothing is sent: items not yet
// locked are locked by Commit, and every op is checked and applied there.
// At most one op per item; an op that cannot be built, one that writes the
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
		if _, ok := w.Item[unitlock.Attr]; ok {
			return fmt.Errorf("%w: unit: Add: op %d writes the lock attribute %q", ErrInvalidOption, i, unitlock.Attr)
		}
		for _, a := range w.Actions {
			if a.Path.Attribute() == unitlock.Attr {
				return fmt.Errorf("%w: unit: Add: op %d updates the lock attribute %q", ErrInvalidOption, i, unitlock.Attr)
			}
		}
		if err := usableKey(w); err != nil {
			return fmt.Errorf("unit: Add: op %d: %w", i, err)
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

// usableKey refuses, before anything is logged, an op whose key cannot
// name an item: no key attribute, more than two, or one that is not a
// non-empty S, N or B; and a put whose item lacks an attribute of its
// key. (A raw op does not know its table's key schema: a key of the wrong
// attributes is refused by DynamoDB at the lock write, before the commit
// point, and recovery goes past it.) Logged, such a key would make every
// recovery of the unit fail.
func usableKey(w *plan.Write) error {
	if err := unitlock.CheckKey(w.Key); err != nil {
		return fmt.Errorf("%w: %w: %s: %w", txn.ErrInvalidItem, mapper.ErrInvalidItem, w.T.Name, err)
	}
	if w.Kind == plan.WritePut {
		for k := range w.Key {
			if w.Item[k] == nil {
				return fmt.Errorf("%w: %w: %s %s: the item lacks the key attribute %q", txn.ErrInvalidItem, mapper.ErrInvalidItem, w.T.Name, attrs.FormatKey(w.Key), k)
			}
		}
	}
	return nil
}

// sendTimeout bounds a lock or log write that its caller stopped waiting
// for (see send), so that a request hung on a dead connection cannot hold
// Rollback forever.
const sendTimeout = time.Minute

// send makes one call that may take or change a lock of u, or add to its
// item list, and returns its answer, or ctx's error if ctx ends first.
//
// The request itself is never cancelled with ctx (it keeps ctx's values):
// a cancelled request may have been sent all the same, and DynamoDB may
// apply it after the client gave up, so a lock whose write was cancelled
// could land after Rollback had removed the unit's locks and finished its
// record, with nothing left to find it. Instead, the call goes on to its
// answer, and finish waits for every such call (u.sends) before it reads
// and settles the unit's items (an item whose answer its caller did not
// see is marked uncertain, and read again then). The wait is bounded by
// sendTimeout.
func send[O any](ctx context.Context, u *Unit, call func(context.Context) (O, error)) (O, error) {
	type result struct {
		out O
		err error
	}
	done := make(chan result, 1)
	u.sends.Add(1)
	go func() {
		defer u.sends.Done()
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), sendTimeout)
		defer cancel()
		out, err := call(cctx)
		done <- result{out, err}
	}()
	select {
	case r := <-done:
		return r.out, r.err
	case <-ctx.Done():
		select {
		case r := <-done:
			return r.out, r.err
		default:
		}
		var zero O
		return zero, ctx.Err()
	}
}

// Limits of a unit's pages (the lists of its items in the coordinator
// table): shared with readers, which tell a unit's last page by them.
const (
	pageItems = unitlock.PageItems
	pageBytes = unitlock.PageBytes
)

// log writes the items not yet logged to the unit's pages, before they are
// locked: recovery finds every lock the unit may hold there. Pages are
// string sets, so a retried ADD is harmless; each carries a TTL, so that
// no page outlives its unit for long whatever happens. One UpdateItem per
// page touched.
func (u *Unit) log(ctx context.Context, items []*item) error {
	var refs []string
	var which []*item
	for _, it := range items {
		if it.logged {
			continue
		}
		ref, err := unitlock.EncodeKey(it.table, it.key)
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
		in := &dynamodb.UpdateItemInput{
			TableName: aws.String(u.o.coord), Key: unitlock.PageKey(u.id, u.page),
			UpdateExpression:         aws.String("ADD #items :refs SET #ttl = :ttl"),
			ExpressionAttributeNames: map[string]string{"#items": unitlock.RecItems, "#ttl": unitlock.RecTTL},
			ExpressionAttributeValues: map[string]types.AttributeValue{":refs": &types.AttributeValueMemberSS{Value: refs[:n]},
				":ttl": attrs.N(time.Now().Add(pageTTL(u.o.lease)).Unix())},
		}
		_, err := send(ctx, u, func(ctx context.Context) (*dynamodb.UpdateItemOutput, error) { return u.c.UpdateItem(ctx, in) })
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

// pageTTL is how long a page may live: far past any unit (a week, or a
// thousand leases), so that TTL removes only pages a crash left behind.
func pageTTL(lease time.Duration) time.Duration { return max(7*24*time.Hour, 1000*lease) }

// anyKey returns the name of one key attribute, for attribute_exists.
func anyKey(key map[string]types.AttributeValue) string {
	for k := range key {
		return k
	}
	return ""
}

// lockForRead takes the lock of one item for a locking read, waiting for
// (or recovering) other units that hold it: a conditional UpdateItem on an
// existing item (ALL_NEW), or a PutItem of a placeholder for a missing one.
func (u *Unit) lockForRead(ctx context.Context, it *item) error {
	c := contention{op: "Get"}
	for range 1000 {
		holder, err := u.tryLockForRead(ctx, it)
		if err != nil || holder == nil {
			return err
		}
		if err := u.contend(ctx, it, holder, &c); err != nil {
			return err
		}
	}
	return fmt.Errorf("unit: locking %s %s: the item keeps changing", it.table, attrs.FormatKey(it.key))
}

// tryLockForRead makes one attempt; it returns the other unit's lock that
// holds the item, if any.
func (u *Unit) tryLockForRead(ctx context.Context, it *item) (*unitlock.Lock, error) {
	k := expression.NameNoDotSplit(anyKey(it.key))
	lk := expression.NameNoDotSplit(unitlock.Attr)
	w := &plan.Write{Kind: plan.WriteUpdate, T: plan.NewTable(it.table, "", ""), Key: it.key,
		Actions: []plan.Action{{Kind: plan.SetIfNotExists, Path: plan.Top(unitlock.Attr),
			Value: &types.AttributeValueMemberM{Value: unitlock.NewLock(u.id, u.o.coord, u.o.owner, false)}}},
		Conds: []expression.ConditionBuilder{expression.AttributeExists(k).And(expression.AttributeNotExists(lk).Or(unitlock.Mine(u.id)))}}
	for range 10 {
		in, err := w.UpdateInput(types.ReturnValueAllNew)
		if err != nil {
			return nil, err
		}
		out, err := send(ctx, u, func(ctx context.Context) (*dynamodb.UpdateItemOutput, error) { return u.c.UpdateItem(ctx, in) })
		if err == nil {
			l, _ := unitlock.Parse(out.Attributes)
			u.heldFor(it, out.Attributes, l)
			return nil, nil
		}
		e, ok := ccf(err)
		if !ok {
			it.uncertain = true
			return nil, u.lockErr(it, err)
		}
		if len(e.Item) > 0 {
			if l, _ := unitlock.Parse(e.Item); l != nil && l.Unit != u.id {
				return l, nil
			}
			continue // changed under us; try again
		}
		// No item: lock it with a placeholder that readers take for none.
		holder, done, err := u.putPlaceholder(ctx, it, nil)
		if err != nil || done || holder != nil {
			return holder, err
		}
	}
	return nil, fmt.Errorf("unit: locking %s %s: the item keeps changing", it.table, attrs.FormatKey(it.key))
}

// heldFor records that it holds our lock l, as item shows it.
func (u *Unit) heldFor(it *item, stored map[string]types.AttributeValue, l *unitlock.Lock) {
	it.locked, it.uncertain = true, false
	it.placeholder = l != nil && l.Placeholder
	it.prepared = l != nil && l.Prepared
	it.checked = l != nil && l.Checked
	it.stored = nil
	if !it.placeholder {
		it.stored = unitlock.Strip(stored)
	}
}

// putPlaceholder locks a missing item by writing it: its key and our lock
// (with intent, the op's write: lock and prepare in one write). done is
// true when the item is ours now; holder is another unit's lock found on
// an item created meanwhile; neither, when an item without a lock
// appeared: try again.
func (u *Unit) putPlaceholder(ctx context.Context, it *item, intent map[string]types.AttributeValue) (holder *unitlock.Lock, done bool, err error) {
	ph := u.placeholder(it, intent)
	w := &plan.Write{Kind: plan.WritePut, T: plan.NewTable(it.table, "", ""), Key: it.key, Item: ph,
		Conds: []expression.ConditionBuilder{expression.AttributeNotExists(expression.NameNoDotSplit(anyKey(it.key)))}}
	in, err := w.PutInput()
	if err != nil {
		return nil, false, err
	}
	if _, err = send(ctx, u, func(ctx context.Context) (*dynamodb.PutItemOutput, error) { return u.c.PutItem(ctx, in) }); err == nil {
		l, _ := unitlock.Parse(ph)
		u.heldFor(it, ph, l)
		return nil, true, nil
	}
	e, ok := ccf(err)
	if !ok {
		it.uncertain = true
		return nil, false, u.lockErr(it, err)
	}
	if l, ok := unitlock.Parse(e.Item); ok {
		if l.Unit == u.id { // our own placeholder: a retry after a lost response
			u.heldFor(it, e.Item, l)
			return nil, true, nil
		}
		return l, false, nil
	}
	return nil, false, nil
}

// placeholder is the item that locks a missing item: its key and our lock,
// with the fields of intent.
func (u *Unit) placeholder(it *item, intent map[string]types.AttributeValue) map[string]types.AttributeValue {
	lock := unitlock.NewLock(u.id, u.o.coord, u.o.owner, true)
	for k, v := range intent {
		lock[k] = v
	}
	ph := make(map[string]types.AttributeValue, len(it.key)+1)
	for k, v := range it.key {
		ph[k] = v
	}
	ph[unitlock.Attr] = &types.AttributeValueMemberM{Value: lock}
	return ph
}

// lockErr is the error of a lock write that failed without an answer.
func (u *Unit) lockErr(it *item, err error) error {
	if tooLarge(err) {
		return fmt.Errorf("%w: %s %s: %v", ErrTooLarge, it.table, attrs.FormatKey(it.key), err)
	}
	return fmt.Errorf("unit: locking %s %s: %w", it.table, attrs.FormatKey(it.key), err)
}

// contention is what a unit saw while trying to lock one item.
type contention struct {
	op    string    // the unit's call: "Get" or "Commit"
	since time.Time // when it first met a live holder
	unit  string    // that holder
}

// contend deals with another unit's lock on it: a finished holder's lock
// is applied or undone, a dead holder (its counter unchanged for a full
// lease on our clock) is aborted and its lock undone; a live one is waited
// for, unless u is younger (wait-die) or its wait is over. It returns nil
// to try the lock again.
func (u *Unit) contend(ctx context.Context, it *item, h *unitlock.Lock, c *contention) error {
	rec, err := unitlock.ReadRecord(ctx, u.c, h.Coordinator, h.Unit)
	if err != nil {
		return err
	}
	switch {
	case rec.State == unitlock.StateCommitted:
		return u.settleOther(ctx, c.op, it, h.Unit, true)
	case rec.State != unitlock.StateActive: // aborted, or no record
		return u.settleOther(ctx, c.op, it, h.Unit, false)
	}
	if unitlock.Observe(h.Coordinator, h.Unit, rec.Beat, rec.Lease, u.o.clock) {
		st, err := unitlock.SetState(ctx, u.c, h.Coordinator, h.Unit, unitlock.StateAborted, rec.Beat)
		if err != nil {
			return fmt.Errorf("unit: aborting dead unit %s: %w", h.Unit, err)
		}
		unitlock.Forget(h.Coordinator, h.Unit)
		if st == unitlock.StateActive {
			return nil // it beat in the meantime: alive after all
		}
		return u.settleOther(ctx, c.op, it, h.Unit, st == unitlock.StateCommitted)
	}
	now := u.o.clock.Now()
	if c.unit != h.Unit {
		*c = contention{op: c.op, since: now, unit: h.Unit}
	}
	locked := &LockedError{Table: it.table, Key: it.key, Unit: h.Unit, Owner: h.Owner}
	younger := u.start > rec.Started || (u.start == rec.Started && u.id > h.Unit)
	if younger || (u.o.waitSet && now.Sub(c.since) >= u.o.wait) {
		return locked
	}
	if err := u.o.clock.Sleep(ctx, u.o.poll()); err != nil {
		locked.Err = err
		return locked
	}
	return nil
}

// settleOther rolls the item forward (commit) or back from the lock of
// unit other, which is over or dead, met by u's call op.
func (u *Unit) settleOther(ctx context.Context, op string, it *item, other string, commit bool) error {
	if _, err := unitlock.Finish(ctx, u.c, it.table, it.key, other, commit, nil); err != nil {
		return err
	}
	if ob := u.o.observer; ob != nil {
		obs.Point(ctx, ob, observe.Event{Kind: observe.UnitSettled, Op: op, Table: it.table, Key: it.key, Name: other, Outcome: obs.UnitOutcome(commit)})
	}
	return nil
}

// point emits an event of the unit (nothing without an observer), in the
// unit's span: ctx is the heartbeats' (which holds the span's values), or
// the caller's, whose values the span's context replaces. Only the
// unit's goroutine touches u.span.
func (u *Unit) point(ctx context.Context, k observe.Kind, op string, err error) {
	if u == nil || u.o.observer == nil {
		return
	}
	if k != observe.HeartbeatFailed {
		ctx = u.span.Context(ctx)
	}
	obs.Point(ctx, u.o.observer, observe.Event{Kind: k, Op: op, Table: u.o.coord, Name: u.id, Err: err})
}

// end ends the unit's span, once: the call op ended the unit with err.
func (u *Unit) end(op string, err error) {
	if u == nil || !u.span.On() {
		return
	}
	span := u.span
	u.span = obs.Span{}
	span.End(err, 0, op, 0)
}
