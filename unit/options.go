package unit

import (
	"fmt"
	"time"

	"github.com/optimist-dynamo/optimist/internal/lease"
	"github.com/optimist-dynamo/optimist/observe"
)

// Option configures [Begin] (and [Recover], which takes [Observer]). The
// functions of this package make them; a caller may write its own, which
// sets fields of [Options].
type Option = func(*Options)

// Options are the settings of a unit. Begin starts from the defaults
// (below) and applies its options; the settings are checked once all
// options have run, and impossible ones (no Coordinator, a lease that is
// not positive, a heartbeat of half the lease or more, an empty owner, a
// negative wait) are errors matching [ErrInvalidOption],
// before anything is sent.
type Options struct {
	// The lease settings, shared with package pessimistic: LeaseDuration
	// (default 20s), Heartbeat (0: a quarter of the lease), Owner (default
	// the host name and a random suffix) and Wait (nil: until the context
	// ends; 0: not at all; d > 0: at most d). See the option functions of
	// the same names.
	lease.Config

	// Coordinator names the coordinator table; Begin requires it. See
	// [Coordinator].
	Coordinator string

	// Started, if set, is the unit's age for wait-die instead of the time
	// Begin is called (see [KeepAge]).
	Started time.Time

	// Observer receives the unit's events (package observe); nil (the
	// default) costs nothing. See [Observer].
	Observer observe.Observer
}

// options are the settings resolved: defaults derived and checked.
type options struct {
	coord     string
	lease     time.Duration
	heartbeat time.Duration
	wait      time.Duration
	waitSet   bool // false: wait until ctx ends
	owner     string
	workers   int
	started   time.Time
	observer  observe.Observer
	region    string // WriteRegion
}

// Defaults.
const (
	DefaultLeaseDuration = lease.DefaultDuration
	defaultWorkers       = 16
	maxPoll              = 50 * time.Millisecond
)

// Coordinator names the coordinator table (made with [CreateTable]) that
// holds the unit's record. Begin requires it.
func Coordinator(name string) Option {
	return func(o *Options) { o.Coordinator = name }
}

// WriteRegion names the one AWS Region every write to the coordinator
// table and the tables a unit writes goes to, for global tables whose
// other Regions only read. Without it, a unit learns from DescribeTable
// (with the call's context) whether each table it writes is global: once
// per mapper.Table value for the items of a Table that names no
// WriteRegion either, and once per unit for the coordinator table and the
// others. It refuses one in multi-Region eventual
// consistency with an error matching [ErrGlobalTable]: there units in two
// Regions could each lock the same item (a condition is checked only
// against the writer's Region, and last writer wins). A client configured
// for another Region than the one named is refused.
func WriteRegion(region string) Option {
	return func(o *Options) { o.WriteRegion = region }
}

// LeaseDuration sets how long the unit's record may go without a
// heartbeat before others may decide its owner died and undo it (default
// 20s). Recovery waits this long, on its own clock, watching the record
// unchanged.
func LeaseDuration(d time.Duration) Option {
	return func(o *Options) { o.LeaseDuration = d }
}

// Heartbeat sets how often the unit bumps its record's heartbeat counter
// (default, and with 0, a quarter of the lease; it must be less than half
// of it).
func Heartbeat(d time.Duration) Option {
	return func(o *Options) { o.Heartbeat = d }
}

// Wait bounds how long a locking read, or Commit's locking of the items it
// writes, waits for an item another live unit holds: 0 means not at all
// (an immediate [*LockedError]), d > 0 at most d; without Wait, until ctx
// ends. Whatever the wait, a unit younger than the holder (begun later)
// waits only until it sees the holder alive, then gets ErrLocked
// ("wait-die"), so two units can never wait for each other forever.
func Wait(d time.Duration) Option {
	return func(o *Options) { o.Wait = lease.WaitFor(d) }
}

// Owner names the unit's owner, stored in its record and its locks and
// reported in [LockedError] (default: host name and a random suffix).
func Owner(name string) Option {
	return func(o *Options) { o.Owner = name }
}

// KeepAge makes a unit that retries the work of prev keep prev's age for
// wait-die: among units that meet at an item, the older waits and the
// younger gives up (ErrLocked), so a unit that retries with a new age each
// time can lose to newer units again and again. With KeepAge it grows
// older with each retry, and wins. A nil prev changes nothing.
//
//	var prev *unit.Unit
//	for {
//		u, err := unit.Begin(ctx, c, unit.Coordinator("units"), unit.KeepAge(prev))
//		...
//		if err = u.Commit(ctx); !errors.Is(err, unit.ErrLocked) {
//			break
//		}
//		prev = u
//	}
func KeepAge(prev *Unit) Option {
	return func(o *Options) {
		if prev != nil {
			o.Started = prev.Started()
		}
	}
}

// Observer makes a unit (given to Begin), or Recover, report to o (package
// observe; nil: nothing, at no cost). Events, each with Name the unit's id
// and Table the coordinator table:
//
//   - a Unit span from Begin to the end of Commit or Rollback (its End's
//     Op is "Commit" or "Rollback", Err the call's error);
//   - UnitCommit when Commit succeeds, UnknownOutcome when its commit
//     point's outcome cannot be learnt, UnitRollback when the unit rolls
//     back (Err the cause, when Commit rolled it back);
//   - HeartbeatFailed for a heartbeat that failed (Err the call's error, or
//     ErrAborted when recovery aborted the unit);
//   - UnitSettled when a locking read or Commit met the lock of a unit that
//     is over or dead and rolled the item forward or back (Name that
//     unit's id; Table and Key the item);
//   - UnitRecovered for each unit Recover finishes (Outcome
//     [observe.OutcomeForward] or [observe.OutcomeBack]).
//
// The heartbeat events come from the unit's own goroutine: o must be safe
// for concurrent use.
func Observer(o observe.Observer) Option {
	return func(opts *Options) { opts.Observer = o }
}

func newOptions(opts []Option) (options, error) {
	o := Options{Config: lease.Defaults()}
	for _, fn := range opts {
		if fn == nil {
			return options{}, fmt.Errorf("%w: nil Option", ErrInvalidOption)
		}
		fn(&o)
	}
	cfg, err := o.Config.Resolve()
	if err != nil {
		return options{}, fmt.Errorf("%w: %w", ErrInvalidOption, err)
	}
	wait, bounded := cfg.Bounded()
	return options{
		coord: o.Coordinator, lease: cfg.LeaseDuration, heartbeat: cfg.Heartbeat,
		wait: wait, waitSet: bounded, owner: cfg.Owner, workers: defaultWorkers,
		started: o.Started, observer: o.Observer, region: cfg.WriteRegion,
	}, nil
}

func (o *options) poll() time.Duration { return min(maxPoll, o.lease/4) }
