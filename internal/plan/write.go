// Package plan is the one description of a write that optimist's packages
// share: which item, what it writes (a whole item, or update actions), and
// every condition (the version check, the unit-lock guard, a fence, the
// caller's own), as structured values. One renderer turns a Write into a
// PutItem, UpdateItem or DeleteItem request or a TransactWriteItems
// action; mapper builds Writes for its Put, Save, Update, Delete, Modify and
// transaction ops, txn sends them, and unit composes its own actions and
// conditions with them, all without editing rendered strings.
package plan

import (
	"strconv"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/optimist-dynamo/optimist/internal/attrs"
	"github.com/optimist-dynamo/optimist/internal/replica"
	"github.com/optimist-dynamo/optimist/internal/unitproto/seen"
)

// LockAttr is the attribute in which a unit of work keeps its lock on an
// item (package unit); a write guarded against units requires its absence.
const LockAttr = "optimist_unit"

// Kind is what a write does to its item.
type Kind uint8

// The kinds of writes.
const (
	WritePut    Kind = iota + 1 // replace the whole item (PutItem)
	WriteUpdate                 // apply update actions (UpdateItem)
	WriteDelete                 // delete the item (DeleteItem)
	WriteCheck                  // write nothing; only the condition (ConditionCheck)
)

// String names the DynamoDB call of the kind.
func (k Kind) String() string {
	switch k {
	case WritePut:
		return "PutItem"
	case WriteUpdate:
		return "UpdateItem"
	case WriteDelete:
		return "DeleteItem"
	case WriteCheck:
		return "ConditionCheck"
	}
	return "no action"
}

// VersionCheck is the version condition of a write.
type VersionCheck uint8

// The version checks.
const (
	NoCheck         VersionCheck = iota
	MustNotExist                 // attribute_not_exists(hash key): a create
	MustBeVersion                // version = Expected
	MustBeNewOrZero              // attribute_not_exists(hash key) OR version = 0
	checkCount                   //
)

// Table is what writes to one table share: its name and the attribute names
// the conditions use, with the names maps of the plain version checks built
// once (requests share them; nothing writes to them).
type Table struct {
	Name    string
	NameP   *string
	Hash    string // hash key attribute
	Version string // version attribute, "" for types without one
	// Replicas is the global-table guard of the table's writes (the
	// mapper's Table sets it, with its WriteRegion), nil if none: a
	// transaction checks each conditional op with it before sending.
	Replicas *replica.Guard
	// Units is what the parties writing the table (its own writes, its
	// ops in transactions and units) saw of the units of work whose locks
	// they met (the mapper's Table sets it, one per Table), nil if
	// nothing is remembered: see unitproto.Memory.
	Units *seen.Memory

	names [checkCount]map[string]string
	// turnNames are the names maps of the plain version checks with
	// Modify's turn condition: [check][0] free, [check][1] held.
	turnNames [checkCount][2]map[string]string
}

// NewTable returns the write constants of a table.
func NewTable(name, hash, version string) *Table {
	t := &Table{Name: name, NameP: &name, Hash: hash, Version: version}
	t.names[MustNotExist] = map[string]string{"#k": hash}
	if version != "" {
		t.names[MustBeVersion] = map[string]string{"#v": version, "#lk": LockAttr}
		t.names[MustBeNewOrZero] = map[string]string{"#k": hash, "#v": version, "#lk": LockAttr}
		for _, c := range []VersionCheck{MustBeVersion, MustBeNewOrZero} {
			for i, extra := range [2]string{"#tu", "#to"} {
				m := map[string]string{"#tn": TurnAttr, extra: extra[2:]}
				for k, v := range t.names[c] {
					m[k] = v
				}
				t.turnNames[c][i] = m
			}
		}
	}
	return t
}

// TurnAttr is the attribute in which mapper's Modify keeps its turn across
// processes: a map {o: owner, u: until, in Unix milliseconds}.
const TurnAttr = "optimist_turn"

// Turn is the condition of a write of mapper's Modify on its turn across
// processes: with Owner "", that no turn is live at Now (Unix ms); else,
// that the turn is Owner's.
type Turn struct {
	Owner string
	Now   int64
}

// builder is the turn's condition as an expression builder.
func (tc *Turn) builder() expression.ConditionBuilder {
	if tc.Owner != "" {
		return expression.Name(TurnAttr + ".o").Equal(expression.Value(tc.Owner))
	}
	return expression.Or(expression.AttributeNotExists(expression.NameNoDotSplit(TurnAttr)),
		expression.Name(TurnAttr+".u").LessThan(expression.Value(tc.Now)))
}

// Fence is the condition of a fencing token: attr holds no higher token.
type Fence struct {
	Attr  string
	Token int64
}

// Write is one write of one item.
type Write struct {
	Kind Kind
	T    *Table
	Key  map[string]types.AttributeValue
	// Item is the whole item of a Put, key included.
	Item map[string]types.AttributeValue
	// Actions are the actions of an Update, and Enc the encoder of the
	// values given to them as Go values (nil: the default encoding).
	Actions []Action
	Enc     *Encoder

	// The condition, ANDed: the version check, the unit-lock guard, the
	// fence, and conditions of the caller's (or of a composing package).
	Check    VersionCheck
	Expected int64 // the version expected by MustBeVersion, and the version read
	Guard    bool  // attribute_not_exists(LockAttr): no unit of work holds the item
	Fence    *Fence
	Conds    []expression.ConditionBuilder
	// Ceiling is the largest version the item's version field holds, when
	// w adds to a version it does not check (Conds then hold "below
	// Ceiling"); 0 otherwise.
	Ceiling int64
	// Turn is Modify's turn condition, nil if none. A create needs none:
	// an item that does not exist holds no turn.
	Turn *Turn

	// Token is the write token stored in the item (in Item or Actions),
	// "" if none: how an unanswered write is recognised as ours.
	Token string
	// OnCommit, if set, runs once the write is known to have been applied
	// as part of a transaction or unit (the mapper sets a struct's version).
	OnCommit func()
}

// Fixed conditions of the plain version checks, by far the most common:
// their strings and names maps are shared by every request.
var (
	condCreate       = "attribute_not_exists(#k)"
	condVersion      = "#v = :v AND attribute_not_exists(#lk)"
	condCreateOrZero = "(attribute_not_exists(#k) OR #v = :v) AND attribute_not_exists(#lk)"
	condGuard        = "attribute_not_exists(#lk)"
	turnFree         = " AND (attribute_not_exists(#tn) OR #tn.#tu < :tnow)"
	turnHeld         = " AND #tn.#to = :tme"
	condTurn         = [checkCount][2]string{
		MustBeVersion:   {condVersion + turnFree, condVersion + turnHeld},
		MustBeNewOrZero: {condCreateOrZero + turnFree, condCreateOrZero + turnHeld},
	}
	namesGuard = map[string]string{"#lk": LockAttr}
)

// ConditionError is a condition that cannot be rendered: a caller's
// condition the expression package refuses (Value false), or one holding a
// value DynamoDB would refuse (Value true).
type ConditionError struct {
	Value bool
	Err   error
}

func (e *ConditionError) Error() string { return e.Err.Error() }
func (e *ConditionError) Unwrap() error { return e.Err }

// Parts returns the conditions of w as expression builders, in the order
// they are ANDed: version check, guard, fence, the others.
func (w *Write) Parts() []expression.ConditionBuilder {
	var parts []expression.ConditionBuilder
	t := w.T
	switch w.Check {
	case MustNotExist:
		parts = append(parts, expression.AttributeNotExists(expression.NameNoDotSplit(t.Hash)))
	case MustBeVersion:
		parts = append(parts, expression.NameNoDotSplit(t.Version).Equal(expression.Value(w.Expected)))
	case MustBeNewOrZero:
		parts = append(parts, expression.Or(expression.AttributeNotExists(expression.NameNoDotSplit(t.Hash)),
			expression.NameNoDotSplit(t.Version).Equal(expression.Value(0))))
	}
	if w.guarded() {
		parts = append(parts, expression.AttributeNotExists(expression.NameNoDotSplit(LockAttr)))
	}
	if w.Fence != nil {
		f := expression.NameNoDotSplit(w.Fence.Attr)
		parts = append(parts, expression.Or(expression.AttributeNotExists(f), f.LessThanEqual(expression.Value(w.Fence.Token))))
	}
	if w.turned() {
		parts = append(parts, w.Turn.builder())
	}
	return append(parts, w.Conds...)
}

// turned reports whether the condition carries the turn's.
func (w *Write) turned() bool { return w.Turn != nil && w.Check != MustNotExist }

// guarded reports whether the condition carries the guard: a create needs
// none, since an item a unit holds always exists.
func (w *Write) guarded() bool { return w.Guard && w.Check != MustNotExist }

// Conditional reports whether the write has a condition at all.
func (w *Write) Conditional() bool {
	return w.Check != NoCheck || w.guarded() || w.Fence != nil || len(w.Conds) > 0 || w.turned()
}

// Condition renders the condition: nil when there is none.
func (w *Write) Condition() (expr *string, names map[string]string, values map[string]types.AttributeValue, err error) {
	if w.Fence == nil && len(w.Conds) == 0 && w.turned() && w.guarded() && (w.Check == MustBeVersion || w.Check == MustBeNewOrZero) {
		v := w.Expected
		if w.Check == MustBeNewOrZero {
			v = 0
		}
		values := map[string]types.AttributeValue{":v": attrs.N(v)}
		i := 0
		if w.Turn.Owner != "" {
			i = 1
			values[":tme"] = &types.AttributeValueMemberS{Value: w.Turn.Owner}
		} else {
			values[":tnow"] = attrs.N(w.Turn.Now)
		}
		return &condTurn[w.Check][i], w.T.turnNames[w.Check][i], values, nil
	}
	if w.Fence == nil && len(w.Conds) == 0 && !w.turned() {
		guard := w.guarded()
		switch {
		case w.Check == MustNotExist:
			return &condCreate, w.T.names[MustNotExist], nil, nil
		case w.Check == MustBeVersion && guard:
			return &condVersion, w.T.names[MustBeVersion], map[string]types.AttributeValue{":v": attrs.N(w.Expected)}, nil
		case w.Check == MustBeNewOrZero && guard:
			return &condCreateOrZero, w.T.names[MustBeNewOrZero], map[string]types.AttributeValue{":v": &types.AttributeValueMemberN{Value: "0"}}, nil
		case w.Check == NoCheck && guard:
			return &condGuard, namesGuard, nil, nil
		case w.Check == NoCheck:
			return nil, nil, nil, nil
		}
	}
	parts := w.Parts()
	cb := parts[0]
	if len(parts) > 1 {
		cb = expression.And(parts[0], parts[1], parts[2:]...)
	}
	e, err := expression.NewBuilder().WithCondition(cb).Build()
	if err != nil {
		return nil, nil, nil, &ConditionError{Err: err}
	}
	if err := attrs.CheckItem(e.Values()); err != nil {
		return nil, nil, nil, &ConditionError{Value: true, Err: err}
	}
	return e.Condition(), e.Names(), e.Values(), nil
}

// Conflict tells, for a write whose condition failed on item (as stored,
// nil if none), whether it lost its version check (if not, another part of
// its condition failed), and the version stored: actual, and has = false
// when the item has no version attribute (or one that is not an integer).
func (w *Write) Conflict(item map[string]types.AttributeValue) (conflict bool, actual int64, has bool) {
	if w.T.Version != "" && item != nil {
		actual, has = attrs.Int64(item[w.T.Version])
	}
	switch w.Check {
	case MustNotExist:
		return item != nil, actual, has
	case MustBeNewOrZero:
		return item != nil && (!has || actual != 0), actual, has
	case MustBeVersion:
		return item == nil || actual != w.Expected, actual, has
	}
	return false, actual, has
}

// Protected reports whether w relies on a condition DynamoDB checks (the
// unit-lock guard aside, which units check themselves): a version check, a fence, a condition of the caller's, a check action; or
// is a write of a versioned type (whose version an update adds to, which
// two Regions would each do on their own copy). Those are what a global
// table in eventual consistency cannot protect.
func (w *Write) Protected() bool {
	return w.Check != NoCheck || w.Fence != nil || len(w.Conds) > 0 || w.Kind == WriteCheck ||
		(w.T != nil && w.T.Version != "")
}

// Fenced reports whether item (as stored when w's condition failed) holds
// a fencing token above w's: a newer holder wrote, and w's fence refused it.
func (w *Write) Fenced(item map[string]types.AttributeValue) bool {
	if w.Fence == nil || item == nil {
		return false
	}
	stored, ok := attrs.Int64(item[w.Fence.Attr])
	return ok && stored > w.Fence.Token
}

// AtCeiling reports whether item (as stored when w's condition failed)
// holds a version at w's Ceiling: the increment would not fit the field.
func (w *Write) AtCeiling(item map[string]types.AttributeValue) bool {
	if w.Ceiling == 0 || item == nil || w.T == nil || w.T.Version == "" {
		return false
	}
	v, ok := attrs.Int64(item[w.T.Version])
	return ok && v >= w.Ceiling
}

// Landed tells whether item (as stored after an unanswered attempt, nil if
// none) shows that the write was applied: it carries the write's token in
// tokenAttr, or, for a delete, it is gone.
func (w *Write) Landed(item map[string]types.AttributeValue, tokenAttr string) bool {
	if w.Kind == WriteDelete {
		return item == nil
	}
	if w.Token == "" {
		return false
	}
	tok, ok := item[tokenAttr].(*types.AttributeValueMemberS)
	return ok && tok.Value == w.Token
}

// FormatN formats an integer for a number attribute.
func FormatN(n int64) string { return strconv.FormatInt(n, 10) }
