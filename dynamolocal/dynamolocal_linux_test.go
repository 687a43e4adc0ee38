//go:build linux

package dynamolocal

import (
	"context"
	"net/url"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestPortServedByOther starts a JVM on the port of a DynamoDB Local that is
// already running: the race in which another process takes the free port
// first. The probe gets an answer at once, from the other server; Start must
// not take that server for its own (its JVM fails to bind and hangs).
func TestPortServedByOther(t *testing.T) {
	t.Setenv(EnvEndpoint, "")
	other := New(t)
	require.NotNil(t, other.cmd, "needs a server started here, not DYNAMODB_ENDPOINT")
	u, err := url.Parse(other.Endpoint())
	require.NoError(t, err)
	port, err := strconv.Atoi(u.Port())
	require.NoError(t, err)
	owned, known := listenerOwnedBy(other.cmd.Process.Pid, port)
	require.True(t, known)
	require.True(t, owned, "the shared server owns its port")

	java, emu := installed(t)
	s, err := startProcess(context.Background(), java, emu, port)
	require.ErrorIs(t, err, errPortTaken)
	assert.Nil(t, s)
}
