package pessimistic

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/optimist-dynamo/optimist/internal/attrs"
	"github.com/optimist-dynamo/optimist/internal/lease"
)

// Option configures a [Locker] (given to [New]) or one call (given to
// Acquire, Do or LockItem, where it overrides the Locker's setting).
type Option func(*options)

type options struct {
	lease     time.Duration
	heartbeat time.Duration // 0: lease/4
	poll      time.Duration // 0: min(100ms, lease/4)
	owner     string
	clock     TimeSource
	wait      time.Duration
	waitSet   bool // false: wait until ctx ends
	fifo      bool
	maxQueue  int    // 0: MaxQueue; tests set less
	ownerAttr string // item locks
	leaseAttr string
	err       error
}

// Defaults.
const (
	DefaultLeaseDuration = 20 * time.Second
	defaultPoll          = 100 * time.Millisecond
)

// hostname is read once: LockItem builds default options on every call.
var hostname = sync.OnceValue(func() string {
	host, err := os.Hostname()
	if err != nil || host == "" {
		return "host"
	}
	return host
})

func defaultOptions() options {
	var b [4]byte
	_, _ = rand.Read(b[:])
	return options{
		lease:     DefaultLeaseDuration,
		owner:     hostname() + "-" + hex.EncodeToString(b[:]),
		clock:     SystemClock{},
		ownerAttr: "lockOwner",
		leaseAttr: "lockLease",
	}
}

func (o *options) set(err error) {
	if o.err == nil {
		o.err = err
	}
}

// positive returns d, after recording an error if the option named opt was
// given a duration that is not positive.
func (o *options) positive(opt string, d time.Duration) time.Duration {
	if d <= 0 {
		o.set(fmt.Errorf("%w: %s(%v): must be positive", ErrInvalidOption, opt, d))
	}
	return d
}

// LeaseDuration sets how long a lock is held without a heartbeat (default
// 20s). A holder that cannot renew it gives it up (its context is
// canceled) before it runs out; a waiter takes an abandoned lock over only
// after its record stayed unchanged for this long.
func LeaseDuration(d time.Duration) Option {
	return func(o *options) {
		o.lease = o.positive("LeaseDuration", d)
	}
}

// Heartbeat sets how often a holder renews its lease (default a quarter of
// the lease). It must be less than half the lease, so that one lost
// heartbeat does not lose the lock.
func Heartbeat(d time.Duration) Option {
	return func(o *options) {
		o.heartbeat = o.positive("Heartbeat", d)
	}
}

// PollInterval sets how often a waiter tries again (default 100ms, or a
// quarter of the lease if shorter). Each wait is drawn at random from half
// to one and a half times the interval, so that waiters do not wake in
// step.
func PollInterval(d time.Duration) Option {
	return func(o *options) {
		o.poll = o.positive("PollInterval", d)
	}
}

// Owner names the holder, as recorded in the lock and reported to others
// in [LockedError] (default: the host name and a random suffix, unique per
// Locker).
func Owner(name string) Option {
	return func(o *options) {
		if name == "" {
			o.set(fmt.Errorf("%w: Owner(\"\"): must not be empty", ErrInvalidOption))
		}
		o.owner = name
	}
}

// Clock sets the time source (default the system clock), for tests that
// drive time by hand.
func Clock(c TimeSource) Option {
	return func(o *options) {
		if c == nil {
			o.set(fmt.Errorf("%w: Clock(nil)", ErrInvalidOption))
			return
		}
		o.clock = c
	}
}

// Wait bounds how long Acquire waits for a held lock: 0 means not at all
// (a held lock is an immediate [*LockedError]), d > 0 at most d. Without
// Wait, Acquire waits until its context ends. A Locker remembers, across
// calls, since when it has seen a lock's record unchanged, so that callers
// who only ever try (Wait(0) every minute, say) still take over a lock
// whose holder crashed, once a full lease has passed.
func Wait(d time.Duration) Option {
	return func(o *options) {
		if d < 0 {
			o.set(fmt.Errorf("%w: Wait(%v): must not be negative", ErrInvalidOption, d))
		}
		o.wait, o.waitSet = d, true
	}
}

// FIFO makes Acquire first come, first served: waiters queue in the order
// they arrived and get the lock in that order (see the package doc).
func FIFO() Option {
	return func(o *options) { o.fifo = true }
}

// ItemLockAttributes names the attributes in which [LockItem] keeps its
// lease inside the item (defaults "lockOwner" and "lockLease"). They must
// not be fields of the item's struct.
func ItemLockAttributes(owner, lease string) Option {
	return func(o *options) {
		if owner == "" || lease == "" || owner == lease {
			o.set(fmt.Errorf("%w: ItemLockAttributes(%q, %q): need two different names", ErrInvalidOption, owner, lease))
		}
		o.ownerAttr, o.leaseAttr = owner, lease
	}
}

// resolve applies opts to a copy of o and checks the result.
func (o options) resolve(opts []Option) (options, error) {
	for _, fn := range opts {
		fn(&o)
	}
	if o.err != nil {
		return o, o.err
	}
	hb, err := lease.Heartbeat(o.lease, o.heartbeat)
	if err != nil {
		return o, fmt.Errorf("%w: %w", ErrInvalidOption, err)
	}
	o.heartbeat = hb
	if o.poll == 0 {
		o.poll = min(defaultPoll, o.lease/4)
	}
	return o, nil
}

// margin is how long before a lease would run out its holder gives it up
// when heartbeats fail: a fifth of the lease, against delays of the last
// successful heartbeat and clocks that run at slightly different rates.
func (o options) margin() time.Duration { return o.lease / 5 }

// ttlWindow is how far in the future the cleanup attribute is set: well past
// any lease, so that TTL deletes only locks nobody used for a long time.
func (o options) ttlWindow() time.Duration { return max(time.Hour, 100*o.lease) }

// ttlValue is the cleanup attribute's value for a write made now.
func (o options) ttlValue() *types.AttributeValueMemberN {
	return attrs.N(time.Now().Add(o.ttlWindow()).Unix())
}
