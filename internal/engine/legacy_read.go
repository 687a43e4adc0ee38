package engine

import (
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/optimist-dynamo/optimist/internal/cond"
)

// The legacy parameters of Query and Scan (see legacy.go): KeyConditions,
// QueryFilter, ScanFilter, ConditionalOperator and AttributesToGet.

// legacyMix refuses a Query or Scan that mixes legacy and expression
// parameters. KeyConditions conflict only with KeyConditionExpression:
// DynamoDB takes them beside a FilterExpression or a ProjectionExpression.
// The other legacy parameters conflict with any expression; DynamoDB then
// lists every parameter of each kind the request has.
func (in *readInput) legacyMix(scan bool) error {
	filter, hasFilter := "QueryFilter", in.QueryFilter != nil
	if scan {
		filter, hasFilter = "ScanFilter", in.ScanFilter != nil
	}
	legacy := given("AttributesToGet", in.AttributesToGet != nil, filter, hasFilter, "ConditionalOperator", in.ConditionalOperator != "")
	kce := !scan && in.KeyConditionExpression != nil
	expr := given("ProjectionExpression", in.ProjectionExpression != nil, "FilterExpression", in.FilterExpression != nil, "KeyConditionExpression", kce)
	kc := !scan && in.KeyConditions != nil
	if kc && kce {
		legacy = append(legacy, "KeyConditions")
		return bothKinds(legacy, expr)
	}
	return mixed(legacy, expr)
}

// legacyRead translates a Query's or Scan's AttributesToGet into its
// projection and its QueryFilter or ScanFilter (with ConditionalOperator)
// into its filter. It runs after the request's expressions are checked, so
// that a legacy filter leaves r.x's values for its own.
func (r *read) legacyRead(in *readInput) error {
	if in.AttributesToGet != nil {
		// An empty list projects every attribute away, as DynamoDB Local
		// does for a Query or Scan (GetItem refuses it).
		p := &projection_{paths: []cond.Path{}}
		seen := map[string]bool{}
		for _, n := range in.AttributesToGet {
			if seen[n] {
				return validation(msgTwoAttributesSameName)
			}
			seen[n] = true
			p.paths = append(p.paths, cond.Path{{Name: n}})
		}
		r.proj = p
	}
	filter := in.QueryFilter
	if r.scan {
		filter = in.ScanFilter
	}
	if !r.scan && len(filter) > 0 {
		hk, rk := r.keysOf()
		for _, n := range sortedKeys(filter) {
			if n == hk.name || (rk.name != "" && n == rk.name) {
				return validation(msgQueryFilterCanOnlyContainNon, n)
			}
		}
	}
	e, values, err := legacyConditions(filter, in.ConditionalOperator, filterComparison)
	if err != nil || e == nil {
		return err
	}
	r.filter = e
	r.x.values = values
	return nil
}

// legacyFilterNames lists the attributes a QueryFilter or ScanFilter
// tests, for the check of an index's projection; nil when none.
func (r *read) legacyFilterNames(in *readInput) []string {
	if r.scan {
		return sortedKeys(in.ScanFilter)
	}
	return sortedKeys(in.QueryFilter)
}

// keyOps maps the ComparisonOperators a range key takes to the key
// condition's operators.
var keyOps = map[string]string{"EQ": "=", "LT": "<", "LE": "<=", "GT": ">", "GE": ">=", "BETWEEN": "BETWEEN", "BEGINS_WITH": "begins_with"}

// keySchema matches a Query's key conditions, from its
// KeyConditionExpression (root) or its KeyConditions (kc), to the key
// schema it reads, and returns the hash key's value and the range key's
// condition (nil when none).
func (r *read) keySchema(root *knode, kc map[string]legacyCond) (types.AttributeValue, *keyCond, error) {
	hash, rng := r.keysOf()
	if kc == nil {
		return r.x.keySchemaConds(root, hash, rng)
	}
	if len(kc) == 0 {
		return nil, nil, validation(msgConditionsCanLength12)
	}
	kcs := make([]*keyCond, 0, len(kc))
	for _, name := range sortedKeys(kc) {
		c, err := filterComparison(name, kc[name])
		if err != nil {
			return nil, nil, err
		}
		op, ok := keyOps[c.Op]
		if name == rng.name && !ok {
			switch c.Op {
			case "NULL", "NOT_NULL":
				return nil, nil, validation(msgOnlyScalarTypesCanUsed)
			}
			// The values' type comes first, as it does for the operators
			// a range key takes.
			for _, v := range c.Values {
				if typeName(v) != rng.typ {
					return nil, nil, invalidParam(msgConditionTypeDoesNotMatch)
				}
			}
			// DynamoDB Local fails NE with an internal error; DynamoDB
			// refuses it as it refuses IN and CONTAINS.
			return nil, nil, validation(msgAttemptedConditionalConstraintNotIndexable)
		}
		if !ok {
			op = c.Op // refused below for a hash key, and for any other attribute
		}
		kcs = append(kcs, &keyCond{name: name, op: op, vals: c.Values})
	}
	return schemaConds(kcs, hash, rng)
}
