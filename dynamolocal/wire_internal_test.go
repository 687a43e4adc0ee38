package dynamolocal

import (
	"bytes"
	"io"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// closedWriteTo is a request body like the SDK's: its WriteTo answers
// io.EOF once it is closed.
type closedWriteTo struct {
	r      *bytes.Reader
	closed bool
}

func (b *closedWriteTo) Read(p []byte) (int, error) {
	if b.closed {
		return 0, io.EOF
	}
	return b.r.Read(p)
}

func (b *closedWriteTo) WriteTo(w io.Writer) (int64, error) {
	if b.closed {
		return 0, io.EOF
	}
	return b.r.WriteTo(w)
}

func (b *closedWriteTo) Close() error { b.closed = true; return nil }

type doFunc func(*http.Request) (*http.Response, error)

func (f doFunc) Do(r *http.Request) (*http.Response, error) { return f(r) }

// TestSocketClientHidesWriteTo: the transport's last read of a body the
// SDK has closed (io.Copy to io.Discard) must end without an error, which
// it does only through Read; the caller's request is left as it was.
func TestSocketClientHidesWriteTo(t *testing.T) {
	body := &closedWriteTo{r: bytes.NewReader([]byte(`{}`))}
	req, err := http.NewRequest(http.MethodPost, "http://127.0.0.1:1/", body)
	require.NoError(t, err)
	var sent io.ReadCloser
	c := socketClient{base: doFunc(func(r *http.Request) (*http.Response, error) {
		sent = r.Body
		return &http.Response{StatusCode: http.StatusOK, Body: http.NoBody}, nil
	})}
	_, err = c.Do(req)
	require.NoError(t, err)
	_, isWriterTo := sent.(io.WriterTo)
	assert.False(t, isWriterTo, "the body sent hides WriteTo")
	assert.Same(t, body, req.Body, "the caller's request keeps its body")

	b, err := io.ReadAll(sent)
	require.NoError(t, err)
	assert.Equal(t, `{}`, string(b))
	require.NoError(t, req.Body.Close()) // as the SDK does once the answer's headers are in
	_, err = io.Copy(io.Discard, sent)
	assert.NoError(t, err, "the transport's check for bytes past Content-Length")
	_, err = io.Copy(io.Discard, body)
	assert.ErrorIs(t, err, io.EOF, "through WriteTo the same check fails: the race")
}
