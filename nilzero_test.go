package optimist_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/optimist-dynamo/optimist/observe"
	"github.com/optimist-dynamo/optimist/pessimistic"
	"github.com/optimist-dynamo/optimist/unit"
)

// TestNilAndZeroReceiversAnswer holds what the calls that used to panic on
// a nil or zero receiver answer instead: an error of the package's
// ErrInvalidOption class where the method returns an error (for
// pessimistic's Lease and Locker, with ErrNotHeld or ErrClosed, the same
// for nil and zero), a fixed string
// from Error, the zero value from a getter, and nothing from a nil Func.
func TestNilAndZeroReceiversAnswer(t *testing.T) {
	ctx := context.Background()

	var hc *pessimistic.HolderChangedError
	assert.Equal(t, "pessimistic: <nil HolderChangedError>", hc.Error())
	var na *pessimistic.NotAcquiredError
	assert.Equal(t, "pessimistic: <nil NotAcquiredError>", na.Error())

	// A nil and a zero Lease, and a nil and a zero Locker, answer the same
	// two classes: whichever a caller checks, it treats them alike.
	for name, lease := range map[string]*pessimistic.Lease{"nil": nil, "zero": new(pessimistic.Lease)} {
		for _, err := range []error{lease.Release(ctx), lease.Err()} {
			assert.ErrorIs(t, err, pessimistic.ErrNotHeld, "%s Lease", name)
			assert.ErrorIs(t, err, pessimistic.ErrInvalidOption, "%s Lease", name)
		}
		require.Error(t, lease.Context().Err(), "%s Lease: its context is canceled", name)
	}
	for name, l := range map[string]*pessimistic.Locker{"nil": nil, "zero": new(pessimistic.Locker)} {
		_, acqErr := l.Acquire(ctx, "name")
		for _, err := range []error{l.Check(ctx), acqErr, l.Do(ctx, "name", func(context.Context, *pessimistic.Lease) error { return nil })} {
			assert.ErrorIs(t, err, pessimistic.ErrClosed, "%s Locker", name)
			assert.ErrorIs(t, err, pessimistic.ErrInvalidOption, "%s Locker", name)
		}
	}

	assert.ErrorIs(t, new(unit.Unit).Commit(ctx), unit.ErrInvalidOption)
	assert.ErrorIs(t, new(unit.Unit).Rollback(ctx), unit.ErrInvalidOption)
	var u *unit.Unit
	assert.Equal(t, "", u.ID())
	assert.Equal(t, time.Time{}, u.Started())

	var f observe.Func
	type key struct{}
	in := context.WithValue(ctx, key{}, 1)
	require.NotPanics(t, func() {
		assert.Equal(t, in, f.Observe(in, observe.Event{Kind: observe.Conflict}), "ctx as given")
	})
}
