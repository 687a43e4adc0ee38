package dynamolocal

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestInvalidEndpointFailsAtOnce: an endpoint that is not an http(s) URL
// with a host is refused before anything is sent (it used to be retried
// for Start's whole timeout), with a message that names the variable.
func TestInvalidEndpointFailsAtOnce(t *testing.T) {
	for endpoint, want := range map[string]string{
		"not a url":          `DYNAMODB_ENDPOINT="not a url" is not a URL (invalid character " " in host name); want http://host:port or host:port`,
		"ftp://localhost:21": `DYNAMODB_ENDPOINT="ftp://localhost:21": scheme "ftp"; want http:// or https://`,
		"http://":            `DYNAMODB_ENDPOINT="http://" has no host; want http://host:port or host:port`,
		"http://:8000":       `DYNAMODB_ENDPOINT="http://:8000" has no host; want http://host:port or host:port`,
		"localhost:port":     `DYNAMODB_ENDPOINT="localhost:port" is not a URL (invalid port ":port" after host); want http://host:port or host:port`,
	} {
		t.Setenv(EnvEndpoint, endpoint)
		start := time.Now()
		_, err := Start(context.Background())
		require.ErrorIs(t, err, ErrInvalidEndpoint, endpoint)
		assert.Less(t, time.Since(start), time.Second, "at once")
		assert.Equal(t, "dynamolocal: invalid endpoint: "+want, err.Error())

		_, err = Attach(context.Background(), endpoint)
		require.ErrorIs(t, err, ErrInvalidEndpoint, endpoint)
		assert.NotContains(t, err.Error(), EnvEndpoint, "Attach was given the endpoint, not the variable")
	}
}

func TestCheckEndpoint(t *testing.T) {
	for in, want := range map[string]string{
		"localhost:8000":           "http://localhost:8000",
		"http://127.0.0.1:8000/":   "http://127.0.0.1:8000",
		"https://dynamo.internal":  "https://dynamo.internal",
		"http://[::1]:8000":        "http://[::1]:8000",
		"HTTP://LOCALHOST:8000///": "HTTP://LOCALHOST:8000",
	} {
		got, err := checkEndpoint(in)
		require.NoError(t, err, in)
		assert.Equal(t, want, got)
	}
}
