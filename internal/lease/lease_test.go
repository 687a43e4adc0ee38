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
