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

// Render renders the template, asking value for the text of each
// placeholder; value's error is returned as is. An empty value is refused,
// since a key built from it could not tell an unset field from a set one.
func (t *Template) Render(value func(p Part) (string, error)) (string, error) {
	var b strings.Builder
	for _, p := range t.parts {
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
		b.WriteString(v)
	}
	return b.String(), nil
}
