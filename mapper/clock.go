package mapper

import (
	"context"
	"time"

	"github.com/optimist-dynamo/optimist/internal/lease"
)

// TimeSource is a [Table]'s source of time ([TableOptions].Clock), with two
// methods:
//
//	Now() time.Time                                  // monotonic, as time.Now's reading is
//	Sleep(ctx context.Context, d time.Duration) error // d on this clock, or until ctx ends (its error)
//
// Modify sleeps its backoff on it, and times the item it keeps for the
// next call of a key by its Now; the batch calls sleep their backoff on it.
// Tests inject a fake one to run that timing in virtual time. It is the
// same type as pessimistic.TimeSource and unit.TimeSource.
type TimeSource = lease.Clock

// sleep waits for d on the table's clock, or until ctx ends.
func (t *Table[T]) sleep(ctx context.Context, d time.Duration) error {
	c := t.opts.Clock
	if c == nil { // a Table built in a test without NewTable
		c = systemClock
	}
	return c.Sleep(ctx, d)
}
