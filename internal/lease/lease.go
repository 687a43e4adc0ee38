// Package lease is the lease configuration that the lease holders of
// package pessimistic (locks) and package unit (units of work) share: the
// default owner, the default lease, the heartbeat rule, what Wait means,
// and the checks with their messages. Each package embeds [Config] in its
// exported Options and wraps the errors of [Config.Resolve] in its own
// ErrInvalidOption.
//
// Leases are timed with the time package alone (time.Now, timers), as
// everything else the library times: a test that runs the library and the
// embedded engine in a testing/synctest bubble runs them all in the
// bubble's virtual time, with no clock to pass around.
package lease

import (
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"sync"
	"time"

	"github.com/optimist-dynamo/optimist/internal/rnd"
)

// DefaultDuration is the lease of a holder that sets none.
const DefaultDuration = 20 * time.Second

// hostname is read once: item locks build default options on every call.
var hostname = sync.OnceValue(func() string {
	host, err := os.Hostname()
	if err != nil || host == "" {
		return "host"
	}
	return host
})

// DefaultOwner returns a new owner name: the host name and a random
// suffix, so that two holders on one host are told apart.
func DefaultOwner() string {
	var b [4]byte
	rnd.Read(b[:])
	return hostname() + "-" + hex.EncodeToString(b[:])
}

// Config is the lease settings of a holder. Its fields are promoted into
// pessimistic.Options and unit.Options, and the option functions of the
// same names set them.
type Config struct {
	// LeaseDuration is how long a lease lasts without a heartbeat (default
	// 20s). It must be positive.
	LeaseDuration time.Duration
	// Heartbeat is how often the holder renews its lease; 0 (the default)
	// means a quarter of LeaseDuration. It must be less than half of
	// LeaseDuration, so that one late or lost heartbeat does not let the
	// lease run out.
	Heartbeat time.Duration
	// Owner names the holder (default: the host name and a random suffix).
	// It must not be empty.
	Owner string
	// Wait bounds how long the holder waits for what another holds: nil
	// (the default) until the context ends, 0 not at all, d > 0 at most d.
	// It must not be negative.
	Wait *time.Duration
	// WriteRegion names the one AWS Region every write to the tables goes
	// to, for a global table whose other Regions only read: without it, a
	// global table in multi-Region eventual consistency is refused (a
	// lease in two Regions at once protects nothing). "" (the default):
	// learn it from DescribeTable.
	WriteRegion string
}

// Defaults returns the default settings, with a new [DefaultOwner].
func Defaults() Config {
	return Config{LeaseDuration: DefaultDuration, Owner: DefaultOwner()}
}

// Resolve checks c and returns it with the heartbeat set (a quarter of the
// lease if it was 0). Its error names the first setting that breaks a rule,
// and the rule, for the caller to wrap in its ErrInvalidOption.
func (c Config) Resolve() (Config, error) {
	switch {
	case c.LeaseDuration <= 0:
		return c, fmt.Errorf("LeaseDuration(%v): must be positive", c.LeaseDuration)
	case c.Heartbeat < 0:
		return c, fmt.Errorf("Heartbeat(%v): must be positive", c.Heartbeat)
	case c.Owner == "":
		return c, errors.New(`Owner(""): must not be empty`)
	case c.Wait != nil && *c.Wait < 0:
		return c, fmt.Errorf("Wait(%v): must not be negative", *c.Wait)
	}
	hb, err := Heartbeat(c.LeaseDuration, c.Heartbeat)
	if err != nil {
		return c, err
	}
	c.Heartbeat = hb
	return c, nil
}

// Heartbeat returns the heartbeat interval for a lease: heartbeat, or a
// quarter of the lease if heartbeat is 0. It must be under half the lease,
// so that one late or lost heartbeat does not let the lease run out.
func Heartbeat(lease, heartbeat time.Duration) (time.Duration, error) {
	if heartbeat == 0 {
		heartbeat = lease / 4
	}
	if heartbeat >= lease/2 {
		return heartbeat, fmt.Errorf("heartbeat %v must be less than half the lease %v", heartbeat, lease)
	}
	return heartbeat, nil
}

// WaitFor returns a Wait of d, for the option functions.
func WaitFor(d time.Duration) *time.Duration { return &d }

// Bounded reports how long to wait, and whether the wait is bounded at all
// (false: until the context ends).
func (c Config) Bounded() (time.Duration, bool) {
	if c.Wait == nil {
		return 0, false
	}
	return *c.Wait, true
}

// NoWait reports whether the holder does not wait at all (Wait 0).
func (c Config) NoWait() bool { return c.Wait != nil && *c.Wait == 0 }
