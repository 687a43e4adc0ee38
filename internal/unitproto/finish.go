package unitproto

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"

	"github.com/optimist-dynamo/optimist/internal/attrs"
	"github.com/optimist-dynamo/optimist/internal/ddbapi"
	"github.com/optimist-dynamo/optimist/internal/plan"
)

// lockField is the expression name of a field of the lock.
func lockField(f string) expression.NameBuilder {
	return plan.Path{{Name: Attr}, {Name: f}}.Name()
}

// Mine is the condition "the item holds unit id's lock".
func Mine(id string) expression.ConditionBuilder {
	return lockField(FUnit).Equal(expression.Value(id))
}

// PreparedCond and NotPrepared are the conditions on the lock's intent.
func PreparedCond() expression.ConditionBuilder {
	return expression.AttributeExists(lockField(FPrepared))
}

// NotPrepared is the condition "the lock holds no intent yet".
func NotPrepared() expression.ConditionBuilder {
	return expression.AttributeNotExists(lockField(FPrepared))
}

// Finish rolls one item forward (commit) or back, until it holds no lock of
// unit id, and returns the item as it is then (nil for no item); l is the
// lock as last known, nil to read the item first. Forward applies the
// intent: a put's item, an update's actions (DynamoDB computes the new
// state), a delete; an unprepared lock is removed. Back removes the lock
// (the item's own attributes were never changed) or deletes the item the
// lock made. Every write is conditional on the lock being the unit's, in
// the state seen, so Finish is idempotent and may race another process
// finishing the same item: a refused write returns the item as stored
// (ALL_OLD), from which it goes on without another read.
//
// An item in a table that does not exist, or whose key does not match its
// table's schema, holds no lock (the lock could not have been taken): Finish
// returns nil for it, so that one bad op cannot block a unit's recovery.
func Finish(ctx context.Context, c ddbapi.Items, table string, key map[string]types.AttributeValue, id string, commit bool, l *Lock) (map[string]types.AttributeValue, error) {
	after, _, err := finish(ctx, c, table, key, id, commit, l)
	return after, err
}

// finish is [Finish], and reports whether a write of its own was answered
// with success (the item it returns is then the unit's write exactly as
// DynamoDB computed it on the item the unit held).
func finish(ctx context.Context, c ddbapi.Items, table string, key map[string]types.AttributeValue, id string, commit bool, l *Lock) (after map[string]types.AttributeValue, wrote bool, err error) {
	t := plan.NewTable(table, "", "")
	var item map[string]types.AttributeValue
	for range 20 {
		if l == nil {
			var err error
			item, err = ddbapi.ReadItem(ctx, c, t.NameP, key)
			if err != nil {
				if Unlockable(err) {
					return nil, false, nil
				}
				return nil, false, fmt.Errorf("unit: reading %s %s: %w", table, attrs.FormatKey(key), err)
			}
			var ok bool
			if l, ok = Parse(item); !ok {
				return nilIfEmpty(item), false, nil
			}
		}
		if l.Unit != id {
			return Strip(nilIfEmpty(item)), false, nil
		}
		res, after, err := finishWrite(ctx, c, finishPlan(t, key, id, commit, l), id)
		switch {
		case err != nil:
			return nil, false, err
		case res.Outcome == plan.Applied && !res.Lost():
			return after, true, nil
		case res.Outcome == plan.Failed, res.Outcome == plan.Unknown && !res.Seen():
			if Unlockable(res.Err) {
				return nil, false, nil
			}
			return nil, false, fmt.Errorf("unit: finishing %s %s: %w", table, attrs.FormatKey(key), settledErr(res))
		}
		// Refused, or a lost answer settled by the item as stored: go on
		// from it without another read.
		item = res.Item
		var ok bool
		if l, ok = Parse(item); !ok {
			return nilIfEmpty(item), false, nil
		}
	}
	return nil, false, fmt.Errorf("unit: finishing %s %s: the item keeps changing", table, attrs.FormatKey(key))
}

// finishPlan is the write that rolls an item locked by unit id (lock l)
// forward (commit, for a prepared lock) or back, conditional on the lock
// being the unit's, in the state seen.
func finishPlan(t *plan.Table, key map[string]types.AttributeValue, id string, commit bool, l *Lock) *plan.Write {
	w := &plan.Write{T: t, Key: key, Conds: []expression.ConditionBuilder{Mine(id)}}
	forward := commit && l.Prepared
	if forward {
		w.Conds = append(w.Conds, PreparedCond())
	} else {
		w.Conds = append(w.Conds, NotPrepared())
		if l.Prepared {
			w.Conds[1] = PreparedCond()
		}
	}
	switch {
	case forward && l.Kind == KindPut:
		w.Kind, w.Item = plan.WritePut, l.After
	case forward && l.Kind == KindUpdate:
		w.Kind = plan.WriteUpdate
		w.Actions = append(append([]plan.Action{}, l.Actions...), plan.TopAction(plan.Remove, Attr, nil))
	case forward && l.Kind == KindDelete, l.Placeholder:
		w.Kind = plan.WriteDelete
	default:
		w.Kind = plan.WriteUpdate
		w.Actions = []plan.Action{plan.TopAction(plan.Remove, Attr, nil)}
	}
	return w
}

// finishWrite sends a write of finishPlan through the executor and returns
// the item after it, when it was applied: a put's item, an update's new
// state (ALL_NEW), nil for a delete. A lost answer is ours when the item
// as stored holds no lock of the unit any more (the write removes it,
// and a lock of the unit is never taken again once it is finished).
func finishWrite(ctx context.Context, c ddbapi.Items, w *plan.Write, id string) (plan.Result, map[string]types.AttributeValue, error) {
	r, err := w.Render()
	if err != nil {
		return plan.Result{}, nil, err
	}
	if r.Put != nil {
		r.PutKey = w.Key
	}
	call := plan.Call{Settle: plan.Settle{Ours: func(item map[string]types.AttributeValue) bool {
		l, ok := Parse(item)
		return !ok || l.Unit != id
	}}}
	if w.Kind == plan.WriteUpdate {
		call.ReturnValues = types.ReturnValueAllNew
	}
	res := plan.Exec(ctx, c, r, call)
	switch {
	case res.Outcome != plan.Applied || res.Lost():
		return res, nil, nil // the caller goes on from res.Item
	case w.Kind == plan.WritePut:
		return res, w.Item, nil
	}
	return res, nilIfEmpty(res.Item), nil
}

func nilIfEmpty(item map[string]types.AttributeValue) map[string]types.AttributeValue {
	if len(item) == 0 {
		return nil
	}
	return item
}

// Unlockable reports an error that says the item cannot hold a lock: its
// table does not exist, or the key does not match the table's schema.
func Unlockable(err error) bool {
	var nf *types.ResourceNotFoundException
	if errors.As(err, &nf) {
		return true
	}
	var api smithy.APIError
	if errors.As(err, &api) && api.ErrorCode() == "ValidationException" {
		msg := api.ErrorMessage()
		return strings.Contains(msg, "key element does not match the schema") || strings.Contains(msg, "Missing the key") ||
			strings.Contains(msg, "required keys was not given") || strings.Contains(msg, "Requested resource not found")
	}
	return false
}
