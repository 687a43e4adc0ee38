// Package engine is an embedded DynamoDB: a server of DynamoDB's JSON
// protocol (awsJson1.0, target prefix DynamoDB_20120810) that keeps its
// tables in memory, in the process. The SDK's own client talks to it through
// an in-memory HTTP client ([Engine.Do]) or over a socket ([Engine] is an
// [http.Handler]); either way the SDK's serialisers, retries and error types
// run unchanged, and so do HTTP-level fault injectors put in between.
//
// Semantics are DynamoDB's as documented by AWS and as measured on AWS
// DynamoDB Local, which holds this engine to account through the
// differential suite in internal/conformance (make conformance). Each
// known difference is listed in the package dynamolocal's documentation.
// The wording of the error answers is kept apart from the checks, in
// messages.go, to be read beside DynamoDB Local's.
//
// Every request runs under one lock, so each is atomic and isolated,
// transactions are serializable with each other and with single writes.
package engine

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// Options configure an [Engine].
type Options struct {
	// TTLDelay is how long after an item's TTL the engine deletes it.
	// DynamoDB deletes expired items within a few days, DynamoDB Local
	// after about ten seconds; the default, 0, deletes them at the first
	// request that finds the clock past the TTL. Expired items that are
	// not deleted yet are read and written like any other, as on DynamoDB.
	TTLDelay time.Duration
	// Faults, when set, is consulted for every request; see [Faults].
	Faults *Faults
}

// Engine is an embedded DynamoDB. The zero value is not usable; call [New].
// Its methods are safe for concurrent use.
type Engine struct {
	opts Options

	mu     sync.Mutex // guards everything below: every request runs under it
	scopes map[string]*scope
	// hold, during a request a FaultThrottled rule throttles in part, says
	// which of its items to leave unprocessed (BatchWriteItem).
	hold func(table string, item map[string]types.AttributeValue) bool

	reqSeq atomic.Uint64
}

// scope is the set of tables of one access key and region: DynamoDB Local
// keeps tables apart by both, and so does the engine.
type scope struct {
	region string // the Region of the requests, for a table's replicas
	tables map[string]*table
	tokens map[string]*tokenEntry // TransactWriteItems client request tokens
	aging  []*tokenEntry          // the tokens in the order they were taken, to forget them
}

// New returns an engine with no tables.
func New(opts ...func(*Options)) *Engine {
	e := &Engine{scopes: map[string]*scope{}}
	for _, o := range opts {
		if o != nil {
			o(&e.opts)
		}
	}
	return e
}

// now is the engine's time: item TTLs expire, tables are dated and client
// request tokens age by it. It is the time package's, so that an engine
// made in a testing/synctest bubble, served on its caller's goroutine
// ([Engine.Do]), runs on the bubble's virtual time with the code it
// serves.
func (e *Engine) now() time.Time { return time.Now() }

// targetPrefix is the X-Amz-Target prefix of DynamoDB's operations.
const targetPrefix = "DynamoDB_20120810."

// maxBody bounds a request body: DynamoDB's largest requests (a 4 MB
// transaction, a 16 MB BatchGetItem answer is a response) stay well below.
const maxBody = 32 << 20

// readBody reads a request body of at most maxBody bytes, whose length is
// n when it is declared (else -1 or 0): into one buffer of that length,
// where io.ReadAll would grow its buffer step by step, a garbage of
// several times the body at every request. More bytes than declared are
// read too, fewer are what there is, as io.ReadAll reads them.
func readBody(r io.Reader, n int64) ([]byte, error) {
	r = io.LimitReader(r, maxBody)
	if n <= 0 || n > maxBody {
		return io.ReadAll(r)
	}
	b := make([]byte, n)
	switch k, err := io.ReadFull(r, b); err {
	case nil:
	case io.EOF, io.ErrUnexpectedEOF:
		return b[:k], nil
	default:
		return nil, err
	}
	var more [1]byte
	if k, err := io.ReadFull(r, more[:]); k == 0 {
		if err == io.EOF {
			err = nil
		}
		return b, err
	}
	rest, err := io.ReadAll(r)
	return append(append(b, more[0]), rest...), err
}

// request is one decoded call.
type request struct {
	op     string
	body   []byte
	scope  string
	header http.Header
	hold   func(table string, item map[string]types.AttributeValue) bool // see Engine.hold
}

// response is the answer to one call before any fault is applied.
type response struct {
	status int
	body   []byte
}

// ServeHTTP answers one DynamoDB request. Faults that drop the connection
// (a lost response) hijack it and close it without an answer.
func (e *Engine) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, err := readBody(r.Body, r.ContentLength)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	resp, drop := e.serve(r.Context(), r.Header, body)
	if drop {
		if hj, ok := w.(http.Hijacker); ok {
			if conn, _, err := hj.Hijack(); err == nil {
				conn.Close()
				return
			}
		}
		panic(http.ErrAbortHandler) // closes the connection without an answer
	}
	writeHeaders(w.Header(), resp, e.reqSeq.Add(1))
	w.WriteHeader(resp.status)
	w.Write(resp.body)
}

// ErrConnectionLost is what [Engine.Do] returns for a request whose answer
// a fault dropped (after applying it, or before, as the fault says): the
// in-memory form of a connection reset, which the SDK retries.
var ErrConnectionLost = errors.New("engine: connection reset by peer (injected)")

// Do serves req in memory, with no socket: an engine is an HTTP client for
// the SDK (dynamodb.Options.HTTPClient).
func (e *Engine) Do(req *http.Request) (*http.Response, error) {
	resp, _, err := e.do(req, nil)
	return resp, err
}

// do is [Engine.Do], with a schedule of faults of the caller's (extra)
// consulted before the engine's own; it reports the fault extra decided.
func (e *Engine) do(req *http.Request, extra *Faults) (*http.Response, Fault, error) {
	var body []byte
	if req.Body != nil {
		var err error
		body, err = readBody(req.Body, req.ContentLength)
		req.Body.Close()
		if err != nil {
			return nil, FaultNone, err
		}
	}
	if err := req.Context().Err(); err != nil {
		return nil, FaultNone, err
	}
	resp, fault, drop := e.serveWith(req.Context(), req.Header, body, extra)
	if drop {
		return nil, fault, ErrConnectionLost
	}
	h := make(http.Header, 4)
	writeHeaders(h, resp, e.reqSeq.Add(1))
	return &http.Response{
		Status:        statusLine(resp.status),
		StatusCode:    resp.status,
		Proto:         "HTTP/1.1",
		ProtoMajor:    1,
		ProtoMinor:    1,
		Header:        h,
		Body:          newAnswerBody(resp.body),
		ContentLength: int64(len(resp.body)),
		Request:       req,
	}, fault, nil
}

// serve runs one request, with faults, and reports whether the answer is
// to be dropped.
func (e *Engine) serve(ctx context.Context, header http.Header, body []byte) (response, bool) {
	req := &request{
		op:     strings.TrimPrefix(header.Get("X-Amz-Target"), targetPrefix),
		body:   body,
		scope:  scopeOf(header),
		header: header,
	}
	if f := e.opts.Faults; f != nil {
		return f.serve(ctx, e, req)
	}
	return e.handle(req), false
}

// handle runs one request without faults.
func (e *Engine) handle(req *request) response {
	h, ok := handlers[req.op]
	if !ok {
		return errorResponse(unknownOperation())
	}
	// The body is read before the lock is taken: reading it needs nothing
	// of the engine's, and requests in parallel then read theirs in
	// parallel.
	run := h(req.body)
	e.mu.Lock()
	defer e.mu.Unlock()
	e.hold = req.hold
	defer func() { e.hold = nil }()
	e.sweep()
	out, err := run(e, e.scopeFor(req.scope))
	if err != nil {
		var api *apiError
		if !errors.As(err, &api) {
			api = internalFailure()
		}
		return errorResponse(api)
	}
	b, err := encodeAnswer(out)
	if err != nil {
		return errorResponse(serverError(msgEngineEncodingResponse, err))
	}
	return response{status: http.StatusOK, body: b}
}

func errorResponse(e *apiError) response {
	return response{status: e.status, body: e.body()}
}

// scopeOf reads the access key and region of a request from its SigV4
// Authorization header ("Credential=AKID/date/region/service/..."). The
// signature is not checked.
func scopeOf(h http.Header) string {
	auth := h.Get("Authorization")
	i := strings.Index(auth, "Credential=")
	if i < 0 {
		return ""
	}
	cred := auth[i+len("Credential="):]
	if j := strings.IndexAny(cred, ", "); j >= 0 {
		cred = cred[:j]
	}
	// key/date/region/...: the key and the region.
	key, rest, ok := strings.Cut(cred, "/")
	if ok {
		_, rest, ok = strings.Cut(rest, "/")
	}
	if !ok {
		return cred
	}
	region, _, _ := strings.Cut(rest, "/")
	return key + "/" + region
}

func (e *Engine) scopeFor(name string) *scope {
	s := e.scopes[name]
	if s == nil {
		s = &scope{tables: map[string]*table{}, tokens: map[string]*tokenEntry{}}
		if i := strings.LastIndex(name, "/"); i >= 0 {
			s.region = name[i+1:]
		}
		e.scopes[name] = s
	}
	return s
}

// handler reads the JSON body of a request of one operation and returns
// the operation, to run under the engine's lock: it returns the value to
// encode as the answer, or an error (an *apiError, or anything else for an
// internal failure). A body that could not be read is answered by the
// operation returned, with its SerializationException.
type handler func(body []byte) func(e *Engine, s *scope) (any, error)

// handlers is the table of operations: every operation the engine serves,
// by name, and its handler. An operation not listed here is answered
// UnknownOperationException.
var handlers = map[string]handler{
	"CreateTable":        op((*Engine).createTable),
	"DescribeTable":      op((*Engine).describeTable),
	"UpdateTable":        op((*Engine).updateTable),
	"DeleteTable":        op((*Engine).deleteTable),
	"ListTables":         op((*Engine).listTables),
	"UpdateTimeToLive":   op((*Engine).updateTTL),
	"DescribeTimeToLive": op((*Engine).describeTTL),
	"GetItem":            op((*Engine).getItem),
	"PutItem":            op((*Engine).putItem),
	"DeleteItem":         op((*Engine).deleteItem),
	"UpdateItem":         op((*Engine).updateItem),
	"Query":              op((*Engine).query),
	"Scan":               op((*Engine).scan),
	"BatchGetItem":       op((*Engine).batchGetItem),
	"BatchWriteItem":     op((*Engine).batchWriteItem),
	"TransactWriteItems": op((*Engine).transactWriteItems),
	"TransactGetItems":   op((*Engine).transactGetItems),
	"TagResource":        op((*Engine).tagResource),
	"UntagResource":      op((*Engine).untagResource),
	"ListTagsOfResource": op((*Engine).listTagsOfResource),
}

// op makes the handler of an operation whose request decodes into In.
func op[In any](f func(e *Engine, s *scope, in *In) (any, error)) handler {
	return func(body []byte) func(e *Engine, s *scope) (any, error) {
		in := new(In)
		if err := decode(body, in); err != nil {
			return func(*Engine, *scope) (any, error) { return nil, err }
		}
		return func(e *Engine, s *scope) (any, error) { return f(e, s, in) }
	}
}
