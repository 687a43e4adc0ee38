package engine

import (
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/optimist-dynamo/optimist/internal/attrs"
)

// sweep deletes the items whose TTL (plus Options.TTLDelay) has passed. It
// runs under e.mu at the start of every request, so a test that moves the
// clock sees the deletion at its next request; it reads a table's items in
// the order of their TTLs (store.ttl), from the oldest it may delete to
// the first not due, so that it costs what it deletes. As on DynamoDB, the
// TTL attribute must be a number of epoch seconds; other types, and values
// more than five years in the past, are ignored.
func (e *Engine) sweep() {
	now := e.now()
	limit := now.Add(-e.opts.TTLDelay).Unix()
	oldest := now.AddDate(-5, 0, 0).Unix()
	for _, s := range e.scopes {
		for _, t := range s.tables {
			st := t.items
			if st.ttl == nil || st.ttl.Len() == 0 {
				continue
			}
			c := st.ttl.Seek(func(x ttlEntry) bool { return x.exp >= oldest })
			var expired []entry
			for x, ok := c.Next(); ok && x.exp <= limit; x, ok = c.Next() {
				expired = append(expired, x.en)
			}
			for _, en := range expired {
				st.removeKey(en.key())
			}
		}
	}
}

// ttlOf reads a TTL attribute: whole epoch seconds of an N.
func ttlOf(v types.AttributeValue) (int64, bool) {
	return attrs.Int64(v)
}
