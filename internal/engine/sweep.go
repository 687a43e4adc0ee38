package engine

import (
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/optimist-dynamo/optimist/internal/attrs"
)

// sweep deletes the items whose TTL (plus Options.TTLDelay) has passed. It
// runs under e.mu at the start of every request, so a test that moves the
// clock sees the deletion at its next request; it reads a table's items
// only when the earliest TTL it has seen is due. As on DynamoDB, the TTL
// attribute must be a number of epoch seconds; other types, and values
// more than five years in the past, are ignored.
func (e *Engine) sweep() {
	now := e.now()
	limit := now.Add(-e.opts.TTLDelay).Unix()
	oldest := now.AddDate(-5, 0, 0).Unix()
	for _, s := range e.scopes {
		for _, t := range s.tables {
			st := t.items
			if st.ttlAttr == "" || st.nextTTL == 0 || st.nextTTL > limit {
				continue
			}
			var expired []*entry
			st.nextTTL = 0
			st.all(func(en *entry) bool {
				exp, ok := ttlOf(en.item[st.ttlAttr])
				switch {
				case !ok:
				case exp <= limit && exp >= oldest:
					expired = append(expired, en)
				case exp > limit && (st.nextTTL == 0 || exp < st.nextTTL):
					st.nextTTL = exp
				}
				return true
			})
			for _, en := range expired {
				st.remove(en.hash, en.rng)
			}
		}
	}
}

// ttlOf reads a TTL attribute: whole epoch seconds of an N.
func ttlOf(v types.AttributeValue) (int64, bool) {
	return attrs.Int64(v)
}
