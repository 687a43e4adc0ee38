package cond

import "strings"

// Update is a parsed update expression. Use [ParseUpdate] to make one; it is
// immutable and safe for concurrent use.
type Update struct {
	src string
	// actions holds the actions in the order DynamoDB applies and checks
	// them: every SET, then every REMOVE, ADD and DELETE, each clause in
	// the order written.
	actions []*action
	ph      placeholders
	// written holds the actions in the order written.
	written []*action
	// later is the first error of meaning found while parsing, reported
	// only if the syntax is right, as DynamoDB reports syntax first.
	later error
	// legacy marks an update made by AttributeUpdates, whose errors on the
	// item DynamoDB words otherwise.
	legacy bool
}

// String returns the expression's text, as given to ParseUpdate.
func (u *Update) String() string { return u.src }

// actionKind is the clause an action belongs to.
type actionKind uint8

const (
	actSet actionKind = iota
	actRemove
	actAdd
	actDelete
)

var actionNames = [...]string{actSet: "SET", actRemove: "REMOVE", actAdd: "ADD", actDelete: "DELETE"}

// action is one action of an update: SET path = value, REMOVE path, ADD
// path :value, DELETE path :value.
type action struct {
	kind  actionKind
	path  []elem
	set   *setValue // SET
	value string    // ADD, DELETE: the :placeholder
	nth   int       // its place in the expression as written
}

// setValue is the right side of SET: an operand, or two joined by + or -.
type setValue struct {
	left  *operand
	op    tokKind // 0, tokPlus or tokMinus
	right *operand
}

// operandKind is the kind of an operand of SET.
type operandKind uint8

const (
	oPath operandKind = iota
	oValue
	oIfNotExists
	oListAppend
)

// operand is an operand of SET: a path, a :value, or a function of two
// operands.
type operand struct {
	kind  operandKind
	path  []elem
	value string
	args  []*operand
}

// ParseUpdate parses an update expression: clauses SET, REMOVE, ADD and
// DELETE, each at most once, in any order. SET takes path = operand, path =
// operand + operand, path = operand - operand, where an operand is a path,
// a :value, if_not_exists(path, operand) or list_append(operand, operand);
// REMOVE takes paths; ADD and DELETE take path :value. Errors are [*Error]s
// carrying DynamoDB's message.
func ParseUpdate(expr string) (*Update, error) {
	return parseParam(expr, "UpdateExpression", false, parseUpdate)
}

func parseUpdate(c *cursor) (*Update, error) {
	u := &Update{src: c.src}
	var clauses [4][]*action
	seen := [4]bool{}
	for c.peek().kind != tokEOF {
		t := c.peek()
		kind, ok := clauseKind(t)
		if !ok {
			return nil, c.fail()
		}
		if seen[kind] && u.later == nil {
			u.later = invalid(msgSectionCanOnlyUsedOnce, actionNames[kind])
		}
		seen[kind] = true
		c.next()
		for {
			a, err := u.parseAction(c, kind)
			if err != nil {
				return nil, err
			}
			a.nth = len(u.written)
			u.written = append(u.written, a)
			clauses[kind] = append(clauses[kind], a)
			if c.peek().kind != tokComma {
				break
			}
			c.next()
		}
		if k := c.peek().kind; k != tokEOF {
			if _, ok := clauseKind(c.peek()); !ok {
				return nil, c.fail()
			}
		}
	}
	if u.later != nil {
		return nil, u.later
	}
	for _, as := range clauses {
		u.actions = append(u.actions, as...)
	}
	return u, nil
}

// clauseKind reports whether t starts a clause, and which.
func clauseKind(t token) (actionKind, bool) {
	if t.kind != tokIdent {
		return 0, false
	}
	switch strings.ToUpper(t.text) {
	case "SET":
		return actSet, true
	case "REMOVE":
		return actRemove, true
	case "ADD":
		return actAdd, true
	case "DELETE":
		return actDelete, true
	}
	return 0, false
}

func (u *Update) parseAction(c *cursor, kind actionKind) (*action, error) {
	path, err := c.path(false)
	if err != nil {
		return nil, err
	}
	u.ph.addPath(path)
	a := &action{kind: kind, path: path}
	switch kind {
	case actSet:
		if err := c.expect(tokEq); err != nil {
			return nil, err
		}
		set, _, err := u.parseSetValue(c)
		if err != nil {
			return nil, err
		}
		a.set = set
	case actAdd, actDelete:
		t := c.peek()
		if t.kind != tokValue {
			return nil, c.fail()
		}
		c.next()
		u.ph.addValue(t.text)
		a.value = t.text
	}
	return a, nil
}

// parseSetValue parses the right side of SET: operand, operand + operand,
// operand - operand, or one of those in parentheses, as DynamoDB accepts
// SET n = (n + :v). It reports whether the value was a group in
// parentheses: a group directly inside another is redundant, which
// DynamoDB refuses, and a group holding + or - may not be an operand of
// another + or -.
func (u *Update) parseSetValue(c *cursor) (*setValue, bool, error) {
	var left *operand
	if c.peek().kind == tokLParen {
		c.next()
		inner, wrapped, err := u.parseSetValue(c)
		if err != nil {
			return nil, false, err
		}
		if err := c.expect(tokRParen); err != nil {
			return nil, false, err
		}
		if wrapped {
			u.redundant()
		}
		k := c.peek().kind
		if k != tokPlus && k != tokMinus {
			return inner, true, nil
		}
		if inner.op != 0 {
			return nil, false, c.fail()
		}
		left = inner.left
	} else {
		var err error
		if left, err = u.parseOperand(c); err != nil {
			return nil, false, err
		}
	}
	s := &setValue{left: left}
	if k := c.peek().kind; k == tokPlus || k == tokMinus {
		c.next()
		right, err := u.parseOperand(c)
		if err != nil {
			return nil, false, err
		}
		s.op, s.right = k, right
		u.nested(left)
		u.nested(right)
	}
	return s, false, nil
}

// nested records DynamoDB's error for list_append used as an operand of
// + or - or of a function: it is allowed only as the whole right side of
// SET.
func (u *Update) nested(o *operand) {
	if o.kind == oListAppend && u.later == nil {
		u.later = invalid(msgListAppendNotAllowedThisWay)
	}
}

// redundant records DynamoDB's error for parentheses directly inside
// others, reported only if the syntax is right.
func (u *Update) redundant() {
	if u.later == nil {
		u.later = invalid(msgExpressionHasRedundantParentheses)
	}
}

// updateFunctions are the functions of update expressions; the functions
// of conditions are refused with their own message.
var updateFunctions = map[string]operandKind{"if_not_exists": oIfNotExists, "list_append": oListAppend}

func (u *Update) parseOperand(c *cursor) (*operand, error) {
	t := c.peek()
	switch t.kind {
	case tokLParen:
		c.next()
		if c.peek().kind == tokLParen {
			u.redundant()
		}
		o, err := u.parseOperand(c)
		if err != nil {
			return nil, err
		}
		if err := c.expect(tokRParen); err != nil {
			return nil, err
		}
		return o, nil
	case tokValue:
		c.next()
		u.ph.addValue(t.text)
		return &operand{kind: oValue, value: t.text}, nil
	case tokIdent:
		if c.toks[c.i+1].kind == tokLParen {
			return u.parseFunction(c)
		}
	case tokName:
	default:
		return nil, c.fail()
	}
	path, err := c.path(false)
	if err != nil {
		return nil, err
	}
	u.ph.addPath(path)
	return &operand{kind: oPath, path: path}, nil
}

func (u *Update) parseFunction(c *cursor) (*operand, error) {
	name := c.next().text
	c.next() // "("
	var args []*operand
	for {
		a, err := u.parseOperand(c)
		if err != nil {
			return nil, err
		}
		args = append(args, a)
		if c.peek().kind == tokComma {
			c.next()
			continue
		}
		if err := c.expect(tokRParen); err != nil {
			return nil, err
		}
		break
	}
	for _, a := range args {
		u.nested(a)
	}
	kind, ok := updateFunctions[name]
	_, isCondition := functions[name]
	var err error
	switch {
	case !ok && (name == "size" || isCondition):
		err = invalid(msgFunctionNotAllowedUpdateExpression, name)
	case !ok:
		err = invalid(msgInvalidFunctionName, name)
	case len(args) != 2:
		err = invalid(msgIncorrectNumberOperandsOperatorFunction, name, len(args))
	}
	if err != nil {
		if u.later == nil {
			u.later = err
		}
		return &operand{kind: oValue}, nil
	}
	return &operand{kind: kind, args: args}, nil
}

// Names returns the #name placeholders the expression uses, each once, in
// the order they first appear.
func (u *Update) Names() []string { return append([]string(nil), u.ph.names...) }

// Values returns the :value placeholders the expression uses, each once,
// in the order they first appear.
func (u *Update) Values() []string { return append([]string(nil), u.ph.values...) }

// Paths returns the document paths the update writes, resolved with names,
// in the order DynamoDB applies them (SET, REMOVE, ADD, DELETE).
func (u *Update) Paths(names map[string]string) ([]Path, error) {
	paths := make([]Path, len(u.actions))
	for i, a := range u.actions {
		p, err := resolvePath(a.path, names)
		if err != nil {
			return nil, prefixed(err, "UpdateExpression")
		}
		paths[i] = p
	}
	return paths, nil
}
