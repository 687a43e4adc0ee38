package faultwire

import (
	"errors"
	"io"
	"net/http"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestOpName(t *testing.T) {
	req, err := http.NewRequest(http.MethodPost, "http://localhost/", nil)
	require.NoError(t, err)
	assert.Equal(t, "", OpName(req))
	req.Header.Set("X-Amz-Target", "DynamoDB_20120810.TransactWriteItems")
	assert.Equal(t, "TransactWriteItems", OpName(req))
}

// served is a round trip that the server completes: it records that it
// ran and whether its answer was read to the end.
type served struct {
	ran  bool
	body *trackedBody
}

type trackedBody struct {
	io.Reader
	closed bool
}

func (b *trackedBody) Close() error { b.closed = true; return nil }

func (s *served) RoundTrip(*http.Request) (*http.Response, error) {
	s.ran = true
	s.body = &trackedBody{Reader: strings.NewReader(`{"Item":{}}`)}
	return &http.Response{StatusCode: http.StatusOK, Body: s.body}, nil
}

type failing struct{ err error }

func (f failing) RoundTrip(*http.Request) (*http.Response, error) { return nil, f.err }

// TestLoseAnswer: the request reaches the server, its answer is read whole
// and closed, and the caller sees a connection reset; a round trip that
// fails by itself keeps its own error.
func TestLoseAnswer(t *testing.T) {
	req, err := http.NewRequest(http.MethodPost, "http://localhost/", nil)
	require.NoError(t, err)

	s := &served{}
	resp, err := LoseAnswer(s, req)
	assert.Nil(t, resp)
	require.ErrorIs(t, err, syscall.ECONNRESET)
	assert.True(t, s.ran, "the server applied the request")
	n, _ := s.body.Read(make([]byte, 1))
	assert.Zero(t, n, "the answer was read to its end")
	assert.True(t, s.body.closed)

	refused := errors.New("refused")
	resp, err = LoseAnswer(failing{refused}, req)
	assert.Nil(t, resp)
	assert.ErrorIs(t, err, refused)
	assert.NotErrorIs(t, err, syscall.ECONNRESET)
}
