// Package pessimistic is a lease lock on DynamoDB, for work where conflicts
// are likely and retrying is expensive: a payment call, a slow
// computation, anything with side effects outside DynamoDB.
//
//	pessimistic.CreateTable(ctx, client, "locks")           // once
//	locker, err := pessimistic.New(client, "locks")
//	err = locker.Do(ctx, "order-42", func(ctx context.Context, lease *pessimistic.Lease) error {
//		// ctx ends if the lease is lost; guard writes with the fencing token:
//		return orders.Put(ctx, &o, mapper.Fence("fence", lease.Token()))
//	})
//
// # How it works
//
// A lock is an item of the lock table (pk = its name, sk = "lock") holding
// the owner, a record version that changes on every write, the holder's
// lease duration, and a fence counter.
//
//   - Acquire is one conditional UpdateItem, with no read first: it sets the
//     owner and a new record version and increments the fence counter if
//     nobody holds the lock, and otherwise returns the holder (ALL_OLD), so
//     a refusal costs the same single call. An uncontended Acquire and
//     Release cost two calls; waiters try again every PollInterval, with
//     jitter so that they do not wake in step.
//   - The holder renews its lease with heartbeats (Heartbeat, a quarter of
//     the lease by default), each a new record version written on the
//     condition that the record is still its own. A heartbeat whose response
//     was lost is recognised by reading its own new record version back.
//   - Expiry is decided by observation, not by comparing clocks: a waiter
//     takes over an abandoned lock only after seeing the same record version
//     for a full lease on its own monotonic clock. A holder whose heartbeats
//     fail cancels its lease context a fifth of a lease before its lease
//     could run out (ErrUnreachable), measured from the sending of its last
//     successful heartbeat, which is no later than the write a waiter could
//     have observed. A holder that finds its record changed cancels at once
//     (ErrLeaseLost).
//   - Release removes owner, record version and lease on the condition that
//     they are still its own, and keeps the item: the fence counter never
//     goes back, so Token is strictly increasing per lock name. The "ttl"
//     attribute (epoch seconds, at least an hour and a hundred leases ahead)
//     lets DynamoDB's TTL remove locks nobody used for long; a counter that
//     starts again starts from the wall clock in milliseconds, far above
//     any token of its previous life.
//
// Leases can still overlap in time: a holder paused (by the garbage
// collector, a stopped VM) past its lease does not know it lost the lock.
// Fencing tokens close that hole: write with mapper.Fence(attr,
// lease.Token()), which refuses a write carrying a lower token than one
// already written, so the paused holder's late write fails and the new
// holder's stands.
//
// # FIFO locks
//
// With [FIFO], waiters are served first come, first served. A waiter takes
// a ticket and joins the queue in one TransactWriteItems: the lock's
// counter is set to the ticket on the condition that it still holds the
// value read, and the waiter's queue row (sk = "q#" and the ticket,
// zero-padded to 20 digits so that the string order is the ticket order)
// is put. A ticket's row therefore exists from the moment the ticket is
// taken, and a lower ticket can never appear behind a higher one; designs
// that take the ticket and write the row separately can let two holders in
// at once. Each waiter reads the queue ahead of its row with strongly
// consistent, paginated Queries and holds the lock when no live row is
// ahead. Queue rows carry heartbeats like a lease, so a waiter that
// crashes is skipped (and its row deleted) once its row was seen unchanged
// for a lease. The ticket is the fencing token. With Wait(0) the queue is
// read first and nothing is written when anyone is ahead.
//
// Do not use one lock name both with and without FIFO.
//
// # Locks held in the item
//
// [LockItem] keeps the lease in the item it protects (two attributes beside
// the item's own) and returns the item in the same UpdateItem: a locking
// read. [ItemLock.SaveAndRelease] writes the item and drops the lock in one
// conditional UpdateItem.
//
// # Choosing
//
// Figures from this package's and the mapper's tests on DynamoDB Local
// (2 cores):
//
//   - mapper.Table.Update: one call per change, no read, no conflict. The
//     choice whenever DynamoDB can make the change itself (add, append,
//     set): 60 concurrent votes took 60 calls.
//   - mapper.Table.Modify (optimistic): a read and a write, and one more
//     write per conflict. Best when conflicts are occasional and fn is cheap
//     and free of side effects: 16 goroutines × 25 increments of one item
//     cost 2.5 to 2.7 calls per increment. Under a burst on one hot item the
//     conflicts pile up (50 voters at once: 6.6 conflicts per vote).
//   - Lease lock (Acquire/Do): two calls when uncontended, plus a poll per
//     PollInterval while waiting. For expensive or side-effecting work that
//     must not run twice at once. Not fair: a holder that releases and asks
//     again often wins (12 goroutines × 8 rounds on one lock: 2.4 to 3.9
//     calls per acquisition, longest wait 0.6 to 1.4 s at a 100 ms poll, the
//     holder changed on 23 to 60 of 95 handovers).
//   - FIFO lock: four calls when uncontended (read the counter, queue, read
//     the queue, release), more while waiting (8.0 to 8.8 per acquisition
//     with 6 goroutines × 4 rounds); in return, arrival order and no
//     starvation (the holder changed on 20 to 23 of 23 handovers; 110
//     waiters were served in ticket order). For long waits and fairness.
//   - Item lock: one call to lock and read, one to save and release. For a
//     slow read-modify-write of one item whose retry would be expensive;
//     keep a version field so that writers that ignore the lock conflict
//     instead of being overwritten.
package pessimistic
