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
// ErrInvalidOption class where the method returns an error, a fixed string
// from Error, the zero value from a getter, and nothing from a nil Func.
func TestNilAndZeroReceiversAnswer(t *testing.T) {
	ctx := context.Background()

	var hc *pessimistic.HolderChangedError
	assert.Equal(t, "pessimistic: <nil HolderChangedError>", hc.Error())
	var na *pessimistic.NotAcquiredError
	assert.Equal(t, "pessimistic: <nil NotAcquiredError>", na.Error())

	assert.ErrorIs(t, new(pessimistic.Lease).Release(ctx), pessimistic.ErrInvalidOption)
	assert.ErrorIs(t, new(pessimistic.Locker).Check(ctx), pessimistic.ErrInvalidOption)
	_, err := new(pessimistic.Locker).Acquire(ctx, "name")
	assert.ErrorIs(t, err, pessimistic.ErrInvalidOption, "every call of a zero Locker")

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
