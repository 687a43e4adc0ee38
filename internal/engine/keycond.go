package engine

import (
	"strings"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// Key conditions. cond.Parse reads the grammar and reports syntax errors
// and cond's checks (undefined placeholders, operand types, BETWEEN
// bounds); the restricted shape DynamoDB accepts in a
// KeyConditionExpression is checked here, on a small tree of the already
// valid expression.
//
// TEMPORARY until the engine-expr branch provides cond.ParseKeyCondition:
// this file then shrinks to the mapping of its answer onto the schema.

// keyCond is one condition on a key attribute.
type keyCond struct {
	name string                 // the attribute, with #names resolved
	op   string                 // =, <, <=, >, >=, BETWEEN, begins_with
	vals []types.AttributeValue // one value, two for BETWEEN
}

// ktok is a token of an expression.
type ktok struct {
	kind byte   // 'i' identifier or #name, 'v' :value, 'k' keyword, 'p' punctuation, 0 end
	text string // keywords upper-cased
}

var kwords = map[string]bool{"AND": true, "OR": true, "NOT": true, "BETWEEN": true, "IN": true}

// ktokens splits an expression that cond.Parse accepted.
func ktokens(s string) []ktok {
	var out []ktok
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			i++
		case c == '#' || c == ':' || c == '_' || isWord(c):
			j := i + 1
			for j < len(s) && (isWord(s[j]) || s[j] == '_') {
				j++
			}
			w := s[i:j]
			switch {
			case c == ':':
				out = append(out, ktok{'v', w})
			case c != '#' && kwords[strings.ToUpper(w)]:
				out = append(out, ktok{'k', strings.ToUpper(w)})
			default:
				out = append(out, ktok{'i', w})
			}
			i = j
		case strings.HasPrefix(s[i:], "<=") || strings.HasPrefix(s[i:], ">=") || strings.HasPrefix(s[i:], "<>"):
			out = append(out, ktok{'p', s[i : i+2]})
			i += 2
		default:
			out = append(out, ktok{'p', s[i : i+1]})
			i++
		}
	}
	return append(out, ktok{})
}

func isWord(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
}

// refs are the placeholders an expression uses and the paths it names.
type refs struct {
	names, values []string
	tops          []string // the top-level attribute of each path (#names unresolved)
	deep          []string // the same, of the paths that go into it (a.b, a[0])
}

// scanRefs lists the #names and :values an expression uses and the
// top-level attribute of each of its paths.
func scanRefs(s string) refs {
	var r refs
	toks := ktokens(s)
	for i, t := range toks {
		switch t.kind {
		case 'v':
			r.values = append(r.values, t.text)
		case 'i':
			if strings.HasPrefix(t.text, "#") {
				r.names = append(r.names, t.text)
			}
			prev, next := ktok{}, toks[i+1]
			if i > 0 {
				prev = toks[i-1]
			}
			if prev.text == "." || prev.text == "[" || next.text == "(" {
				continue // a nested element, a list index or a function
			}
			r.tops = append(r.tops, t.text)
			if next.text == "." || next.text == "[" {
				r.deep = append(r.deep, t.text)
			}
		}
	}
	return r
}

// knode is a node of a key condition's tree.
type knode struct {
	op   string   // AND, OR, NOT, IN, a comparison, BETWEEN, a function name; "" for an operand
	args []*knode // operands
	tok  ktok     // an operand's first token
	path bool     // the operand is a path
	deep bool     // the path has . or [ ]
	fn   bool     // the operand is a function call (size)
}

type kparser struct {
	toks []ktok
	i    int
}

func (p *kparser) peek() ktok { return p.toks[p.i] }
func (p *kparser) next() ktok { t := p.toks[p.i]; p.i++; return t }

func (p *kparser) or() *knode {
	n := p.and()
	for p.peek().text == "OR" {
		p.next()
		n = &knode{op: "OR", args: []*knode{n, p.and()}}
	}
	return n
}

func (p *kparser) and() *knode {
	n := p.not()
	for p.peek().text == "AND" {
		p.next()
		n = &knode{op: "AND", args: []*knode{n, p.not()}}
	}
	return n
}

func (p *kparser) not() *knode {
	if p.peek().text == "NOT" {
		p.next()
		return &knode{op: "NOT", args: []*knode{p.not()}}
	}
	return p.predicate()
}

func (p *kparser) predicate() *knode {
	if p.peek().text == "(" {
		// A parenthesised condition or operand: try a condition first.
		save := p.i
		p.next()
		n := p.or()
		if p.peek().text == ")" {
			p.next()
			if n.op != "" {
				return n
			}
		}
		p.i = save
	}
	if t := p.peek(); t.kind == 'i' && p.toks[p.i+1].text == "(" && t.text != "size" {
		p.next()
		p.next()
		n := &knode{op: t.text}
		for p.peek().text != ")" {
			n.args = append(n.args, p.operand())
			if p.peek().text == "," {
				p.next()
			}
		}
		p.next()
		return n
	}
	a := p.operand()
	switch t := p.next(); t.text {
	case "BETWEEN":
		lo := p.operand()
		p.next() // AND
		return &knode{op: "BETWEEN", args: []*knode{a, lo, p.operand()}}
	case "IN":
		n := &knode{op: "IN", args: []*knode{a}}
		p.next() // (
		for p.peek().text != ")" {
			n.args = append(n.args, p.operand())
			if p.peek().text == "," {
				p.next()
			}
		}
		p.next()
		return n
	default:
		return &knode{op: t.text, args: []*knode{a, p.operand()}}
	}
}

func (p *kparser) operand() *knode {
	t := p.next()
	switch {
	case t.text == "(":
		n := p.operand()
		p.next()
		return n
	case t.kind == 'v':
		return &knode{tok: t}
	case t.text == "size" && p.peek().text == "(":
		p.next()
		p.operand()
		p.next()
		return &knode{tok: t, fn: true}
	}
	n := &knode{tok: t, path: true}
	for {
		switch p.peek().text {
		case ".":
			p.next()
			p.next()
			n.deep = true
			continue
		case "[":
			p.next()
			p.next()
			p.next()
			n.deep = true
			continue
		}
		return n
	}
}

// parseKeyCond reads a KeyConditionExpression into its conditions, in
// DynamoDB Local's order of checks: syntax, then placeholders and operand
// types, then unused names and values (by the caller, through x), then the
// shape of the conditions (checkKeyShape).
//
// The checks that evaluate the expression (placeholders, operand types,
// BETWEEN bounds) are returned as check, to run after the filter's and the
// projection's own checks: DynamoDB Local reports those first.
//
// raw are the ExpressionAttributeValues as written (already checked into
// x.values): the check evaluates those, so that its messages spell numbers
// as the request did, as DynamoDB Local's do.
func (x *exprs) keyConditions(s *string, raw map[string]av) (root *knode, check func() error, err error) {
	none := func() error { return nil }
	if s == nil {
		return nil, none, nil
	}
	if *s == "" {
		return nil, nil, validation(msgKeyConditionExpressionExpressionCanNotEmpty)
	}
	parsed, err := parseKeyCondition(*s)
	if err != nil {
		return nil, nil, exprError("KeyConditionExpression", err)
	}
	e := parsed.e
	x.use(e.Names(), e.Values())
	check = func() error {
		// Eval on no item checks placeholders and operand types without
		// depending on an item.
		values := x.values
		if x.values != nil {
			values = make(map[string]types.AttributeValue, len(raw))
			for k, a := range raw {
				values[k] = a.v
			}
		}
		if _, err := e.Eval(nil, x.names, values); err != nil {
			return exprError("KeyConditionExpression", err)
		}
		return nil
	}
	return parsed.root, check, nil
}

// conditions flattens the key condition's conjunction, refusing any other
// operator.
func conditions(root *knode) ([]*knode, error) {
	var conds []*knode
	var walk func(n *knode) error
	walk = func(n *knode) error {
		switch n.op {
		case "AND":
			for _, a := range n.args {
				if err := walk(a); err != nil {
					return err
				}
			}
			return nil
		case "=", "<", "<=", ">", ">=", "BETWEEN", "begins_with":
			for _, a := range n.args {
				if a.fn {
					return validation(msgKeyConditionExpressionsCannotContainNestedOperations)
				}
			}
			conds = append(conds, n)
			return nil
		}
		return validation(msgOperatorUsedKeyConditionExpression, n.op)
	}
	if err := walk(root); err != nil {
		return nil, err
	}
	return conds, nil
}

// keySchemaConds matches the conditions to a key schema (the table's or an
// index's) and returns the hash key's value and the range key's condition
// (nil when none).
func (x *exprs) keySchemaConds(root *knode, hash, rng keyDef) (types.AttributeValue, *keyCond, error) {
	conds, err := conditions(root)
	if err != nil {
		return nil, nil, err
	}
	var kcs []*keyCond
	seen := map[string]bool{}
	for _, n := range conds {
		kc := &keyCond{op: n.op}
		var pathNode *knode
		for i, a := range n.args {
			if !a.path {
				kc.vals = append(kc.vals, x.values[a.tok.text])
				continue
			}
			if pathNode != nil {
				return nil, nil, validation(msgConditionKeyConditionExpressionMultipleAttributeNames)
			}
			pathNode = a
			if i > 0 {
				kc.op = flip(kc.op)
			}
		}
		if pathNode == nil {
			return nil, nil, validation(msgConditionKeyConditionExpressionNoKeyAttribute)
		}
		kc.name = pathNode.tok.text
		if strings.HasPrefix(kc.name, "#") {
			kc.name = x.names[kc.name]
		}
		if pathNode.deep {
			return nil, nil, validation(msgKeyNotScalarPath, kc.name)
		}
		if seen[kc.name] {
			return nil, nil, validation(msgKeyConditionExpressionsOnlyContainConditionPer)
		}
		seen[kc.name] = true
		kcs = append(kcs, kc)
	}
	return schemaConds(kcs, hash, rng)
}

// schemaConds matches conditions, one per attribute, to a key schema: see
// keySchemaConds.
func schemaConds(kcs []*keyCond, hash, rng keyDef) (types.AttributeValue, *keyCond, error) {
	if len(kcs) > 2 {
		return nil, nil, validation(msgConditionsCanLength12)
	}
	var hv types.AttributeValue
	var rc *keyCond
	for _, kc := range kcs {
		switch kc.name {
		case hash.name:
			if kc.op != "=" {
				return nil, nil, validation(msgQueryKeyConditionNotSupported)
			}
			hv = kc.vals[0]
		case rng.name:
			rc = kc
		default:
			if rng.name == "" && len(kcs) == 2 {
				return nil, nil, validation(msgQueryKeyConditionNotSupported)
			}
			return nil, nil, validation(msgQueryConditionMissedKeySchema)
		}
	}
	if hv == nil {
		return nil, nil, validation(msgQueryConditionMissedKeySchema)
	}
	if err := keyConditionValue(hash, hv); err != nil {
		return nil, nil, err
	}
	if rc != nil {
		for _, v := range rc.vals {
			if err := keyConditionValue(rng, v); err != nil {
				return nil, nil, err
			}
		}
	}
	return hv, rc, nil
}

// keyConditionValue checks a value compared with key attribute k.
func keyConditionValue(k keyDef, v types.AttributeValue) error {
	if typeName(v) != k.typ {
		return invalidParam(msgConditionTypeDoesNotMatch)
	}
	if kind := emptyKey(v); kind != "" {
		return validation(msgEmptyKeyValue, kind, k.name)
	}
	return nil
}

// emptyKey names the kind of an empty S or B value ("string", "binary"),
// "" for any other value.
func emptyKey(v types.AttributeValue) string {
	switch v := v.(type) {
	case *types.AttributeValueMemberS:
		if v.Value == "" {
			return "string"
		}
	case *types.AttributeValueMemberB:
		if len(v.Value) == 0 {
			return "binary"
		}
	}
	return ""
}

// flip mirrors a comparison whose path is on the right (:v < sk is sk > :v).
func flip(op string) string {
	switch op {
	case "<":
		return ">"
	case "<=":
		return ">="
	case ">":
		return "<"
	case ">=":
		return "<="
	}
	return op
}

// matches reports whether a range key value satisfies the condition.
func (kc *keyCond) matches(v types.AttributeValue) bool {
	if kc == nil {
		return true
	}
	switch kc.op {
	case "=":
		return compareKeys(v, kc.vals[0]) == 0
	case "<":
		return compareKeys(v, kc.vals[0]) < 0
	case "<=":
		return compareKeys(v, kc.vals[0]) <= 0
	case ">":
		return compareKeys(v, kc.vals[0]) > 0
	case ">=":
		return compareKeys(v, kc.vals[0]) >= 0
	case "BETWEEN":
		return compareKeys(v, kc.vals[0]) >= 0 && compareKeys(v, kc.vals[1]) <= 0
	case "begins_with":
		switch v := v.(type) {
		case *types.AttributeValueMemberS:
			return strings.HasPrefix(v.Value, kc.vals[0].(*types.AttributeValueMemberS).Value)
		case *types.AttributeValueMemberB:
			return strings.HasPrefix(string(v.Value), string(kc.vals[0].(*types.AttributeValueMemberB).Value))
		}
	}
	return false
}
