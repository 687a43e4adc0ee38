// Command locks is the README's section on package pessimistic as a
// program: a lease lock taken with Do and with Acquire and Release, the
// fencing token, and what the README says of a lease's lifetime, of a
// panic in Do and of a crashed holder, each checked and printed.
//
//	go run ./examples/locks                  # on the embedded DynamoDB engine, in the process
//	go run ./examples/locks -endpoint http://localhost:8000
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/optimist-dynamo/optimist/dynamolocal"
	"github.com/optimist-dynamo/optimist/examples/internal/demo"
	"github.com/optimist-dynamo/optimist/mapper"
	"github.com/optimist-dynamo/optimist/pessimistic"
	"github.com/optimist-dynamo/optimist/update"
)

// Invoice must not be sent twice: it is sent under a lock.
type Invoice struct {
	ID      string `dynamo:"id,hash"`
	Sent    bool   `dynamo:"sent"`
	Version int64  `dynamo:"v,version"`
}

func main() {
	demo.Main(func(ctx context.Context, srv *dynamolocal.Server) error {
		return Run(ctx, srv.Client(), demo.Table("invoices"), demo.Table("locks"), os.Stdout)
	})
}

// Run creates the invoices table and an invoice, sends it under a lock
// (the code the README describes), then shows what the README says of leases, printing
// each finding to w.
func Run(ctx context.Context, client *dynamodb.Client, invoicesTable, locksTable string, w io.Writer) error {
	invoices, err := demo.NewTable[Invoice](ctx, client, invoicesTable)
	if err != nil {
		return err
	}
	if err := invoices.Put(ctx, &Invoice{ID: "invoice-7"}); err != nil {
		return err
	}

	// Once: the lock table (keys pk and sk, TTL). Then one Locker per process.
	if err := pessimistic.CreateTable(ctx, client, locksTable); err != nil {
		return err
	}
	locker, err := pessimistic.New(client, locksTable) // pessimistic.FIFO(): first come, first served
	if err != nil {
		return err
	}
	defer locker.Close() // stops its heartbeats; releases nothing

	if err := sendInvoice(ctx, locker, invoices); err != nil {
		return err
	}
	inv, err := invoices.Get(ctx, Invoice{ID: "invoice-7"})
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "invoice-7 sent under the lock: %v\n", inv.Sent)

	// The rest with a short lease and frequent heartbeats.
	short, err := pessimistic.New(client, locksTable, pessimistic.Heartbeat(100*time.Millisecond), pessimistic.LeaseDuration(time.Second))
	if err != nil {
		return err
	}
	defer short.Close()
	held := func() (bool, error) {
		info, err := short.Inspect(ctx, "invoice-7")
		if err != nil {
			return false, err
		}
		return info.Held, nil
	}
	h, err := held()
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "after sendInvoice returned (deferred Release): held %v\n", h)

	if err := panicInDo(ctx, short); err != nil {
		return err
	}
	if h, err = held(); err != nil {
		return err
	}
	fmt.Fprintf(w, "after a panic in Do's fn: held %v\n", h)

	// Acquire's ctx bounds the wait only.
	actx, cancel := context.WithCancel(ctx)
	lease, err := short.Acquire(actx, "invoice-7", pessimistic.Wait(5*time.Second))
	if err != nil {
		cancel()
		return err
	}
	cancel()
	time.Sleep(300 * time.Millisecond) // three heartbeats
	if h, err = held(); err != nil {
		return err
	}
	fmt.Fprintf(w, "Acquire's ctx canceled, no Release: held %v, lease error %v\n", h, lease.Err())
	if err := lease.Release(ctx); err != nil {
		return err
	}

	// With ReleaseOnDone it ends with it.
	actx, cancel = context.WithCancel(ctx)
	lease, err = short.Acquire(actx, "invoice-7", pessimistic.ReleaseOnDone(), pessimistic.Wait(5*time.Second))
	if err != nil {
		cancel()
		return err
	}
	cancel()
	select {
	case <-lease.Context().Done():
	case <-time.After(5 * time.Second):
	}
	if h, err = heldUntil(ctx, held, false); err != nil {
		return err
	}
	fmt.Fprintf(w, "Acquire's ctx canceled, with ReleaseOnDone: held %v, lease error %v\n", h, lease.Err())
	if err := lease.Release(ctx); err != nil { // released already: no call
		return err
	}

	return crash(ctx, client, invoices, locksTable, w)
}

// sendInvoice sends an invoice under a lock, twice: with Do, and with
// Acquire and Release.
func sendInvoice(ctx context.Context, locker *pessimistic.Locker, invoices *mapper.Table[Invoice]) error {
	// Do takes the lock, runs fn, and releases the lock when fn returns or
	// panics. fn's ctx ends if the lease is lost. The fencing token makes
	// the write conditional: a holder that paused past its lease, while
	// another took the lock with a higher token, can no longer write.
	err := locker.Do(ctx, "invoice-7", func(ctx context.Context, lease *pessimistic.Lease) error {
		inv, err := invoices.Get(ctx, Invoice{ID: "invoice-7"})
		if err != nil || inv.Sent {
			return err
		}
		inv.Sent = true // and send it: the work that must not run twice at once
		return invoices.Put(ctx, inv, mapper.Fence("fence", lease.Token()))
	})
	if err != nil {
		return err
	}

	// Acquire and Release, for a lock held across calls. ctx bounds the
	// wait only: the lease lives until Release, its loss or locker.Close.
	// So defer Release at once, or pass pessimistic.ReleaseOnDone() to end
	// the lease when ctx ends.
	lease, err := locker.Acquire(ctx, "invoice-7", pessimistic.Wait(10*time.Second))
	if err != nil {
		return err // errors.Is(err, pessimistic.ErrNotAcquired): held all along
	}
	defer lease.Release(ctx)
	// ... work under the lock, with lease.Context() and lease.Token()
	return nil
}

// panicInDo runs Do with a fn that panics, and recovers the panic, which
// Do lets go on after releasing the lock.
func panicInDo(ctx context.Context, locker *pessimistic.Locker) (err error) {
	defer func() {
		if r := recover(); r != "payment provider gone" {
			err = fmt.Errorf("locks: the panic in fn came out of Do as %v", r)
		}
	}()
	return locker.Do(ctx, "invoice-7", func(context.Context, *pessimistic.Lease) error {
		panic("payment provider gone")
	})
}

// crash shows a holder that crashes: another process takes the lock over
// once the lease has run out, and the crashed holder's late write, fenced
// with its older token, is refused.
func crash(ctx context.Context, client *dynamodb.Client, invoices *mapper.Table[Invoice], locksTable string, w io.Writer) error {
	const lease = time.Second
	crashing, err := pessimistic.New(client, locksTable, pessimistic.LeaseDuration(lease), pessimistic.Owner("crashing"))
	if err != nil {
		return err
	}
	other, err := pessimistic.New(client, locksTable, pessimistic.PollInterval(50*time.Millisecond), pessimistic.Owner("other"))
	if err != nil {
		return err
	}
	defer other.Close()
	old, err := crashing.Acquire(ctx, "invoice-7", pessimistic.Wait(5*time.Second))
	if err != nil {
		return err
	}
	crashing.Close() // as a crash: no heartbeat, no release

	start := time.Now()
	taken, err := other.Acquire(ctx, "invoice-7", pessimistic.Wait(10*time.Second))
	if err != nil {
		return err
	}
	waited := time.Since(start)
	fmt.Fprintf(w, "a holder crashed; the lock was taken over no sooner than its %v lease: %v, with a higher token: %v\n",
		lease, waited >= lease, taken.Token() > old.Token())
	if _, err := invoices.Update(ctx, Invoice{ID: "invoice-7"}, update.Set("sent", true), mapper.Fence("fence", taken.Token())); err != nil {
		return err
	}
	_, err = invoices.Update(ctx, Invoice{ID: "invoice-7"}, update.Set("sent", false), mapper.Fence("fence", old.Token()))
	fmt.Fprintf(w, "the crashed holder's late fenced write is refused: %v\n", errors.Is(err, mapper.ErrConditionFailed))
	if err != nil && !errors.Is(err, mapper.ErrConditionFailed) {
		return err
	}
	return taken.Release(ctx)
}

// heldUntil polls held until it reports want, for up to 5 seconds, and
// returns what it reported last.
func heldUntil(ctx context.Context, held func() (bool, error), want bool) (bool, error) {
	deadline := time.Now().Add(5 * time.Second)
	for {
		h, err := held()
		if err != nil || h == want || time.Now().After(deadline) {
			return h, err
		}
		select {
		case <-time.After(20 * time.Millisecond):
		case <-ctx.Done():
			return h, ctx.Err()
		}
	}
}
