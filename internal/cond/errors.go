package cond

import (
	"errors"
	"fmt"
	"strings"
)

// Error is an error that DynamoDB answers with a ValidationException. It
// matches [ErrInvalid]; Msg is DynamoDB's message, as DynamoDB Local gives
// it, prefix included ("Invalid UpdateExpression: ...") where DynamoDB has
// one. See [Message].
type Error struct {
	Msg string
	// bare is set on a message about the expression that DynamoDB gives
	// after "Invalid <parameter>: ", before the parameter is known.
	bare bool
}

func (e *Error) Error() string { return ErrInvalid.Error() + ": " + e.Msg }

// Unwrap makes an *Error match [ErrInvalid].
func (e *Error) Unwrap() error { return ErrInvalid }

// Message returns the text DynamoDB gives for err in a ValidationException:
// an [*Error]'s Msg; for another error matching [ErrInvalid], its text after
// the package's prefix; otherwise err.Error().
func Message(err error) string {
	var e *Error
	if errors.As(err, &e) {
		return e.Msg
	}
	s := err.Error()
	if p := ErrInvalid.Error() + ": "; strings.HasPrefix(s, p) {
		return s[len(p):]
	}
	return s
}

// invalid makes an *Error about the expression, whose message takes the
// parameter's prefix.
func invalid(format string, args ...any) error {
	return &Error{Msg: fmt.Sprintf(format, args...), bare: true}
}

// refused makes an *Error whose message DynamoDB gives as it is.
func refused(format string, args ...any) error {
	return &Error{Msg: fmt.Sprintf(format, args...)}
}

// prefixed returns err with "Invalid <param>: " put before its message, if
// it is an *Error about the expression that has no prefix yet.
func prefixed(err error, param string) error {
	var e *Error
	if errors.As(err, &e) && e.bare {
		return &Error{Msg: "Invalid " + param + ": " + e.Msg}
	}
	return err
}

// blankError is DynamoDB's answer to an expression that is empty or only
// whitespace: an empty one "can not be empty", a blank one is a syntax
// error at its end that quotes it whole.
func blankError(expr string) error {
	if expr == "" {
		return invalid(msgExpressionCanNotEmpty)
	}
	return invalid(msgSyntaxErrorTokenEOFNear, expr)
}

// syntaxErrorAt is DynamoDB's syntax error at token i: the token, and the
// text from the token before it to the token after it.
func syntaxErrorAt(src string, toks []token, i int) error {
	t := toks[i]
	text := t.text
	if t.kind == tokEOF {
		text = "<EOF>"
	}
	start := t.pos
	if i > 0 {
		start = toks[i-1].pos
	}
	end := t.pos + len(t.text)
	if i+1 < len(toks) && toks[i+1].kind != tokEOF {
		end = toks[i+1].pos + len(toks[i+1].text)
	}
	return invalid(msgSyntaxErrorTokenNear, text, src[start:end])
}
