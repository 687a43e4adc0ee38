//go:build conformance && linux

package dynamolocal

// The tests of the Java launcher: they start AWS DynamoDB Local, so they
// need Java 17 and npm and run with the conformance suite (make
// conformance), never in make test.

import (
	"context"
	"net"
	"net/url"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestStartPutGetCloseDynamoDBLocal(t *testing.T) {
	t.Setenv(EnvEndpoint, "")
	t.Setenv(EnvEngine, EngineDynamoDBLocal)
	testStartPutGetClose(t)
}

// TestPortTakenByListener holds the port the JVM is told to use. DynamoDB
// Local then prints "Failed to bind" and hangs instead of exiting; Start must
// see that, stop the JVM and report errPortTaken so launch tries another port.
func TestPortTakenByListener(t *testing.T) {
	t.Setenv(EnvEndpoint, "")
	java, emu := installed(t)
	l, err := net.Listen("tcp", ":0")
	require.NoError(t, err)
	defer l.Close()
	port := l.Addr().(*net.TCPAddr).Port

	s, err := startProcess(context.Background(), java, emu, port)
	require.ErrorIs(t, err, errPortTaken)
	require.Nil(t, s)
	assert.Contains(t, err.Error(), "Failed to bind", "error carries the JVM's output")
}

// installed returns java and the emulator directory, installing it as Start
// would.
func installed(t *testing.T) (java, emu string) {
	t.Helper()
	java, err := lookJava()
	require.NoError(t, err)
	dir, err := cacheDir()
	require.NoError(t, err)
	emu, err = defaultInstaller(dir).install(context.Background())
	require.NoError(t, err)
	return java, emu
}

// TestPortServedByOther starts a JVM on the port of a DynamoDB Local that is
// already running: the race in which another process takes the free port
// first. The probe gets an answer at once, from the other server; Start must
// not take that server for its own (its JVM fails to bind and hangs).
func TestPortServedByOther(t *testing.T) {
	t.Setenv(EnvEndpoint, "")
	t.Setenv(EnvEngine, EngineDynamoDBLocal)
	other, err := Start(context.Background())
	require.NoError(t, err)
	defer other.Close()
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
