package unit

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/optimist-dynamo/optimist/internal/lease"
	"github.com/optimist-dynamo/optimist/internal/retry"
)

// Option configures [Begin] (and [Recover], which takes [Clock]).
type Option func(*options)

type options struct {
	coord     string
	lease     time.Duration
	heartbeat time.Duration // 0: lease/4
	wait      time.Duration
	waitSet   bool
	owner     string
	clock     TimeSource
	workers   int
	err       error
}

// Defaults.
const (
	DefaultLeaseDuration = 20 * time.Second
	defaultWorkers       = 16
	maxPoll              = 50 * time.Millisecond
)

// ErrInvalidOption is returned by Begin and Recover, before anything is
// sent, for options that cannot work: no Coordinator, a non-positive
// lease, a heartbeat of half the lease or more, an empty owner, a nil
// clock, a negative wait.
var ErrInvalidOption = errors.New("unit: invalid option")

func (o *options) fail(format string, args ...any) {
	if o.err == nil {
		o.err = fmt.Errorf("%w: "+format, append([]any{ErrInvalidOption}, args...)...)
	}
}

// Coordinator names the coordinator table (made with [CreateTable]) that
// holds the unit's record. Begin requires it.
func Coordinator(name string) Option {
	return func(o *options) {
		if name == "" {
			o.fail("Coordinator(\"\")")
		}
		o.coord = name
	}
}

// LeaseDuration sets how long the unit's record may go without a
// heartbeat before others may decide its owner died and undo it (default
// 20s). Recovery waits this long, on its own clock, watching the record
// unchanged.
func LeaseDuration(d time.Duration) Option {
	return func(o *options) {
		if d <= 0 {
			o.fail("LeaseDuration(%v): must be positive", d)
		}
		o.lease = d
	}
}

// Heartbeat sets how often the unit bumps its record's heartbeat counter
// (default a quarter of the lease; it must be less than half of it).
func Heartbeat(d time.Duration) Option {
	return func(o *options) {
		if d <= 0 {
			o.fail("Heartbeat(%v): must be positive", d)
		}
		o.heartbeat = d
	}
}

// Wait bounds how long a locking read, or Commit's locking of the items it
// writes, waits for an item another live unit holds: 0 means not at all
// (an immediate [*LockedError]), d > 0 at most d; without Wait, until ctx
// ends. Whatever the wait, a unit younger than the holder (begun later)
// waits only until it sees the holder alive, then gets ErrLocked
// ("wait-die"), so two units can never wait for each other forever.
func Wait(d time.Duration) Option {
	return func(o *options) {
		if d < 0 {
			o.fail("Wait(%v): must not be negative", d)
		}
		o.wait, o.waitSet = d, true
	}
}

// Owner names the unit's owner, stored in its record and its locks and
// reported in [LockedError] (default: host name and a random suffix).
func Owner(name string) Option {
	return func(o *options) {
		if name == "" {
			o.fail("Owner(\"\")")
		}
		o.owner = name
	}
}

// Clock sets the time source for heartbeats, waits and the observation of
// other units' leases (default the system clock); for tests.
func Clock(c TimeSource) Option {
	return func(o *options) {
		if c == nil {
			o.fail("Clock(nil)")
			return
		}
		o.clock = c
	}
}

// TimeSource is a source of time; Now must be monotonic. The package
// internal/fakeclock's Clock and pessimistic.SystemClock satisfy it.
type TimeSource interface {
	Now() time.Time
	Sleep(ctx context.Context, d time.Duration) error
}

type systemClock struct{}

func (systemClock) Now() time.Time                                   { return time.Now() }
func (systemClock) Sleep(ctx context.Context, d time.Duration) error { return retry.Sleep(ctx, d) }

func newOptions(opts []Option) (options, error) {
	host, _ := os.Hostname()
	if host == "" {
		host = "host"
	}
	var b [4]byte
	_, _ = rand.Read(b[:])
	o := options{lease: DefaultLeaseDuration, owner: host + "-" + hex.EncodeToString(b[:]), clock: systemClock{}, workers: defaultWorkers}
	for _, fn := range opts {
		if fn == nil {
			o.fail("nil Option")
			continue
		}
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
	return o, nil
}

func (o *options) poll() time.Duration { return min(maxPoll, o.lease/4) }
