//go:build go1.26

package dynamolocal

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing/synctest"
	"time"

	"github.com/optimist-dynamo/optimist/internal/engine"
)

// schedule is the simulation's scheduler, one goroutine in the bubble. A
// bubble does not order runnable goroutines, so the scheduler does: once
// every other goroutine is durably blocked (synctest.Wait), it starts the
// next actor, or serves one pending request picked by the seeded stream
// among them sorted by client and body (their arrival order is the
// runtime's), releases its caller, and waits again. With nothing to do it
// blocks until a request arrives, which lets virtual time pass.
func (s *Sim) schedule() {
	for {
		synctest.Wait()
		s.mu.Lock()
		if len(s.starts) > 0 {
			f := s.starts[0]
			s.starts = s.starts[1:]
			s.mu.Unlock()
			go f()
			continue
		}
		if len(s.woken) > 0 {
			w := s.woken[0]
			s.woken = s.woken[1:]
			s.mu.Unlock()
			close(w.turn)
			continue
		}
		s.pending = slices.DeleteFunc(s.pending, func(c *simCall) bool { return c.gone })
		if len(s.pending) == 0 {
			select {
			case <-s.stop:
				// Later requests fail at once (ErrSimEnded), and the
				// library's goroutines no longer wait for turns.
				s.closed = true
				s.mu.Unlock()
				return
			default:
			}
			s.mu.Unlock()
			select {
			case <-s.kick:
			case <-s.stop:
			}
			continue
		}
		slices.SortStableFunc(s.pending, func(a, b *simCall) int { return strings.Compare(a.key, b.key) })
		i := s.pick.IntN(len(s.pending))
		call := s.pending[i]
		s.pending = slices.Delete(s.pending, i, i+1)
		s.mu.Unlock()
		s.serve(call)
	}
}

// simWake is a goroutine of the library that woke (or started), waiting
// for its turn: the scheduler closes turn.
type simWake struct {
	ticket uint64
	turn   chan struct{}
}

// simGate is the simulation's [simhook.Scheduler]: the library's
// goroutines that start, or wake from a sleep or a wait for a lock, wait
// for their turn as the callers of answered requests do, and the
// scheduler lets them go one at a time, each once everything else is
// blocked, in the order of their tickets, before it serves a request.
type simGate struct{ s *Sim }

func (g simGate) Ticket() uint64 {
	g.s.mu.Lock()
	defer g.s.mu.Unlock()
	return g.s.ticketLocked()
}

func (g simGate) Resume(t uint64) { g.s.resume(t) }

// ticketLocked numbers a wait that starts now; s.mu is held. The goroutines
// run one at a time, so the tickets are given in an order the seed fixes.
func (s *Sim) ticketLocked() uint64 {
	s.tickets++
	return s.tickets
}

// resume blocks until the scheduler gives ticket t its turn (at once once
// the scheduler is gone).
func (s *Sim) resume(t uint64) {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return
	}
	w := simWake{ticket: t, turn: make(chan struct{})}
	i, _ := slices.BinarySearchFunc(s.woken, t, func(w simWake, t uint64) int { return cmp.Compare(w.ticket, t) })
	s.woken = slices.Insert(s.woken, i, w)
	s.poke()
	s.mu.Unlock()
	<-w.turn
}

// serve serves one call with its client's faults, cut and crash, records
// it, and answers its caller (unless the client crashed: its caller saw
// its context end, and waits for the simulation's end).
func (s *Sim) serve(call *simCall) {
	c := call.c
	s.mu.Lock()
	if c.crashed { // crashed while its call waited
		s.mu.Unlock()
		return
	}
	c.n++
	n, cut, faults := c.n, time.Now().Before(c.cutUntil), c.faults
	s.mu.Unlock()

	op := strings.TrimPrefix(call.req.Header.Get("X-Amz-Target"), "DynamoDB_20120810.")
	var (
		resp  *http.Response
		fault engine.Fault
		err   error
		out   []byte
	)
	if cut {
		fault, err = engine.FaultPartitioned, engine.ErrConnectionLost
	} else {
		req := call.req.Clone(call.req.Context())
		req.Body = io.NopCloser(bytes.NewReader(call.body))
		resp, fault, err = s.eng.DoWith(req, faults)
	}
	status := 0
	if resp != nil {
		out, _ = io.ReadAll(resp.Body)
		resp.Body = io.NopCloser(bytes.NewReader(out))
		status = resp.StatusCode
	}
	line := fmt.Sprintf("%v %s#%d %s %s -> %d %s", time.Since(s.start), c.name, n, op, canonical(call.body), status, canonical(out))
	if fault != engine.FaultNone {
		line += " [" + fault.String() + "]"
	}
	s.mu.Lock()
	s.lines = append(s.lines, line)
	if c.crashAfter == n && !s.ending {
		s.crashLocked(c)
		s.mu.Unlock()
		return
	}
	s.mu.Unlock()
	// The answer travels for a seeded latency of virtual time, so that
	// time moves as requests are served, as over a network, and answers
	// mostly arrive at instants of their own (those that meet at one
	// instant go on in the order of their tickets, see simGate).
	call.reply <- simReply{resp: resp, err: err, latency: minLatency + time.Duration(s.pick.Int64N(int64(minLatency)))}
}

// minLatency is the shortest time an answer takes to reach its caller.
const minLatency = time.Millisecond

// canonical re-encodes a JSON body with its keys sorted, so that two
// bodies equal as JSON are equal as text; a body that is not JSON is kept.
func canonical(b []byte) string {
	if len(b) == 0 {
		return "-"
	}
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var v any
	if d.Decode(&v) != nil {
		return string(b)
	}
	out, err := json.Marshal(v)
	if err != nil {
		return string(b)
	}
	return string(out)
}
