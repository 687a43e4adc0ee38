package engine

import (
	"errors"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/stretchr/testify/require"
)

// TestReadBody reads bodies whose declared length is right, unknown, too
// short or too long: each reads as the bytes that are there.
func TestReadBody(t *testing.T) {
	for _, c := range []struct {
		body string
		n    int64
	}{
		{`{"a":1}`, 7}, {`{"a":1}`, -1}, {`{"a":1}`, 0}, {`{"a":1}`, 4}, {`{"a":1}`, 20}, {"", 5}, {"", -1},
		{strings.Repeat("x", 5000), 5000}, {strings.Repeat("x", 5000), 100},
	} {
		b, err := readBody(iotest.OneByteReader(strings.NewReader(c.body)), c.n)
		require.NoError(t, err)
		require.Equal(t, c.body, string(b), "declared %d", c.n)
	}
	boom := errors.New("boom")
	_, err := readBody(iotest.ErrReader(boom), 7)
	require.ErrorIs(t, err, boom)
}
