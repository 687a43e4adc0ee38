package engine

import (
	"errors"
	"strings"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/optimist-dynamo/optimist/internal/cond"
)

// Expressions as a request gives them: its attribute names and values,
// which of them its expressions use, and the parsing of each kind of
// expression (condition, update, projection) into internal/cond's trees.

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
		return nil, validation(msgExpressionAttributeNamesNotEmpty)
	}
	if err := placeholderKeys("ExpressionAttributeNames", '#', sortedKeys(names)); err != nil {
		return nil, err
	}
	if values != nil {
		if len(values) == 0 {
			return nil, validation(msgExpressionAttributeValuesNotEmpty)
		}
		if err := placeholderKeys("ExpressionAttributeValues", ':', sortedKeys(values)); err != nil {
			return nil, err
		}
		x.values = make(map[string]types.AttributeValue, len(values))
		for _, k := range sortedKeys(values) {
			a := values[k]
			if a.err != "" {
				return nil, validation(msgExpressionAttributeValuesContainsKey, a.err, k)
			}
			v, err := checkValue(a.v)
			if err != nil {
				var api *apiError
				if errors.As(err, &api) {
					return nil, validation(msgExpressionAttributeValuesContainsKey, api.msg, k)
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
			return validation(msgContainsKeySyntaxErrorKey, param, k)
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
	if errors.As(err, &api) && api.msg == msgValuesWithoutExpression {
		return validation("%s: %s", api.msg, nullParams)
	}
	return err
}

func (x *exprs) done() error {
	if !x.any {
		if x.names != nil {
			return validation(msgExpressionAttributeNamesCanOnlySpecifiedWhen)
		}
		if x.values != nil {
			return validation(msgValuesWithoutExpression)
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
		return validation(msgExpressionAttributeNamesUnusedExpressionsKeys, strings.Join(unused, ", "))
	}
	for _, k := range sortedKeys(x.values) {
		if !x.usedValues[k] {
			unused = append(unused, k)
		}
	}
	if len(unused) > 0 {
		return validation(msgExpressionAttributeValuesUnusedExpressionsKeys, strings.Join(unused, ", "))
	}
	return nil
}

// condition parses a condition-like expression given as the parameter
// param (ConditionExpression, FilterExpression); nil when not given.
func (x *exprs) condition(param string, s *string) (*cond.Expr, error) {
	if s == nil {
		return nil, nil
	}
	if *s == "" {
		return nil, validation(msgExpressionCanNotEmpty, param)
	}
	e, err := parseCondition(*s, param)
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
	return validation(msgInvalidParamMessage, param, cond.Message(err))
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
	return validation(msgReturnValuesInvalid)
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
	if *s == "" {
		return nil, validation(msgProjectionExpressionExpressionCanNotEmpty)
	}
	p, err := parseProjection(*s)
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
		return nil, validation(msgAttributesToGetCannotEmpty)
	}
	p := &projection_{top: map[string]bool{}}
	for _, n := range names {
		if p.top[n] {
			return nil, validation(msgTwoAttributesSameName)
		}
		p.top[n] = true
	}
	return p, nil
}

// bothKinds is DynamoDB's refusal of a request that mixes legacy
// parameters with the expressions that replaced them.
func bothKinds(legacy, expr []string) error {
	return validation(msgCanNotUseBothExpression,
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

// updateExpr parses an UpdateExpression. An UpdateItem without one only
// creates the item if it is missing (with its key alone).
func (x *exprs) updateExpr(s *string) (*cond.Update, error) {
	if s == nil {
		return emptyUpdate, nil
	}
	if *s == "" {
		return nil, validation(msgUpdateExpressionExpressionCanNotEmpty)
	}
	u, err := parseUpdate(*s)
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
