package unitlock

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/optimist-dynamo/optimist/internal/attrs"
	"github.com/optimist-dynamo/optimist/internal/ddbapi"
	"github.com/optimist-dynamo/optimist/internal/lease"
)

// Attributes of a unit's record in the coordinator table (hash key RecID),
// and of its item-list pages (RecID "<unit id>#<n>").
const (
	RecID       = "id"
	RecState    = "st"    // StateActive, StateCommitted, StateAborted
	RecBeat     = "hb"    // N: heartbeat counter
	RecOwner    = "owner" // S
	RecLease    = "lease" // N: the lease in milliseconds
	RecStarted  = "start" // N: start time, unix nanoseconds, for wait-die
	RecFinished = "fin"   // BOOL: every item applied or undone
	RecItems    = "items" // SS: on a page, the items logged in it (EncodeKey)
	RecTTL      = "ttl"   // N: epoch seconds: a finished record, and every page
)

// States of a unit's record.
const (
	StateActive    = "active"
	StateCommitted = "committed"
	StateAborted   = "aborted"
)

// Record is what a unit's record says.
type Record struct {
	Found   bool
	State   string
	Beat    string // the heartbeat counter, as stored
	Owner   string
	Lease   time.Duration
	Started int64
	Done    bool // finished: every item applied or undone
}

// ParseRecord reads a record item.
func ParseRecord(item map[string]types.AttributeValue) Record {
	if len(item) == 0 {
		return Record{}
	}
	r := Record{Found: true, State: str(item[RecState]), Owner: str(item[RecOwner]), Done: boolean(item[RecFinished])}
	if v, ok := item[RecBeat].(*types.AttributeValueMemberN); ok {
		r.Beat = v.Value
	}
	if n, ok := attrs.Int64(item[RecLease]); ok {
		r.Lease = time.Duration(n) * time.Millisecond
	}
	r.Started, _ = attrs.Int64(item[RecStarted])
	return r
}

// RecordKey is the key of a unit's record.
func RecordKey(id string) map[string]types.AttributeValue {
	return map[string]types.AttributeValue{RecID: avS(id)}
}

// PageKey is the key of page n of a unit's item list.
func PageKey(id string, n int) map[string]types.AttributeValue {
	return RecordKey(fmt.Sprintf("%s#%d", id, n))
}

// ReadRecord reads a unit's record with one consistent GetItem.
func ReadRecord(ctx context.Context, c ddbapi.Getter, coord, id string) (Record, error) {
	out, err := c.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(coord), Key: RecordKey(id), ConsistentRead: aws.Bool(true)})
	if err != nil {
		return Record{}, fmt.Errorf("unit: reading the record of unit %s: %w", id, err)
	}
	return ParseRecord(out.Item), nil
}

// SetState moves a unit's record from active to state (committed or
// aborted), conditional on it being active (and, for an abort by another
// process, on the heartbeat counter it observed). It returns the state the
// record is in afterwards: state if the write (or an earlier attempt of
// it) landed, else whatever the record holds ("" for no record).
func SetState(ctx context.Context, c ddbapi.Updater, coord, id, state, beat string) (string, error) {
	cond := "#st = :active"
	names := map[string]string{"#st": RecState}
	values := map[string]types.AttributeValue{":active": avS(StateActive), ":new": avS(state)}
	if beat != "" {
		cond += " AND #hb = :hb"
		names["#hb"] = RecBeat
		values[":hb"] = &types.AttributeValueMemberN{Value: beat}
	}
	_, err := c.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName: aws.String(coord), Key: RecordKey(id),
		UpdateExpression: aws.String("SET #st = :new"), ConditionExpression: aws.String(cond),
		ExpressionAttributeNames: names, ExpressionAttributeValues: values,
		ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld,
	})
	if err == nil {
		return state, nil
	}
	if e, ok := ccf(err); ok {
		return ParseRecord(e.Item).State, nil
	}
	return "", err
}

// Beat bumps a live unit's heartbeat counter, conditional on its record
// being active. alive is false when the record is not active any more
// (state says what it is); err is a failure to learn it.
func Beat(ctx context.Context, c ddbapi.Updater, coord, id string) (alive bool, state string, err error) {
	_, err = c.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName: aws.String(coord), Key: RecordKey(id),
		UpdateExpression:                    aws.String("ADD #hb :one"),
		ConditionExpression:                 aws.String("#st = :active"),
		ExpressionAttributeNames:            map[string]string{"#hb": RecBeat, "#st": RecState},
		ExpressionAttributeValues:           map[string]types.AttributeValue{":one": attrs.N(1), ":active": avS(StateActive)},
		ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld,
	})
	if err == nil {
		return true, StateActive, nil
	}
	if e, ok := ccf(err); ok {
		return false, ParseRecord(e.Item).State, nil
	}
	return false, "", err
}

// ccf returns the ConditionalCheckFailedException inside err, if any.
func ccf(err error) (*types.ConditionalCheckFailedException, bool) {
	var e *types.ConditionalCheckFailedException
	return e, errors.As(err, &e)
}

// EncodeKey encodes a table and an item key as one string, for the item
// lists of a unit's pages.
func EncodeKey(table string, key map[string]types.AttributeValue) (string, error) {
	k := make(map[string][2]string, len(key))
	for name, v := range key {
		switch v := v.(type) {
		case *types.AttributeValueMemberS:
			k[name] = [2]string{"S", v.Value}
		case *types.AttributeValueMemberN:
			k[name] = [2]string{"N", v.Value}
		case *types.AttributeValueMemberB:
			k[name] = [2]string{"B", base64.StdEncoding.EncodeToString(v.Value)}
		default:
			return "", fmt.Errorf("unit: key attribute %q of %s is not S, N or B", name, table)
		}
	}
	b, err := json.Marshal(struct {
		T string               `json:"t"`
		K map[string][2]string `json:"k"`
	}{table, k})
	return string(b), err
}

// CheckKey reports why key cannot name an item of any table: no
// attribute, more than two (a hash and a range key), or one that is not a
// non-empty S, N or B value. DynamoDB refuses such a key in every call.
func CheckKey(key map[string]types.AttributeValue) error {
	if len(key) == 0 || len(key) > 2 {
		return fmt.Errorf("a key of %d attributes (a table's key has one or two)", len(key))
	}
	for name, v := range key {
		empty := false
		switch v := v.(type) {
		case *types.AttributeValueMemberS:
			empty = v.Value == ""
		case *types.AttributeValueMemberN:
			empty = v.Value == ""
		case *types.AttributeValueMemberB:
			empty = len(v.Value) == 0
		default:
			return fmt.Errorf("key attribute %q is not S, N or B", name)
		}
		if name == "" || empty {
			return fmt.Errorf("key attribute %q is empty", name)
		}
	}
	return nil
}

// DecodeKey reverses EncodeKey.
func DecodeKey(s string) (string, map[string]types.AttributeValue, error) {
	var v struct {
		T string               `json:"t"`
		K map[string][2]string `json:"k"`
	}
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		return "", nil, fmt.Errorf("unit: bad item reference %q: %w", s, err)
	}
	key := make(map[string]types.AttributeValue, len(v.K))
	for name, tv := range v.K {
		switch tv[0] {
		case "S":
			key[name] = &types.AttributeValueMemberS{Value: tv[1]}
		case "N":
			key[name] = &types.AttributeValueMemberN{Value: tv[1]}
		case "B":
			b, err := base64.StdEncoding.DecodeString(tv[1])
			if err != nil {
				return "", nil, fmt.Errorf("unit: bad item reference %q: %w", s, err)
			}
			key[name] = &types.AttributeValueMemberB{Value: b}
		default:
			return "", nil, fmt.Errorf("unit: bad item reference %q", s)
		}
	}
	return v.T, key, nil
}

// memory keeps, across calls in this process, since when each unit's
// record was seen with its heartbeat counter unchanged, on which clock:
// a unit is dead once that lasted a full lease on the observer's own
// clock. No clocks of different machines are compared.
var memory struct {
	sync.Mutex
	seen map[string]observed
}

type observed struct {
	beat  string
	since time.Time
	clock lease.Clock
}

const memoryCap = 1 << 14

// Observe records a sighting of unit id's record with counter beat and
// reports whether the counter has stayed so for a full lease or longer.
func Observe(coord, id, beat string, d time.Duration, clock lease.Clock) bool {
	k := StateKey(coord, id)
	now := clock.Now()
	memory.Lock()
	defer memory.Unlock()
	if memory.seen == nil || len(memory.seen) >= memoryCap {
		memory.seen = map[string]observed{}
	}
	o, ok := memory.seen[k]
	if !ok || o.beat != beat || o.clock != clock {
		memory.seen[k] = observed{beat: beat, since: now, clock: clock}
		return false
	}
	return now.Sub(o.since) >= d
}

// Forget drops what Observe saw of unit id.
func Forget(coord, id string) {
	memory.Lock()
	delete(memory.seen, StateKey(coord, id))
	memory.Unlock()
}
