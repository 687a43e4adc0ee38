package engine

import (
	"fmt"
	"hash/crc32"
	"net/http"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestAnswerHeaders holds the answer's headers to what http.Header.Set and
// fmt write: canonical names, the request ID's UUID form, the CRC32 on a
// success alone.
func TestAnswerHeaders(t *testing.T) {
	for _, seq := range []uint64{0, 1, 0xabc, 1<<48 - 1, 1 << 48, 1<<64 - 1} {
		assert.Equal(t, fmt.Sprintf("00000000-0000-4000-8000-%012x", seq), requestID(seq))
	}
	body := []byte(`{"Item":{}}`)
	for _, status := range []int{http.StatusOK, http.StatusBadRequest} {
		want := http.Header{}
		want.Set("Content-Type", "application/x-amz-json-1.0")
		want.Set("x-amzn-RequestId", requestID(7))
		if status == http.StatusOK {
			want.Set("x-amz-crc32", strconv.FormatUint(uint64(crc32.ChecksumIEEE(body)), 10))
		}
		want.Set("Content-Length", strconv.Itoa(len(body)))
		got := http.Header{}
		writeHeaders(got, response{status: status, body: body}, 7)
		assert.Equal(t, want, got)
		assert.Equal(t, strconv.Itoa(status)+" "+http.StatusText(status), statusLine(status))
	}
}

// TestScopeOf: a request's scope is the access key and the region of its
// credential, the whole credential when it has fewer than three parts.
func TestScopeOf(t *testing.T) {
	for cred, want := range map[string]string{
		"AKID/20261126/us-east-1/dynamodb/aws4_request": "AKID/us-east-1",
		"AKID/20261126/eu-west-1":                       "AKID/eu-west-1",
		"AKID/20261126":                                 "AKID/20261126",
		"AKID":                                          "AKID",
		"":                                              "",
	} {
		h := http.Header{}
		h.Set("Authorization", "AWS4-HMAC-SHA256 Credential="+cred+", SignedHeaders=host, Signature=x")
		assert.Equal(t, want, scopeOf(h), cred)
	}
	assert.Empty(t, scopeOf(http.Header{}))
}
