package cond

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// tokKind is the kind of a token of the expression grammar.
type tokKind uint8

const (
	tokEOF   tokKind = iota
	tokIdent         // a plain name or function name: [A-Za-z][A-Za-z0-9_]*
	tokName          // a name placeholder: #[A-Za-z0-9_]+
	tokValue         // a value placeholder: :[A-Za-z0-9_]+
	tokInt           // digits, meaningful only as a list index
	tokLParen
	tokRParen
	tokLBrack
	tokRBrack
	tokComma
	tokDot
	tokEq
	tokNe
	tokLt
	tokLe
	tokGt
	tokGe
	tokAnd // the keywords, matched without regard to case
	tokOr
	tokNot
	tokBetween
	tokIn
	tokPlus // + and -, of update expressions
	tokMinus
	tokBad // a character no expression may hold; the parser reports it
)

// token is one lexeme and the byte offset where it starts.
type token struct {
	kind tokKind
	text string
	pos  int
}

// keywords maps the upper-case spelling of each keyword to its token.
var keywords = map[string]tokKind{
	"AND":     tokAnd,
	"OR":      tokOr,
	"NOT":     tokNot,
	"BETWEEN": tokBetween,
	"IN":      tokIn,
}

// maxPlaceholder is the longest #name or :value DynamoDB accepts, in bytes
// with its prefix.
const maxPlaceholder = 255

// lex splits an expression into tokens, ending with tokEOF. Whitespace is
// what DynamoDB takes as such: space, tab, CR and LF.
func lex(s string) ([]token, error) {
	var toks []token
	for i := 0; i < len(s); {
		c := s[i]
		var t token
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			i++
			continue
		case isLetter(c):
			t = lexWord(s, i)
		case c >= '0' && c <= '9':
			t = lexInt(s, i)
		case c == '#' || c == ':':
			var err error
			if t, err = lexPlaceholder(s, i); err != nil {
				return nil, err
			}
		default:
			t = lexSymbol(s, i)
		}
		toks = append(toks, t)
		i += len(t.text) // every token's text is the bytes it spans
	}
	return append(toks, token{tokEOF, "", len(s)}), nil
}

// lexWord reads the keyword or plain name starting at s[start].
func lexWord(s string, start int) token {
	i := start + 1
	for ; i < len(s) && isWordByte(s[i]); i++ {
	}
	word := s[start:i]
	if k, ok := keywords[strings.ToUpper(word)]; ok {
		return token{k, word, start}
	}
	return token{tokIdent, word, start}
}

// lexInt reads the digits starting at s[start].
func lexInt(s string, start int) token {
	i := start + 1
	for ; i < len(s) && s[i] >= '0' && s[i] <= '9'; i++ {
	}
	return token{tokInt, s[start:i], start}
}

// lexPlaceholder reads the #name or :value placeholder starting at
// s[start]: a bare # or : is tokBad, for the parser to report.
func lexPlaceholder(s string, start int) (token, error) {
	i := start + 1
	for ; i < len(s) && isWordByte(s[i]); i++ {
	}
	if i == start+1 {
		return token{tokBad, s[start:i], start}, nil
	}
	if i-start > maxPlaceholder {
		return token{}, syntaxError(s, start, "placeholder longer than %d bytes", maxPlaceholder)
	}
	k := tokName
	if s[start] == ':' {
		k = tokValue
	}
	return token{k, s[start:i], start}, nil
}

// lexSymbol reads the punctuation or operator starting at s[i]; any other
// character is one tokBad of its UTF-8 length.
func lexSymbol(s string, i int) token {
	k := tokEOF
	n := 1
	switch s[i] {
	case '(':
		k = tokLParen
	case ')':
		k = tokRParen
	case '[':
		k = tokLBrack
	case ']':
		k = tokRBrack
	case ',':
		k = tokComma
	case '.':
		k = tokDot
	case '+':
		k = tokPlus
	case '-':
		k = tokMinus
	case '=':
		k = tokEq
	case '<':
		k = tokLt
		if i+1 < len(s) && s[i+1] == '=' {
			k, n = tokLe, 2
		} else if i+1 < len(s) && s[i+1] == '>' {
			k, n = tokNe, 2
		}
	case '>':
		k = tokGt
		if i+1 < len(s) && s[i+1] == '=' {
			k, n = tokGe, 2
		}
	default:
		_, size := utf8.DecodeRuneInString(s[i:])
		k, n = tokBad, size
	}
	return token{k, s[i : i+n], i}
}

func isLetter(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }

func isWordByte(c byte) bool { return isLetter(c) || '0' <= c && c <= '9' || c == '_' }

// syntaxError reports a malformed expression at byte offset pos, quoting
// the text around it.
func syntaxError(s string, pos int, format string, args ...any) error {
	near := s[pos:]
	if len(near) > 20 {
		near = near[:20] + "..."
	}
	return fmt.Errorf("%w: syntax error at offset %d near %q: %s", ErrInvalid, pos, near, fmt.Sprintf(format, args...))
}
