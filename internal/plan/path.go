package plan

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
)

// A Path names an attribute, or a part of one: a top-level name followed
// by map keys and list indexes. Package update parses it from "a.b[2].c";
// a Path built here may hold any name (dots included), as the mapper's own
// attributes need.
type Path []Step

// A Step is one element of a [Path]: a name, or (Name == "") a list index.
type Step struct {
	Name  string
	Index int
}

// Top is the path of the top-level attribute name, taken whole.
func Top(name string) Path { return Path{{Name: name}} }

// ParsePath parses a path such as "a.b[2].c". It returns an error matching
// [ErrEmptyPath] or [ErrPathSyntax].
func ParsePath(s string) (Path, error) {
	if s == "" {
		return nil, ErrEmptyPath
	}
	var p Path
	i := 0
	for i < len(s) {
		// A name runs to the next '.', '[' or the end.
		j := i
		for j < len(s) && s[j] != '.' && s[j] != '[' && s[j] != ']' {
			j++
		}
		if j == i {
			return nil, fmt.Errorf("%w: %q: empty name at offset %d", ErrPathSyntax, s, i)
		}
		p = append(p, Step{Name: s[i:j]})
		i = j
		for i < len(s) && s[i] == '[' {
			end := strings.IndexByte(s[i:], ']')
			if end < 0 {
				return nil, fmt.Errorf("%w: %q: unclosed '['", ErrPathSyntax, s)
			}
			digits := s[i+1 : i+end]
			n, err := strconv.Atoi(digits)
			if err != nil || n < 0 || digits == "" || digits[0] == '+' || digits[0] == '-' {
				return nil, fmt.Errorf("%w: %q: index %q is not a non-negative integer", ErrPathSyntax, s, digits)
			}
			p = append(p, Step{Index: n})
			i += end + 1
		}
		if i == len(s) {
			break
		}
		if s[i] != '.' || i == len(s)-1 {
			return nil, fmt.Errorf("%w: %q: unexpected %q at offset %d", ErrPathSyntax, s, s[i:], i)
		}
		i++
	}
	return p, nil
}

// Attribute returns the top-level attribute name of the path.
func (p Path) Attribute() string {
	if len(p) == 0 {
		return ""
	}
	return p[0].Name
}

// String renders the path in the syntax ParsePath reads.
func (p Path) String() string { return p.render(func(name string) string { return name }) }

// render renders the path with each name as name gives it: the name
// itself (String), or its #placeholder in an expression (the compiler).
func (p Path) render(name func(string) string) string {
	var b strings.Builder
	for i, st := range p {
		switch {
		case st.Name == "":
			b.WriteByte('[')
			b.WriteString(strconv.Itoa(st.Index))
			b.WriteByte(']')
		case i > 0:
			b.WriteByte('.')
			fallthrough
		default:
			b.WriteString(name(st.Name))
		}
	}
	return b.String()
}

// Overlaps reports whether p and q are the same path or one lies inside the
// other ("a" and "a.b", "a[1]" and "a[1].c"); DynamoDB refuses an update
// with overlapping paths.
func (p Path) Overlaps(q Path) bool {
	n := min(len(p), len(q))
	for i := range n {
		if p[i] != q[i] {
			return false
		}
	}
	return true
}

// Name returns the path as an expression name, without letting the
// expression package split or reinterpret the names.
func (p Path) Name() expression.NameBuilder {
	var nb expression.NameBuilder
	for i, first := 0, true; i < len(p); first = false {
		word := p[i].Name
		for i++; i < len(p) && p[i].Name == ""; i++ {
			word += "[" + strconv.Itoa(p[i].Index) + "]"
		}
		if first {
			nb = expression.NameNoDotSplit(word)
		} else {
			nb = nb.AppendName(expression.NameNoDotSplit(word))
		}
	}
	return nb
}
