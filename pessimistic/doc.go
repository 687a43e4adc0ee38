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
// # How long a lease lives
//
// A lease lives until it is released, lost, or its Locker is closed: the
// context given to [Locker.Acquire] bounds the acquiring only, and a
// process that cancels it (or drops the lease, or has a goroutine that
// returned early) keeps the lock, renewed by heartbeats, for as long as the
// Locker lives, while everyone else waits. So:
//
//   - [Locker.Do] is the safe form: the lease's context ends with Do's, and
//     Do releases the lock when fn returns, with an error or without, and
//     when fn panics (then the panic goes on).
//   - After Acquire, defer lease.Release(ctx) at once.
//   - [ReleaseOnDone] ties the lease to Acquire's context: when it ends, the
//     lease's context is canceled, heartbeats stop and the lock is
//     released. It is an option, not the default: many callers bound the
//     wait with a short context (context.WithTimeout around Acquire) and
//     work on after it ended; releasing then would let a second holder in
//     while the first still works, a loss of mutual exclusion, whereas a
//     forgotten lease costs waiting, not correctness.
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
// With [FIFO], waiters are served first come, first served, in arrival
// order: the order in which their joins (UpdateItem calls) land in
// DynamoDB, which is not necessarily the order in which callers called
// Acquire (two calls made a moment apart may reach DynamoDB the other way
// round, and a join that the SDK retries arrives late). The queue lives
// in the lock's record, beside the fence counter: a map from each waiter's
// entry id (random, unique per Acquire) to its ticket, and a map from the
// id to its owner, record version and lease. A waiter joins with one
// UpdateItem that adds one to the fence counter and writes its ticket (the
// counter's new value) and its entry in the same item, so tickets are
// handed out in the order of the joins and a lower ticket can never appear
// behind a higher one; the answer (ALL_NEW) holds the whole queue, so the
// join also tells the waiter its place: one call however many wait. The
// join is conditioned on its id being new, so a resend after a lost answer
// cannot queue a waiter twice: it fails its condition, and the item it
// returns (or a read) shows the entry as ours. The waiter with the lowest
// ticket holds the lock, and the ticket is the fencing token; tickets come
// from the counter the lease lock uses too, so tokens keep increasing if a
// lock name ever changes mode.
//
// A queue holds at most [MaxQueue] waiters and 400 KB; past that Acquire
// fails with [ErrQueueFull]. Every waiter's heartbeat writes the queue's
// item, so a long queue costs write capacity as its length squared.
//
// Waiters read the queue with one consistent GetItem, about when their
// turn is due: a waiter sleeps until its turn is expected, by its place
// and the pace of the queue (ten places back, about ten turns), reads, and
// sleeps again by what it read. Each release folds its turn (its hold and
// a round trip: durations on its own clock, so no clocks are compared)
// into a pace kept in the record, the mean of the first turns then a slow
// moving average, so the waiters of every Locker time their reads alike: a
// turn is the pace and two steps (a step: the spread of the turns, at
// least an eighth of the pace and PollInterval/20); a Locker keeps to the
// schedule of its last turn, a turn per ticket after it, so one holder's
// deviation does not move every turn behind it. When the head is late, the
// next in line reads again after a step, then at doubling intervals, never
// longer than half of what the head has held so far (with no pace known
// yet, all read so, from PollInterval): about one read a wait, more for a
// late holder (PollInterval does not bound the sleeps). Waiters share what
// they read with the other waiters of their Locker: a release answers with
// the queue as it left it, so the lock passes to a waiter of the same
// Locker at no extra call, and those behind a waiter of their own Locker
// are woken by its reads. An entry whose record version stayed the same
// for its lease, on the observer's own clock, is abandoned (a crashed
// holder or waiter): it is removed, on the condition that it still holds
// that version (up to 50 in one UpdateItem), and skipped. However long its
// expected turn, a waiter reads again when an entry ahead could first be
// seen abandoned, so a dead head is taken over between one and two leases
// after its last heartbeat (see below). With Wait(0) the queue is read
// first and nothing is written when anyone is ahead.
//
// Do not use one lock name both with and without FIFO.
//
// # How soon an abandoned lock is taken over
//
// Let L be the holder's lease (as its record states it), H its Heartbeat,
// P the waiter's PollInterval, r the longest round trip of a call, t the
// moment the holder's last renewal (or its acquire) was written, and a the
// moment the waiter first tried (its join, for FIFO). A waiter cannot
// tell how old the record it first reads is, so it counts from the later
// of t and a. If the waiter's calls are answered, it takes the lock over:
//
//   - lease lock: no sooner than L after t, and no later than
//     max(t, a) + L + 3P/2 + 3r (its next poll, at most 3P/2 after the
//     last, reads the last renewal; the takeover is sent when that has
//     stayed the same for L, or at once after the answer to a poll sent
//     just before);
//   - FIFO lock, the waiter next in line: no sooner than L after t, and no
//     later than max(t, a) + 2L + 3r (no pause between its reads is longer
//     than L, so it reads the last renewal within L of t; it reads again
//     when that could first be seen abandoned, and removes the entry).
//
// A holder renews every H, so its last renewal was written at most H + r
// before it stopped (a crash, a pause, a cut network): a waiter already
// waiting takes a lease lock over between L - H - r and L + 3P/2 + 3r
// after the holder stopped, and a FIFO lock by 2L + 3r. Calls that fail
// (throttling, lost answers, which the SDK retries with backoff) delay it
// by as long as their retries take.
//
// # Operating it
//
// [Locker.Inspect] and [Locker.List] read locks (holder, token, lease,
// [Data], fence counter, FIFO queue). [Locker.ForceRelease] removes a
// holder known to be dead and bumps the fence counter, so a holder alive
// after all loses its lease and its fenced writes; [Locker.ForceReleaseIf]
// only if it is still the holder the operator saw. cmd/optimist does this
// from a shell. [New] makes no call: a Locker's first call, or
// [Locker.Check], checks the table's key schema.
//
// # Locks held in the item
//
// [LockItem] keeps the lease in the item it protects (two attributes beside
// the item's own) and returns the item in the same UpdateItem: a locking
// read. [ItemLock.SaveAndRelease] writes it and drops the lock in one.
//
// # Choosing
//
// The four ways to change shared items, by what they cost in calls and
// what they give (bench/README.md, "Under contention", has the
// figures, from the bench module):
//
//   - mapper.Table.Update: one call per change, no read, no conflict. The
//     choice whenever DynamoDB can make the change itself (add, append,
//     set).
//   - mapper.Table.Modify (optimistic): a read and a write, and one more
//     write per conflict. Best when conflicts are occasional and fn is cheap
//     and free of side effects; under a burst on one hot item from many
//     processes, conflicts pile up.
//   - Lease lock (Acquire/Do): two calls when uncontended, plus a try per
//     PollInterval while waiting. For expensive or side-effecting work that
//     must not run twice at once. Not fair: a holder that releases and asks
//     again often wins.
//   - FIFO lock: two calls when uncontended (join, release); the join is one
//     call however many wait, and each waiter reads the queue about when its
//     turn is expected. In return, arrival order and no starvation. For long
//     waits and fairness.
//   - Item lock: one call to lock and read, one to save and release. For a
//     slow read-modify-write of one item whose retry would be expensive;
//     keep a version field so that writers that ignore the lock conflict
//     instead of being overwritten.
//
// # Testing code that takes locks
//
// Everything a lock times uses the time package: in a testing/synctest
// bubble with the embedded engine made inside it, a crashed holder's lock
// is taken over after its lease at once. Close every Locker and end every
// Lease before the bubble ends: heartbeats are goroutines.
package pessimistic
