// Package readme ties the README's Go code to the example programs: every
// ```go block of README.md is a marked region of an example's main.go or
// one of its tests, word for word, and the tests of this package check it, while each
// example's own test runs its program against DynamoDB Local. So no code in
// the README can drift from code that compiles and runs.
//
// A region is marked in a program by two comment lines:
//
//	// readme:begin NAME
//	...
//	// readme:end NAME
//
// Regions may nest or overlap (a line belongs to every region open at it);
// the marker lines belong to none. Regions of one name are joined, in order,
// with a blank line between them, so one README block can show a type
// declared at the top of a file and the body of a function. Each region
// loses its common indentation and its leading and trailing blank lines, and
// two blank lines left side by side by a marker line become one.
package readme

import (
	"fmt"
	"strings"
)

const (
	beginMarker = "// readme:begin "
	endMarker   = "// readme:end "
)

// Snippet is the code of the regions of one name in one program.
type Snippet struct {
	Program string // the program's path, as given to Snippets
	Name    string
	Code    string // ends with a newline, as a README block does
}

// Snippets returns the snippets of the program src (its path is program),
// in the order in which their names first appear. A marker without its
// pair, an empty region, or an end that does not close an open region is
// an error.
func Snippets(program, src string) ([]Snippet, error) {
	var order []string
	parts := map[string][]string{} // name -> its finished regions
	open := map[string][]string{}  // name -> lines of its open region
	for i, line := range strings.Split(src, "\n") {
		trimmed := strings.TrimSpace(line)
		switch {
		case strings.HasPrefix(trimmed, beginMarker):
			name := strings.TrimSpace(strings.TrimPrefix(trimmed, beginMarker))
			if _, ok := open[name]; ok {
				return nil, fmt.Errorf("%s:%d: region %q begins again before it ends", program, i+1, name)
			}
			if _, ok := parts[name]; !ok {
				order = append(order, name)
			}
			open[name] = []string{}
			continue
		case strings.HasPrefix(trimmed, endMarker):
			name := strings.TrimSpace(strings.TrimPrefix(trimmed, endMarker))
			lines, ok := open[name]
			if !ok {
				return nil, fmt.Errorf("%s:%d: region %q ends but is not open", program, i+1, name)
			}
			delete(open, name)
			code := strings.Trim(squeeze(dedent(lines)), "\n")
			if code == "" {
				return nil, fmt.Errorf("%s:%d: region %q is empty", program, i+1, name)
			}
			parts[name] = append(parts[name], code)
			continue
		}
		for name := range open {
			open[name] = append(open[name], line)
		}
	}
	for name := range open {
		return nil, fmt.Errorf("%s: region %q does not end", program, name)
	}
	snippets := make([]Snippet, 0, len(order))
	for _, name := range order {
		snippets = append(snippets, Snippet{Program: program, Name: name, Code: strings.Join(parts[name], "\n\n") + "\n"})
	}
	return snippets, nil
}

// squeeze replaces each run of blank lines of s with one, as gofmt does:
// a marker line between two blank lines leaves them side by side.
func squeeze(s string) string {
	for strings.Contains(s, "\n\n\n") {
		s = strings.ReplaceAll(s, "\n\n\n", "\n\n")
	}
	return s
}

// dedent joins lines, each without the indentation of the first line that
// is not blank.
func dedent(lines []string) string {
	indent := ""
	for _, l := range lines {
		if strings.TrimSpace(l) != "" {
			indent = l[:len(l)-len(strings.TrimLeft(l, "\t"))]
			break
		}
	}
	var b strings.Builder
	for _, l := range lines {
		b.WriteString(strings.TrimPrefix(l, indent))
		b.WriteByte('\n')
	}
	return b.String()
}

// Block is a fenced code block of a Markdown file.
type Block struct {
	Line int    // the line of its opening fence, from 1
	Lang string // the word after the fence: "go", "sh", ""
	Code string // its lines, each ending with a newline
}

// Blocks returns the fenced code blocks (```) of the Markdown md.
func Blocks(md string) []Block {
	var blocks []Block
	var cur *Block
	for i, line := range strings.Split(md, "\n") {
		if cur == nil {
			if lang, ok := strings.CutPrefix(line, "```"); ok {
				cur = &Block{Line: i + 1, Lang: strings.TrimSpace(lang)}
			}
			continue
		}
		if strings.TrimSpace(line) == "```" {
			blocks = append(blocks, *cur)
			cur = nil
			continue
		}
		cur.Code += line + "\n"
	}
	return blocks
}
