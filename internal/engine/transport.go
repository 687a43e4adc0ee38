package engine

import (
	"bytes"
	"hash/crc32"
	"io"
	"net/http"
	"strconv"
)

// The HTTP around an answer, written for the in-memory client as for a
// socket. A request in memory is mostly the SDK client's own CPU; what the
// engine adds here is kept to a few allocations: the answer's headers set
// under their canonical names (http.Header.Set would canonicalise each
// name again) with their values in one array, and the answer's body one
// reader.

// The answer's header names, canonical as http.Header.Set writes them.
const (
	hdrContentType   = "Content-Type"
	hdrRequestID     = "X-Amzn-Requestid" // x-amzn-RequestId
	hdrCRC32         = "X-Amz-Crc32"      // x-amz-crc32
	hdrContentLength = "Content-Length"
)

// writeHeaders sets the answer's headers in h: its content type, a
// request ID numbered seq, its CRC32 when it succeeded (the SDK checks
// it, as DynamoDB sends it) and its length.
func writeHeaders(h http.Header, resp response, seq uint64) {
	vals := make([]string, 4)
	vals[0] = "application/x-amz-json-1.0"
	vals[1] = requestID(seq)
	vals[2] = strconv.Itoa(len(resp.body))
	h[hdrContentType] = vals[0:1:1]
	h[hdrRequestID] = vals[1:2:2]
	h[hdrContentLength] = vals[2:3:3]
	if resp.status == http.StatusOK {
		vals[3] = strconv.FormatUint(uint64(crc32.ChecksumIEEE(resp.body)), 10)
		h[hdrCRC32] = vals[3:4:4]
	}
}

// requestID is the request ID of the seq-th answer, a UUID's form:
// 00000000-0000-4000-8000- and seq in hex, at least 12 digits.
func requestID(seq uint64) string {
	const prefix, hex = "00000000-0000-4000-8000-", "0123456789abcdef"
	b := make([]byte, 0, len(prefix)+16)
	b = append(b, prefix...)
	digits := 12
	for digits < 16 && seq>>(4*digits) != 0 {
		digits++
	}
	for i := digits - 1; i >= 0; i-- {
		b = append(b, hex[seq>>(4*i)&0xf])
	}
	return string(b)
}

// statusLine is an answer's status as net/http writes it.
func statusLine(code int) string {
	if code == http.StatusOK {
		return "200 OK"
	}
	return strconv.Itoa(code) + " " + http.StatusText(code)
}

// answerBody is an answer's body in memory: a reader whose Close does
// nothing.
type answerBody struct{ bytes.Reader }

func (*answerBody) Close() error { return nil }

func newAnswerBody(b []byte) io.ReadCloser {
	r := &answerBody{}
	r.Reset(b)
	return r
}
