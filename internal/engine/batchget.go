package engine

import (
	"encoding/json"
	"strings"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// BatchGetItem reads up to 100 items of one or more tables. Responses are
// grouped by table in the order of the request's keys; DynamoDB leaves the
// order unspecified.

type (
	keysAndAttributes struct {
		Keys                     []item
		ProjectionExpression     *string           `json:",omitempty"`
		ExpressionAttributeNames map[string]string `json:",omitempty"`
		ConsistentRead           *bool             `json:",omitempty"`
		// Accepted and ignored, as DynamoDB Local does: nothing in a
		// BatchGetItem can use a value.
		ExpressionAttributeValues json.RawMessage `json:",omitempty"`
		AttributesToGet           []string        `json:",omitempty"`
	}
	batchGetInput struct {
		RequestItems           map[string]*keysAndAttributes
		ReturnConsumedCapacity string
	}
)

const (
	// maxBatchGetKeys is DynamoDB's limit on the keys of one BatchGetItem.
	maxBatchGetKeys = 100
	// batchGetBytes is the most a BatchGetItem returns: the sizes of the
	// items read (before projection) add up to at most 16 MB; the keys of
	// the items that do not fit come back as UnprocessedKeys.
	batchGetBytes = 16 << 20
)

// batchTable is one table's part of a BatchGetItem, checked.
type batchTable struct {
	name    string
	t       *table
	in      *keysAndAttributes
	proj    *projection_
	keys    [][2]types.AttributeValue
	consist bool
}

func (e *Engine) batchGetItem(s *scope, in *batchGetInput) (any, error) {
	if err := checkBatchGetCount(in); err != nil {
		return nil, err
	}
	if err := checkBatchGetShape(in); err != nil {
		return nil, err
	}
	var parts []*batchTable
	for _, name := range sortedKeys(in.RequestItems) {
		bt, err := batchGetTable(s, name, in.RequestItems[name])
		if err != nil {
			return nil, err
		}
		parts = append(parts, bt)
	}
	responses, unprocessed, capacity := readBatchGet(parts, in.ReturnConsumedCapacity)
	out := map[string]any{"Responses": responses, "UnprocessedKeys": unprocessed}
	if capacity != nil {
		out["ConsumedCapacity"] = capacity
	}
	return out, nil
}

// checkBatchGetCount refuses a request without tables or with more keys
// than DynamoDB reads in one call.
func checkBatchGetCount(in *batchGetInput) error {
	if len(in.RequestItems) == 0 {
		return validation(msgBatchGetItemHaveSomeRequestsSet)
	}
	total := 0
	for _, ka := range in.RequestItems {
		if ka != nil {
			total += len(ka.Keys)
		}
	}
	if total > maxBatchGetKeys {
		return validation(msgTooManyItemsRequestedBatchGetItem)
	}
	return nil
}

// batchGetTable checks one table's part of the request: the table, its
// keys, then its projection.
func batchGetTable(s *scope, name string, ka *keysAndAttributes) (*batchTable, error) {
	t, err := s.lookup(name)
	if err != nil {
		return nil, err
	}
	if ka == nil || len(ka.Keys) == 0 {
		return nil, validation(msgListKeysRequestItemsBatchGetItemRequired, name)
	}
	legacyProj, err := batchAttributesToGet(ka)
	if err != nil {
		return nil, err
	}
	bt := &batchTable{name: name, t: t, in: ka, consist: ka.ConsistentRead != nil && *ka.ConsistentRead}
	// The keys, against the table, before the projection: duplicates
	// (keys of the same text: DynamoDB Local takes N "1" and N "01"
	// for two keys, and returns the item twice) are refused earlier.
	for _, k := range ka.Keys {
		hash, rng, err := t.keyOf(k)
		if err != nil {
			return nil, err
		}
		bt.keys = append(bt.keys, [2]types.AttributeValue{hash, rng})
	}
	x, err := newExprs(ka.ExpressionAttributeNames, nil)
	if err != nil {
		return nil, err
	}
	if bt.proj, err = x.projection(ka.ProjectionExpression); err != nil {
		return nil, err
	}
	if ka.ProjectionExpression != nil {
		x.use(exprRefs(*ka.ProjectionExpression).names, nil)
	}
	if err := x.done(); err != nil {
		return nil, err
	}
	if legacyProj != nil {
		bt.proj = legacyProj
	}
	if err := t.scalarKeys(x.names, ka.ProjectionExpression); err != nil {
		return nil, err
	}
	return bt, nil
}

// readBatchGet reads the tables' keys in order until the answer is full;
// the keys past that come back unprocessed. mode is ReturnConsumedCapacity.
func readBatchGet(parts []*batchTable, mode string) (responses map[string][]item,
	unprocessed map[string]*keysAndAttributes, capacity []map[string]any) {
	responses = map[string][]item{}
	unprocessed = map[string]*keysAndAttributes{}
	size, full := 0, false
	for _, bt := range parts {
		got := []item{}
		units := 0.0
		for i, k := range bt.keys {
			en := bt.t.items.get(k[0], k[1])
			if en != nil && !full && size+en.size() > batchGetBytes {
				full = true
			}
			if full {
				u := unprocessed[bt.name]
				if u == nil {
					c := *bt.in
					c.Keys = nil
					c.ExpressionAttributeValues = nil
					u = &c
					unprocessed[bt.name] = u
				}
				u.Keys = append(u.Keys, bt.in.Keys[i])
				continue
			}
			if en == nil {
				continue // a missing item costs nothing in a batch
			}
			size += en.size()
			units += readUnits(en.size(), bt.consist)
			got = append(got, wireItem(bt.proj.apply(en.item())))
		}
		responses[bt.name] = got
		if c := consumed(mode, bt.name, units, nil); c != nil {
			capacity = append(capacity, c)
		}
	}
	return responses, unprocessed, capacity
}

// rawKey identifies a key by its text as sent.
func rawKey(k item) string {
	var b strings.Builder
	for _, n := range sortedKeys(k) {
		b.WriteString(n)
		b.WriteByte(0)
		b.WriteString(typeName(k[n].v))
		b.WriteByte(0)
		switch v := k[n].v.(type) {
		case *types.AttributeValueMemberS:
			b.WriteString(v.Value)
		case *types.AttributeValueMemberN:
			b.WriteString(v.Value)
		case *types.AttributeValueMemberB:
			b.Write(v.Value)
		}
		b.WriteByte(0)
	}
	return b.String()
}
