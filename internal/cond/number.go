package cond

import "strings"

// decimal is a number as DynamoDB holds it: an exact decimal. Its value is
// 0.digits × 10^exp, negated if neg; digits has no leading or trailing
// zeros, and is empty for zero (which is never neg). This form makes two
// equal numbers equal field by field ("100", "1E+2" and "0.10E3" are all
// {digits "1", exp 3}), and orders them without arithmetic, so no number,
// however long its exponent or digits, loses precision.
type decimal struct {
	neg    bool
	digits string
	exp    int
}

// DynamoDB's number limits: 38 significant digits, and a magnitude from
// 1E-130 to below 1E+126, that is 0.d × 10^exp with exp in [-129, 126].
const (
	maxDigits = 38
	minExp    = -129
	maxExp    = 126
)

// numberError is an error of a number, whose text is DynamoDB's message.
type numberError string

func (e numberError) Error() string { return string(e) }

const (
	errNotNumber numberError = "A value provided cannot be converted into a number"
	errPrecision numberError = "DynamoDB only supports precision up to 38 digits"
	errOverflow  numberError = "Number overflow. Attempting to store a number with magnitude larger than supported range"
	errUnderflow numberError = "Number underflow. Attempting to store a number with magnitude smaller than supported range"
)

// parseDecimal reads the text of an N attribute value: an optional sign,
// digits with an optional decimal point (at least one digit, either side),
// and an optional exponent (e or E, optional sign, digits). This is the
// syntax DynamoDB accepts; it checks neither precision nor range (see
// checkLimits).
func parseDecimal(s string) (decimal, error) {
	i := 0
	neg := false
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		neg = s[i] == '-'
		i++
	}
	var mant strings.Builder
	point := -1 // digits before the decimal point, once it is seen
	n := 0      // digits seen
	for ; i < len(s); i++ {
		c := s[i]
		if c >= '0' && c <= '9' {
			mant.WriteByte(c)
			n++
			continue
		}
		if c == '.' && point < 0 {
			point = n
			continue
		}
		break
	}
	if n == 0 {
		return decimal{}, errNotNumber
	}
	if point < 0 {
		point = n
	}
	exp := 0
	if i < len(s) {
		if s[i] != 'e' && s[i] != 'E' {
			return decimal{}, errNotNumber
		}
		i++
		eneg := false
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			eneg = s[i] == '-'
			i++
		}
		if i == len(s) {
			return decimal{}, errNotNumber
		}
		for ; i < len(s); i++ {
			c := s[i]
			if c < '0' || c > '9' {
				return decimal{}, errNotNumber
			}
			// Java's BigDecimal, under DynamoDB, takes exponents that fit
			// in an int; a larger one is not a number.
			exp = exp*10 + int(c-'0')
			if exp > 1<<31-1 {
				return decimal{}, errNotNumber
			}
		}
		if eneg {
			exp = -exp
		}
	}
	digits := mant.String()
	// value = 0.digits × 10^(point+exp); strip zeros on both sides.
	e := point + exp
	trimmed := strings.TrimLeft(digits, "0")
	e -= len(digits) - len(trimmed)
	trimmed = strings.TrimRight(trimmed, "0")
	if trimmed == "" {
		return decimal{}, nil
	}
	return decimal{neg: neg, digits: trimmed, exp: e}, nil
}

// checkLimits reports whether DynamoDB can hold d: 38 significant digits at
// most, magnitude within range.
func (d decimal) checkLimits() error {
	switch {
	case d.digits == "":
		return nil
	case len(d.digits) > maxDigits:
		return errPrecision
	case d.exp > maxExp:
		return errOverflow
	case d.exp < minExp:
		return errUnderflow
	}
	return nil
}

// cmp compares d and o: -1, 0 or +1.
func (d decimal) cmp(o decimal) int {
	ds, os := d.sign(), o.sign()
	if ds != os {
		if ds < os {
			return -1
		}
		return 1
	}
	if ds == 0 {
		return 0
	}
	m := d.cmpMagnitude(o)
	if ds < 0 {
		return -m
	}
	return m
}

// sign is -1, 0 or +1.
func (d decimal) sign() int {
	switch {
	case d.digits == "":
		return 0
	case d.neg:
		return -1
	}
	return 1
}

// cmpMagnitude compares the absolute values of two non-zero decimals: the
// larger exponent wins, then the digits, left to right (a digit string
// that is a prefix of the other is the smaller, since neither ends in 0).
func (d decimal) cmpMagnitude(o decimal) int {
	switch {
	case d.exp != o.exp:
		if d.exp < o.exp {
			return -1
		}
		return 1
	case d.digits < o.digits:
		return -1
	case d.digits > o.digits:
		return 1
	}
	return 0
}
