// Package keytmpl parses the key templates of entities that share one
// table: literal text with {Field} placeholders, such as
// "CUSTOMER#{ID}" or "ORDER#{Date}#{ID}", each placeholder naming a Go
// field of the entity's struct, optionally with a fmt verb after a colon
// ("{Total:%010d}") so that numbers sort as text. "{{" and "}}" stand for
// literal braces.
package keytmpl

import (
	"errors"
	"fmt"
	"strings"
	"unicode"
)

// Template is a parsed key template.
type Template struct {
	src   string
	parts []Part
}

// Part is one piece of a template: literal text, or a placeholder (Field
// set) with its fmt verb ("" for the field's default spelling).
type Part struct {
	Literal string
	Field   string
	Verb    string
}

// ErrSyntax is the class of every error Parse returns.
var ErrSyntax = errors.New("keytmpl: bad template")

// Parse parses s. A template must not be empty, every placeholder must
// name a Go identifier (a field path such as "Base.ID" is allowed), and two
// placeholders must be separated by literal text, so that the rendered key
// says where one value ends.
func Parse(s string) (*Template, error) {
	if s == "" {
		return nil, fmt.Errorf("%w: empty template", ErrSyntax)
	}
	t := &Template{src: s}
	var lit strings.Builder
	flush := func() {
		if lit.Len() > 0 {
			t.parts = append(t.parts, Part{Literal: lit.String()})
			lit.Reset()
		}
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '{' && i+1 < len(s) && s[i+1] == '{':
			lit.WriteByte('{')
			i++
		case c == '}' && i+1 < len(s) && s[i+1] == '}':
			lit.WriteByte('}')
			i++
		case c == '}':
			return nil, fmt.Errorf("%w: %q: a lone '}' at %d (write }} for a literal brace)", ErrSyntax, s, i)
		case c == '{':
			end := strings.IndexByte(s[i:], '}')
			if end < 0 {
				return nil, fmt.Errorf("%w: %q: '{' at %d is not closed", ErrSyntax, s, i)
			}
			body := s[i+1 : i+end]
			field, verb, _ := strings.Cut(body, ":")
			if !isFieldPath(field) {
				return nil, fmt.Errorf("%w: %q: {%s} does not name a Go field", ErrSyntax, s, body)
			}
			if strings.Contains(body, ":") && !isVerb(verb) {
				return nil, fmt.Errorf("%w: %q: {%s}: %q is not one fmt verb such as %%d or %%010d", ErrSyntax, s, body, verb)
			}
			if lit.Len() == 0 && len(t.parts) > 0 && t.parts[len(t.parts)-1].Field != "" {
				return nil, fmt.Errorf("%w: %q: {%s} follows another placeholder with no text between them", ErrSyntax, s, body)
			}
			flush()
			t.parts = append(t.parts, Part{Field: field, Verb: verb})
			i += end
		default:
			lit.WriteByte(c)
		}
	}
	flush()
	return t, nil
}

// MustParse is Parse for templates known to be valid; it panics otherwise.
func MustParse(s string) *Template {
	t, err := Parse(s)
	if err != nil {
		panic(err)
	}
	return t
}

func isFieldPath(s string) bool {
	if s == "" {
		return false
	}
	for _, id := range strings.Split(s, ".") {
		if id == "" {
			return false
		}
		for j, r := range id {
			if !(r == '_' || unicode.IsLetter(r) || (j > 0 && unicode.IsDigit(r))) {
				return false
			}
		}
	}
	return true
}

// isVerb reports whether v is one fmt verb with flags, width and
// precision, and nothing else.
func isVerb(v string) bool {
	if len(v) < 2 || v[0] != '%' {
		return false
	}
	body := v[1 : len(v)-1]
	if strings.Trim(body, "+-# 0123456789.") != "" {
		return false
	}
	return strings.ContainsRune("vdsxXfFeEgGtqobc", rune(v[len(v)-1]))
}

// String returns the template as written.
func (t *Template) String() string { return t.src }

// Parts returns the template's pieces, in order.
func (t *Template) Parts() []Part { return append([]Part(nil), t.parts...) }

// Fields returns the fields the placeholders name, in order, each once.
func (t *Template) Fields() []string {
	var out []string
	seen := map[string]bool{}
	for _, p := range t.parts {
		if p.Field != "" && !seen[p.Field] {
			seen[p.Field] = true
			out = append(out, p.Field)
		}
	}
	return out
}

// Constant reports whether the template has no placeholder: every item of
// the entity then has the same value (a sort key such as "PROFILE").
func (t *Template) Constant() bool { return len(t.Fields()) == 0 }

// Prefix returns the literal text before the first placeholder: what
// every rendered value begins with ("ORDER#" for "ORDER#{Date}#{ID}").
func (t *Template) Prefix() string {
	if len(t.parts) > 0 && t.parts[0].Field == "" {
		return t.parts[0].Literal
	}
	return ""
}

// StopByte returns the byte the value of the placeholder part i (an index
// into Parts) may not hold, and whether it has one: the first byte of the
// literal text after it. The last placeholder, when nothing follows it,
// has none. The rule makes rendering injective: reading a key from the
// left, a value ends at the first stop byte after it begins, so the key
// gives back every value.
func (t *Template) StopByte(i int) (byte, bool) { return t.stop(i) }

// Render renders the template, asking value for the text of each
// placeholder; value's error is returned as is. An empty value is refused,
// since a key built from it could not tell an unset field from a set one;
// so is a value that holds its placeholder's stop byte (see [Template.Stop]),
// since the key could then not tell where the value ends: two items with
// different values would render one key.
func (t *Template) Render(value func(p Part) (string, error)) (string, error) {
	var b strings.Builder
	for i, p := range t.parts {
		if p.Field == "" {
			b.WriteString(p.Literal)
			continue
		}
		v, err := value(p)
		if err != nil {
			return "", err
		}
		if v == "" {
			return "", fmt.Errorf("keytmpl: %q: field %s is empty", t.src, p.Field)
		}
		if stop, ok := t.stop(i); ok && strings.IndexByte(v, stop) >= 0 {
			return "", fmt.Errorf("keytmpl: %q: the value %q of field %s holds %q, which ends the field in the key: two items could render one key", t.src, v, p.Field, stop)
		}
		b.WriteString(v)
	}
	return b.String(), nil
}

func (t *Template) stop(i int) (byte, bool) {
	if i+1 < len(t.parts) && t.parts[i+1].Field == "" {
		return t.parts[i+1].Literal[0], true
	}
	return 0, false
}

// Overlap reports whether some key a renders (under Render's rules: each
// value non-empty and without its stop byte) is also a key b renders:
// whether items of two templates could share a key. It is exact for the
// rules, and cautious about verbs: a value written with one is taken to
// be any text without its stop byte.
func Overlap(a, b *Template) bool {
	na, nb := a.nfa(), b.nfa()
	alphabet := map[byte]bool{}
	for _, n := range [][]tok{na, nb} {
		for _, tk := range n {
			alphabet[tk.b] = true
		}
	}
	for c := 0; c < 256; c++ { // one byte that no literal holds stands for all the others
		if !alphabet[byte(c)] {
			alphabet[byte(c)] = true
			break
		}
	}
	type pair struct{ p, q state }
	seen := map[pair]bool{}
	var queue []pair
	push := func(ps, qs []state) {
		for _, p := range ps {
			for _, q := range qs {
				if pr := (pair{p, q}); !seen[pr] {
					seen[pr] = true
					queue = append(queue, pr)
				}
			}
		}
	}
	push(closure(na, state{}), closure(nb, state{}))
	for len(queue) > 0 {
		pr := queue[0]
		queue = queue[1:]
		if pr.p.i == len(na) && pr.q.i == len(nb) {
			return true
		}
		for c := range alphabet {
			push(step(na, pr.p, c), step(nb, pr.q, c))
		}
	}
	return false
}

// tok is one step of a template's automaton: an exact byte of literal
// text, or (class) one or more bytes of a value, none of them stop when
// hasStop.
type tok struct {
	b       byte
	class   bool
	hasStop bool
}

// state is a position in the automaton: before token i, or inside the
// value of token i (in) once it has at least one byte.
type state struct {
	i  int
	in bool
}

func (t *Template) nfa() []tok {
	var out []tok
	for i, p := range t.parts {
		if p.Field == "" {
			for j := 0; j < len(p.Literal); j++ {
				out = append(out, tok{b: p.Literal[j]})
			}
			continue
		}
		stop, has := t.stop(i)
		out = append(out, tok{class: true, b: stop, hasStop: has})
	}
	return out
}

// closure adds to s the state it reaches without reading: the end of a
// value that has a byte.
func closure(n []tok, s state) []state {
	if s.in {
		return []state{s, {i: s.i + 1}}
	}
	return []state{s}
}

// step returns the states s reaches on reading c.
func step(n []tok, s state, c byte) []state {
	if s.i >= len(n) {
		return nil
	}
	tk := n[s.i]
	if !tk.class {
		if !s.in && c == tk.b {
			return closure(n, state{i: s.i + 1})
		}
		return nil
	}
	if tk.hasStop && c == tk.b {
		return nil
	}
	return closure(n, state{i: s.i, in: true})
}
