package unit

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"regexp"
	"sort"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/optimist-dynamo/optimist/internal/attrs"
	"github.com/optimist-dynamo/optimist/internal/unitlock"
	"github.com/optimist-dynamo/optimist/mapper"
	"github.com/optimist-dynamo/optimist/version"
)

// maxItemBytes is DynamoDB's item size limit.
const maxItemBytes = 400 << 10

// Commit makes the unit's writes, all or nothing:
//
//  1. log and lock every item of an op not yet locked (in table and key
//     order; see [Wait] for items other units hold);
//  2. prepare each op: write the item's new state in place, with the old
//     one kept in the lock (one PutItem or UpdateItem per item, conditional
//     on the lock being ours and on the op's own conditions);
//  3. the commit point: one conditional UpdateItem of the unit's record,
//     active → committed;
//  4. apply: remove each lock (one write per item; a deleted item is
//     deleted), and mark the record finished.
//
// Before the commit point any failure rolls the unit back and is returned:
// a version conflict or failed condition of an op (matching
// version.ErrConflict or mapper.ErrConditionFailed), [ErrLocked], or
// [ErrAborted] if recovery rolled the unit back first. If the commit
// point's outcome cannot be learnt (DynamoDB unreachable), the error
// matches version.ErrUnknownOutcome and the locks stay for recovery,
// which will finish or undo the unit. After the commit point Commit
// returns nil even if applying some items failed: readers already see
// them committed, and recovery (or any unit or Recover meeting them)
// finishes them. Ops' Committed callbacks (which set the structs'
// versions) run on success.
func (u *Unit) Commit(ctx context.Context) error {
	if err := u.check(); err != nil {
		return err
	}
	var todo []*item
	for _, it := range u.order {
		if it.op != nil {
			todo = append(todo, it)
		}
	}
	sort.Slice(todo, func(i, j int) bool { return todo[i].id < todo[j].id })
	if err := u.prepareAll(ctx, todo); err != nil {
		if errors.Is(err, version.ErrUnknownOutcome) {
			u.done = true
			u.stopHeartbeats()
			return err
		}
		return u.abort(ctx, err)
	}
	u.stopHeartbeats()
	u.done = true
	st, err := setState(ctx, u.c, u.o.coord, u.id, unitlock.StateCommitted, "")
	if err != nil {
		// The outcome is not known: read the record back.
		rec, rerr := readRecord(ctx, u.c, u.o.coord, u.id)
		if rerr != nil {
			return fmt.Errorf("%w: unit %s: the commit point's outcome is unknown (recovery will finish or undo it): %v", version.ErrUnknownOutcome, u.id, err)
		}
		st = rec.state
		if st == unitlock.StateActive {
			if st, err = setState(ctx, u.c, u.o.coord, u.id, unitlock.StateCommitted, ""); err != nil {
				return fmt.Errorf("%w: unit %s: the commit point's outcome is unknown (recovery will finish or undo it): %v", version.ErrUnknownOutcome, u.id, err)
			}
		}
	}
	if st != unitlock.StateCommitted {
		u.done = false
		return u.abort(ctx, fmt.Errorf("%w: unit %s found its record %q at its commit point", ErrAborted, u.id, st))
	}
	// Committed.
	_ = u.finish(ctx, true)
	for _, it := range todo {
		if it.op.Committed != nil {
			it.op.Committed()
		}
	}
	return nil
}

// Rollback releases every lock the unit took and writes nothing of its
// ops: it marks the record aborted (so that no reader or recoverer takes
// the unit for committed), then undoes each lock (one write per item) and
// marks the record finished. After Commit or Rollback it returns ErrDone.
func (u *Unit) Rollback(ctx context.Context) error {
	if u.done {
		return ErrDone
	}
	err := u.abort(ctx, nil)
	if errors.Is(err, ErrAborted) { // recovery got there first: rolled back all the same
		return nil
	}
	return err
}

// abort rolls the unit back and returns cause (or the rollback's own
// failure when cause is nil).
func (u *Unit) abort(ctx context.Context, cause error) error {
	u.stopHeartbeats()
	u.done = true
	ctx = context.WithoutCancel(ctx)
	st, err := setState(ctx, u.c, u.o.coord, u.id, unitlock.StateAborted, "")
	if err != nil {
		return errors.Join(cause, fmt.Errorf("unit %s: rolling back: %w", u.id, err))
	}
	if st == unitlock.StateCommitted { // cannot be: only Commit commits
		return errors.Join(cause, fmt.Errorf("unit %s: rolling back a committed unit", u.id))
	}
	if err := u.finish(ctx, false); err != nil {
		return errors.Join(cause, err)
	}
	return cause
}

// finish applies or undoes every lock of the unit, then marks the record
// finished.
func (u *Unit) finish(ctx context.Context, commit bool) error {
	var locked []*item
	for _, it := range u.order {
		if it.locked || it.uncertain || it.logged {
			locked = append(locked, it)
		}
	}
	err := parallel(ctx, len(locked), u.o.workers, func(ctx context.Context, i int) error {
		it := locked[i]
		l := it.lockState(u.id)
		if !it.locked {
			l = nil // a lock whose outcome we do not know: read it
		}
		return finishItem(ctx, u.c, it.table, it.key, u.id, commit, l)
	})
	if err != nil {
		return err
	}
	pages := u.page
	if u.pageLen > 0 {
		pages++
	}
	return finishRecord(ctx, u.c, u.o.coord, u.id, pages)
}

// prepareAll logs and locks the items of todo, then prepares each.
func (u *Unit) prepareAll(ctx context.Context, todo []*item) error {
	var unlocked []*item
	for _, it := range todo {
		if !it.locked {
			unlocked = append(unlocked, it)
		}
	}
	if err := u.log(ctx, unlocked); err != nil {
		return err
	}
	// Lock in key order, a few at a time: wait-die rules out deadlocks
	// whatever the order; the order keeps two units from each taking half
	// of the other's items.
	err := parallel(ctx, len(unlocked), u.o.workers, func(ctx context.Context, i int) error {
		if u.aborted.Load() {
			return ErrAborted
		}
		return u.lockItem(ctx, unlocked[i])
	})
	if err != nil {
		return err
	}
	return parallel(ctx, len(todo), u.o.workers, func(ctx context.Context, i int) error {
		if u.aborted.Load() {
			return ErrAborted
		}
		return u.prepare(ctx, todo[i])
	})
}

// Placeholders of the unit's own names and values in prepare requests;
// mapper and the expression builder use #0, :0, #k, #v, :v.
const (
	nLock = "#optimistLk"
	nUnit = "#optimistU"
	nPrep = "#optimistP"
	nBef  = "#optimistB"
	nDel  = "#optimistD"
	nChk  = "#optimistC"
	vMe   = ":optimistMe"
	vTrue = ":optimistT"
	vBef  = ":optimistB"

	// guardName replaces the lock attribute in an op's own condition: the
	// mapper's "attribute_not_exists(optimist_unit)" must hold for the
	// item as the unit found it, not with the unit's own lock on it.
	guardName = "optimist_unit_guard"
	// absentName replaces a key attribute in the condition of an op on a
	// placeholder: the item does not exist for the op, so its key does
	// not either (attribute_not_exists(key) holds, key = x does not).
	absentName = "optimist_unit_absent"
)

var setClause = regexp.MustCompile(`(?i)(^|\s)SET\s`)

// prepare writes the new state of one item in place, keeping the old one
// in the lock. The request is conditional on the lock being ours and not
// yet prepared, and on the op's own condition; a retry whose first attempt
// landed fails and finds the lock prepared by us: success.
func (u *Unit) prepare(ctx context.Context, it *item) error {
	op := it.op
	w := op.Write
	var opNames map[string]string
	var opValues map[string]types.AttributeValue
	var opCond *string
	switch {
	case w.Put != nil:
		opNames, opValues, opCond = w.Put.ExpressionAttributeNames, w.Put.ExpressionAttributeValues, w.Put.ConditionExpression
	case w.Update != nil:
		opNames, opValues, opCond = w.Update.ExpressionAttributeNames, w.Update.ExpressionAttributeValues, w.Update.ConditionExpression
	case w.Delete != nil:
		opNames, opValues, opCond = w.Delete.ExpressionAttributeNames, w.Delete.ExpressionAttributeValues, w.Delete.ConditionExpression
	default:
		opNames, opValues, opCond = w.ConditionCheck.ExpressionAttributeNames, w.ConditionCheck.ExpressionAttributeValues, w.ConditionCheck.ConditionExpression
	}
	names := make(map[string]string, len(opNames)+6)
	for k, v := range opNames {
		switch {
		case v == unitlock.Attr:
			v = guardName
		case it.placeholder && it.key[v] != nil:
			v = absentName
		}
		names[k] = v
	}
	values := maps.Clone(opValues)
	if values == nil {
		values = map[string]types.AttributeValue{}
	}
	names[nLock], names[nUnit] = unitlock.Attr, unitlock.FUnit
	values[vMe] = avS(u.id)
	cond := nLock + "." + nUnit + " = " + vMe
	if w.ConditionCheck == nil {
		names[nPrep] = unitlock.FPrepared
		cond += " AND attribute_not_exists(" + nLock + "." + nPrep + ")"
	}
	if opCond != nil && *opCond != "" {
		cond += " AND (" + *opCond + ")"
	}
	var before types.AttributeValue
	if !it.placeholder {
		before = &types.AttributeValueMemberM{Value: it.before}
	}
	// set is the unit's own SET actions of an UpdateItem.
	set := func(extra string) string {
		s := nLock + "." + nPrep + " = " + vTrue
		values[vTrue] = avTrue
		if before != nil {
			names[nBef] = unitlock.FBefore
			values[vBef] = before
			s += ", " + nLock + "." + nBef + " = " + vBef
		}
		return s + extra
	}
	const allOld = types.ReturnValuesOnConditionCheckFailureAllOld
	var err error
	switch {
	case w.Put != nil:
		item := maps.Clone(w.Put.Item)
		lock := u.lockMap(it.placeholder)
		lock.Value[unitlock.FPrepared] = avTrue
		if before != nil {
			lock.Value[unitlock.FBefore] = before
		}
		item[unitlock.Attr] = lock
		if attrs.ItemSize(item) > maxItemBytes {
			return fmt.Errorf("%w: %s %s", ErrTooLarge, it.table, attrs.FormatKey(it.key))
		}
		_, err = u.c.PutItem(ctx, &dynamodb.PutItemInput{TableName: w.Put.TableName, Item: item,
			ConditionExpression: aws.String(cond), ExpressionAttributeNames: names, ExpressionAttributeValues: values,
			ReturnValuesOnConditionCheckFailure: allOld})
	case w.Update != nil:
		expr := *w.Update.UpdateExpression
		ours := set("")
		if loc := setClause.FindStringIndex(expr); loc != nil {
			expr = expr[:loc[1]] + ours + ", " + expr[loc[1]:]
		} else {
			expr = "SET " + ours + "\n" + expr
		}
		_, err = u.c.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: w.Update.TableName, Key: it.key,
			UpdateExpression: aws.String(expr), ConditionExpression: aws.String(cond),
			ExpressionAttributeNames: names, ExpressionAttributeValues: values,
			ReturnValuesOnConditionCheckFailure: allOld})
	case w.Delete != nil:
		names[nDel] = unitlock.FDeleted
		_, err = u.c.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: w.Delete.TableName, Key: it.key,
			UpdateExpression: aws.String("SET " + set(", "+nLock+"."+nDel+" = "+vTrue)), ConditionExpression: aws.String(cond),
			ExpressionAttributeNames: names, ExpressionAttributeValues: values,
			ReturnValuesOnConditionCheckFailure: allOld})
	default:
		names[nChk] = unitlock.FChecked
		values[vTrue] = avTrue
		_, err = u.c.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: w.ConditionCheck.TableName, Key: it.key,
			UpdateExpression: aws.String("SET " + nLock + "." + nChk + " = " + vTrue), ConditionExpression: aws.String(cond),
			ExpressionAttributeNames: names, ExpressionAttributeValues: values,
			ReturnValuesOnConditionCheckFailure: allOld})
		if err == nil {
			return nil // a check changes nothing: the item is not "prepared"
		}
	}
	if err == nil {
		it.prepared = true
		return nil
	}
	e, ok := ccf(err)
	if !ok {
		// Lost in transit: the item may or may not be prepared. Undo
		// reads it first.
		it.uncertain = true
		return fmt.Errorf("unit: preparing %s %s: %w", it.table, attrs.FormatKey(it.key), err)
	}
	l, locked := unitlock.Parse(e.Item)
	switch {
	case !locked || l.Unit != u.id:
		it.locked = false // undone by recovery
		return fmt.Errorf("%w: unit %s lost its lock on %s %s", ErrAborted, u.id, it.table, attrs.FormatKey(it.key))
	case l.Prepared && w.ConditionCheck == nil:
		it.prepared = true // our own earlier attempt
		return nil
	}
	// The op's own condition failed, on the item as the unit found it.
	var stored map[string]types.AttributeValue
	if !it.placeholder {
		stored = it.before
	}
	if op.Conflict != nil && op.Conflict(stored) {
		return &version.ConflictError{Table: it.table, Key: it.key, Item: stored, Err: err}
	}
	return &mapper.ConditionError{Table: it.table, Key: it.key, Item: stored, Err: err}
}
