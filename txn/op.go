package txn

import (
	"errors"
	"fmt"
	"strings"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/optimist-dynamo/optimist/internal/attrs"
	"github.com/optimist-dynamo/optimist/internal/plan"
)

// Op is one action of a transaction: a Put, Update, Delete or
// ConditionCheck of one item, with what is needed to check it before
// sending and to explain its failure. Make ops with [Put], [Update],
// [Delete] and [Check] for attribute maps, or with mapper.Table's PutOp,
// UpdateOp, DeleteOp and CheckOp for structs, which carry version checks.
// An Op is a value: it may be added to several transactions (or units of
// work), and is never changed by them. The zero Op is invalid (its Err
// says so).
//
// (An Op holds its write rendered once, as an internal type, which the
// mapper and package unit read as a structured value.)
type Op plan.Op

// newOp renders w once into an op, or keeps err.
func newOp(w *plan.Write, err error) Op {
	if err != nil || w == nil {
		return Op(plan.NewOp(nil, err))
	}
	r, err := w.Render()
	if err != nil {
		class := ErrInvalidOption // a condition the expression package refuses
		if ce := (*plan.ConditionError)(nil); errors.As(err, &ce) && ce.Value {
			class = ErrInvalidItem // a value DynamoDB would refuse
		}
		err = fmt.Errorf("%w: %v on %s %s: %w", class, w.Kind, w.T.Name, attrs.FormatKey(w.Key), err)
	}
	return Op(plan.NewOp(r, err))
}

// failedOp is an op that carries err.
func failedOp(err error) Op { return Op(plan.NewOp(nil, err)) }

// request returns the op's rendered write, nil for an invalid op.
func (op Op) request() *plan.Request {
	r, _ := plan.OpRequest(op)
	return r
}

// write returns the op's write, nil for an invalid op.
func (op Op) write() *plan.Write {
	w, _ := plan.OpWrite(op)
	return w
}

// Err returns the error found while building the op, if any; Tx.Add and
// Tx.Commit report it, and nothing is sent.
func (op Op) Err() error {
	_, err := plan.OpRequest(op)
	return err
}

// Table returns the table the op writes to ("" for an invalid op).
func (op Op) Table() string {
	if w := op.write(); w != nil {
		return w.T.Name
	}
	return ""
}

// Key returns the primary key of the item the op touches (nil for an
// invalid op). The map is the op's own: do not change it.
func (op Op) Key() map[string]types.AttributeValue {
	if w := op.write(); w != nil {
		return w.Key
	}
	return nil
}

// Action returns the op as the TransactWriteItems action Commit sends (a
// conditional one asks for ALL_OLD when its condition fails), or the op's
// error. The action is a copy: changing it does not change the op.
func (op Op) Action() (types.TransactWriteItem, error) {
	r, err := plan.OpRequest(op)
	if err != nil {
		return types.TransactWriteItem{}, err
	}
	return plan.CopyTransactItem(r.TransactItem()), nil
}

// kind names the action, for messages.
func (op Op) kind() string {
	w := op.write()
	if w == nil {
		return "no action"
	}
	return strings.TrimSuffix(strings.TrimPrefix(w.Kind.String(), "Condition"), "Item")
}
