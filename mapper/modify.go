package mapper

import (
	"context"
	"errors"
	"fmt"
	"reflect"

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
// with a version-checked [Table.Put]. When the write conflicts, the conflict
// already carries the stored item (ALL_OLD), so fn is called again on that
// item with no second read, after a jittered exponential backoff. A missing
// item reaches fn as a zero value with the key fields set, so Modify can
// create. It returns the item as written.
//
// fn may run several times and must not have other side effects; it must not
// change the key or the version. An error from fn ends Modify and is
// returned as is. Modify gives up after [MaxAttempts] writes, returning the
// last conflict, and stops when ctx ends. It does not retry an
// [ErrUnknownOutcome] (fn's change may already be stored) nor a
// [*ConditionError]. WriteOptions ([If], [Fence]) apply to every write.
func (t *Table[T]) Modify(ctx context.Context, key T, fn func(*T) error, opts ...RetryOption) (*T, error) {
	if err := t.usable(); err != nil {
		return nil, err
	}
	if fn == nil {
		return nil, fmt.Errorf("%w: Modify needs a function (fn is nil)", ErrInvalidOption)
	}
	cfg := retryConfig{maxAttempts: t.opts.MaxAttempts, base: t.opts.BackoffBase, max: t.opts.BackoffMax}
	for _, o := range opts {
		o.applyRetry(&cfg)
	}
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	if t.s.version == nil {
		return nil, fmt.Errorf("%w: Modify needs a versioned type, and %v has no `dynamo:\",version\"` field", ErrInvalidOption, t.s.typ)
	}
	if cfg.write.unversioned {
		return nil, fmt.Errorf("%w: Modify with Unversioned would lose concurrent updates", ErrInvalidOption)
	}
	kv := reflect.ValueOf(&key).Elem()
	k, err := t.c.keyOf(kv)
	if err != nil {
		return nil, err
	}
	cur, err := t.get(ctx, k, true, nil)
	if errors.Is(err, ErrNotFound) {
		cur, err = t.withKey(kv), nil
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
		err = t.put(ctx, cur, &cfg.write)
		if err == nil {
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
		if attempt >= cfg.maxAttempts {
			return nil, fmt.Errorf("mapper: Modify gave up after %d attempts: %w", attempt, err)
		}
		if err := retry.Sleep(ctx, retry.Backoff(attempt, cfg.base, cfg.max)); err != nil {
			return nil, fmt.Errorf("mapper: Modify stopped after %d attempts: %w (last: %v)", attempt, err, ce)
		}
		if ce.Item == nil {
			cur = t.withKey(kv)
		} else if cur, err = decodeItem[T](t.c, ce.Item); err != nil {
			return nil, err
		}
	}
}

// unchanged checks that fn kept the key and the version.
func (t *Table[T]) unchanged(v reflect.Value, key map[string]types.AttributeValue, ver int64) error {
	k, err := t.c.keyOf(v)
	if err != nil {
		return err
	}
	for name, want := range key {
		if !sameKeyAttr(k[name], want) {
			return fmt.Errorf("%w: Modify's fn changed the key attribute %q", ErrInvalidOption, name)
		}
	}
	if got, _ := versionOf(v.FieldByIndex(t.s.version.index)); got != ver {
		return fmt.Errorf("%w: Modify's fn changed the version (from %d to %d); the mapper sets it", ErrInvalidOption, ver, got)
	}
	return nil
}

// sameKeyAttr compares two key attributes (S, N or B).
func sameKeyAttr(a, b types.AttributeValue) bool {
	switch a := a.(type) {
	case *types.AttributeValueMemberS:
		b, ok := b.(*types.AttributeValueMemberS)
		return ok && a.Value == b.Value
	case *types.AttributeValueMemberN:
		b, ok := b.(*types.AttributeValueMemberN)
		return ok && a.Value == b.Value
	case *types.AttributeValueMemberB:
		b, ok := b.(*types.AttributeValueMemberB)
		return ok && string(a.Value) == string(b.Value)
	}
	return false
}
