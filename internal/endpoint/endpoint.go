// Package endpoint reads a DynamoDB endpoint as the project accepts one:
// package dynamolocal for DYNAMODB_ENDPOINT and Attach, and the optimist
// command for -endpoint, so that both take the same values.
package endpoint

import (
	"errors"
	"fmt"
	"net/url"
	"strings"
)

// Parse returns endpoint as a base URL: an http or https URL with a host,
// or host:port, to which http:// is added; without a trailing slash. The
// SDK would take a malformed one and fail every call, so it is refused
// here with the reason.
func Parse(endpoint string) (string, error) {
	raw := endpoint
	if !strings.Contains(endpoint, "://") {
		endpoint = "http://" + endpoint
	}
	endpoint = strings.TrimRight(endpoint, "/")
	u, err := url.Parse(endpoint)
	switch {
	case err != nil:
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err // the URL is in the message already
		}
		return "", fmt.Errorf("%q is not a URL (%v); want http://host:port or host:port", raw, err)
	case u.Scheme != "http" && u.Scheme != "https":
		return "", fmt.Errorf("%q: scheme %q; want http:// or https://", raw, u.Scheme)
	case u.Hostname() == "":
		return "", fmt.Errorf("%q has no host; want http://host:port or host:port", raw)
	}
	return endpoint, nil
}
