package engine

import (
	"slices"
	"strings"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/optimist-dynamo/optimist/internal/cond"
)

// DynamoDB's legacy (pre-expression) parameters: KeyConditions,
// QueryFilter, ScanFilter, ConditionalOperator, AttributesToGet, Expected
// and AttributeUpdates. DynamoDB and DynamoDB Local still take them, and
// libraries send them (guregu/dynamo sends KeyConditions on every Query),
// so the engine takes them too. They are checked here with DynamoDB's
// rules and messages, then translated into what the expressions give the
// engine (a cond.Expr, a cond.Update, a projection, key conditions), so
// that one evaluation serves both forms.
//
// The legacy parameters name attributes as they are and carry their
// values; the translation binds those values to placeholders of its own
// (package cond's :c0, :u0, ...) in a map that replaces the request's
// ExpressionAttributeValues. That is safe because a request that has a
// legacy filter, condition or update has no expression that uses the
// request's maps: DynamoDB refuses the mix, and refuses the maps without
// an expression. KeyConditions are the exception (DynamoDB takes them
// beside a FilterExpression and a ProjectionExpression, as guregu/dynamo
// sends them); they become key conditions directly and use no placeholder.

// legacyCond is a Condition of KeyConditions, QueryFilter or ScanFilter,
// or an ExpectedAttributeValue of Expected (which adds Value and Exists).
type legacyCond struct {
	ComparisonOperator *string
	AttributeValueList []av
	Value              *av
	Exists             *bool
}

// attributeUpdate is an AttributeValueUpdate of AttributeUpdates.
type attributeUpdate struct {
	Action *string
	Value  *av
}

// opRule is what a ComparisonOperator takes: how many values (-1: one or
// more), of which types ("" any).
type opRule struct {
	count int
	types string
}

var opRules = map[string]opRule{
	"EQ": {1, ""}, "NE": {1, ""},
	"LE": {1, "S N B"}, "LT": {1, "S N B"}, "GE": {1, "S N B"}, "GT": {1, "S N B"},
	"NOT_NULL": {0, ""}, "NULL": {0, ""},
	"CONTAINS": {1, "S N B BOOL NULL"}, "NOT_CONTAINS": {1, "S N B BOOL NULL"},
	"BEGINS_WITH": {1, "S B"},
	"IN":          {-1, "S N B"},
	"BETWEEN":     {2, "S N B"},
}

func (r opRule) allows(t string) bool {
	return r.types == "" || slices.Contains(strings.Fields(r.types), t)
}

// legacyValue checks one value of a legacy parameter.
func legacyValue(a av) (types.AttributeValue, error) {
	if a.err != "" {
		return nil, validation("%s", a.err)
	}
	return checkValue(a.v)
}

// comparison checks a ComparisonOperator and its AttributeValueList as
// DynamoDB does, in its order: the values, the operator, their count,
// their types, one type for IN and BETWEEN, BETWEEN's bounds in order.
func comparison(attr, op string, list []av) (cond.Comparison, error) {
	if attr == "" {
		return cond.Comparison{}, validation(msgEmptyAttributeName)
	}
	vals := make([]types.AttributeValue, len(list))
	for i, a := range list {
		v, err := legacyValue(a)
		if err != nil {
			return cond.Comparison{}, err
		}
		vals[i] = v
	}
	rule, ok := opRules[op]
	if !ok {
		return cond.Comparison{}, validation(msgComparisonTypeDoesNotExist)
	}
	if (rule.count >= 0 && len(vals) != rule.count) || (rule.count < 0 && len(vals) == 0) {
		return cond.Comparison{}, invalidParam(msgNumberArgumentSComparisonOperator, op)
	}
	for _, v := range vals {
		if !rule.allows(typeName(v)) {
			return cond.Comparison{}, invalidParam(msgComparisonOperatorNotValidAttributeValueType, op, typeName(v))
		}
	}
	for _, v := range vals[min(1, len(vals)):] {
		if typeName(v) != typeName(vals[0]) {
			return cond.Comparison{}, invalidParam(msgAttributeValuesInsideAttributeValueListSameType)
		}
	}
	if op == "BETWEEN" {
		if c, _ := cond.CompareValues(vals[0], vals[1]); c > 0 {
			return cond.Comparison{}, validation(msgBETWEENConditionRangeWhereLower)
		}
	}
	return cond.Comparison{Attr: attr, Op: op, Values: vals}, nil
}

// filterComparison checks a Condition of QueryFilter or ScanFilter.
func filterComparison(attr string, c legacyCond) (cond.Comparison, error) {
	op := ""
	if c.ComparisonOperator != nil {
		op = *c.ComparisonOperator
	}
	return comparison(attr, op, c.AttributeValueList)
}

// expectedComparison checks an ExpectedAttributeValue: either a
// ComparisonOperator with its AttributeValueList (or a Value standing for
// a list of one), or Exists with Value (true, the default: the attribute
// equals Value) or without (false: the attribute does not exist).
func expectedComparison(attr string, c legacyCond) (cond.Comparison, error) {
	if c.ComparisonOperator != nil {
		if c.Exists != nil {
			return cond.Comparison{}, invalidParam(msgExistsComparisonOperatorCannotUsedTogether, attr)
		}
		op := *c.ComparisonOperator
		if c.Value == nil && c.AttributeValueList == nil && op != "NULL" && op != "NOT_NULL" {
			return cond.Comparison{}, invalidParam(msgAttributeValueListUsedComparisonOperatorAttribute, op, attr)
		}
		list := c.AttributeValueList
		if c.Value != nil {
			if c.AttributeValueList != nil {
				return cond.Comparison{}, invalidParam(msgAttributeValueListCannotUsedTogetherAttribute, attr)
			}
			list = []av{*c.Value}
		}
		return comparison(attr, op, list)
	}
	if c.AttributeValueList != nil {
		return cond.Comparison{}, invalidParam(msgAttributeValueListCanOnlyUsedComparisonOperator, attr)
	}
	switch {
	case c.Exists == nil && c.Value == nil:
		return cond.Comparison{}, invalidParam(msgWhenExistsNullAttribute, attr)
	case c.Exists != nil && *c.Exists && c.Value == nil:
		return cond.Comparison{}, invalidParam(msgWhenExistsTrueAttribute, attr)
	case c.Exists != nil && !*c.Exists && c.Value != nil:
		return cond.Comparison{}, invalidParam(msgCannotUsedWhenExistsFalse, attr)
	case c.Exists != nil && !*c.Exists:
		return comparison(attr, "NULL", nil)
	}
	return comparison(attr, "EQ", []av{*c.Value})
}

// conditionalOperator checks ConditionalOperator against the number of
// conditions it joins, and reports whether it is OR.
func conditionalOperator(op string, n int) (or bool, err error) {
	switch op {
	case "":
		return false, nil
	case "AND", "OR":
	default:
		// DynamoDB Local fails with an internal error; DynamoDB refuses
		// a value outside the enumeration so.
		return false, validation(msgConstraintConditionalOperatorSatisfyEnumSet, op)
	}
	switch n {
	case 0:
		return false, validation(msgConditionalOperatorCannotUsedWithoutFilter)
	case 1:
		return false, validation(msgConditionalOperatorCanOnlyUsedWhen)
	}
	return op == "OR", nil
}

// legacyConditions checks a QueryFilter, ScanFilter or Expected (check is
// filterComparison or expectedComparison) and builds its condition, nil
// for none.
func legacyConditions(m map[string]legacyCond, op string, check func(string, legacyCond) (cond.Comparison, error)) (*cond.Expr, map[string]types.AttributeValue, error) {
	or, err := conditionalOperator(op, len(m))
	if err != nil || len(m) == 0 {
		return nil, nil, err
	}
	cs := make([]cond.Comparison, 0, len(m))
	for _, name := range sortedKeys(m) {
		c, err := check(name, m[name])
		if err != nil {
			return nil, nil, err
		}
		cs = append(cs, c)
	}
	e, values, err := cond.Comparisons(cs, or)
	if err != nil {
		return nil, nil, validation("%s", cond.Message(err))
	}
	return e, values, nil
}

// mixed is DynamoDB's refusal of a request that has both legacy
// parameters and expression parameters (the names of those it has, in
// DynamoDB's order), nil when it has not.
func mixed(legacy, expr []string) error {
	if len(legacy) > 0 && len(expr) > 0 {
		return bothKinds(legacy, expr)
	}
	return nil
}

// given lists the names of the parameters given, in order: names and
// flags alternate.
func given(pairs ...any) []string {
	var out []string
	for i := 0; i < len(pairs); i += 2 {
		if pairs[i+1].(bool) {
			out = append(out, pairs[i].(string))
		}
	}
	return out
}

// legacy translates a write's Expected (with ConditionalOperator) into its
// condition and, for UpdateItem (update), its AttributeUpdates into its
// update. It runs after the request's maps are checked: a write with
// either has no expression, so the translation's values replace the maps.
func (w *write) legacy(in *writeInput, update bool) error {
	e, values, err := legacyConditions(in.Expected, in.ConditionalOperator, expectedComparison)
	if err != nil {
		return err
	}
	if e != nil {
		w.cond = e
		w.x.values = values
	}
	if !update || in.AttributeUpdates == nil {
		return nil
	}
	u, uvalues, err := w.t.attributeUpdates(in.AttributeUpdates)
	if err != nil {
		// DynamoDB Local checks AttributeUpdates only once the condition
		// holds: a request with a failing Expected fails on it, whatever
		// its AttributeUpdates.
		w.updateErr = err
		return nil
	}
	w.update = u
	if w.x.values == nil {
		w.x.values = map[string]types.AttributeValue{}
	}
	for k, v := range uvalues {
		w.x.values[k] = v
	}
	return nil
}

// attributeUpdates checks AttributeUpdates and builds the update: first
// that no key attribute is updated, then each entry, in the order of their
// names. DynamoDB Local checks and applies each entry in turn, in the
// order of the request's JSON, which a map does not keep and the SDK does
// not fix (it writes a Go map's order): with several faulty entries, the
// error it reports depends on that order, and any of them is DynamoDB's.
func (t *table) attributeUpdates(m map[string]attributeUpdate) (*cond.Update, map[string]types.AttributeValue, error) {
	for _, name := range sortedKeys(m) {
		if name == t.hash.name || (t.rng.name != "" && name == t.rng.name) {
			return nil, nil, invalidParam(msgCannotUpdateAttributeThisAttribute, name)
		}
	}
	us := make([]cond.AttributeUpdate, 0, len(m))
	for _, name := range sortedKeys(m) {
		u, err := attributeUpdateOf(name, m[name])
		if err != nil {
			return nil, nil, err
		}
		us = append(us, u)
	}
	u, values, err := cond.AttributeUpdates(us)
	if err != nil {
		return nil, nil, validation("%s", cond.Message(err))
	}
	return u, values, nil
}

// longTypes are the names DynamoDB's messages about AttributeUpdates give
// the types.
var longTypes = map[string]string{"S": "STRING", "N": "NUMBER", "B": "BINARY", "BOOL": "BOOLEAN", "NULL": "NULL", "L": "LIST", "M": "MAP",
	"SS": "STRING_SET", "NS": "NUMBER_SET", "BS": "BINARY_SET"}

// attributeUpdateOf checks one AttributeValueUpdate: its Action (PUT when
// none), a Value unless it is a DELETE, a Value that the Action takes (ADD:
// a number, a set or a list; DELETE: a set).
func attributeUpdateOf(name string, u attributeUpdate) (cond.AttributeUpdate, error) {
	action := "PUT"
	if u.Action != nil {
		action = *u.Action
	}
	switch action {
	case "PUT", "ADD", "DELETE":
	default:
		return cond.AttributeUpdate{}, validation(msgEnumAttributeAction)
	}
	if name == "" {
		return cond.AttributeUpdate{}, validation(msgEmptyAttributeName)
	}
	if u.Value == nil && action != "DELETE" {
		return cond.AttributeUpdate{}, invalidParam(msgOnlyDELETEActionAllowedWhen)
	}
	out := cond.AttributeUpdate{Attr: name, Action: action}
	if u.Value == nil {
		return out, nil
	}
	v, err := legacyValue(*u.Value)
	if err != nil {
		return cond.AttributeUpdate{}, err
	}
	switch tn := typeName(v); {
	case action == "ADD" && !slices.Contains([]string{"N", "SS", "NS", "BS", "L"}, tn):
		return cond.AttributeUpdate{}, invalidParam(msgADDActionNotSupportedType, longTypes[tn])
	case action == "DELETE" && !slices.Contains([]string{"SS", "NS", "BS"}, tn):
		return cond.AttributeUpdate{}, invalidParam(msgDELETEActionNotSupportedType, longTypes[tn])
	}
	out.Value = v
	return out, nil
}

// batchAttributesToGet reads the AttributesToGet of one table of a
// BatchGetItem into its projection, nil when not given.
func batchAttributesToGet(ka *keysAndAttributes) (*projection_, error) {
	if ka.AttributesToGet == nil {
		return nil, nil
	}
	if ka.ProjectionExpression != nil {
		return nil, bothKinds([]string{"AttributesToGet"}, []string{"ProjectionExpression"})
	}
	if len(ka.AttributesToGet) == 0 {
		return nil, validation(msgAttributesToGetCannotEmpty)
	}
	p := &projection_{paths: []cond.Path{}}
	seen := map[string]bool{}
	for _, n := range ka.AttributesToGet {
		if seen[n] {
			return nil, invalidParam(msgDuplicateAttributeName, n)
		}
		seen[n] = true
		p.paths = append(p.paths, cond.Path{{Name: n}})
	}
	return p, nil
}
