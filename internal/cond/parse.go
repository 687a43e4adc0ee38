package cond

import (
	"errors"
	"fmt"
	"strconv"
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
	src  string
	root *node
}

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

// Parse parses a condition expression. Errors match [ErrInvalid]. Parse
// knows nothing of names and values; [Expr.Eval] checks those.
func Parse(expr string) (*Expr, error) {
	if len(expr) > maxExprBytes {
		return nil, fmt.Errorf("%w: expression of %d bytes; DynamoDB allows %d", ErrInvalid, len(expr), maxExprBytes)
	}
	toks, err := lex(expr)
	if err != nil {
		return nil, err
	}
	p := &parser{src: expr, toks: toks}
	root, err := p.parseOr()
	if err != nil {
		return nil, err
	}
	if t := p.peek(); t.kind != tokEOF {
		return nil, p.unexpected(t)
	}
	if !root.isCondition() {
		return nil, syntaxError(expr, root.pos, "an operand is not a condition")
	}
	if p.operators > maxOperators {
		return nil, fmt.Errorf("%w: %d operators and functions; DynamoDB allows %d", ErrInvalid, p.operators, maxOperators)
	}
	return &Expr{src: expr, root: root}, nil
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
	src       string
	toks      []token
	i         int
	operators int
}

func (p *parser) peek() token { return p.toks[p.i] }

func (p *parser) next() token {
	t := p.toks[p.i]
	if t.kind != tokEOF {
		p.i++
	}
	return t
}

func (p *parser) unexpected(t token) error {
	if t.kind == tokEOF {
		return syntaxError(p.src, t.pos, "unexpected end of expression")
	}
	return syntaxError(p.src, t.pos, "unexpected %q", t.text)
}

func (p *parser) expect(k tokKind, what string) (token, error) {
	t := p.next()
	if t.kind != k {
		if t.kind == tokEOF {
			return t, syntaxError(p.src, t.pos, "expected %s, got end of expression", what)
		}
		return t, syntaxError(p.src, t.pos, "expected %s, got %q", what, t.text)
	}
	return t, nil
}

// condition returns n if it is a condition, else an error.
func (p *parser) condition(n *node) (*node, error) {
	if !n.isCondition() {
		return nil, syntaxError(p.src, n.pos, "an operand is not a condition")
	}
	return n, nil
}

// operand returns n if it is an operand, else an error.
func (p *parser) operand(n *node) (*node, error) {
	if n.isCondition() {
		return nil, syntaxError(p.src, n.pos, "a condition is not an operand")
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
	case tokEq, tokNe, tokLt, tokLe, tokGt, tokGe:
		if _, err := p.operand(left); err != nil {
			return nil, err
		}
		p.next()
		p.operators++
		right, err := p.parseOperand()
		if err != nil {
			return nil, err
		}
		return &node{kind: kCompare, op: t.kind, kids: []*node{left, right}, pos: t.pos}, nil
	case tokBetween:
		if _, err := p.operand(left); err != nil {
			return nil, err
		}
		p.next()
		p.operators++
		lo, err := p.parseOperand()
		if err != nil {
			return nil, err
		}
		if _, err := p.expect(tokAnd, "AND"); err != nil {
			return nil, err
		}
		hi, err := p.parseOperand()
		if err != nil {
			return nil, err
		}
		return &node{kind: kBetween, kids: []*node{left, lo, hi}, pos: t.pos}, nil
	case tokIn:
		if _, err := p.operand(left); err != nil {
			return nil, err
		}
		p.next()
		p.operators++
		if _, err := p.expect(tokLParen, `"(" after IN`); err != nil {
			return nil, err
		}
		list, err := p.parseOperands()
		if err != nil {
			return nil, err
		}
		if len(list) > maxInList {
			return nil, fmt.Errorf("%w: IN with %d operands; DynamoDB allows %d", ErrInvalid, len(list), maxInList)
		}
		return &node{kind: kIn, kids: append([]*node{left}, list...), pos: t.pos}, nil
	}
	return left, nil
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
			return nil, fmt.Errorf("%w: redundant parentheses at offset %d", ErrInvalid, t.pos)
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
			return fmt.Errorf("%w: %s takes %d operands, got %d", ErrInvalid, t.text, n, len(args))
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
		return nil, fmt.Errorf("%w: %q is not a function of condition expressions (their names are lower case)", ErrInvalid, t.text)
	}
	switch fn {
	case fnAttributeExists, fnAttributeNotExists:
		if err := arity(1); err != nil {
			return nil, err
		}
		if args[0].kind != kPath {
			return nil, fmt.Errorf("%w: %s takes a document path", ErrInvalid, t.text)
		}
	case fnAttributeType:
		if err := arity(2); err != nil {
			return nil, err
		}
		if args[1].kind != kValue {
			return nil, fmt.Errorf("%w: attribute_type takes a :value as its type", ErrInvalid)
		}
	default:
		if err := arity(2); err != nil {
			return nil, err
		}
	}
	return &node{kind: kFunc, fn: fn, kids: args, pos: t.pos}, nil
}

// parsePath parses name { "." name | "[" index "]" }, where a name is plain
// or a #placeholder.
func (p *parser) parsePath() (*node, error) {
	n := &node{kind: kPath, pos: p.peek().pos}
	for {
		t := p.next()
		switch t.kind {
		case tokIdent:
			if isReserved(t.text) {
				return nil, fmt.Errorf("%w: %q is a reserved word; use a #name placeholder", ErrInvalid, t.text)
			}
			n.path = append(n.path, elem{name: t.text})
		case tokName:
			n.path = append(n.path, elem{name: t.text, placeholder: true})
		default:
			return nil, p.unexpected(t)
		}
		for p.peek().kind == tokLBrack {
			p.next()
			t, err := p.expect(tokInt, "a list index")
			if err != nil {
				return nil, err
			}
			i, err := strconv.Atoi(t.text)
			switch {
			case len(t.text) > 1 && t.text[0] == '0':
				return nil, syntaxError(p.src, t.pos, "list index with a leading zero")
			case err != nil || i > maxListIndex:
				return nil, fmt.Errorf("%w: list index %s out of range", ErrInvalid, t.text)
			}
			if _, err := p.expect(tokRBrack, `"]"`); err != nil {
				return nil, err
			}
			n.path = append(n.path, elem{index: i, isIndex: true})
		}
		if len(n.path) > maxPathDepth {
			return nil, fmt.Errorf("%w: document path deeper than %d levels", ErrInvalid, maxPathDepth)
		}
		if p.peek().kind != tokDot {
			return n, nil
		}
		p.next()
	}
}
