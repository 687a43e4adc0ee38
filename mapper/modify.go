package mapper

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"sync"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/optimist-dynamo/optimist/internal/attrs"
	"github.com/optimist-dynamo/optimist/internal/retry"
	"github.com/optimist-dynamo/optimist/version"
)

// Modify applies fn to the item with the key of key and writes the result,
// retrying on version conflicts: the optimistic read-modify-write loop, done
// right. T must have a version field.
//
// It reads the item (one consistent GetItem), calls fn on it and writes it
// with a version-checked [Table.Put]. A missing item reaches fn as a zero
// value with the key fields set, so Modify can create. It returns the item
// as written.
//
// Retries follow measurements of many writers on one item (issue 11):
//
//   - Modify calls on the same Table and key take turns within the process,
//     first come first served, so that goroutines of one process do not
//     conflict with each other; each turn starts from the item the previous
//     one wrote, with no read, when there is one. Conflicts then come only
//     from other processes (or other Tables).
//   - A conflict carries the stored item (ALL_OLD), as fresh as a read: the
//     first conflict of a call is retried at once on that item, with no read
//     and no sleep.
//   - Later conflicts sleep a jittered, exponentially growing time (see
//     [Backoff]; defaults 10ms to 200ms), and since others wrote while it
//     slept, the item is read again (one consistent GetItem) before fn runs.
//     Writing the stale conflict item instead, as Modify once did, only
//     made the next conflict surer.
//
// fn may run several times and must not have other side effects; it must not
// change the key or the version. An error from fn ends Modify and is
// returned as is. Modify gives up after [MaxAttempts] writes, returning the
// last conflict, and stops when ctx ends. It does not retry an
// [ErrUnknownOutcome] (fn's change may already be stored) nor a
// [*ConditionError]. WriteOptions ([If], [Fence], [ExactlyOnce]) apply to
// every write.
func (t *Table[T]) Modify(ctx context.Context, key T, fn func(*T) error, opts ...RetryOption) (*T, error) {
	if err := t.usable(); err != nil {
		return nil, err
	}
	if fn == nil {
		return nil, fmt.Errorf("%w: Modify needs a function (fn is nil)", ErrInvalidOption)
	}
	o, err := t.writeOptions(callModify, opts)
	if err != nil {
		if o, _ := t.writeOptions(callDelete, opts); o != nil && o.Unversioned {
			return nil, fmt.Errorf("%w: Modify with Unversioned would lose concurrent updates", ErrInvalidOption)
		}
		return nil, err
	}
	policy := t.policy(o)
	if err := policy.Check(); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalidOption, err)
	}
	if t.s.version == nil {
		return nil, fmt.Errorf("%w: Modify needs a versioned type, and %v has no `dynamo:\",version\"` field", ErrInvalidOption, t.s.typ)
	}
	kv := reflect.ValueOf(&key).Elem()
	k, err := t.c.keyOf(kv)
	if err != nil {
		return nil, err
	}
	turn, err := t.turns.take(ctx, t.s.keyString(k))
	if err != nil {
		return nil, err
	}
	defer t.turns.done(turn)
	var cur *T
	if turn.item != nil {
		cur, err = decodeItem[T](t.c, turn.item)
		turn.item = nil // until this turn's write is known
	} else {
		cur, err = t.read(ctx, k, kv)
	}
	if err != nil {
		return nil, err
	}
	for attempt := 1; ; attempt++ {
		cv := reflect.ValueOf(cur).Elem()
		read, err := versionOf(cv.FieldByIndex(t.s.version.index))
		if err != nil {
			return nil, err
		}
		if err := fn(cur); err != nil {
			return nil, err
		}
		if err := t.unchanged(cv, k, read); err != nil {
			return nil, err
		}
		written, err := t.put(ctx, cur, o)
		if err == nil {
			turn.item = written
			return cur, nil
		}
		var ce *version.ConflictError
		if errors.Is(err, ErrUnknownOutcome) || !errors.As(err, &ce) {
			return nil, err
		}
		if ce.Expected == 0 && ce.Item != nil && ce.Actual == 0 {
			// Every retry would try to create the item again.
			if ce.ActualMissing {
				// Written by other code.
				return nil, fmt.Errorf("mapper: Modify: %s %s exists without a version attribute %q; write it once with Put(..., Unversioned()) to version it: %w",
					t.name, attrs.FormatKey(k), t.s.version.name, err)
			}
			return nil, fmt.Errorf("mapper: Modify: %s %s stores version 0 (as mappers that count from 0 write, such as Java's DynamoDBMapper v1), which this table takes for \"no item\"; set TableOptions.VersionZeroExists: %w",
				t.name, attrs.FormatKey(k), err)
		}
		if !policy.More(attempt) {
			return nil, fmt.Errorf("mapper: Modify gave up after %d attempts: %w", attempt, err)
		}
		if attempt == 1 {
			t.retrying(ctx, k, attempt, 0, err)
			// The conflict's item is as fresh as a read: write again at once.
			if ce.Item == nil {
				cur = t.withKey(kv)
			} else if cur, err = decodeItem[T](t.c, ce.Item); err != nil {
				return nil, err
			}
			continue
		}
		wait := policy.Backoff(attempt - 1)
		t.retrying(ctx, k, attempt, wait, err)
		if err := retry.Sleep(ctx, wait); err != nil {
			return nil, fmt.Errorf("mapper: Modify stopped after %d attempts: %w (last: %v)", attempt, err, ce)
		}
		// Others wrote while we slept: the conflict's item is stale now.
		if cur, err = t.read(ctx, k, kv); err != nil {
			return nil, err
		}
	}
}

// read is Modify's consistent read: the item, or a zero T with the key
// fields of kv if there is none.
func (t *Table[T]) read(ctx context.Context, k map[string]types.AttributeValue, kv reflect.Value) (*T, error) {
	cur, err := t.get(ctx, k, true, nil)
	if errors.Is(err, ErrNotFound) {
		return t.withKey(kv), nil
	}
	return cur, err
}

// turns lets Modify calls on one key take turns within a Table, first come
// first served, and hands each turn the item the previous one wrote.
type turns struct {
	mu sync.Mutex
	m  map[string]*turn
}

// turn is one key's queue: a channel of one slot, held by the Modify whose
// turn it is (goroutines blocked sending on a channel are served in order).
type turn struct {
	key  string
	slot chan struct{}
	n    int // holding or waiting; the turn is dropped at 0
	// item is the item as the last Modify of this turn wrote it, nil if
	// unknown. Only the holder touches it.
	item map[string]types.AttributeValue
}

func (ts *turns) take(ctx context.Context, key string) (*turn, error) {
	ts.mu.Lock()
	tn := ts.m[key]
	if tn == nil {
		if ts.m == nil {
			ts.m = map[string]*turn{}
		}
		tn = &turn{key: key, slot: make(chan struct{}, 1)}
		ts.m[key] = tn
	}
	tn.n++
	ts.mu.Unlock()
	select {
	case tn.slot <- struct{}{}:
		return tn, nil
	case <-ctx.Done():
		ts.leave(tn)
		return nil, fmt.Errorf("mapper: Modify stopped waiting for its turn: %w", ctx.Err())
	}
}

func (ts *turns) done(tn *turn) {
	ts.leave(tn)
	<-tn.slot
}

func (ts *turns) leave(tn *turn) {
	ts.mu.Lock()
	if tn.n--; tn.n == 0 {
		delete(ts.m, tn.key)
	}
	ts.mu.Unlock()
}

// unchanged checks that fn kept the key and the version.
func (t *Table[T]) unchanged(v reflect.Value, key map[string]types.AttributeValue, ver int64) error {
	k, err := t.c.keyOf(v)
	if err != nil {
		return err
	}
	for name, want := range key {
		if !attrs.SameKeyValue(k[name], want) {
			return fmt.Errorf("%w: Modify's fn changed the key attribute %q", ErrInvalidOption, name)
		}
	}
	if got, _ := versionOf(v.FieldByIndex(t.s.version.index)); got != ver {
		return fmt.Errorf("%w: Modify's fn changed the version (from %d to %d); the mapper sets it", ErrInvalidOption, ver, got)
	}
	return nil
}
