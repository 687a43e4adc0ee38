package mapper

import (
	"context"
	"errors"
	"fmt"
	"reflect"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/optimist-dynamo/optimist/internal/attrs"
	"github.com/optimist-dynamo/optimist/internal/obs"
	"github.com/optimist-dynamo/optimist/internal/plan"
	"github.com/optimist-dynamo/optimist/internal/replica"
	"github.com/optimist-dynamo/optimist/internal/unitproto"
	"github.com/optimist-dynamo/optimist/observe"
	"github.com/optimist-dynamo/optimist/version"
)

// Every write is built as a plan.Write (the item or the update actions, the
// version check, the unit-lock guard, the fence, the caller's conditions,
// the write token) by one of planPut, planSave, planUpdate, planKeyed, and
// then either sent by send (Put, Save, Update, Delete, Modify), made a
// txn.Op (the *Op methods), or refused (batch writes take only the item).

// dest is where a write goes: it decides whether the item carries a write
// token. A single write stores one, so that an unanswered attempt can be
// recognised; a transaction's write needs none (its client request token
// makes resends safe), and a batch write could not be settled anyway.
type dest uint8

const (
	toSingle dest = iota
	toTxn
	toBatch
)

// planPut builds the Put of the struct v (addressable), and returns the
// version it writes (0 for an unversioned type).
func (t *Table[T]) planPut(v reflect.Value, o *WriteOptions, to dest) (*plan.Write, int64, error) {
	a := t.c.newArena(1, 3) // token; version, expected version, fence
	av, err := t.c.encodeItem(v, &a, 2, t.s.version)
	if err != nil {
		return nil, 0, err
	}
	if err := t.checkKey(av); err != nil {
		return nil, 0, err
	}
	w := &plan.Write{Kind: plan.WritePut, T: t.pt, Item: av, Guard: true, Conds: o.Conditions, Fence: o.fence(), Turn: o.turn}
	next, err := t.nextVersion(v, w, o)
	if err != nil {
		return nil, 0, err
	}
	if vf := t.s.version; vf != nil {
		av[vf.name] = a.N(plan.FormatN(next))
	}
	if w.Fence != nil {
		av[w.Fence.Attr] = attrs.N(w.Fence.Token)
	}
	if t.opts.TokenAttribute != "" && to == toSingle && !o.ExactlyOnce {
		w.Token = t.newToken()
		av[t.opts.TokenAttribute] = a.S(w.Token)
	}
	if err := t.checkSize(av, w); err != nil {
		return nil, 0, err
	}
	return w, next, nil
}

// nextVersion reads the version the struct v carries into w.Expected, sets
// the check a whole-item write (Put, Save) makes with it, and returns the
// version the write stores; 0 for an unversioned type.
func (t *Table[T]) nextVersion(v reflect.Value, w *plan.Write, o *WriteOptions) (int64, error) {
	vf := t.s.version
	if vf == nil {
		return 0, nil
	}
	fv := v.FieldByIndex(vf.index)
	var err error
	if w.Expected, err = versionOf(fv); err != nil {
		return 0, err
	}
	next := w.Expected + 1
	if overflows(fv, next) {
		return 0, versionOverflow(t.name, t.keyOfWrite(w), vf, w.Expected)
	}
	if !o.Unversioned {
		w.Check = plan.MustBeVersion
		if w.Expected == 0 {
			w.Check = t.createCheck()
		}
	}
	return next, nil
}

// planKeyed builds a write addressed by key alone: a Delete, or a
// transaction's ConditionCheck. zero is the check to make when the struct's
// version is 0: none for a delete, "no item" for a check.
func (t *Table[T]) planKeyed(kind plan.Kind, v reflect.Value, o *WriteOptions, zero plan.VersionCheck) (*plan.Write, error) {
	key, err := t.c.keyOf(v)
	if err != nil {
		return nil, err
	}
	w := &plan.Write{Kind: kind, T: t.pt, Key: key, Guard: true, Conds: o.Conditions, Fence: o.fence()}
	if vf := t.s.version; vf != nil && !o.Unversioned {
		if w.Expected, err = versionOf(v.FieldByIndex(vf.index)); err != nil {
			return nil, err
		}
		w.Check = plan.MustBeVersion
		if w.Expected == 0 {
			w.Check = zero
			if zero == plan.MustNotExist {
				w.Check = t.createCheck()
			}
		}
	}
	return w, nil
}

// keyOfWrite returns the key of the item w writes.
func (t *Table[T]) keyOfWrite(w *plan.Write) map[string]types.AttributeValue {
	if w.Key == nil {
		w.Key = t.s.keyFrom(w.Item)
	}
	return w.Key
}

// checkKey checks the key attributes of an encoded item.
func (t *Table[T]) checkKey(av map[string]types.AttributeValue) error {
	for _, f := range t.s.keys {
		if err := checkKeyAttr(f, av[f.name]); err != nil {
			return err
		}
	}
	return nil
}

// render renders w once into the request every later step sends or
// composes, turning a condition or update the plan cannot render into the
// mapper's errors: nothing is sent for them.
func (t *Table[T]) render(w *plan.Write) (*plan.Request, error) {
	t.keyOfWrite(w)
	r, err := w.Render()
	if err == nil {
		return r, nil
	}
	if cerr := conditionErr(err); cerr != err {
		return nil, cerr
	}
	return nil, fmt.Errorf("%w: %w", ErrInvalidOption, err) // an update's actions
}

// conditionErr turns a condition the plan could not render into the
// mapper's errors.
func conditionErr(err error) error {
	var ce *plan.ConditionError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &ce) && ce.Value:
		return fmt.Errorf("%w: condition given with If: value %v", ErrInvalidItem, ce.Err)
	case errors.As(err, &ce):
		return fmt.Errorf("%w: condition given with If: %v", ErrInvalidOption, ce.Err)
	}
	return err
}

// sent is the result of a write that send made: the item the call
// returned (ReturnValues), or the item as read when an unanswered attempt
// was settled; and the call's output, nil when it was settled.
type sent struct {
	item map[string]types.AttributeValue
	out  any
}

// send makes the single write r: as a TransactWriteItems of one action
// (ExactlyOnce), or through the executor (plan.Exec) as PutItem, UpdateItem
// or DeleteItem, asking for rv (and for what Old and WriteCapacity want); a
// refusal becomes a conflict, a condition error or a LockedError, and an
// unanswered attempt is settled by the write token or ends in an unknown
// outcome. An item a unit of work holds, when the unit is over or dead, is
// settled and the write made once more.
func (t *Table[T]) send(ctx context.Context, r *plan.Request, o *WriteOptions, rv types.ReturnValue) (sent, error) {
	w := r.W
	if w.Protected() {
		if err := t.replicas.Check(ctx, t.client); err != nil {
			return sent{}, fmt.Errorf("mapper: %v on %s: %w", w.Kind, t.name, err)
		}
	}
	s, err := t.sendObserved(ctx, r, o, rv, 1)
	var le *LockedError
	if err != nil && errors.As(err, &le) && !errors.Is(err, ErrUnknownOutcome) && le.Coordinator != "" {
		l := &unitproto.Lock{Unit: le.Unit, Coordinator: le.Coordinator, Owner: le.Owner}
		if v, serr := unitproto.Settle(ctx, t.client, t.pt.Units, t.name, t.keyOfWrite(w), l); serr == nil && v.Settled() {
			if ob := t.opts.Observer; ob != nil {
				obs.Point(ctx, ob, observe.Event{Kind: observe.UnitSettled, Op: w.Kind.String(), Table: t.name,
					Key: t.keyOfWrite(w), Name: le.Unit, Outcome: obs.UnitOutcome(v.Committed())})
			}
			return t.sendObserved(ctx, r, o, rv, 2)
		}
	}
	return s, err
}

// sendObserved is one try of send (attempt: which), in a Write span when
// the table has an observer. A write with ExactlyOnce is observed by
// txn.Commit instead.
func (t *Table[T]) sendObserved(ctx context.Context, r *plan.Request, o *WriteOptions, rv types.ReturnValue, attempt int) (sent, error) {
	ob := t.opts.Observer
	if ob == nil || o.ExactlyOnce {
		return t.sendOnce(ctx, r, o, rv, nil)
	}
	w := r.W
	ctx, span := obs.Start(ctx, ob, observe.Event{Kind: observe.Write, Op: w.Kind.String(), Table: t.name,
		Key: t.keyOfWrite(w), Attempt: attempt, Token: w.Token})
	s, err := t.sendOnce(ctx, r, o, rv, &span)
	if err != nil {
		e := span.Event()
		e.Err = err
		var ce *version.ConflictError
		switch {
		case errors.Is(err, ErrUnknownOutcome):
			e.Kind = observe.UnknownOutcome
			span.Point(e)
		case errors.As(err, &ce):
			e.Kind = observe.Conflict
			span.Point(e)
		}
	}
	span.End(err, consumed(s.out), "", 0)
	return s, err
}

// consumed is the capacity a write's output reports (0 if none).
func consumed(out any) float64 {
	_, cc, _ := writeOutput(out)
	if cc == nil {
		return 0
	}
	return aws.ToFloat64(cc.CapacityUnits)
}

// sendOnce makes the write once (span: its Write span, nil if none).
func (t *Table[T]) sendOnce(ctx context.Context, r *plan.Request, o *WriteOptions, rv types.ReturnValue, span *obs.Span) (sent, error) {
	if o.ExactlyOnce {
		return sent{}, t.commitOne(ctx, r, o)
	}
	rv, capacity, err := t.asks(o, rv)
	if err != nil {
		return sent{}, err
	}
	if t.capacity {
		capacity = types.ReturnConsumedCapacityTotal
	}
	res := plan.Exec(ctx, t.client, r, plan.Call{
		ReturnValues: rv, Capacity: capacity,
		// A write with a version check makes its own check false once
		// applied, so the SDK may resend it; any other write could apply
		// twice, so it is never resent after an attempt that may have
		// landed: the executor settles it by reading instead.
		NoResend: r.W.Check == plan.NoCheck,
		Settle:   t.settleBy(r.W),
	})
	return t.settled(r.W, &res, span)
}

// settleBy is how the executor recognises w as ours after a lost answer:
// by its write token, or for a delete by the item being gone. A write
// without either cannot be recognised (its lost answer is an unknown
// outcome). The settling read is made only while the caller's ctx lasts.
func (t *Table[T]) settleBy(w *plan.Write) plan.Settle {
	if w.Token == "" && w.Kind != plan.WriteDelete {
		return plan.Settle{}
	}
	return plan.Settle{Ours: func(item map[string]types.AttributeValue) bool { return w.Landed(item, t.opts.TokenAttribute) }}
}

// settled turns the executor's result into what the caller gets: the
// output, or the item found when a lost answer turned out to be ours (nil
// for a delete); a conflict, a condition error or a LockedError; an
// unknown outcome; or the call's error.
func (t *Table[T]) settled(w *plan.Write, res *plan.Result, span *obs.Span) (sent, error) {
	if res.Seen() {
		settledEvent(span, res.Outcome == plan.Applied)
	}
	switch res.Outcome {
	case plan.Applied:
		if res.Lost() {
			return sent{item: res.Item}, nil
		}
		return sent{item: res.Item, out: res.Out}, nil
	case plan.Refused:
		return sent{}, t.refusal(w, res.Item, res.Err)
	case plan.Unknown:
		var last error
		if res.ConditionFailed() {
			last = t.refusal(w, res.Item, res.Err)
		}
		return sent{}, t.unknown(w, res.LostErr, last)
	}
	if replica.IsReplicatedWriteConflict(res.Err) && w.Check != plan.NoCheck {
		// A strongly consistent global table refused the write for one in
		// another Region: nothing was written, and the item may have
		// changed. The stored item is unknown.
		return sent{}, &version.ConflictError{Table: t.name, Key: t.keyOfWrite(w), Expected: w.Expected, Err: res.Err}
	}
	return sent{}, fmt.Errorf("mapper: %v on %s %s: %w", w.Kind, t.name, attrs.FormatKey(t.keyOfWrite(w)), res.Err)
}

// settledEvent emits the Settled event of a write whose unanswered attempt
// was found to have landed, or not seen, in the item.
func settledEvent(span *obs.Span, landed bool) {
	if !span.On() {
		return
	}
	e := span.Event()
	e.Kind, e.Outcome = observe.Settled, observe.OutcomeNotSeen
	if landed {
		e.Outcome = observe.OutcomeLanded
	}
	span.Point(e)
}

// refusal is the error of a write whose condition failed on item (as
// stored, nil if none): the item is held by a unit of work, or the write
// lost its version check, or another part of its condition failed.
func (t *Table[T]) refusal(w *plan.Write, item map[string]types.AttributeValue, err error) error {
	key := t.keyOfWrite(w)
	if le := unitproto.Locked(t.name, key, item, err); le != nil {
		return le
	}
	if w.AtCeiling(item) {
		return t.atCeiling(w, item, err)
	}
	if w.Fenced(item) {
		// Before the version: a newer holder that also changed the version
		// must not make this a conflict that Modify retries.
		return &ConditionError{Table: t.name, Key: key, Item: item, Fenced: true, Err: err}
	}
	if conflict, actual, has := w.Conflict(item); conflict {
		return &version.ConflictError{Table: t.name, Key: key, Expected: w.Expected, Actual: actual, ActualMissing: item != nil && !has, Item: item, Err: err}
	}
	return &ConditionError{Table: t.name, Key: key, Item: item, Err: err}
}

// unknown is the error of a write whose outcome cannot be known: lost is
// the error of the attempt whose answer was lost, last what the write met
// after it, if anything.
func (t *Table[T]) unknown(w *plan.Write, lost, last error) error {
	return &UnknownOutcomeError{Op: w.Kind.String(), Table: t.name, Key: t.keyOfWrite(w), Err: lost, Last: last}
}

// createCheck is the check of a write whose struct has version 0.
func (t *Table[T]) createCheck() plan.VersionCheck {
	if t.opts.VersionZeroExists {
		return plan.MustBeNewOrZero
	}
	return plan.MustNotExist
}

// Put writes item with one PutItem, replacing the whole stored item.
//
// For a versioned type the write is conditional: version 0 in the struct
// means "create" (refused if an item with the key exists), version n means
// "replace version n". The item is written with the next version, and item's
// version field is set to it only when the write succeeds; on any error the
// struct is unchanged. A refused write is a [*version.ConflictError] carrying
// the stored item (ALL_OLD, no extra read). Options: [If], [Unversioned],
// [Fence], [ExactlyOnce], [ExactlyOnceToken], [Old], [WriteCapacity].
func (t *Table[T]) Put(ctx context.Context, item *T, opts ...WriteOption) error {
	if err := t.usable(); err != nil {
		return err
	}
	if item == nil {
		return fmt.Errorf("%w: Put of a nil item", ErrInvalidOption)
	}
	o, err := t.writeOptions("Put", opts)
	if err != nil {
		return err
	}
	_, err = t.put(ctx, item, o)
	return err
}

// put makes a Put, and returns the item as written.
func (t *Table[T]) put(ctx context.Context, item *T, o *WriteOptions) (map[string]types.AttributeValue, error) {
	w, err := t.writeItem(ctx, reflect.ValueOf(item).Elem(), o, t.planPut)
	if w == nil {
		return nil, err
	}
	return w.Item, err
}

// writeItem makes the single write of the struct v that build plans (a Put
// or a Save) and, once it is done, sets v's version to the one written. It
// returns the write once it is sent, with the error of what Old and
// WriteCapacity then read.
func (t *Table[T]) writeItem(ctx context.Context, v reflect.Value, o *WriteOptions, build func(reflect.Value, *WriteOptions, dest) (*plan.Write, int64, error)) (*plan.Write, error) {
	w, next, err := build(v, o, toSingle)
	if err != nil {
		return nil, err
	}
	s, err := t.write(ctx, w, o)
	if err != nil {
		return nil, err
	}
	if vf := t.s.version; vf != nil {
		setVersion(v.FieldByIndex(vf.index), next)
	}
	return w, t.returned(o, s.out)
}

// write renders and sends the single write w, which asks for no item back.
func (t *Table[T]) write(ctx context.Context, w *plan.Write, o *WriteOptions) (sent, error) {
	r, err := t.render(w)
	if err != nil {
		return sent{}, err
	}
	return t.send(ctx, r, o, types.ReturnValueNone)
}

// Delete deletes the item with the key of item with one DeleteItem. For a
// versioned type whose version field is not 0, only that version is deleted:
// if the stored version differs, or the item is gone, the error is a
// [*version.ConflictError]. With version 0 (or [Unversioned]) the delete is
// unconditional, and deleting a missing item is not an error (DynamoDB's
// rule). Options: [If], [Unversioned], [Fence] (the fence condition only; a
// deleted item keeps no token), [ExactlyOnce], [ExactlyOnceToken], [Old],
// [WriteCapacity].
//
// When an attempt's response was lost and the SDK's retry then finds the
// item already gone, Delete reports success: the item it was asked to delete
// no longer exists.
func (t *Table[T]) Delete(ctx context.Context, item T, opts ...WriteOption) error {
	if err := t.usable(); err != nil {
		return err
	}
	o, err := t.writeOptions("Delete", opts)
	if err != nil {
		return err
	}
	w, err := t.planKeyed(plan.WriteDelete, reflect.ValueOf(&item).Elem(), o, plan.NoCheck)
	if err != nil {
		return err
	}
	s, err := t.write(ctx, w, o)
	if err != nil {
		return err
	}
	return t.returned(o, s.out)
}
