package engine

import (
	"bytes"
	"encoding/json"
	"net/http"
	"reflect"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/optimist-dynamo/optimist/internal/attrs"
)

// BatchWriteItem: up to 25 puts and deletes across tables, each checked as
// PutItem and DeleteItem check theirs, none conditional. The engine
// processes every request, so UnprocessedItems is empty, unless a
// FaultThrottled rule that names a table or a key matches some of the
// requests: those come back unprocessed and the rest are applied (see
// [FaultThrottled]).

// maxBatchWrites is DynamoDB's limit on the requests of a BatchWriteItem.
const maxBatchWrites = 25

type (
	batchWriteInput struct {
		RequestItems                batchWriteTables
		ReturnConsumedCapacity      string
		ReturnItemCollectionMetrics string
	}
	// batchWriteTables is RequestItems in the order the request lists its
	// tables: DynamoDB Local checks them in that order, and which error a
	// request gets depends on it.
	batchWriteTables []batchWriteTable
	batchWriteTable  struct {
		name     string
		requests []batchWriteRequest
	}
	batchWriteRequest struct {
		PutRequest    *struct{ Item item }
		DeleteRequest *struct{ Key item }
		// putItem is the PutRequest's Item when fastBatchTables read it
		// (PutRequest.Item is then nil).
		putItem map[string]types.AttributeValue
	}
)

func (b *batchWriteTables) UnmarshalJSON(data []byte) error {
	if string(bytes.TrimSpace(data)) == "null" {
		*b = nil
		return nil
	}
	if jsonKind(data) != "object" {
		return wrongType(data, reflect.TypeOf(map[string]any{}))
	}
	out, ok := fastBatchTables(data)
	if !ok {
		var err error
		if out, err = decodeBatchTables(data); err != nil {
			return err
		}
	}
	*b = out
	return nil
}

// decodeBatchTables reads RequestItems, a JSON object, table by table.
func decodeBatchTables(data []byte) (batchWriteTables, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	if _, err := dec.Token(); err != nil {
		return nil, err
	}
	out := batchWriteTables{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		name, _ := tok.(string) // an object's keys are strings
		var reqs []batchWriteRequest
		if err := dec.Decode(&reqs); err != nil {
			return nil, err
		}
		out = append(out, batchWriteTable{name: name, requests: reqs})
	}
	return out, nil
}

// memberOf reads `:{"name":`, up to the value of the one member of a
// PutRequest or DeleteRequest; the closing brace is the caller's.
func (s *scanner) memberOf(name string) {
	s.byte(':')
	s.byte('{')
	if s.text() != name {
		s.ok = false
	}
	s.byte(':')
}

// fastBatchTables reads RequestItems in the SDK's compact form
// ({"t":[{"PutRequest":{"Item":{...}}},{"DeleteRequest":{"Key":{...}}}]},
// names in their exact case, items as fastItem reads them), or reports
// false for the general reading.
func fastBatchTables(data []byte) (batchWriteTables, bool) {
	s := scanner{b: data, ok: true}
	out := s.batchTables()
	if !s.ok || s.i != len(data) {
		return nil, false
	}
	return out, true
}

// batchTables reads RequestItems as fastBatchTables does.
func (s *scanner) batchTables() batchWriteTables {
	s.byte('{')
	out := batchWriteTables{}
	for s.ok && s.peek() != '}' {
		if len(out) > 0 {
			s.byte(',')
		}
		name := s.text()
		s.byte(':')
		s.byte('[')
		reqs := []batchWriteRequest{}
		for s.ok && s.peek() != ']' {
			if len(reqs) > 0 {
				s.byte(',')
			}
			s.byte('{')
			var r batchWriteRequest
			switch s.text() {
			case "PutRequest":
				s.memberOf("Item")
				r.PutRequest, r.putItem = &struct{ Item item }{}, s.fields(-1)
			case "DeleteRequest":
				s.memberOf("Key")
				r.DeleteRequest = &struct{ Key item }{Key: s.item()}
			default:
				s.ok = false
			}
			s.byte('}')
			s.byte('}')
			reqs = append(reqs, r)
		}
		s.byte(']')
		out = append(out, batchWriteTable{name: name, requests: reqs})
	}
	s.byte('}')
	return out
}

// decodeFast reads a request in the SDK's compact form: its members in
// any order, each once, RequestItems as fastBatchTables reads it, the
// others strings without escapes. It reports false for anything else,
// which encoding/json reads (see decode).
func (in *batchWriteInput) decodeFast(body []byte) bool {
	s := scanner{b: body, ok: true}
	s.members(func(name []byte) bool {
		switch string(name) {
		case "RequestItems":
			in.RequestItems = s.batchTables()
		case "ReturnConsumedCapacity":
			in.ReturnConsumedCapacity = s.text()
		case "ReturnItemCollectionMetrics":
			in.ReturnItemCollectionMetrics = s.text()
		default:
			return false
		}
		return true
	})
	return s.whole()
}

// batchWrite is one checked request of a BatchWriteItem.
type batchWrite struct {
	w    *write
	req  batchWriteRequest               // the request as it came, for UnprocessedItems
	item map[string]types.AttributeValue // the item or key, which a fault rule may match
	key  item                            // a DeleteRequest's Key
}

// wire is the request as UnprocessedItems lists it.
func (bw *batchWrite) wire() map[string]any {
	switch r := bw.req; {
	case r.DeleteRequest != nil:
		return map[string]any{"DeleteRequest": map[string]any{"Key": r.DeleteRequest.Key}}
	case r.putItem != nil:
		return map[string]any{"PutRequest": map[string]any{"Item": readItem(r.putItem)}}
	}
	return map[string]any{"PutRequest": map[string]any{"Item": bw.req.PutRequest.Item}}
}

func (e *Engine) batchWriteItem(s *scope, in *batchWriteInput) (any, error) {
	n, err := checkBatchWriteCount(in)
	if err != nil {
		return nil, err
	}
	// Every request's shape and values, then table by table the table, the
	// keys and the duplicates, as DynamoDB Local checks them.
	writes, err := checkBatchWrites(in.RequestItems)
	if err != nil {
		return nil, err
	}
	if err := bindBatchWrites(s, in.RequestItems, writes); err != nil {
		return nil, err
	}
	unprocessed, caps, held, err := e.runBatchWrites(in.RequestItems, writes, wantsCapacity(in.ReturnConsumedCapacity))
	if err != nil {
		return nil, err
	}
	if held == n {
		// DynamoDB refuses a batch of which nothing could be processed.
		return nil, throttled()
	}
	out := map[string]any{"UnprocessedItems": unprocessed}
	if c := caps.render(in.ReturnConsumedCapacity, "", false); c != nil {
		out["ConsumedCapacity"] = c
	}
	return out, nil
}

// checkBatchWriteCount refuses a request without tables or with more
// requests than one call takes, and returns how many it holds.
func checkBatchWriteCount(in *batchWriteInput) (int, error) {
	if len(in.RequestItems) == 0 {
		return 0, validation(msgBatchWriteItemCannotHaveNullNo)
	}
	n := 0
	for _, bt := range in.RequestItems {
		n += len(bt.requests)
	}
	if n > maxBatchWrites {
		return 0, validation(msgTooManyItemsRequestedBatchWriteItem)
	}
	return n, nil
}

// checkBatchWrites checks each table's name and requests, in the request's
// order, before any table is looked up; writes[i] are tables[i]'s.
func checkBatchWrites(tables batchWriteTables) ([][]*batchWrite, error) {
	writes := make([][]*batchWrite, len(tables))
	for i, bt := range tables {
		if len(bt.requests) == 0 {
			return nil, validation(msgBatchWriteRequestListTable, bt.name)
		}
		if err := checkName(bt.name); err != nil {
			return nil, err
		}
		for _, r := range bt.requests {
			bw, err := checkBatchRequest(r)
			if err != nil {
				return nil, err
			}
			writes[i] = append(writes[i], bw)
		}
	}
	return writes, nil
}

// bindBatchWrites looks up each table and checks its writes' keys and
// items against it, refusing two writes of one item.
func bindBatchWrites(s *scope, tables batchWriteTables, writes [][]*batchWrite) error {
	for i, bt := range tables {
		t, err := s.lookup(bt.name)
		if err != nil {
			return err
		}
		seen := map[string]bool{}
		for _, bw := range writes[i] {
			w := bw.w
			w.t = t
			if w.delete {
				if w.hash, w.rng, err = t.keyOf(bw.key); err != nil {
					return err
				}
			} else if w.put, w.hash, w.rng, err = t.checkNewKeys(w.put); err != nil {
				return err
			}
			k := itemID(t, w.hash, w.rng)
			if seen[k] {
				return validation(msgListItemKeysContainsDuplicates)
			}
			seen[k] = true
		}
	}
	return nil
}

// runBatchWrites makes the writes in order, but those a fault rule holds
// back (unprocessed, held counting them), adding up the capacity consumed
// when the request asks for it (count).
func (e *Engine) runBatchWrites(tables batchWriteTables, writes [][]*batchWrite, count bool) (
	unprocessed map[string][]map[string]any, caps *capacities, held int, err error) {
	unprocessed = map[string][]map[string]any{}
	caps = &capacities{}
	for i, bt := range tables {
		for _, bw := range writes[i] {
			if e.hold != nil && e.hold(bt.name, bw.item) {
				unprocessed[bt.name] = append(unprocessed[bt.name], bw.wire())
				held++
				continue
			}
			old, next, err := bw.w.run()
			if err != nil {
				return nil, nil, 0, err
			}
			if !count {
				continue
			}
			var oldItem map[string]types.AttributeValue
			size := 0
			if old != nil {
				oldItem, size = old.item(), old.size()
			}
			if next != nil {
				size = max(size, attrs.ItemSize(next))
			}
			units := writeUnits(size)
			if old == nil && next == nil {
				// DynamoDB Local charges a batch's delete of a missing
				// item 2 write units (a lone DeleteItem of one, 1).
				units = 2
			}
			caps.add(bw.w.t, units, bw.w.t.indexWrites(oldItem, next), 1)
		}
	}
	return unprocessed, caps, held, nil
}

// checkBatchRequest checks a request's shape and values.
func checkBatchRequest(r batchWriteRequest) (*batchWrite, error) {
	if (r.PutRequest == nil) == (r.DeleteRequest == nil) {
		// DynamoDB Local's words for a request with both or neither.
		return nil, validation(msgSuppliedAttributeValueHasThanDatatypes)
	}
	bw := &batchWrite{w: &write{}, req: r}
	if r.PutRequest != nil {
		m, err := putRequestItem(r)
		if err != nil {
			return nil, err
		}
		if err := checkNesting(m); err != nil {
			return nil, err
		}
		if bw.w.put, err = checkItem(m); err != nil {
			return nil, err
		}
		if attrs.ItemSize(bw.w.put) > maxItemSize {
			return nil, validation(msgItemSizeHasExceededMaximum)
		}
		bw.item = m
		return bw, nil
	}
	if r.DeleteRequest.Key == nil {
		return nil, validation(msgSuppliedItemContainsNullAttributeValue)
	}
	m, err := r.DeleteRequest.Key.attrs()
	if err != nil {
		return nil, err
	}
	bw.w.delete = true
	bw.item, bw.key = m, r.DeleteRequest.Key
	return bw, nil
}

// putRequestItem is the Item of r's PutRequest.
func putRequestItem(r batchWriteRequest) (map[string]types.AttributeValue, error) {
	if r.putItem != nil {
		return r.putItem, nil
	}
	if r.PutRequest.Item == nil {
		return nil, validation(msgSuppliedItemContainsNullAttributeValue)
	}
	return r.PutRequest.Item.attrs()
}

// throttled is ProvisionedThroughputExceededException.
func throttled() *apiError {
	return newError(http.StatusBadRequest, nsDynamo+"ProvisionedThroughputExceededException",
		msgLevelConfiguredProvisionedThroughputTable)
}
