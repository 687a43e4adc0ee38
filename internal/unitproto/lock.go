// Package unitproto is the protocol of units of work (package unit) that
// package mapper, txn and pessimistic share: the lock a unit keeps inside
// each item it holds (lock.go), the unit's record and the pages of its
// item list, owned by [Coordinator], with the coordinator's scan
// ([Coordinator.Records]) (record.go, refs.go), a unit's own
// side of both, [Holder], through which package unit meets the protocol
// (holder.go), the one judgement of a unit's state and what to do about
// its locks ([Fate], [Coordinator.Judge] with a [Memory] its caller owns:
// judge.go), how anyone rolls one item forward or back ([Finish]:
// finish.go), recovery ([Coordinator.Recover]: recover.go), how a reader shows a locked item in
// its last committed state ([Resolve], [Snapshot]: resolve.go), and the
// few functions through which the other packages meet all this
// (seams.go). It keeps no state of its own: what a party remembers is
// held by a value of that party.
//
// A unit's lock is a map in the item's attribute [Attr]. It never changes
// the item's own attributes until the unit is applied: a unit's write is
// stored in the lock as an intent (the whole new item of a put, the actions
// of an update, or "delete"), so that what is stored outside the lock is
// always the committed state, except between a unit's commit point and
// the moment its apply reaches the item. Readers resolve that window by the
// unit's record.
package unitproto

import (
	"errors"
	"fmt"
	"strconv"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/optimist-dynamo/optimist/internal/attrs"
	"github.com/optimist-dynamo/optimist/internal/plan"
)

// Attr is the attribute of an item that holds a unit's lock. No struct
// field of a mapped type may use the name.
const Attr = plan.LockAttr

// Fields of the lock map.
const (
	FUnit        = "u"  // S: the unit's id
	FCoordinator = "t"  // S: the coordinator table holding the unit's record
	FOwner       = "o"  // S: the unit's owner, for LockedError
	FPlaceholder = "ph" // BOOL: the item did not exist when locked; the lock made it
	FPrepared    = "p"  // BOOL: the lock holds the unit's write (intent) for the item
	FKind        = "k"  // S: the intent: "put", "update" or "delete"
	FAfter       = "a"  // M: a put's new item
	FActions     = "x"  // L: an update's actions
	FChecked     = "c"  // BOOL: a condition-check op passed (informational)
)

// Intent kinds.
const (
	KindPut    = "put"
	KindUpdate = "update"
	KindDelete = "delete"
)

// ErrLocked is the class of [*LockedError]. Package mapper exports it, and
// package unit the same value.
var ErrLocked = errors.New("unit: item locked by another unit")

// LockedError reports an item held by a unit's lock. It matches ErrLocked
// and unwraps to the error underneath (often the SDK's
// ConditionalCheckFailedException).
type LockedError struct {
	Table string                          // the item's table
	Key   map[string]types.AttributeValue // the item's key
	Unit  string                          // the id of the unit holding the item
	Owner string                          // its owner (unit.Owner)
	// Coordinator is the coordinator table that holds the unit's record.
	Coordinator string
	Err         error // the error underneath
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
	Placeholder              bool
	Prepared                 bool
	Checked                  bool
	Kind                     string                          // the intent, "" if none
	After                    map[string]types.AttributeValue // a put's new item
	Actions                  []plan.Action                   // an update's actions
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
		Checked:     boolean(m.Value[FChecked]),
		Kind:        str(m.Value[FKind]),
	}
	if a, ok := m.Value[FAfter].(*types.AttributeValueMemberM); ok {
		l.After = a.Value
	}
	if x, ok := m.Value[FActions].(*types.AttributeValueMemberL); ok {
		l.Actions = decodeActions(x.Value)
	}
	return l, true
}

// Locked returns the LockedError for item if it holds a lock, or nil.
func Locked(table string, key, item map[string]types.AttributeValue, err error) *LockedError {
	l, ok := Parse(item)
	if !ok {
		return nil
	}
	return &LockedError{Table: table, Key: key, Unit: l.Unit, Owner: l.Owner, Coordinator: l.Coordinator, Err: err}
}

// NewLock returns the lock map of a unit that holds an item: unread
// (Placeholder: the lock makes the item).
func NewLock(unit, coordinator, owner string, placeholder bool) map[string]types.AttributeValue {
	m := map[string]types.AttributeValue{FUnit: avS(unit), FCoordinator: avS(coordinator), FOwner: avS(owner)}
	if placeholder {
		m[FPlaceholder] = avTrue()
	}
	return m
}

// Intent returns the lock fields that store a write of a unit: kind, and
// the new item of a put or the actions of an update (their values encoded
// with the write's encoder).
func Intent(w *plan.Write) (map[string]types.AttributeValue, error) {
	m := map[string]types.AttributeValue{FPrepared: avTrue()}
	switch w.Kind {
	case plan.WritePut:
		m[FKind] = avS(KindPut)
		m[FAfter] = &types.AttributeValueMemberM{Value: w.Item}
	case plan.WriteUpdate:
		m[FKind] = avS(KindUpdate)
		x, err := encodeActions(w.Actions, w.Enc)
		if err != nil {
			return nil, err
		}
		m[FActions] = &types.AttributeValueMemberL{Value: x}
	case plan.WriteDelete:
		m[FKind] = avS(KindDelete)
	default:
		return nil, fmt.Errorf("unit: a %v is not a write", w.Kind)
	}
	return m, nil
}

func encodeActions(actions []plan.Action, enc *plan.Encoder) ([]types.AttributeValue, error) {
	out := make([]types.AttributeValue, len(actions))
	for i := range actions {
		a := &actions[i]
		steps := make([]types.AttributeValue, len(a.Path))
		for j, st := range a.Path {
			if st.Name == "" {
				steps[j] = &types.AttributeValueMemberN{Value: strconv.Itoa(st.Index)}
			} else {
				steps[j] = avS(st.Name)
			}
		}
		m := map[string]types.AttributeValue{"k": avS(strconv.Itoa(int(a.Kind))), "p": &types.AttributeValueMemberL{Value: steps}}
		if a.Kind != plan.Remove {
			v, err := a.Encoded(enc)
			if err != nil {
				return nil, err
			}
			m["v"] = v
		}
		out[i] = &types.AttributeValueMemberM{Value: m}
	}
	return out, nil
}

func decodeActions(l []types.AttributeValue) []plan.Action {
	out := make([]plan.Action, 0, len(l))
	for _, av := range l {
		m, ok := av.(*types.AttributeValueMemberM)
		if !ok {
			continue
		}
		k, _ := strconv.Atoi(str(m.Value["k"]))
		a := plan.Action{Kind: plan.ActionKind(k), Value: m.Value["v"]}
		if p, ok := m.Value["p"].(*types.AttributeValueMemberL); ok {
			for _, st := range p.Value {
				switch st := st.(type) {
				case *types.AttributeValueMemberS:
					a.Path = append(a.Path, plan.Step{Name: st.Value})
				case *types.AttributeValueMemberN:
					n, _ := strconv.Atoi(st.Value)
					a.Path = append(a.Path, plan.Step{Index: n})
				}
			}
		}
		out = append(out, a)
	}
	return out
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

// View returns what a reader sees of a locked item, if it can tell without
// writing: the last committed state, nil for "no item". committed tells
// whether the lock's unit has passed its commit point; it matters only for
// a prepared lock. ok is false for a committed update, whose new state
// DynamoDB computes: apply it (see [Finish]) and show the result.
func View(item map[string]types.AttributeValue, l *Lock, committed bool) (view map[string]types.AttributeValue, ok bool) {
	if !l.Prepared || !committed {
		if l.Placeholder {
			return nil, true
		}
		return Strip(item), true
	}
	switch l.Kind {
	case KindPut:
		return l.After, true
	case KindDelete:
		return nil, true
	case KindUpdate:
		return nil, false
	}
	if l.Placeholder {
		return nil, true
	}
	return Strip(item), true
}

// ItemID identifies an item by table and key; see attrs.ItemID.
func ItemID(table string, key map[string]types.AttributeValue) string {
	return attrs.ItemID(table, key)
}

// avTrue is the BOOL true, made for each use: a value shared by requests
// would be package state.
func avTrue() types.AttributeValue { return &types.AttributeValueMemberBOOL{Value: true} }

func avS(s string) *types.AttributeValueMemberS { return &types.AttributeValueMemberS{Value: s} }

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
