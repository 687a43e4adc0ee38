package cond

import (
	"errors"
)

// ErrInvalid is matched (with errors.Is) by every error of [Parse] and of
// [Expr.Eval] that DynamoDB would answer with a ValidationException: the
// expression, or a name or value it uses, is not one DynamoDB accepts.
var ErrInvalid = errors.New("cond: invalid expression")

// ErrItem is matched by an error of [Expr.Eval] when the item holds a value
// DynamoDB could not have stored, such as an N that is not a number. Such an
// item cannot come from DynamoDB; the expression is not at fault.
var ErrItem = errors.New("cond: invalid item")

// DynamoDB's limits on an expression.
const (
	maxExprBytes = 4096 // the expression's text
	maxOperators = 300  // AND, OR, NOT, comparisons, BETWEEN, IN, functions
	maxInList    = 100  // operands after IN
	maxPathDepth = 32   // elements of a document path
	maxListIndex = 1<<31 - 1
)

// Expr is a parsed condition expression. Use [Parse] to make one; it is
// immutable and safe for concurrent use.
type Expr struct {
	src   string
	root  *node
	param string // the request parameter, for the prefix of messages
	ph    placeholders
}

// Names returns the #name placeholders the expression uses, each once, in
// the order they first appear.
func (e *Expr) Names() []string { return append([]string(nil), e.ph.names...) }

// Values returns the :value placeholders the expression uses, each once, in
// the order they first appear.
func (e *Expr) Values() []string { return append([]string(nil), e.ph.values...) }

// String returns the expression's text, as given to Parse.
func (e *Expr) String() string { return e.src }

// kind is the kind of a node of the syntax tree. The first group are
// conditions (true or false), the second operands (a value, or absent).
type kind uint8

const (
	kAnd     kind = iota // kids: two or more conditions
	kOr                  // kids: two or more conditions
	kNot                 // kids: one condition
	kCompare             // op; kids: two operands
	kBetween             // kids: operand, lower, upper
	kIn                  // kids: operand, then 1 to 100 candidates
	kFunc                // fn; kids: its arguments
	kPath                // path
	kValue               // name: the :placeholder
	kSize                // kids: one operand
)

// function is a function of the grammar that is a condition.
type function uint8

const (
	fnAttributeExists function = iota
	fnAttributeNotExists
	fnAttributeType
	fnBeginsWith
	fnContains
)

// functionNames holds each function's name, as DynamoDB spells it.
var functionNames = [...]string{
	fnAttributeExists:    "attribute_exists",
	fnAttributeNotExists: "attribute_not_exists",
	fnAttributeType:      "attribute_type",
	fnBeginsWith:         "begins_with",
	fnContains:           "contains",
}

// functions maps a name to its function.
var functions = func() map[string]function {
	m := make(map[string]function, len(functionNames))
	for f, name := range functionNames {
		m[name] = function(f)
	}
	return m
}()

func (f function) String() string { return functionNames[f] }

// node is a node of the syntax tree.
type node struct {
	kind  kind
	op    tokKind  // kCompare: tokEq, tokNe, tokLt, tokLe, tokGt or tokGe
	fn    function // kFunc
	kids  []*node
	path  []elem // kPath
	value string // kValue: the placeholder, with its colon
	pos   int    // byte offset in the expression, for messages
	// paren is set on a node written in parentheses; a second pair directly
	// around it is refused, as DynamoDB does ("redundant parentheses").
	paren bool
}

// isCondition reports whether n is a condition rather than an operand.
func (n *node) isCondition() bool { return n.kind < kPath }

// elem is one element of a document path: a name (plain, or a #name
// placeholder resolved at evaluation) or a list index.
type elem struct {
	name        string // plain name, or the #placeholder when placeholder
	placeholder bool
	index       int // the index when isIndex
	isIndex     bool
}

// Parse parses a condition expression given as a ConditionExpression; see
// [ParseAs].
func Parse(expr string) (*Expr, error) { return ParseAs(expr, "ConditionExpression") }

// ParseAs parses a condition expression given as the request parameter
// param ("ConditionExpression", "FilterExpression" or
// "KeyConditionExpression"), which DynamoDB names in its messages: errors
// of ParseAs and of [Expr.Eval] are [*Error]s whose Msg is DynamoDB's
// ("Invalid FilterExpression: Syntax error; ..."). ParseAs knows nothing of
// names and values; [Expr.Eval] checks those.
func ParseAs(expr, param string) (*Expr, error) {
	e, err := parseParam(expr, param, true, parse)
	if err == nil {
		e.param = param
	}
	return e, err
}

// parseParam parses expr, the request's parameter param, with parse over
// its tokens (see [newCursor] for sized): its errors name param, as
// DynamoDB's do.
func parseParam[T any](expr, param string, sized bool, parse func(*cursor) (*T, error)) (*T, error) {
	c, err := newCursor(expr, sized)
	if err != nil {
		return nil, prefixed(err, param)
	}
	v, err := parse(c)
	if err != nil {
		return nil, prefixed(err, param)
	}
	return v, nil
}

func parse(c *cursor) (*Expr, error) {
	p := &parser{cursor: *c}
	root, err := p.parseOr()
	if err != nil {
		return nil, err
	}
	if t := p.peek(); t.kind != tokEOF {
		return nil, p.unexpected(t)
	}
	if !root.isCondition() {
		return nil, p.fail()
	}
	if p.operators > maxOperators {
		return nil, invalid(msgExpressionContainsTooManyOperators, p.operators)
	}
	e := &Expr{src: c.src, root: root}
	e.collect(root)
	return e, nil
}

// collect records the placeholders of n and its kids, in order.
func (e *Expr) collect(n *node) {
	switch n.kind {
	case kPath:
		e.ph.addPath(n.path)
	case kValue:
		e.ph.addValue(n.value)
	}
	for _, k := range n.kids {
		e.collect(k)
	}
}

// parser is a recursive-descent parser over the tokens of one expression.
// The grammar, loosest binding first:
//
//	or        = and { OR and }
//	and       = not { AND not }
//	not       = NOT not | predicate
//	predicate = primary [ comparator primary
//	                    | BETWEEN primary AND primary
//	                    | IN "(" primary { "," primary } ")" ]
//	primary   = "(" or ")" | function "(" primary { "," primary } ")"
//	          | path | :value
//
// An operand and a condition are both primaries, because "(" may open
// either: "(a) = :v" and "(a = :v)" are both valid. Each rule then checks
// that what it got is what it needs.
type parser struct {
	cursor
	operators int
}

// unexpected is DynamoDB's syntax error at token t.
func (p *parser) unexpected(t token) error {
	for j, u := range p.toks {
		if u.pos == t.pos && u.kind == t.kind {
			return syntaxErrorAt(p.src, p.toks, j)
		}
	}
	return p.fail()
}

func (p *parser) expect(k tokKind, what string) (token, error) {
	t := p.next()
	if t.kind != k {
		return t, p.unexpected(t)
	}
	return t, nil
}

// condition returns n if it is a condition, else an error.
func (p *parser) condition(n *node) (*node, error) {
	if !n.isCondition() {
		return nil, p.fail()
	}
	return n, nil
}

// operand returns n if it is an operand, else an error.
func (p *parser) operand(n *node) (*node, error) {
	if n.isCondition() {
		return nil, p.fail()
	}
	return n, nil
}

func (p *parser) parseOr() (*node, error) {
	return p.parseChain(tokOr, kOr, (*parser).parseAnd)
}

func (p *parser) parseAnd() (*node, error) {
	return p.parseChain(tokAnd, kAnd, (*parser).parseNot)
}

// parseChain parses sub { op sub } into one node of kind k. A single sub
// is returned as it is, operand or condition, for the caller to check.
func (p *parser) parseChain(op tokKind, k kind, sub func(*parser) (*node, error)) (*node, error) {
	first, err := sub(p)
	if err != nil || p.peek().kind != op {
		return first, err
	}
	if _, err := p.condition(first); err != nil {
		return nil, err
	}
	n := &node{kind: k, kids: []*node{first}, pos: first.pos}
	for p.peek().kind == op {
		p.next()
		p.operators++
		kid, err := sub(p)
		if err != nil {
			return nil, err
		}
		if _, err := p.condition(kid); err != nil {
			return nil, err
		}
		n.kids = append(n.kids, kid)
	}
	return n, nil
}

func (p *parser) parseNot() (*node, error) {
	if p.peek().kind != tokNot {
		return p.parsePredicate()
	}
	t := p.next()
	p.operators++
	kid, err := p.parseNot()
	if err != nil {
		return nil, err
	}
	if _, err := p.condition(kid); err != nil {
		return nil, err
	}
	return &node{kind: kNot, kids: []*node{kid}, pos: t.pos}, nil
}

func (p *parser) parsePredicate() (*node, error) {
	left, err := p.parsePrimary()
	if err != nil {
		return nil, err
	}
	t := p.peek()
	switch t.kind {
	case tokEq, tokNe, tokLt, tokLe, tokGt, tokGe, tokBetween, tokIn:
	default:
		return left, nil
	}
	if _, err := p.operand(left); err != nil {
		return nil, err
	}
	p.next()
	p.operators++
	if t.kind == tokIn {
		return p.parseIn(t, left)
	}
	right, err := p.parseOperand()
	if err != nil {
		return nil, err
	}
	if t.kind != tokBetween {
		return &node{kind: kCompare, op: t.kind, kids: []*node{left, right}, pos: t.pos}, nil
	}
	if _, err := p.expect(tokAnd, "AND"); err != nil {
		return nil, err
	}
	hi, err := p.parseOperand()
	if err != nil {
		return nil, err
	}
	return &node{kind: kBetween, kids: []*node{left, right, hi}, pos: t.pos}, nil
}

// parseIn parses the list of left IN (...), after the IN (t).
func (p *parser) parseIn(t token, left *node) (*node, error) {
	if _, err := p.expect(tokLParen, `"(" after IN`); err != nil {
		return nil, err
	}
	list, err := p.parseOperands()
	if err != nil {
		return nil, err
	}
	if len(list) > maxInList {
		return nil, invalid(msgINTooManyOperands, len(list))
	}
	return &node{kind: kIn, kids: append([]*node{left}, list...), pos: t.pos}, nil
}

// parseOperands parses operand { "," operand } ")", after a "(".
func (p *parser) parseOperands() ([]*node, error) {
	var list []*node
	for {
		n, err := p.parseOperand()
		if err != nil {
			return nil, err
		}
		list = append(list, n)
		t := p.next()
		switch t.kind {
		case tokComma:
			continue
		case tokRParen:
			return list, nil
		}
		return nil, p.unexpected(t)
	}
}

func (p *parser) parseOperand() (*node, error) {
	n, err := p.parsePrimary()
	if err != nil {
		return nil, err
	}
	return p.operand(n)
}

func (p *parser) parsePrimary() (*node, error) {
	t := p.peek()
	switch t.kind {
	case tokLParen:
		p.next()
		inner, err := p.parseOr()
		if err != nil {
			return nil, err
		}
		if _, err := p.expect(tokRParen, `")"`); err != nil {
			return nil, err
		}
		if inner.paren {
			return nil, invalid(msgExpressionHasRedundantParentheses)
		}
		inner.paren = true
		return inner, nil
	case tokValue:
		p.next()
		return &node{kind: kValue, value: t.text, pos: t.pos}, nil
	case tokIdent:
		if p.toks[p.i+1].kind == tokLParen {
			return p.parseFunction()
		}
		return p.parsePath()
	case tokName:
		return p.parsePath()
	}
	return nil, p.unexpected(t)
}

// parseFunction parses name "(" operand { "," operand } ")" and checks the
// function's arity and the kinds of its arguments.
func (p *parser) parseFunction() (*node, error) {
	t := p.next()
	p.next() // "("
	p.operators++
	args, err := p.parseOperands()
	if err != nil {
		return nil, err
	}
	arity := func(n int) error {
		if len(args) != n {
			return invalid(msgIncorrectNumberOperandsOperatorFunction, t.text, len(args))
		}
		return nil
	}
	if t.text == "size" {
		if err := arity(1); err != nil {
			return nil, err
		}
		return &node{kind: kSize, kids: args, pos: t.pos}, nil
	}
	fn, ok := functions[t.text]
	if !ok {
		if _, ok := updateFunctions[t.text]; ok {
			return nil, invalid(msgFunctionNotAllowedConditionExpression, t.text)
		}
		return nil, invalid(msgInvalidFunctionName, t.text)
	}
	switch fn {
	case fnAttributeExists, fnAttributeNotExists:
		if err := arity(1); err != nil {
			return nil, err
		}
		if args[0].kind != kPath {
			return nil, invalid(msgRequiresDocumentPath, t.text)
		}
	case fnAttributeType:
		if err := arity(2); err != nil {
			return nil, err
		}
		if args[1].kind != kValue {
			return nil, invalid(msgIncorrectOperandTypeAttributeTypePath)
		}
	default:
		if err := arity(2); err != nil {
			return nil, err
		}
	}
	return &node{kind: kFunc, fn: fn, kids: args, pos: t.pos}, nil
}

// parsePath parses a path of a condition ([cursor.path]).
func (p *parser) parsePath() (*node, error) {
	pos := p.peek().pos
	path, err := p.path(true)
	if err != nil {
		return nil, err
	}
	return &node{kind: kPath, pos: pos, path: path}, nil
}
