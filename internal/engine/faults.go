package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// Fault is a failure injected into one request. It is the one list of
// faults of the project: the engine's rules ([Rule]) and dynamolocal's
// FaultTransport, which injects faults between a client and any server,
// share it (dynamolocal.Fault is this type). Each fault says below what a
// rule does with it; the transport's own reading of each is in its
// documentation.
type Fault int

// The faults, as counted by [Faults.Count].
const (
	// FaultNone: the request is served untouched.
	FaultNone Fault = iota
	// FaultLostResponse: the request is applied and its answer lost: the
	// connection is closed without a response (in memory, [Engine.Do]
	// returns [ErrConnectionLost]). The client cannot tell it from
	// FaultRefused: its outcome is unknown.
	FaultLostResponse
	// FaultRefused: the connection is closed before the request is
	// applied; nothing changes.
	FaultRefused
	// FaultThrottled: answered ProvisionedThroughputExceededException;
	// nothing changes. The SDK retries it. On a BatchWriteItem, a rule
	// that names a Table or a Key throttles only the requests it matches:
	// they come back in UnprocessedItems and the others are applied (when
	// it matches all of them, the whole call is throttled, as DynamoDB
	// does when it can process nothing).
	FaultThrottled
	// FaultServerError: answered 500 InternalServerError; nothing changes.
	// To the client a 5xx is an unknown outcome, and the SDK retries it.
	FaultServerError
	// FaultDelayed: served after Rule.Delay on the time package's clock
	// (virtual in a testing/synctest bubble), or dropped unapplied if the
	// client gives up first.
	FaultDelayed
	// FaultPartitioned: as FaultRefused, for as long as the rule stays: a
	// network cut, which a test ends by removing the rule.
	FaultPartitioned
	// FaultTransactionConflict: refused as if another transaction held
	// the item: TransactWriteItems and TransactGetItems are cancelled with
	// the reason TransactionConflict on the matched items (None on the
	// others); a single-item write or read answers
	// TransactionConflictException. Nothing changes. DynamoDB Local never
	// raises it on its own.
	FaultTransactionConflict
	// FaultReplicatedWriteConflict: refused as a global table in
	// multi-Region strong consistency refuses a write to an item that a
	// request in another Region is modifying:
	// ReplicatedWriteConflictException (400). Nothing changes. DynamoDB
	// Local has no replicas and never raises it.
	FaultReplicatedWriteConflict
	// NumFaults is the number of faults: each is below it.
	NumFaults
)

var faultNames = [NumFaults]string{"none", "lost response", "refused", "throttled", "server error", "delayed",
	"partitioned", "transaction conflict", "replicated write conflict"}

func (f Fault) String() string {
	if f < 0 || f >= NumFaults {
		return fmt.Sprintf("Fault(%d)", int(f))
	}
	return faultNames[f]
}

// Rule says which requests suffer which fault. Empty fields match
// anything; a request matches when every set field matches. It is
// dynamolocal.Rule too, for Server.Inject.
type Rule struct {
	// Op is the operation ("PutItem", "TransactWriteItems", ...).
	Op string
	// Table matches a request that touches the table (any of them, for
	// batches and transactions).
	Table string
	// Key matches a request that touches an item whose attributes include
	// these values (numbers compared by value): a key, or part of one.
	Key map[string]types.AttributeValue
	// Fault is what happens to a matching request.
	Fault Fault
	// Probability is the chance that a matching request suffers the fault,
	// drawn from the schedule's seed; 0 means always.
	Probability float64
	// After lets the first After matching requests through untouched.
	After int
	// Times bounds how many requests suffer the fault; 0 means no bound.
	Times int
	// Delay is the delay of FaultDelayed.
	Delay time.Duration
}

// Faults is a seeded schedule of faults: the same seed, rules and sequence
// of requests give the same faults. Its methods are safe for concurrent use.
type Faults struct {
	mu     sync.Mutex
	rng    *rand.Rand
	rules  []*ruleState
	counts [NumFaults]int
}

type ruleState struct {
	Rule
	seen, hit int
}

// NewFaults returns an empty schedule whose draws come from seed.
func NewFaults(seed uint64) *Faults {
	return &Faults{rng: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))}
}

// Add adds a rule, which applies from the next request on, and returns a
// function that removes it. Rules are tried in the order added; the first
// that fires decides the request's fault.
func (f *Faults) Add(r Rule) (remove func()) {
	f.mu.Lock()
	defer f.mu.Unlock()
	rs := &ruleState{Rule: r}
	f.rules = append(f.rules, rs)
	return func() {
		f.mu.Lock()
		defer f.mu.Unlock()
		for i, x := range f.rules {
			if x == rs {
				f.rules = append(f.rules[:i:i], f.rules[i+1:]...)
				return
			}
		}
	}
}

// Count returns how many requests suffered fault (FaultNone: how many were
// served untouched).
func (f *Faults) Count(fault Fault) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	if fault < 0 || fault >= NumFaults {
		return 0
	}
	return f.counts[fault]
}

// decide picks the fault of one request (op, with body) and the rule
// behind it. It reads what the request touches from body only for a rule
// that names a table or a key: that parses the body once more, which every
// other request is spared.
func (f *Faults) decide(op string, body []byte) (Fault, *ruleState) {
	f.mu.Lock()
	defer f.mu.Unlock()
	var tg []target
	read := false
	for _, r := range f.rules {
		if !read && (r.Op == "" || r.Op == op) && (r.Table != "" || r.Key != nil) {
			tg, read = targets(op, body), true
		}
		if !r.matches(op, tg) {
			continue
		}
		r.seen++
		if r.seen <= r.After || (r.Times > 0 && r.hit >= r.Times) {
			continue
		}
		if r.Probability > 0 && f.rng.Float64() >= r.Probability {
			continue
		}
		r.hit++
		f.counts[r.Fault]++
		return r.Fault, r
	}
	f.counts[FaultNone]++
	return FaultNone, nil
}

func (r *ruleState) matches(op string, tg []target) bool {
	if r.Op != "" && r.Op != op {
		return false
	}
	if r.Table == "" && r.Key == nil {
		return true
	}
	for _, t := range tg {
		if r.Table != "" && r.Table != t.table {
			continue
		}
		if r.Key != nil && !hasValues(t.item, r.Key) {
			continue
		}
		return true
	}
	return false
}

// hasValues reports whether item holds every value of want.
func hasValues(item, want map[string]types.AttributeValue) bool {
	for k, v := range want {
		got, ok := item[k]
		if !ok || encodeKey(got) != encodeKey(v) {
			return false
		}
	}
	return true
}

// target is a table and an item (a key, or a whole item) a request touches.
type target struct {
	table string
	item  map[string]types.AttributeValue
}

// targets lists what a request touches, read loosely from its body: a body
// that does not parse touches nothing (the request fails on its own).
func targets(op string, body []byte) []target {
	type one struct {
		TableName string
		Key       item
		Item      item
	}
	add := func(out []target, o *one) []target {
		if o == nil {
			return out
		}
		m, _ := o.Key.attrs()
		if o.Item != nil {
			m, _ = o.Item.attrs()
		}
		return append(out, target{table: o.TableName, item: m})
	}
	var out []target
	switch op {
	case "TransactWriteItems", "TransactGetItems":
		var in struct {
			TransactItems []struct {
				Put, Update, Delete, ConditionCheck, Get *one
			}
		}
		if json.Unmarshal(body, &in) != nil {
			return nil
		}
		for _, ti := range in.TransactItems {
			for _, o := range []*one{ti.Put, ti.Update, ti.Delete, ti.ConditionCheck, ti.Get} {
				out = add(out, o)
			}
		}
	case "BatchWriteItem":
		var in struct {
			RequestItems map[string][]struct {
				PutRequest    *struct{ Item item }
				DeleteRequest *struct{ Key item }
			}
		}
		if json.Unmarshal(body, &in) != nil {
			return nil
		}
		for tn, reqs := range in.RequestItems {
			for _, r := range reqs {
				switch {
				case r.PutRequest != nil:
					out = add(out, &one{TableName: tn, Item: r.PutRequest.Item})
				case r.DeleteRequest != nil:
					out = add(out, &one{TableName: tn, Key: r.DeleteRequest.Key})
				}
			}
		}
	case "BatchGetItem":
		var in struct {
			RequestItems map[string]struct{ Keys []item }
		}
		if json.Unmarshal(body, &in) != nil {
			return nil
		}
		for tn, r := range in.RequestItems {
			for _, k := range r.Keys {
				out = add(out, &one{TableName: tn, Key: k})
			}
		}
	default:
		var o one
		if json.Unmarshal(body, &o) != nil {
			return nil
		}
		out = add(out, &o)
	}
	return out
}

// serve runs one request under the schedule; it reports whether the answer
// is to be dropped.
func (f *Faults) serve(ctx context.Context, e *Engine, req *request) (response, bool) {
	fault, r := f.decide(req.op, req.body)
	return f.apply(ctx, e, req, fault, r)
}

// apply serves req with fault, which rule r decided (nil for FaultNone).
func (f *Faults) apply(ctx context.Context, e *Engine, req *request, fault Fault, r *ruleState) (response, bool) {
	switch fault {
	case FaultLostResponse:
		e.handle(req)
		return response{}, true
	case FaultRefused, FaultPartitioned:
		return response{}, true
	case FaultThrottled:
		if req.op == "BatchWriteItem" && (r.Table != "" || r.Key != nil) {
			req.hold = func(table string, item map[string]types.AttributeValue) bool {
				return r.matches(req.op, []target{{table: table, item: item}})
			}
			return e.handle(req), false
		}
		return errorResponse(throttled()), false
	case FaultServerError:
		return errorResponse(serverError(msgInternalServerError)), false
	case FaultDelayed:
		t := time.NewTimer(r.Delay)
		defer t.Stop()
		select {
		case <-t.C:
		case <-ctx.Done():
			return response{}, true
		}
	case FaultTransactionConflict:
		return errorResponse(conflict(req.op, targets(req.op, req.body), r)), false
	case FaultReplicatedWriteConflict:
		return errorResponse(newError(http.StatusBadRequest, nsDynamo+"ReplicatedWriteConflictException",
			msgItemsThisRequestBeingModified)), false
	}
	return e.handle(req), false
}

// conflict is the answer to a request refused by FaultTransactionConflict.
func conflict(op string, tg []target, r *ruleState) *apiError {
	if op != "TransactWriteItems" && op != "TransactGetItems" {
		return newError(http.StatusBadRequest, nsDynamo+"TransactionConflictException", msgTransactionOngoing)
	}
	// The items the rule names conflict; a rule that names none makes the
	// first item conflict.
	reasons := make([]reason, len(tg))
	marked := false
	for i, t := range tg {
		reasons[i].Code = "None"
		if (r.Table != "" || r.Key != nil) && r.matches(op, []target{t}) {
			reasons[i] = reason{Code: "TransactionConflict", Message: msgTransactionOngoing}
			marked = true
		}
	}
	if !marked && len(reasons) > 0 {
		reasons[0] = reason{Code: "TransactionConflict", Message: msgTransactionOngoing}
	}
	return canceled(reasons)
}
