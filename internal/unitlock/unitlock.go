// Package unitlock is the format of the item locks that package unit takes
// and package mapper honours: the lock attribute inside a locked item, the
// unit's record in the coordinator table, how a reader turns a locked item
// into the last committed state, and the error both packages return for a
// locked item. Neither package duplicates it.
package unitlock

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/optimist-dynamo/optimist/internal/attrs"
)

// Attr is the attribute of an item that holds a unit's lock: a map with
// the fields below. No struct field of a mapped type may use the name.
const Attr = "optimist_unit"

// Fields of the lock map.
const (
	FUnit        = "u"  // S: the unit's id
	FCoordinator = "t"  // S: the coordinator table holding the unit's record
	FOwner       = "o"  // S: the unit's owner, for LockedError
	FPlaceholder = "ph" // BOOL: the item did not exist when locked; the lock made it
	FPrepared    = "p"  // BOOL: the item holds the unit's after-image (written in place)
	FDeleted     = "d"  // BOOL: prepared, and the after-image is "no item"
	FBefore      = "b"  // M: the item as it was before the unit, stored when prepared
	FChecked     = "c"  // BOOL: a condition-check op passed (informational)
)

// Attributes of a unit's record in the coordinator table (hash key RecID).
const (
	RecID       = "id"
	RecState    = "st"    // StateActive, StateCommitted, StateAborted
	RecBeat     = "hb"    // N: heartbeat counter
	RecOwner    = "owner" // S
	RecLease    = "lease" // N: the lease in milliseconds
	RecStarted  = "start" // N: start time, unix nanoseconds, for wait-die
	RecFinished = "fin"   // BOOL: every item applied or undone
	RecPages    = "pages" // N: on the record, pages written (informational)
	RecItems    = "items" // SS: on a page, the items logged in it (EncodeKey)
	RecTTL      = "ttl"   // N: epoch seconds; set once the unit is finished
)

// States of a unit's record.
const (
	StateActive    = "active"
	StateCommitted = "committed"
	StateAborted   = "aborted"
)

// ErrLocked is the class of [*LockedError]. Package mapper exports it as
// mapper.ErrLocked and package unit as unit.ErrLocked: the same value.
var ErrLocked = errors.New("unit: item locked by another unit")

// LockedError reports an item held by a unit's lock. It matches ErrLocked
// and unwraps to the error underneath (often the SDK's
// ConditionalCheckFailedException).
type LockedError struct {
	Table string
	Key   map[string]types.AttributeValue
	Unit  string // the id of the unit holding the item
	Owner string // its owner (unit.Owner)
	Err   error
}

func (e *LockedError) Error() string {
	return fmt.Sprintf("unit: %s %s is locked by unit %s (owner %s)", e.Table, attrs.FormatKey(e.Key), e.Unit, e.Owner)
}

// Is reports whether target is ErrLocked.
func (e *LockedError) Is(target error) bool { return target == ErrLocked }

// Unwrap returns the error underneath.
func (e *LockedError) Unwrap() error { return e.Err }

// Lock is a parsed lock attribute.
type Lock struct {
	Unit, Coordinator, Owner string
	Placeholder, Prepared    bool
	Deleted                  bool
	Before                   map[string]types.AttributeValue // nil: none stored
}

// Parse returns the lock item holds, if any.
func Parse(item map[string]types.AttributeValue) (*Lock, bool) {
	m, ok := item[Attr].(*types.AttributeValueMemberM)
	if !ok {
		return nil, false
	}
	l := &Lock{
		Unit:        str(m.Value[FUnit]),
		Coordinator: str(m.Value[FCoordinator]),
		Owner:       str(m.Value[FOwner]),
		Placeholder: boolean(m.Value[FPlaceholder]),
		Prepared:    boolean(m.Value[FPrepared]),
		Deleted:     boolean(m.Value[FDeleted]),
	}
	if b, ok := m.Value[FBefore].(*types.AttributeValueMemberM); ok {
		l.Before = b.Value
	}
	return l, true
}

// Locked returns the LockedError for item if it holds a lock, or nil.
func Locked(table string, key, item map[string]types.AttributeValue, err error) *LockedError {
	l, ok := Parse(item)
	if !ok {
		return nil
	}
	return &LockedError{Table: table, Key: key, Unit: l.Unit, Owner: l.Owner, Err: err}
}

func str(v types.AttributeValue) string {
	if s, ok := v.(*types.AttributeValueMemberS); ok {
		return s.Value
	}
	return ""
}

func boolean(v types.AttributeValue) bool {
	b, ok := v.(*types.AttributeValueMemberBOOL)
	return ok && b.Value
}

// Strip returns item without the lock attribute (item itself if it has
// none).
func Strip(item map[string]types.AttributeValue) map[string]types.AttributeValue {
	if _, ok := item[Attr]; !ok {
		return item
	}
	out := make(map[string]types.AttributeValue, len(item))
	for k, v := range item {
		if k != Attr {
			out[k] = v
		}
	}
	return out
}

// View returns what a reader sees of a locked item: the last committed
// state, nil for "no item". committed tells whether the lock's unit has
// passed its commit point; it matters only for a prepared lock.
func View(item map[string]types.AttributeValue, l *Lock, committed bool) map[string]types.AttributeValue {
	switch {
	case l.Prepared && committed && l.Deleted:
		return nil
	case l.Prepared && committed:
		return Strip(item)
	case l.Prepared:
		return l.Before // nil for an item the unit creates
	case l.Placeholder:
		return nil
	}
	return Strip(item)
}

// StateReader reads the state of units' records: ids maps a coordinator
// table to the unit ids wanted in it; the answer maps "table\x00id" to the
// state ("" for a missing record).
type StateReader func(ctx context.Context, ids map[string][]string) (map[string]string, error)

// StateKey is the key of a unit's state in a StateReader's answer.
func StateKey(table, id string) string { return table + "\x00" + id }

// Resolve turns items (as stored; nil entries allowed) into what a reader
// sees, in place: the last committed state of each, nil for "no item".
// Items read together in one snapshot (TransactGetItems) are resolved
// together: when the snapshot holds an item of a unit that is locked but
// not yet prepared, that unit had not committed when the snapshot was
// taken (every item is prepared before the commit point), so none of its
// items is shown as committed. Otherwise the unit's record is read once
// (after the snapshot) for all its items; if it committed since, all its
// items are shown committed, which is still a state the database went
// through: no other write can touch them while they are locked.
func Resolve(ctx context.Context, items []map[string]types.AttributeValue, read StateReader) error {
	locks := make([]*Lock, len(items))
	notCommitted := map[string]bool{}
	wanted := map[string]bool{}
	for i, it := range items {
		l, ok := Parse(it)
		if !ok {
			continue
		}
		locks[i] = l
		k := StateKey(l.Coordinator, l.Unit)
		if !l.Prepared {
			notCommitted[k] = true
		} else {
			wanted[k] = true
		}
	}
	ids := map[string][]string{}
	for k := range wanted {
		if notCommitted[k] {
			continue
		}
		t, id, _ := strings.Cut(k, "\x00")
		ids[t] = append(ids[t], id)
	}
	states := map[string]string{}
	if len(ids) > 0 {
		var err error
		if states, err = read(ctx, ids); err != nil {
			return err
		}
	}
	for i, l := range locks {
		if l == nil {
			continue
		}
		items[i] = View(items[i], l, states[StateKey(l.Coordinator, l.Unit)] == StateCommitted)
	}
	return nil
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

// ItemID identifies an item by table and key; see attrs.ItemID.
func ItemID(table string, key map[string]types.AttributeValue) string {
	return attrs.ItemID(table, key)
}

// GetItemClient is the call a GetItem-based StateReader makes.
type GetItemClient interface {
	GetItem(ctx context.Context, params *dynamodb.GetItemInput, optFns ...func(*dynamodb.Options)) (*dynamodb.GetItemOutput, error)
}

// GetItemReader reads each record with one consistent GetItem (projected
// to its state).
func GetItemReader(c GetItemClient) StateReader {
	return func(ctx context.Context, ids map[string][]string) (map[string]string, error) {
		out := map[string]string{}
		for table, list := range ids {
			for _, id := range list {
				res, err := c.GetItem(ctx, &dynamodb.GetItemInput{
					TableName:                aws.String(table),
					Key:                      map[string]types.AttributeValue{RecID: &types.AttributeValueMemberS{Value: id}},
					ConsistentRead:           aws.Bool(true),
					ProjectionExpression:     aws.String("#s"),
					ExpressionAttributeNames: map[string]string{"#s": RecState},
				})
				if err != nil {
					return nil, fmt.Errorf("unit: reading the record of unit %s in %s: %w", id, table, err)
				}
				out[StateKey(table, id)] = str(res.Item[RecState])
			}
		}
		return out, nil
	}
}

// TransactGetClient is the call a TransactGetItems-based StateReader makes.
type TransactGetClient interface {
	TransactGetItems(ctx context.Context, params *dynamodb.TransactGetItemsInput, optFns ...func(*dynamodb.Options)) (*dynamodb.TransactGetItemsOutput, error)
}

// TransactReader reads the records with TransactGetItems, 100 at a time.
func TransactReader(c TransactGetClient) StateReader {
	return func(ctx context.Context, ids map[string][]string) (map[string]string, error) {
		type ref struct{ table, id string }
		var refs []ref
		for table, list := range ids {
			for _, id := range list {
				refs = append(refs, ref{table, id})
			}
		}
		out := map[string]string{}
		for len(refs) > 0 {
			n := min(len(refs), 100)
			in := &dynamodb.TransactGetItemsInput{}
			for _, r := range refs[:n] {
				in.TransactItems = append(in.TransactItems, types.TransactGetItem{Get: &types.Get{
					TableName:                aws.String(r.table),
					Key:                      map[string]types.AttributeValue{RecID: &types.AttributeValueMemberS{Value: r.id}},
					ProjectionExpression:     aws.String("#s"),
					ExpressionAttributeNames: map[string]string{"#s": RecState},
				}})
			}
			res, err := c.TransactGetItems(ctx, in)
			if err != nil {
				return nil, fmt.Errorf("unit: reading units' records: %w", err)
			}
			for i, r := range refs[:n] {
				var st string
				if i < len(res.Responses) {
					st = str(res.Responses[i].Item[RecState])
				}
				out[StateKey(r.table, r.id)] = st
			}
			refs = refs[n:]
		}
		return out, nil
	}
}
