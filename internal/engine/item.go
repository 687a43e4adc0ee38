package engine

import (
	"errors"
	"math"
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

// keyOf reads a primary key given as a Key parameter: exactly the table's
// key attributes, of their types. It returns the key in stored form.
func (t *table) keyOf(key item) (hash, rng types.AttributeValue, err error) {
	if key == nil {
		return nil, nil, validation("Cannot have null key for GetItem, DeleteItem, or UpdateItem")
	}
	m, err := key.attrs()
	if err != nil {
		return nil, nil, err
	}
	want := 1
	if t.rng.name != "" {
		want = 2
	}
	if len(m) != want {
		return nil, nil, validation("The number of conditions on the keys is invalid")
	}
	if hash, err = t.keyValue(t.hash, m, true); err != nil {
		return nil, nil, err
	}
	if t.rng.name != "" {
		if rng, err = t.keyValue(t.rng, m, true); err != nil {
			return nil, nil, err
		}
	}
	return hash, rng, nil
}

// keyValue checks one key attribute of m. inKey is true for a Key
// parameter, false for an Item; DynamoDB Local words the errors of both
// alike.
func (t *table) keyValue(k keyDef, m map[string]types.AttributeValue, inKey bool) (types.AttributeValue, error) {
	v, ok := m[k.name]
	if !ok {
		// DynamoDB Local words it so for a Key and an Item alike.
		return nil, validation("One of the required keys was not given a value")
	}
	switch typeName(v) {
	case k.typ:
	case "S", "N", "B":
		return nil, invalidParam("Type mismatch for key")
	case "":
		return nil, validation("Supplied AttributeValue is empty, must contain exactly one of the supported datatypes")
	default:
		return nil, validation("Invalid attribute value type")
	}
	v, err := checkValue(v)
	if err != nil {
		return nil, err
	}
	switch v := v.(type) {
	case *types.AttributeValueMemberS:
		if v.Value == "" {
			return nil, validation("One or more parameter values are not valid. The AttributeValue for a key attribute cannot contain an empty string value. Key: %s", k.name)
		}
	case *types.AttributeValueMemberB:
		if len(v.Value) == 0 {
			return nil, validation("One or more parameter values are not valid. The AttributeValue for a key attribute cannot contain an empty binary value. Key: %s", k.name)
		}
	}
	limit := 2048
	if k != t.hash {
		limit = 1024
	}
	if attrs.KeySize(v) > limit {
		return nil, validation("Hash primary key values must be under 2048 bytes, and range primary key values must be under 1024 bytes")
	}
	return v, nil
}

// checkNewItem checks an item to be stored in t: its values, its key, the
// index keys it carries and its size. It returns the item in stored form
// and its key values.
func (t *table) checkNewItem(m map[string]types.AttributeValue) (map[string]types.AttributeValue, types.AttributeValue, types.AttributeValue, error) {
	m, err := checkItem(m)
	if err != nil {
		return nil, nil, nil, err
	}
	hash, err := t.keyValue(t.hash, m, false)
	if err != nil {
		return nil, nil, nil, err
	}
	var rng types.AttributeValue
	if t.rng.name != "" {
		if rng, err = t.keyValue(t.rng, m, false); err != nil {
			return nil, nil, nil, err
		}
	}
	if err := t.checkIndexKeys(m); err != nil {
		return nil, nil, nil, err
	}
	return m, hash, rng, nil
}

// checkIndexKeys refuses an item whose index key attribute has the wrong
// type or an empty value (an absent one makes the index sparse).
func (t *table) checkIndexKeys(m map[string]types.AttributeValue) error {
	for _, ix := range append(append([]*index(nil), t.lsis...), t.gsis...) {
		for _, k := range []keyDef{ix.hash, ix.rng} {
			if k.name == "" || k.name == t.hash.name || k.name == t.rng.name {
				continue
			}
			v, ok := m[k.name]
			if !ok {
				continue
			}
			switch typeName(v) {
			case k.typ:
			case "S", "N", "B":
				return invalidParam("Type mismatch for Index Key")
			default:
				// A set, list, map, BOOL or NULL, as for a table's key.
				return validation("Invalid attribute value type")
			}
			limit := 1024
			if k == ix.hash {
				limit = 2048
			}
			if attrs.KeySize(v) > limit {
				return invalidParam("Size limit exceeded")
			}
			empty := false
			switch v := v.(type) {
			case *types.AttributeValueMemberS:
				empty = v.Value == ""
			case *types.AttributeValueMemberB:
				empty = len(v.Value) == 0
			}
			if empty {
				kind := "string"
				if k.typ == "B" {
					kind = "binary"
				}
				return validation("One or more parameter values are not valid. A value specified for a secondary index key is not supported. The AttributeValue for a key attribute cannot contain an empty %s value. IndexName: %s, IndexKey: %s", kind, ix.name, k.name)
			}
		}
	}
	return nil
}

// exprs tracks a request's ExpressionAttributeNames and
// ExpressionAttributeValues and which of them its expressions use.
type exprs struct {
	names      map[string]string
	values     map[string]types.AttributeValue
	usedNames  map[string]bool
	usedValues map[string]bool
	any        bool // some expression was given
}

// newExprs checks the maps themselves.
func newExprs(names map[string]string, values map[string]av) (*exprs, error) {
	x := &exprs{names: names, usedNames: map[string]bool{}, usedValues: map[string]bool{}}
	// DynamoDB checks the names, then the values: each map not empty,
	// then its keys' syntax, then the values themselves.
	if names != nil && len(names) == 0 {
		return nil, validation("ExpressionAttributeNames must not be empty")
	}
	if err := placeholderKeys("ExpressionAttributeNames", '#', sortedKeys(names)); err != nil {
		return nil, err
	}
	if values != nil {
		if len(values) == 0 {
			return nil, validation("ExpressionAttributeValues must not be empty")
		}
		if err := placeholderKeys("ExpressionAttributeValues", ':', sortedKeys(values)); err != nil {
			return nil, err
		}
		x.values = make(map[string]types.AttributeValue, len(values))
		for _, k := range sortedKeys(values) {
			a := values[k]
			if a.err != "" {
				return nil, validation("ExpressionAttributeValues contains invalid value: %s for key %s", a.err, k)
			}
			v, err := checkValue(a.v)
			if err != nil {
				var api *apiError
				if errors.As(err, &api) {
					return nil, validation("ExpressionAttributeValues contains invalid value: %s for key %s", api.msg, k)
				}
				return nil, err
			}
			x.values[k] = v
		}
	}
	return x, nil
}

// placeholderKeys refuses a key of ExpressionAttributeNames (prefix '#')
// or ExpressionAttributeValues (':') that is not the prefix and one or more
// ASCII letters, digits or underscores. With several, DynamoDB names the
// first of the request; the maps here have no order, so the first sorted.
func placeholderKeys(param string, prefix byte, keys []string) error {
	for _, k := range keys {
		ok := len(k) > 1 && k[0] == prefix
		for i := 1; ok && i < len(k); i++ {
			c := k[i]
			ok = c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
		}
		if !ok {
			return validation("%s contains invalid key: Syntax error; key: \"%s\"", param, k)
		}
	}
	return nil
}

// use records the placeholders one expression uses.
func (x *exprs) use(names, values []string) {
	x.any = true
	for _, n := range names {
		x.usedNames[n] = true
	}
	for _, v := range values {
		x.usedValues[v] = true
	}
}

// done checks that every name and value given was used, as DynamoDB does.
// doneWrite is done for PutItem, DeleteItem and UpdateItem, whose
// message for values without expressions names the null parameters.
func (x *exprs) doneWrite(nullParams string) error {
	err := x.done()
	var api *apiError
	if errors.As(err, &api) && api.msg == valuesOnly {
		return validation("%s: %s", api.msg, nullParams)
	}
	return err
}

// valuesOnly is the refusal of ExpressionAttributeValues without an
// expression.
const valuesOnly = "ExpressionAttributeValues can only be specified when using expressions"

func (x *exprs) done() error {
	if !x.any {
		if x.names != nil {
			return validation("ExpressionAttributeNames can only be specified when using expressions")
		}
		if x.values != nil {
			return validation(valuesOnly)
		}
		return nil
	}
	var unused []string
	for _, k := range sortedKeys(x.names) {
		if !x.usedNames[k] {
			unused = append(unused, k)
		}
	}
	if len(unused) > 0 {
		return validation("Value provided in ExpressionAttributeNames unused in expressions: keys: {%s}", strings.Join(unused, ", "))
	}
	for _, k := range sortedKeys(x.values) {
		if !x.usedValues[k] {
			unused = append(unused, k)
		}
	}
	if len(unused) > 0 {
		return validation("Value provided in ExpressionAttributeValues unused in expressions: keys: {%s}", strings.Join(unused, ", "))
	}
	return nil
}

// condition parses a condition-like expression given as the parameter
// param (ConditionExpression, FilterExpression); nil when not given.
func (x *exprs) condition(param string, s *string) (*cond.Expr, error) {
	if s == nil {
		return nil, nil
	}
	if strings.TrimSpace(*s) == "" {
		return nil, validation("Invalid %s: The expression can not be empty;", param)
	}
	e, err := cond.ParseAs(*s, param)
	if err != nil {
		return nil, exprError(param, err)
	}
	x.use(e.Names(), e.Values())
	return e, nil
}

// eval evaluates a parsed condition on an item (nil: no item).
func (x *exprs) eval(param string, e *cond.Expr, m map[string]types.AttributeValue) (bool, error) {
	ok, err := e.Eval(m, x.names, x.values)
	if err != nil {
		return false, exprError(param, err)
	}
	return ok, nil
}

// exprError turns an error of package cond into DynamoDB's
// ValidationException for the parameter param. A *cond.Error carries
// DynamoDB's whole message, prefix included where DynamoDB gives one.
func exprError(param string, err error) error {
	var ce *cond.Error
	if errors.As(err, &ce) {
		return validation("%s", ce.Msg)
	}
	return validation("Invalid %s: %s", param, cond.Message(err))
}

// returnValues checks a ReturnValues parameter against the values the
// operation allows.
func returnValues(rv string, allowed ...string) error {
	if rv == "" || rv == "NONE" {
		return nil
	}
	for _, a := range allowed {
		if rv == a {
			return nil
		}
	}
	return validation("Return values set to invalid value")
}

// capacityUnits computes a ConsumedCapacity by DynamoDB's rules: writes in
// 1 KB units, reads in 4 KB units (half for eventually consistent reads),
// each at least one unit.
func writeUnits(size int) float64 { return math.Max(1, math.Ceil(float64(size)/1024)) }

func readUnits(size int, consistent bool) float64 {
	u := math.Max(1, math.Ceil(float64(size)/4096))
	if !consistent {
		u /= 2
	}
	return u
}

// consumed renders a ConsumedCapacity for mode (TOTAL or INDEXES; nil for
// NONE). indexes lists the capacity each index consumed, for INDEXES.
func consumed(mode, tableName string, units float64, indexes map[*index]float64) map[string]any {
	switch mode {
	case "TOTAL":
		total := units
		for _, u := range indexes {
			total += u
		}
		return map[string]any{"TableName": tableName, "CapacityUnits": total}
	case "INDEXES":
		total := units
		out := map[string]any{"TableName": tableName, "Table": map[string]any{"CapacityUnits": units}}
		gsi, lsi := map[string]any{}, map[string]any{}
		for ix, u := range indexes {
			total += u
			if ix.global {
				gsi[ix.name] = map[string]any{"CapacityUnits": u}
			} else {
				lsi[ix.name] = map[string]any{"CapacityUnits": u}
			}
		}
		if len(gsi) > 0 {
			out["GlobalSecondaryIndexes"] = gsi
		}
		if len(lsi) > 0 {
			out["LocalSecondaryIndexes"] = lsi
		}
		out["CapacityUnits"] = total
		return out
	}
	return nil
}

// indexWrites is the capacity a write consumes in each index: a unit per
// index whose projection of the old or the new item is not empty and
// changes, two when
// an item moves within an index (it is deleted and written there).
func (t *table) indexWrites(old, new map[string]types.AttributeValue) map[*index]float64 {
	var out map[*index]float64
	for _, ix := range append(append([]*index(nil), t.lsis...), t.gsis...) {
		var po, pn map[string]types.AttributeValue
		if old != nil {
			po = t.project(ix, old)
		}
		if new != nil {
			pn = t.project(ix, new)
		}
		var u float64
		switch {
		case po == nil && pn == nil, sameProjection(po, pn):
			// An index whose projection the write leaves as it was is not
			// written (DynamoDB Local charges it nothing).
			continue
		case po == nil:
			u = writeUnits(attrs.ItemSize(pn))
		case pn == nil:
			u = writeUnits(attrs.ItemSize(po))
		case sameIndexKey(ix, po, pn):
			u = writeUnits(max(attrs.ItemSize(po), attrs.ItemSize(pn)))
		default:
			u = writeUnits(attrs.ItemSize(po)) + writeUnits(attrs.ItemSize(pn))
		}
		if out == nil {
			out = map[*index]float64{}
		}
		out[ix] = u
	}
	return out
}

// sameProjection reports whether two projections of an item hold the same
// attributes with equal values.
func sameProjection(a, b map[string]types.AttributeValue) bool {
	if a == nil || b == nil || len(a) != len(b) {
		return false
	}
	for k, v := range a {
		w, ok := b[k]
		if !ok || typeName(v) != typeName(w) || !cond.Equal(v, w) {
			return false
		}
	}
	return true
}

func sameIndexKey(ix *index, a, b map[string]types.AttributeValue) bool {
	for _, k := range []keyDef{ix.hash, ix.rng} {
		if k.name != "" && encodeKey(a[k.name]) != encodeKey(b[k.name]) {
			return false
		}
	}
	return true
}

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
		size = en.size
		out["Item"] = wireItem(proj.apply(en.item()))
	}
	if c := consumed(in.ReturnConsumedCapacity, t.name, readUnits(size, in.ConsistentRead), nil); c != nil {
		if in.ReturnConsumedCapacity == "INDEXES" {
			delete(c, "GlobalSecondaryIndexes")
		}
		out["ConsumedCapacity"] = c
	}
	return out, nil
}

// projection is a parsed ProjectionExpression resolved to paths; a nil
// *projection projects nothing away.
type projection_ struct {
	paths []cond.Path
	top   map[string]bool // AttributesToGet's names, when given instead
}

func (x *exprs) projection(s *string) (*projection_, error) {
	if s == nil {
		return nil, nil
	}
	if strings.TrimSpace(*s) == "" {
		return nil, validation("Invalid ProjectionExpression: The expression can not be empty;")
	}
	p, err := cond.ParseProjection(*s)
	if err != nil {
		return nil, exprError("ProjectionExpression", err)
	}
	x.use(p.Names(), nil)
	paths, err := p.Paths(x.names)
	if err != nil {
		return nil, exprError("ProjectionExpression", err)
	}
	return &projection_{paths: paths}, nil
}

// attributesToGet reads the legacy parameter AttributesToGet: a projection
// of top-level attributes named as they are.
func attributesToGet(names []string) (*projection_, error) {
	if len(names) == 0 {
		return nil, validation("AttributesToGet cannot be empty")
	}
	p := &projection_{top: map[string]bool{}}
	for _, n := range names {
		if p.top[n] {
			return nil, validation("Cannot have two attributes with the same name")
		}
		p.top[n] = true
	}
	return p, nil
}

// bothKinds is DynamoDB's refusal of a request that mixes legacy
// parameters with the expressions that replaced them.
func bothKinds(legacy, expr []string) error {
	return validation("Can not use both expression and non-expression parameters in the same request: Non-expression parameters: {%s} Expression parameters: {%s}",
		strings.Join(legacy, ", "), strings.Join(expr, ", "))
}

// apply returns m as p projects it.
func (p *projection_) apply(m map[string]types.AttributeValue) map[string]types.AttributeValue {
	// m is decoded from storage afresh (entry.item): the answer may share
	// its values.
	switch {
	case p == nil:
		return m
	case p.top != nil:
		out := map[string]types.AttributeValue{}
		for n, v := range m {
			if p.top[n] {
				out[n] = v
			}
		}
		return out
	}
	return cond.Project(m, p.paths)
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
			return nil, nil, validation("One or more parameter values are not valid. The update expression attempted to update a secondary index key to a value that is not supported. The AttributeValue for a key attribute cannot contain an empty %s value.", kind)
		}
		return nil, nil, err
	}
	if attrs.ItemSize(next) > maxItemSize {
		return nil, nil, validation("Item size to update has exceeded the maximum allowed size")
	}
	return old, next, nil
}

// apply stores the outcome of prepare.
func (w *write) apply(next map[string]types.AttributeValue) {
	if w.check {
		return
	}
	if next == nil {
		w.t.items.remove(w.hash, w.rng)
		return
	}
	w.t.items.put(newEntry(w.t.hash.name, w.t.rng.name, next))
}

func (t *table) keyNames() []string {
	if t.rng.name == "" {
		return []string{t.hash.name}
	}
	return []string{t.hash.name, t.rng.name}
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
		return nil, validation("1 validation error detected: Value '%s' at 'returnValuesOnConditionCheckFailure' failed to satisfy constraint: Member must satisfy enum value set: [ALL_OLD, NONE]", in.ReturnValuesOnConditionCheckFailure)
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
		return nil, validation("1 validation error detected: Value null at 'item' failed to satisfy constraint: Member must not be null")
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
		return nil, validation("Item size has exceeded the maximum allowed size")
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

// updateExpr parses an UpdateExpression. An UpdateItem without one only
// creates the item if it is missing (with its key alone).
func (x *exprs) updateExpr(s *string) (*cond.Update, error) {
	if s == nil {
		return emptyUpdate, nil
	}
	if strings.TrimSpace(*s) == "" {
		return nil, validation("Invalid UpdateExpression: The expression can not be empty;")
	}
	u, err := cond.ParseUpdate(*s)
	if err != nil {
		return nil, exprError("UpdateExpression", err)
	}
	// DynamoDB checks the update against the request (overlapping paths,
	// operand types, placeholders) as it parses it: before the condition.
	if err := u.Check(x.names, x.values); err != nil {
		return nil, exprError("UpdateExpression", err)
	}
	x.use(u.Names(), u.Values())
	return u, nil
}

// emptyUpdate is the update of an UpdateItem without an UpdateExpression.
var emptyUpdate = &cond.Update{}

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
		size = old.size
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
