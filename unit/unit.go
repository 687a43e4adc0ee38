package unit

import (
	"context"
	"encoding/hex"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/optimist-dynamo/optimist/internal/attrs"
	"github.com/optimist-dynamo/optimist/internal/ddbapi"
	"github.com/optimist-dynamo/optimist/internal/obs"
	"github.com/optimist-dynamo/optimist/internal/plan"
	"github.com/optimist-dynamo/optimist/internal/replica"
	"github.com/optimist-dynamo/optimist/internal/rnd"
	"github.com/optimist-dynamo/optimist/internal/simhook"
	"github.com/optimist-dynamo/optimist/internal/unitproto"
	"github.com/optimist-dynamo/optimist/observe"
)

// Unit is a unit of work: items locked by [Get] or written by ops given to
// [Unit.Add], committed all together by [Unit.Commit] or released by
// [Unit.Rollback]. A Unit is for one goroutine. Start it with [Begin]: on
// a nil or zero Unit, Commit and Rollback return an error matching
// [ErrInvalidOption] and send nothing.
type Unit struct {
	c Client
	h *unitproto.Holder // the unit's record, pages and lock, as the protocol has them
	// guards are the unit's global-table guards of the tables with none
	// of their own (the coordinator, raw ops' tables), by table name.
	guards map[string]*replica.Guard
	// plans are the write constants of the mapper.Tables the unit read
	// from, by *mapper.Table[T].
	plans map[any]*plan.Table
	o     options
	id    string
	start int64 // the time at Begin (or KeepAge's), unix nanoseconds: the unit's age for wait-die

	items map[string]*item
	order []*item

	done      bool
	aborted   atomic.Bool  // the heartbeat found the record aborted
	confirmed atomic.Int64 // when the record was last seen active (unix nanoseconds)
	stop      context.CancelFunc
	beating   sync.WaitGroup
	sends     sync.WaitGroup // lock and log writes not yet answered (see send)

	span obs.Span // the Unit span, until it ends (zero without an observer)
}

// item is one item the unit locked or will write.
type item struct {
	table string
	pt    *plan.Table // the table's write constants, with its memory and guard; nil if unknown
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

// lockState is the unit's idea of the item's lock, for finishing it; nil
// when the unit does not know it.
func (it *item) lockState(u *Unit) *unitproto.Lock {
	if it.uncertain || !it.locked {
		return nil
	}
	var op *plan.Write
	if it.prepared {
		op = it.w
	}
	return u.h.Known(it.placeholder, op)
}

// ID returns the unit's id, the key of its record in the coordinator table;
// "" for a nil *Unit.
func (u *Unit) ID() string {
	if u == nil {
		return ""
	}
	return u.id
}

// Started returns when the unit began, by its clock: its age for
// wait-die (see [KeepAge]). A nil *Unit returns the zero time.Time.
func (u *Unit) Started() time.Time {
	if u == nil {
		return time.Time{}
	}
	return time.Unix(0, u.start)
}

// Begin starts a unit of work whose record is kept in the coordinator
// table named by the [Coordinator] option (required). It writes the record
// (one PutItem) and starts heartbeats: one UpdateItem every [Heartbeat]
// until Commit or Rollback. Options: Coordinator, [LeaseDuration],
// [Heartbeat], [Wait], [Owner], [KeepAge], [WriteRegion], [Observer].
func Begin(ctx context.Context, c Client, opts ...Option) (*Unit, error) {
	o, err := newOptions(opts)
	if err != nil {
		return nil, err
	}
	if o.coord == "" {
		return nil, fmt.Errorf("%w: Begin needs Coordinator(table)", ErrInvalidOption)
	}
	if ddbapi.IsNil(c) {
		return nil, fmt.Errorf("%w: Begin needs a client", ErrInvalidOption)
	}
	var b [12]byte
	rnd.Read(b[:])
	now := time.Now()
	u := &Unit{c: c, o: o, id: hex.EncodeToString(b[:]), start: now.UnixNano(), items: map[string]*item{}}
	if !o.started.IsZero() {
		u.start = o.started.UnixNano()
	}
	ctx, u.span = obs.Start(ctx, o.observer, observe.Event{Kind: observe.Unit, Op: "Begin", Table: o.coord, Name: u.id})
	u.h = unitproto.NewHolder(c, o.coord, u.id, o.owner, o.lease, u.start)
	err = u.checkReplicas(ctx, o.coord, nil)
	if err == nil {
		err = u.h.Create(ctx)
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
	simhook.Go(func() { u.heartbeats(hctx) })
	return u, nil
}

// check returns the error of a unit that cannot go on.
func (u *Unit) check() error {
	if err := u.usable(); err != nil {
		return err
	}
	if u.aborted.Load() {
		return ErrAborted
	}
	return nil
}

// usable returns the error of a unit that no call may use: nil, not made
// by Begin, or done. A unit that is aborted (its recovery rolled it back)
// is usable still by Rollback, which check refuses.
func (u *Unit) usable() error {
	switch {
	case u == nil:
		return fmt.Errorf("%w: a nil *Unit; start one with Begin", ErrInvalidOption)
	case u.c == nil:
		return errZeroUnit
	case u.done:
		return ErrDone
	}
	return nil
}

// errZeroUnit is what the calls of a Unit not made by Begin return.
var errZeroUnit = fmt.Errorf("%w: a zero Unit; start one with Begin", ErrInvalidOption)

// itemFor returns the unit's entry for an item of the table pt, making it
// if needed.
func (u *Unit) itemFor(pt *plan.Table, key map[string]types.AttributeValue) *item {
	id := attrs.ItemID(pt.Name, key)
	if it, ok := u.items[id]; ok {
		if it.pt.Units == nil && pt.Units != nil {
			it.pt = pt // a mapper.Table's, with its memory, over a raw op's
		}
		return it
	}
	it := &item{table: pt.Name, pt: pt, key: key, id: id}
	u.items[id] = it
	u.order = append(u.order, it)
	return it
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
