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
