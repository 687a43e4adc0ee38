package plan

import (
	"errors"
	"fmt"
)

// The values package update and package txn export, defined here so that
// mapper, txn and unit read them as structured values without a public API
// for it, without hooks and without type assertions: update.Builder is
// declared as a [Updates] and txn.Op as an [Op] (Go allows the conversion
// between types of one underlying type, and only packages that may import
// plan can name it). The generic accessors take either type.

// Updates is what an update.Builder holds: its actions and its first error.
type Updates struct {
	actions []Action
	err     error
}

// updates is the underlying type of Updates and of update.Builder.
type updates = struct {
	actions []Action
	err     error
}

// Add adds the action kind at path p with value (see [NewAction]), unless
// u already has an error; a failed action becomes u's error, wrapped with
// the action's name and path.
func (u *Updates) Add(kind ActionKind, p string, value any) {
	if u.err != nil {
		return
	}
	fail := func(err error) { u.err = fmt.Errorf("%s(%q): %w", kind, p, err) }
	a, err := NewAction(kind, p, value)
	if err != nil {
		fail(err)
		return
	}
	for _, other := range u.actions {
		if a.Path.Overlaps(other.Path) {
			fail(fmt.Errorf("%w: %s also changed by %s(%q)", ErrOverlap, a.Path, other.Kind, other.Path))
			return
		}
	}
	u.actions = append(u.actions, a)
}

// Actions returns u's actions (shared: do not change them) and its error.
func (u *Updates) Actions() ([]Action, error) { return u.actions, u.err }

// BuilderActions returns the actions and the first error of an
// update.Builder; a nil one has neither.
func BuilderActions[B ~updates](b *B) ([]Action, error) {
	if b == nil {
		return nil, nil
	}
	u := Updates(*b)
	return u.actions, u.err
}

// Op is what a txn.Op holds: the write rendered once, or the error found
// while building it.
type Op struct {
	req *Request
	err error
}

// op is the underlying type of Op and of txn.Op.
type op = struct {
	req *Request
	err error
}

// NewOp returns the op of the rendered write r, or of err.
func NewOp(r *Request, err error) Op {
	if err != nil {
		return Op{err: err}
	}
	return Op{req: r}
}

var errZeroOp = errors.New("txn: an empty Op; make ops with Put, Update, Delete, Check or a mapper.Table")

// OpRequest returns the rendered write of a txn.Op, or the error found while
// building it (the zero Op's is an error too).
func OpRequest[O ~op](o O) (*Request, error) {
	p := Op(o)
	if p.err == nil && p.req == nil {
		return nil, errZeroOp
	}
	return p.req, p.err
}

// OpWrite returns the write of a txn.Op, or the error found while building
// it.
func OpWrite[O ~op](o O) (*Write, error) {
	r, err := OpRequest(o)
	if err != nil {
		return nil, err
	}
	return r.W, nil
}
