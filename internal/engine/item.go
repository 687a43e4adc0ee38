package engine

import (
	"errors"
	"strings"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/optimist-dynamo/optimist/internal/attrs"
	"github.com/optimist-dynamo/optimist/internal/cond"
)

// Single-item operations: GetItem, PutItem, UpdateItem, DeleteItem.

type (
	getItemInput struct {
		TableName                string
		Key                      item
		ConsistentRead           bool
		ProjectionExpression     *string
		ExpressionAttributeNames map[string]string
		ReturnConsumedCapacity   string
		AttributesToGet          []string
	}
	writeInput struct {
		TableName                           string
		Key                                 item
		Item                                item
		ConditionExpression                 *string
		UpdateExpression                    *string
		ExpressionAttributeNames            map[string]string
		ExpressionAttributeValues           map[string]av
		ReturnValues                        string
		ReturnValuesOnConditionCheckFailure string
		ReturnConsumedCapacity              string
		ReturnItemCollectionMetrics         string
		// Legacy parameters: see legacy.go.
		Expected            map[string]legacyCond
		AttributeUpdates    map[string]attributeUpdate
		ConditionalOperator string
	}
)

// maxItemSize is DynamoDB's limit on an item.
const maxItemSize = 400 * 1024

func (e *Engine) getItem(s *scope, in *getItemInput) (any, error) {
	t, err := s.lookup(in.TableName)
	if err != nil {
		return nil, err
	}
	if in.AttributesToGet != nil && in.ProjectionExpression != nil {
		return nil, bothKinds([]string{"AttributesToGet"}, []string{"ProjectionExpression"})
	}
	x, err := newExprs(in.ExpressionAttributeNames, nil)
	if err != nil {
		return nil, err
	}
	proj, err := x.projection(in.ProjectionExpression)
	if err != nil {
		return nil, err
	}
	if in.AttributesToGet != nil {
		if proj, err = attributesToGet(in.AttributesToGet); err != nil {
			return nil, err
		}
	}
	if err := x.done(); err != nil {
		return nil, err
	}
	// DynamoDB Local checks the projection before the key.
	if err := t.scalarKeys(x.names, in.ProjectionExpression); err != nil {
		return nil, err
	}
	hash, rng, err := t.keyOf(in.Key)
	if err != nil {
		return nil, err
	}
	out := map[string]any{}
	size := 0
	if en := t.items.get(hash, rng); en != nil {
		size = en.size()
		out["Item"] = storedOut(en.data(), proj)
	}
	if c := consumed(in.ReturnConsumedCapacity, t.name, readUnits(size, in.ConsistentRead), nil); c != nil {
		if in.ReturnConsumedCapacity == "INDEXES" {
			delete(c, "GlobalSecondaryIndexes")
		}
		out["ConsumedCapacity"] = c
	}
	return out, nil
}

// write is a single-item write ready to be applied: the table, the key, the
// new item (nil to delete) and the condition to check first.
type write struct {
	t         *table
	hash, rng types.AttributeValue
	x         *exprs
	cond      *cond.Expr
	onFail    string // ReturnValuesOnConditionCheckFailure
	update    *cond.Update
	put       map[string]types.AttributeValue
	delete    bool
	check     bool // a transaction's ConditionCheck: nothing is written
	// updateErr is the refusal of an UpdateItem's AttributeUpdates, which
	// DynamoDB Local reports only once the condition holds.
	updateErr error
}

// prepare resolves a write's new item against the current one, checking
// the condition: it returns the current entry (nil if none) and the new
// item (nil for a delete).
func (w *write) prepare() (old *entry, next map[string]types.AttributeValue, err error) {
	old = w.t.items.get(w.hash, w.rng)
	var cur map[string]types.AttributeValue
	if old != nil {
		cur = old.item()
	}
	if w.cond != nil {
		ok, err := w.x.eval("ConditionExpression", w.cond, cur)
		if err != nil {
			return nil, nil, err
		}
		if !ok {
			var item map[string]types.AttributeValue
			if w.onFail == "ALL_OLD" && cur != nil {
				item = copyItem(cur)
			}
			return nil, nil, conditionFailed(item)
		}
	}
	if w.updateErr != nil {
		return nil, nil, w.updateErr
	}
	switch {
	case w.check:
		return old, cur, nil
	case w.delete:
		return old, nil, nil
	case w.put != nil:
		return old, w.put, nil
	}
	base := cur
	if base == nil {
		base = map[string]types.AttributeValue{w.t.hash.name: w.hash}
		if w.t.rng.name != "" {
			base[w.t.rng.name] = w.rng
		}
	}
	next, err = w.update.Apply(base, w.x.names, w.x.values, w.t.keyNames())
	if err != nil {
		var api *apiError
		if errors.As(err, &api) {
			return nil, nil, err
		}
		return nil, nil, exprError("UpdateExpression", err)
	}
	if err := checkUpdatedNesting(next); err != nil {
		return nil, nil, err
	}
	if next, err = checkItem(next); err != nil {
		return nil, nil, err
	}
	if err := w.t.checkIndexKeys(next); err != nil {
		var api *apiError
		if errors.As(err, &api) && strings.Contains(api.msg, "A value specified for a secondary index key is not supported.") {
			// UpdateItem words it otherwise, and names no index.
			kind := "string"
			if strings.Contains(api.msg, "empty binary value") {
				kind = "binary"
			}
			return nil, nil, validation(msgNotValidUpdateExpressionAttempted, kind)
		}
		return nil, nil, err
	}
	if attrs.ItemSize(next) > maxItemSize {
		return nil, nil, validation(msgItemSizeUpdateHasExceeded)
	}
	return old, next, nil
}

// apply stores the outcome of prepare and returns the entry it replaced
// or removed (nil if none).
func (w *write) apply(next map[string]types.AttributeValue) *entry {
	if w.check {
		return nil
	}
	if next == nil {
		return w.t.items.remove(w.hash, w.rng)
	}
	return w.t.items.put(w.t.hash.name, w.t.rng.name, next)
}

// run is prepare then apply. A put or a delete with no condition needs
// not the current item first: the tree is searched once, by the write,
// which returns the entry it replaced or removed, where prepare would
// search it once more.
func (w *write) run() (old *entry, next map[string]types.AttributeValue, err error) {
	if w.cond == nil && w.updateErr == nil && !w.check && (w.delete || w.put != nil) {
		if !w.delete {
			next = w.put
		}
		return w.apply(next), next, nil
	}
	if old, next, err = w.prepare(); err != nil {
		return nil, nil, err
	}
	w.apply(next)
	return old, next, nil
}

// newWrite checks the parts common to PutItem, UpdateItem and DeleteItem,
// in DynamoDB Local's order: the table, ReturnValues (one of rv), names or
// values without an expression (nullParams names the expressions),
// ReturnValuesOnConditionCheckFailure, then the names and values.
func (e *Engine) newWrite(s *scope, in *writeInput, nullParams string, rv ...string) (*write, error) {
	t, err := s.lookup(in.TableName)
	if err != nil {
		return nil, err
	}
	var legacy, expr []string
	if in.AttributeUpdates != nil {
		legacy = append(legacy, "AttributeUpdates")
	}
	if in.Expected != nil {
		legacy = append(legacy, "Expected")
	}
	if in.ConditionalOperator != "" {
		legacy = append(legacy, "ConditionalOperator")
	}
	if in.UpdateExpression != nil {
		expr = append(expr, "UpdateExpression")
	}
	if in.ConditionExpression != nil {
		expr = append(expr, "ConditionExpression")
	}
	if len(legacy) > 0 && len(expr) > 0 {
		return nil, bothKinds(legacy, expr)
	}
	if err := returnValues(in.ReturnValues, rv...); err != nil {
		return nil, err
	}
	if err := in.exprsWithout(nullParams); err != nil {
		return nil, err
	}
	switch in.ReturnValuesOnConditionCheckFailure {
	case "", "NONE", "ALL_OLD":
	default:
		return nil, validation(msgConstraintReturnValuesOnConditionCheckFailureSatisfyEnumSet, in.ReturnValuesOnConditionCheckFailure)
	}
	x, err := newExprs(in.ExpressionAttributeNames, in.ExpressionAttributeValues)
	if err != nil {
		return nil, err
	}
	w := &write{t: t, x: x, onFail: in.ReturnValuesOnConditionCheckFailure}
	return w, nil
}

func (e *Engine) putItem(s *scope, in *writeInput) (any, error) {
	in.AttributeUpdates = nil // not a member of PutItem: ignored, as DynamoDB ignores unknown members
	w, err := e.newWrite(s, in, "ConditionExpression is null", "ALL_OLD")
	if err != nil {
		return nil, err
	}
	if in.Item == nil {
		return nil, validation(msgConstraintItemNotNull)
	}
	m, err := in.Item.attrs()
	if err != nil {
		return nil, err
	}
	if err := checkNesting(m); err != nil {
		return nil, err
	}
	if w.put, w.hash, w.rng, err = w.t.checkNewItem(m); err != nil {
		return nil, err
	}
	if attrs.ItemSize(w.put) > maxItemSize {
		return nil, validation(msgItemSizeHasExceededMaximum)
	}
	if w.cond, err = w.x.condition("ConditionExpression", in.ConditionExpression); err != nil {
		return nil, err
	}
	if err := w.x.doneWrite("ConditionExpression is null"); err != nil {
		return nil, err
	}
	if err := w.legacy(in, false); err != nil {
		return nil, err
	}
	if err := w.t.scalarKeys(w.x.names, in.ConditionExpression); err != nil {
		return nil, err
	}
	return e.finish(w, in)
}

func (e *Engine) deleteItem(s *scope, in *writeInput) (any, error) {
	in.AttributeUpdates = nil // not a member of DeleteItem: ignored, as DynamoDB ignores unknown members
	w, err := e.newWrite(s, in, "ConditionExpression is null", "ALL_OLD")
	if err != nil {
		return nil, err
	}
	if w.hash, w.rng, err = w.t.keyOf(in.Key); err != nil {
		return nil, err
	}
	w.delete = true
	if w.cond, err = w.x.condition("ConditionExpression", in.ConditionExpression); err != nil {
		return nil, err
	}
	if err := w.x.doneWrite("ConditionExpression is null"); err != nil {
		return nil, err
	}
	if err := w.legacy(in, false); err != nil {
		return nil, err
	}
	if err := w.t.scalarKeys(w.x.names, in.ConditionExpression); err != nil {
		return nil, err
	}
	return e.finish(w, in)
}

func (e *Engine) updateItem(s *scope, in *writeInput) (any, error) {
	w, err := e.newWrite(s, in, "UpdateExpression and ConditionExpression are null", "ALL_OLD", "ALL_NEW", "UPDATED_OLD", "UPDATED_NEW")
	if err != nil {
		return nil, err
	}
	if w.hash, w.rng, err = w.t.keyOf(in.Key); err != nil {
		return nil, err
	}
	if w.update, err = w.x.updateExpr(in.UpdateExpression); err != nil {
		return nil, err
	}
	if w.cond, err = w.x.condition("ConditionExpression", in.ConditionExpression); err != nil {
		return nil, err
	}
	if err := w.x.doneWrite("UpdateExpression and ConditionExpression are null"); err != nil {
		return nil, err
	}
	if err := w.legacy(in, true); err != nil {
		return nil, err
	}
	if err := w.t.scalarKeys(w.x.names, in.ConditionExpression); err != nil {
		return nil, err
	}
	if err := w.t.scalarKeyOperands(w.update, w.x.names); err != nil {
		return nil, err
	}
	return e.finish(w, in)
}

// finish runs a prepared single write and renders its answer.
func (e *Engine) finish(w *write, in *writeInput) (any, error) {
	old, next, err := w.prepare()
	if err != nil {
		return nil, err
	}
	w.apply(next)
	var oldItem map[string]types.AttributeValue
	size := 0
	if old != nil {
		oldItem = old.item()
		size = old.size()
	}
	if next != nil {
		size = max(size, attrs.ItemSize(next))
	}
	out := map[string]any{}
	switch in.ReturnValues {
	case "ALL_OLD":
		if oldItem != nil {
			out["Attributes"] = wireItem(copyItem(oldItem))
		}
	case "ALL_NEW":
		out["Attributes"] = wireItem(copyItem(next))
	case "UPDATED_OLD", "UPDATED_NEW":
		paths, err := w.update.Paths(w.x.names)
		if err != nil {
			return nil, exprError("UpdateExpression", err)
		}
		src := next
		if in.ReturnValues == "UPDATED_OLD" {
			src = oldItem
		}
		// DynamoDB Local returns whole each top-level attribute in which a
		// path the update writes exists, before the update (UPDATED_OLD)
		// or after it (UPDATED_NEW): SET m.b.c returns all of m, SET l[1]
		// all of l; a path that REMOVE took away, or that an update
		// created past a list's end, is not returned.
		p := map[string]types.AttributeValue{}
		for _, path := range paths {
			if len(cond.Project(src, []cond.Path{path})) > 0 {
				p[path[0].Name] = src[path[0].Name]
			}
		}
		if len(p) > 0 {
			out["Attributes"] = wireItem(copyItem(p))
		}
	}
	if c := consumed(in.ReturnConsumedCapacity, w.t.name, writeUnits(size), w.t.indexWrites(oldItem, next)); c != nil {
		out["ConsumedCapacity"] = c
	}
	return out, nil
}
