package pessimistic

import (
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/optimist-dynamo/optimist/internal/attrs"
	"github.com/optimist-dynamo/optimist/internal/lease"
	"github.com/optimist-dynamo/optimist/observe"
)

// Option configures a [Locker] (given to [New]) or one call (given to
// Acquire, Do or LockItem, where it overrides the Locker's setting). The
// functions of this package make them; a caller may write its own, which
// sets fields of [Options].
type Option = func(*Options)

// Options are the settings of a [Locker] and of each of its calls. New
// starts from the defaults given with each field, applies its options and keeps the
// result as the Locker's; Acquire, Do and LockItem apply theirs to a copy.
// The settings are checked once all options have run: impossible ones (a
// lease that is not positive, a heartbeat of half the lease or more, an
// empty owner, a negative wait or poll interval, data over
// [MaxDataSize], equal item lock attributes) are errors matching
// [ErrInvalidOption], and nothing is sent.
type Options struct {
	// The lease settings, shared with package unit: LeaseDuration (default
	// 20s), Heartbeat (0: a quarter of the lease), Owner (default the host
	// name and a random suffix) and Wait (nil: until the context ends; 0: not
	// at all; d > 0: at most d). See the option functions of the same
	// names.
	lease.Config

	// PollInterval is how often a waiter tries again; 0 (the default) means
	// 100ms, or a quarter of the lease if shorter. See [PollInterval].
	PollInterval time.Duration

	// FIFO makes Acquire first come, first served. See [FIFO].
	FIFO bool

	// ItemOwnerAttr and ItemLeaseAttr name the attributes in which
	// [LockItem] keeps its lease inside the item (defaults "lockOwner" and
	// "lockLease"). See [ItemLockAttributes].
	ItemOwnerAttr, ItemLeaseAttr string

	// Data is stored with the lock when it is acquired (at most
	// [MaxDataSize] bytes; nil: none). See [Data].
	Data []byte

	// ReleaseOnDone ends the lease when the context given to Acquire ends.
	// See [ReleaseOnDone].
	ReleaseOnDone bool

	// Observer receives the events of locks and leases (package observe);
	// nil (the default) costs nothing. See [Observer].
	Observer observe.Observer

	maxQueue int // 0: MaxQueue; tests set less
}

// Defaults.
const (
	DefaultLeaseDuration = lease.DefaultDuration
	defaultPoll          = 100 * time.Millisecond
)

// MaxDataSize bounds the data stored with a lock ([Data]). The data is
// metadata (a job id, a host, a URL), not a payload: every heartbeat
// rewrites the lock's item, and DynamoDB charges a write unit per KB of it;
// in a FIFO queue every waiter's entry carries its data, in one item of at
// most 400 KB. Keep anything larger in an item of your own, keyed by the
// lock's name or token.
const MaxDataSize = 1024

func defaultOptions() Options {
	return Options{Config: lease.Defaults(), ItemOwnerAttr: "lockOwner", ItemLeaseAttr: "lockLease"}
}

// WriteRegion names the one AWS Region every write to a lock table goes to,
// for a global table whose other Regions only read. Without it, the first
// call that reaches DynamoDB learns from DescribeTable whether the table is
// global, and refuses one in multi-Region eventual consistency with an
// error matching [ErrGlobalTable]: there two Regions could each grant the
// same lock (a condition is checked only against the writer's Region, and
// last writer wins). A client configured for another Region than the one
// named is refused.
func WriteRegion(region string) Option {
	return func(o *Options) { o.WriteRegion = region }
}

// LeaseDuration sets how long a lock is held without a heartbeat (default
// 20s). A holder that cannot renew it gives it up (its context is
// canceled) before it runs out; a waiter takes an abandoned lock over only
// after its record stayed unchanged for this long.
func LeaseDuration(d time.Duration) Option {
	return func(o *Options) { o.LeaseDuration = d }
}

// Heartbeat sets how often a holder renews its lease (default, and with 0,
// a quarter of the lease). It must be less than half the lease, so that
// one lost heartbeat does not lose the lock.
func Heartbeat(d time.Duration) Option {
	return func(o *Options) { o.Heartbeat = d }
}

// PollInterval sets how often a waiter tries again (default, and with 0,
// 100ms or a quarter of the lease if shorter). Each wait is drawn at random
// from half to one and a half times the interval, so that waiters do not
// wake in step.
func PollInterval(d time.Duration) Option {
	return func(o *Options) { o.PollInterval = d }
}

// Owner names the holder, as recorded in the lock and reported to others
// in [NotAcquiredError] and [Info] (default: the host name and a random suffix,
// unique per Locker).
func Owner(name string) Option {
	return func(o *Options) { o.Owner = name }
}

// Wait bounds how long Acquire waits for a held lock: 0 means not at all
// (a held lock is an immediate [*NotAcquiredError]), d > 0 at most d. Without
// Wait, Acquire waits until its context ends. A Locker remembers, across
// calls, since when it has seen a lock's record unchanged, so that callers
// who only ever try (Wait(0) every minute, say) still take over a lock
// whose holder crashed, once a full lease has passed.
func Wait(d time.Duration) Option {
	return func(o *Options) { o.Wait = lease.WaitFor(d) }
}

// FIFO makes Acquire first come, first served: waiters queue in the order
// their joins land in DynamoDB and get the lock in that order (see the
// package doc).
func FIFO() Option {
	return func(o *Options) { o.FIFO = true }
}

// ItemLockAttributes names the attributes in which [LockItem] keeps its
// lease inside the item (defaults "lockOwner" and "lockLease"). They must
// not be fields of the item's struct.
func ItemLockAttributes(owner, lease string) Option {
	return func(o *Options) { o.ItemOwnerAttr, o.ItemLeaseAttr = owner, lease }
}

// Data stores b with the lock when Acquire takes it, in the same
// UpdateItem: what the holder is doing, for operators and other processes
// to read with [Locker.Inspect] and [Locker.List] ([Info].Data), and for
// the holder with [Lease.Data]. It is removed when the lock is released or
// taken over; an Acquire without Data leaves none. With [FIFO] the data is
// stored in the waiter's entry of the queue, from the join on. At most
// [MaxDataSize] bytes; b is copied. [LockItem] refuses it (an item lock
// keeps only its owner and lease in the item). Cost: the data's size in
// every heartbeat's write.
func Data(b []byte) Option {
	b = append([]byte(nil), b...)
	return func(o *Options) { o.Data = b }
}

// ReleaseOnDone ties the lease to the context given to Acquire: when that
// context ends, the lease's context is canceled (its Err is the context's
// error), heartbeats stop and the lock is released (one conditional
// UpdateItem, as Release makes). Without it, that context bounds the
// acquiring only, and the lease lives until Release, its loss, or
// Locker.Close (see the package doc). Do's lease always ends with Do's
// context; with ReleaseOnDone the lock is also released at once, without
// waiting for fn to return.
func ReleaseOnDone() Option {
	return func(o *Options) { o.ReleaseOnDone = true }
}

// resolve applies opts to a copy of o and checks the result.
func (o Options) resolve(opts []Option) (Options, error) {
	for _, fn := range opts {
		if fn == nil {
			return o, fmt.Errorf("%w: nil Option", ErrInvalidOption)
		}
		fn(&o)
	}
	cfg, err := o.Config.Resolve()
	if err != nil {
		return o, fmt.Errorf("%w: %w", ErrInvalidOption, err)
	}
	o.Config = cfg
	switch {
	case o.PollInterval < 0:
		return o, fmt.Errorf("%w: PollInterval(%v): must be positive", ErrInvalidOption, o.PollInterval)
	case o.ItemOwnerAttr == "" || o.ItemLeaseAttr == "" || o.ItemOwnerAttr == o.ItemLeaseAttr:
		return o, fmt.Errorf("%w: ItemLockAttributes(%q, %q): need two different names", ErrInvalidOption, o.ItemOwnerAttr, o.ItemLeaseAttr)
	case len(o.Data) > MaxDataSize:
		return o, fmt.Errorf("%w: Data of %d bytes: at most %d (MaxDataSize)", ErrInvalidOption, len(o.Data), MaxDataSize)
	}
	if o.PollInterval == 0 {
		o.PollInterval = min(defaultPoll, o.LeaseDuration/4)
	}
	return o, nil
}

// margin is how long before a lease would run out its holder gives it up
// when heartbeats fail: a fifth of the lease, against delays of the last
// successful heartbeat and clocks that run at slightly different rates.
func (o Options) margin() time.Duration { return o.LeaseDuration / 5 }

// ttlWindow is how far in the future the cleanup attribute is set: well past
// any lease, so that TTL deletes only locks nobody used for a long time.
func (o Options) ttlWindow() time.Duration { return max(time.Hour, 100*o.LeaseDuration) }

// ttlValue is the cleanup attribute's value for a write made now.
func (o Options) ttlValue() *types.AttributeValueMemberN {
	return attrs.N(time.Now().Add(o.ttlWindow()).Unix())
}
