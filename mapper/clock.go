package mapper

import (
	"context"
	"time"

	"github.com/optimist-dynamo/optimist/internal/retry"
)

// sleep waits for d, or until ctx ends: Modify's and the batch calls'
// backoffs. Like everything the library times, it runs on the time
// package's clock, so a test in a testing/synctest bubble, with the
// engine made inside it, sleeps in virtual time.
func (t *Table[T]) sleep(ctx context.Context, d time.Duration) error {
	return retry.Sleep(ctx, d)
}
