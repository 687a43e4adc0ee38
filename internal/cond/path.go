package cond

import (
	"strconv"
	"strings"
)

// PathElem is one element of a document path resolved through
// ExpressionAttributeNames: an attribute name, or a list index when IsIndex.
type PathElem struct {
	Name    string
	Index   int
	IsIndex bool
}

// Path is a document path resolved through ExpressionAttributeNames.
type Path []PathElem

// String renders p as a document path: a.b[2].c. Names are written as they
// are, without escaping.
func (p Path) String() string {
	var b strings.Builder
	for i, e := range p {
		if e.IsIndex {
			b.WriteByte('[')
			b.WriteString(strconv.Itoa(e.Index))
			b.WriteByte(']')
			continue
		}
		if i > 0 {
			b.WriteByte('.')
		}
		b.WriteString(e.Name)
	}
	return b.String()
}

// listing renders p as DynamoDB's messages do: [a, [2], c].
func (p Path) listing() string {
	parts := make([]string, len(p))
	for i, e := range p {
		if e.IsIndex {
			parts[i] = "[" + strconv.Itoa(e.Index) + "]"
		} else {
			parts[i] = e.Name
		}
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

// resolvePath resolves the placeholders of a parsed path with names, or
// returns DynamoDB's error for an undefined one.
func resolvePath(path []elem, names map[string]string) (Path, error) {
	p := make(Path, len(path))
	for i, el := range path {
		switch {
		case el.isIndex:
			p[i] = PathElem{Index: el.index, IsIndex: true}
		case el.placeholder:
			n, ok := names[el.name]
			if !ok {
				return nil, invalid(msgNameNotDefined, el.name)
			}
			p[i] = PathElem{Name: n}
		default:
			p[i] = PathElem{Name: el.name}
		}
	}
	return p, nil
}

// cursor walks the tokens of an expression, for the parsers of condition,
// update and projection expressions, which report errors as DynamoDB does.
type cursor struct {
	src  string
	toks []token
	i    int
}

// newCursor checks what every expression must be before it is parsed (at
// most maxExprBytes long, not blank) and lexes it. DynamoDB gives the size
// in its message for a condition expression (sized), not for the others.
func newCursor(expr string, sized bool) (*cursor, error) {
	if len(expr) > maxExprBytes {
		if sized {
			return nil, invalid(msgExpressionTooLargeSize, len(expr))
		}
		return nil, invalid(msgExpressionTooLarge)
	}
	if strings.Trim(expr, " \t\r\n") == "" {
		return nil, blankError(expr)
	}
	toks, err := lex(expr)
	if err != nil {
		return nil, err
	}
	return &cursor{src: expr, toks: toks}, nil
}

func (c *cursor) peek() token { return c.toks[c.i] }

func (c *cursor) next() token {
	t := c.toks[c.i]
	if t.kind != tokEOF {
		c.i++
	}
	return t
}

// fail is DynamoDB's syntax error at the current token.
func (c *cursor) fail() error { return syntaxErrorAt(c.src, c.toks, c.i) }

// expect consumes a token of kind k, or fails on it.
func (c *cursor) expect(k tokKind) error {
	if c.peek().kind != k {
		return c.fail()
	}
	c.next()
	return nil
}

// path parses name { "." name | "[" index "]" }, where a name is plain or a
// #placeholder. A plain name must not be a reserved word. The paths of a
// condition (cond) differ in two ways, as DynamoDB's do: a keyword where a
// name should be is a syntax error there, not a reserved word, and a path
// deeper than maxPathDepth is refused as soon as it is.
func (c *cursor) path(cond bool) ([]elem, error) {
	var path []elem
	for {
		t := c.peek()
		switch t.kind {
		case tokIdent:
			if isReserved(t.text) {
				return nil, invalid(msgAttributeNameReservedKeywordReserved, t.text)
			}
			path = append(path, elem{name: t.text})
		case tokName:
			path = append(path, elem{name: t.text, placeholder: true})
		default:
			if _, kw := keywords[strings.ToUpper(t.text)]; kw && t.text != "" && !cond {
				return nil, invalid(msgAttributeNameReservedKeywordReserved, t.text)
			}
			return nil, c.fail()
		}
		c.next()
		for c.peek().kind == tokLBrack {
			c.next()
			t := c.peek()
			if t.kind != tokInt {
				return nil, c.fail()
			}
			i, err := c.listIndex(t, c.toks[c.i+1])
			if err != nil {
				return nil, err
			}
			c.next()
			if err := c.expect(tokRBrack); err != nil {
				return nil, err
			}
			path = append(path, elem{index: i, isIndex: true})
		}
		if cond && len(path) > maxPathDepth {
			return nil, invalid(msgDocumentPathHasTooMany, len(path))
		}
		if c.peek().kind != tokDot {
			return path, nil
		}
		c.next()
	}
}

// listIndex reads the list index t, a tokInt followed by the token next.
func (c *cursor) listIndex(t, next token) (int, error) {
	if len(t.text) > 1 && t.text[0] == '0' {
		// DynamoDB reads "0" as an index of its own, and fails on the
		// digits after it.
		end := t.pos + len(t.text)
		if next.kind != tokEOF {
			end = next.pos + len(next.text)
		}
		return 0, invalid(msgSyntaxErrorTokenNear, t.text[1:], c.src[t.pos:end])
	}
	i, err := strconv.Atoi(t.text)
	if err != nil || i > maxListIndex {
		return 0, invalid(msgListIndexOutRangeIndex, t.text)
	}
	return i, nil
}

// placeholders collects the distinct #names and :values of paths and value
// placeholders, in the order they first appear.
type placeholders struct {
	names, values []string
	seen          map[string]bool
}

func (p *placeholders) addPath(path []elem) {
	for _, el := range path {
		if el.placeholder {
			p.add(el.name, &p.names)
		}
	}
}

func (p *placeholders) addValue(v string) { p.add(v, &p.values) }

func (p *placeholders) add(s string, to *[]string) {
	if p.seen == nil {
		p.seen = map[string]bool{}
	}
	if !p.seen[s] {
		p.seen[s] = true
		*to = append(*to, s)
	}
}
