package engine

import (
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/optimist-dynamo/optimist/internal/attrs"
)

// sweepEvery is how often, on the engine's clock, expired items are looked
// for: a sweep reads every item of every table with TTL enabled.
const sweepEvery = time.Second

// sweep deletes the items whose TTL (plus Options.TTLDelay) has passed, at
// most once per sweepEvery of the engine's clock. It runs under e.mu at
// the start of a request, so a test that moves the clock sees the deletion
// at its next request. As on DynamoDB, the TTL attribute must be a number
// of epoch seconds; other types, and values more than five years in the
// past, are ignored.
func (e *Engine) sweep() {
	now := e.now()
	if now.Sub(e.lastSweep) < sweepEvery && !now.Before(e.lastSweep) {
		return
	}
	e.lastSweep = now
	limit := now.Add(-e.opts.TTLDelay).Unix()
	oldest := now.AddDate(-5, 0, 0).Unix()
	for _, s := range e.scopes {
		for _, t := range s.tables {
			if t.ttlAttr == "" {
				continue
			}
			var expired []*entry
			t.items.all(func(en *entry) bool {
				if exp, ok := ttlOf(en.item[t.ttlAttr]); ok && exp <= limit && exp >= oldest {
					expired = append(expired, en)
				}
				return true
			})
			for _, en := range expired {
				t.items.remove(en.hash, en.rng)
			}
		}
	}
}

// ttlOf reads a TTL attribute: whole epoch seconds of an N.
func ttlOf(v types.AttributeValue) (int64, bool) {
	return attrs.Int64(v)
}
