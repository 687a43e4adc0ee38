package engine

import (
	"bytes"
	"encoding/json"
	"time"
)

// Client request tokens of TransactWriteItems: a token seen again within
// ten minutes with the same parameters is answered as the first time and
// applies nothing; with other parameters it is refused.

// tokenEntry is a TransactWriteItems client request token seen in the last
// ten minutes: the parameters of the transaction that succeeded with it and
// the items it wrote, which a repeat reads for its consumed capacity.
type tokenEntry struct {
	token string
	// params are its TransactItems as they came: a repeat compares their
	// canonicalParams, so that the transactions that do not repeat (most)
	// do not pay for it.
	params []json.RawMessage
	at     time.Time
	keys   []txnKey
}

// canonicalParams is the text by which two TransactItems are the same
// parameters for a client request token, as DynamoDB Local compares them:
// the JSON with members in any order and null members as absent, values
// as written ("1" and "1.0" differ).
func canonicalParams(items []json.RawMessage) string {
	var buf bytes.Buffer
	for _, raw := range items {
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.UseNumber()
		var v any
		if dec.Decode(&v) != nil {
			buf.Write(raw)
		} else {
			b, _ := json.Marshal(dropNulls(v)) // decoded JSON always marshals
			buf.Write(b)
		}
		buf.WriteByte('\n')
	}
	return buf.String()
}

func dropNulls(v any) any {
	switch v := v.(type) {
	case map[string]any:
		for k, x := range v {
			if x == nil {
				delete(v, k)
				continue
			}
			v[k] = dropNulls(x)
		}
	case []any:
		for i, x := range v {
			v[i] = dropNulls(x)
		}
	}
	return v
}

// forgetTokens drops the tokens of s older than tokenLife: DynamoDB treats
// such a token's request as a new one. Tokens age in the order they were
// taken, so only the oldest are looked at (a clock moved back delays the
// forgetting, and the lookup checks the age again).
func (e *Engine) forgetTokens(s *scope) {
	now := e.now()
	for len(s.aging) > 0 && now.Sub(s.aging[0].at) >= tokenLife {
		if te := s.aging[0]; s.tokens[te.token] == te {
			delete(s.tokens, te.token)
		}
		s.aging[0] = nil
		s.aging = s.aging[1:]
	}
}

// repeatAnswer is the answer to a transaction repeated with its token:
// success, nothing applied, and the capacity of reading its items (as
// DynamoDB documents, and DynamoDB Local measures, a repeat is a read).
func (e *Engine) repeatAnswer(s *scope, te *tokenEntry, mode string) map[string]any {
	caps := &capacities{}
	for _, k := range te.keys {
		t := s.tables[k.table]
		if t == nil {
			continue
		}
		size := 0
		if en := t.items.get(k.hash, k.rng); en != nil {
			size = en.size()
		}
		caps.add(t, 2*readUnits(size, true), nil, 1)
	}
	out := map[string]any{}
	if c := caps.render(mode, "ReadCapacityUnits", true); c != nil {
		out["ConsumedCapacity"] = c
	}
	return out
}
