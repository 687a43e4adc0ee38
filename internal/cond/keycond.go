package cond

import (
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// KeyCond is a parsed KeyConditionExpression: one or two terms, in the
// order written. Which term is the hash key's depends on the key schema,
// which the expression does not tell; [KeyCond.Schema] sorts them out.
type KeyCond struct {
	Terms []KeyTerm
}

// KeyTerm is one term of a key condition: the attribute (its name resolved
// through ExpressionAttributeNames), the operator ("=", "<", "<=", ">",
// ">=", "BETWEEN", "begins_with") and its values (two for BETWEEN, in
// order; one otherwise). A term written value-first (:v < sk) is turned
// around (sk > :v).
type KeyTerm struct {
	Name   string
	Op     string
	Values []types.AttributeValue
}

// ParseKeyCondition parses and checks a KeyConditionExpression with the
// request's names and values. Errors are [*Error]s with DynamoDB's message:
// "Invalid KeyConditionExpression: ..." for the expression's grammar and
// placeholders, and DynamoDB's own texts for what a key condition cannot
// hold ("Invalid operator used in KeyConditionExpression: OR", "KeyConditionExpressions
// must only contain one condition per key", ...).
func ParseKeyCondition(expr string, names map[string]string, values map[string]types.AttributeValue) (*KeyCond, error) {
	e, err := Parse(expr)
	if err != nil {
		return nil, prefixed(err, "KeyConditionExpression")
	}
	if err := (&checker{names: names, values: values}).check(e.root); err != nil {
		return nil, prefixed(err, "KeyConditionExpression")
	}
	var conds []*node
	if e.root.kind == kAnd {
		conds = e.root.kids
	} else {
		conds = []*node{e.root}
	}
	kc := &KeyCond{}
	seen := map[string]bool{}
	for _, n := range conds {
		t, err := keyTerm(n, names, values)
		if err != nil {
			return nil, err
		}
		if seen[t.Name] {
			return nil, refused(msgKeyConditionExpressionsOnlyContainConditionPer)
		}
		seen[t.Name] = true
		kc.Terms = append(kc.Terms, t)
	}
	return kc, nil
}

// keyTerm reads one term of a key condition.
func keyTerm(n *node, names map[string]string, values map[string]types.AttributeValue) (KeyTerm, error) {
	var op string
	switch n.kind {
	case kOr:
		return KeyTerm{}, refused(msgKeyConditionOperatorOR)
	case kAnd:
		return KeyTerm{}, refused(msgKeyConditionOperatorAND)
	case kNot:
		return KeyTerm{}, refused(msgKeyConditionOperatorNOT)
	case kIn:
		return KeyTerm{}, refused(msgKeyConditionOperatorIN)
	case kCompare:
		op = opText(n.op)
		if n.op == tokNe {
			return KeyTerm{}, refused(msgKeyConditionOperatorNE)
		}
	case kBetween:
		op = "BETWEEN"
	case kFunc:
		if n.fn != fnBeginsWith {
			return KeyTerm{}, refused(msgKeyConditionOperator, n.fn)
		}
		op = "begins_with"
	}
	for _, k := range n.kids {
		if k.kind == kSize {
			return KeyTerm{}, refused(msgKeyConditionExpressionsCannotContainNestedOperations)
		}
	}
	kids := n.kids
	if n.kind == kCompare && kids[0].kind == kValue && kids[1].kind == kPath {
		kids = []*node{kids[1], kids[0]}
		op = map[string]string{"=": "=", "<": ">", "<=": ">=", ">": "<", ">=": "<="}[op]
	}
	path := kids[0]
	if path.kind != kPath {
		return KeyTerm{}, refused(msgKeyConditionExpressionsCannotContainNestedOperations)
	}
	name := elemName(path.path[0], names)
	if len(path.path) > 1 {
		return KeyTerm{}, refused(msgKeyNotScalarPath, name)
	}
	t := KeyTerm{Name: name, Op: op}
	for _, k := range kids[1:] {
		if k.kind != kValue {
			return KeyTerm{}, refused(msgKeyConditionExpressionsCannotContainNestedOperations)
		}
		t.Values = append(t.Values, values[k.value])
	}
	return t, nil
}

// Schema sorts the terms by the table's (or index's) key schema: the term
// on hashKey, which must be "=", and the one on rangeKey ("" when there is
// none), or nil. Errors are DynamoDB's: "Query condition missed key schema
// element" when a term names another attribute or the hash key has none,
// "Query key condition not supported" for a hash key term other than = or a
// term too many.
func (kc *KeyCond) Schema(hashKey, rangeKey string) (hash KeyTerm, rng *KeyTerm, err error) {
	maxTerms := 1
	if rangeKey != "" {
		maxTerms = 2
	}
	if len(kc.Terms) > maxTerms {
		return KeyTerm{}, nil, refused(msgQueryKeyConditionNotSupported)
	}
	found := false
	for i := range kc.Terms {
		t := kc.Terms[i]
		switch t.Name {
		case hashKey:
			if t.Op != "=" {
				return KeyTerm{}, nil, refused(msgQueryKeyConditionNotSupported)
			}
			hash, found = t, true
		case rangeKey:
			rng = &kc.Terms[i]
		default:
			return KeyTerm{}, nil, refused(msgQueryConditionMissedKeySchema)
		}
	}
	if !found {
		return KeyTerm{}, nil, refused(msgQueryConditionMissedKeySchema)
	}
	return hash, rng, nil
}
