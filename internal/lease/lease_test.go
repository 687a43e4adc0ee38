package lease

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestHeartbeat(t *testing.T) {
	hb, err := Heartbeat(20*time.Second, 0)
	require.NoError(t, err)
	assert.Equal(t, 5*time.Second, hb, "default: a quarter of the lease")
	hb, err = Heartbeat(20*time.Second, 9*time.Second)
	require.NoError(t, err)
	assert.Equal(t, 9*time.Second, hb)
	_, err = Heartbeat(20*time.Second, 10*time.Second)
	assert.EqualError(t, err, "heartbeat 10s must be less than half the lease 20s")
}

func TestDefaults(t *testing.T) {
	a, b := Defaults(), Defaults()
	assert.Equal(t, DefaultDuration, a.LeaseDuration)
	assert.Equal(t, 20*time.Second, DefaultDuration)
	assert.NotEqual(t, a.Owner, b.Owner, "a random suffix tells holders on one host apart")
	assert.Regexp(t, `^.+-[0-9a-f]{8}$`, a.Owner)
	_, bounded := a.Bounded()
	assert.False(t, bounded, "by default, wait until the context ends")
	assert.False(t, a.NoWait())

	r, err := a.Resolve()
	require.NoError(t, err)
	assert.Equal(t, 5*time.Second, r.Heartbeat, "a quarter of the lease")
	a.LeaseDuration = time.Second
	r, err = a.Resolve()
	require.NoError(t, err)
	assert.Equal(t, 250*time.Millisecond, r.Heartbeat, "derived from the lease it is resolved with")
}

func TestWait(t *testing.T) {
	c := Defaults()
	c.Wait = WaitFor(0)
	assert.True(t, c.NoWait())
	d, bounded := c.Bounded()
	assert.True(t, bounded)
	assert.Zero(t, d)
	c.Wait = WaitFor(3 * time.Second)
	assert.False(t, c.NoWait())
	d, bounded = c.Bounded()
	assert.True(t, bounded)
	assert.Equal(t, 3*time.Second, d)
}

func TestResolveRefuses(t *testing.T) {
	for want, change := range map[string]func(*Config){
		"LeaseDuration(0s): must be positive":                func(c *Config) { c.LeaseDuration = 0 },
		"LeaseDuration(-1s): must be positive":               func(c *Config) { c.LeaseDuration = -time.Second },
		"Heartbeat(-1s): must be positive":                   func(c *Config) { c.Heartbeat = -time.Second },
		"heartbeat 10s must be less than half the lease 20s": func(c *Config) { c.Heartbeat = 10 * time.Second },
		`Owner(""): must not be empty`:                       func(c *Config) { c.Owner = "" },
		"Wait(-1ns): must not be negative":                   func(c *Config) { c.Wait = WaitFor(-1) },
	} {
		c := Defaults()
		change(&c)
		_, err := c.Resolve()
		assert.EqualError(t, err, want)
	}
}
