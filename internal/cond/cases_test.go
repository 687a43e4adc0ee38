package cond

import (
	"strconv"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/require"
)

// std is the item most cases are evaluated on.
var std = attrs(
	"s", S("abc"),
	"n", N("10"),
	"b", B("xyz"),
	"t", BOOL(true),
	"z", NULL(),
	"l", L(S("a"), N("1"), L(N("2"))),
	"m", M("x", N("1"), "y", S("q")),
	"ss", SS("a", "b"),
	"ns", NS("1", "2"),
	"bs", BS("a", "b"),
	"u", S("é"), // 2 UTF-8 bytes, 1 UTF-16 unit
	"u2", S("😀"), // 4 UTF-8 bytes, 2 UTF-16 units
	"e", S(""), // DynamoDB allows empty strings outside keys
	"big", N("12345678901234567890123456789012345678"),
	"neg", N("-5.5"),
)

// tcase is a hand-written case: expr on std (or on no item, when none),
// with the outcome DynamoDB Local gives; TestCasesOnDynamoDB checks that
// it does.
type tcase struct {
	expr  string
	names map[string]string
	vals  map[string]types.AttributeValue
	want  outcome
	none  bool // evaluate on no item
}

const (
	no  = outFalse
	yes = outTrue
	bad = outInvalid
)

// v1 is the values map with one value, :v.
func v1(v types.AttributeValue) map[string]types.AttributeValue { return attrs(":v", v) }

var cases = append(limitCases(), []tcase{
	// Comparisons between values of one type.
	{expr: "n = :v", vals: v1(N("10")), want: yes},
	{expr: "n = :v", vals: v1(N("10.0")), want: yes},
	{expr: "n = :v", vals: v1(N("1E1")), want: yes},
	{expr: "n = :v", vals: v1(N("1e+1")), want: yes},
	{expr: "n = :v", vals: v1(N("+10")), want: yes},
	{expr: "n = :v", vals: v1(N("010")), want: yes},
	{expr: "n = :v", vals: v1(N(".10E2")), want: yes},
	{expr: "n = :v", vals: v1(N("10.")), want: yes},
	{expr: "n = :v", vals: v1(N("1E-0")), want: no},
	{expr: "n <> :v", vals: v1(N("10")), want: no},
	{expr: "n < :v", vals: v1(N("1E+2")), want: yes},
	{expr: "n <= :v", vals: v1(N("10")), want: yes},
	{expr: "n > :v", vals: v1(N("-1E+100")), want: yes},
	{expr: "n >= :v", vals: v1(N("10.000000000000000000000000000000000001")), want: no},
	{expr: "n > :v", vals: v1(N("1E-130")), want: yes},
	{expr: "neg < :v", vals: v1(N("-5.49")), want: yes},
	{expr: "neg < :v", vals: v1(N("-5.51")), want: no},
	{expr: "neg < :v", vals: v1(N("0")), want: yes},
	{expr: "big = :v", vals: v1(N("1.2345678901234567890123456789012345678E+37")), want: yes},
	{expr: "big < :v", vals: v1(N("12345678901234567890123456789012345679")), want: yes},
	{expr: "big > :v", vals: v1(N("12345678901234567890123456789012345677")), want: yes},
	{expr: "n > :v", vals: v1(N("99999999999999999999999999999999999999E+88")), want: no},
	{expr: "s = :v", vals: v1(S("abc")), want: yes},
	{expr: "s < :v", vals: v1(S("abd")), want: yes},
	{expr: "s < :v", vals: v1(S("ab")), want: no},
	{expr: "s < :v", vals: v1(S("abc\x00")), want: yes},
	{expr: "s > :v", vals: v1(S("")), want: yes},
	{expr: "e = :v", vals: v1(S("")), want: yes},
	{expr: "e < :v", vals: v1(S("a")), want: yes},
	// Strings order by UTF-8 bytes: U+FFFF (EF BF BF) is below U+1F600
	// (F0 9F 98 80), though UTF-16 would put it above (FFFF > D83D).
	{expr: ":a < :b", vals: attrs(":a", S("\uffff"), ":b", S("😀")), want: yes},
	{expr: "u2 > :v", vals: v1(S("\uffff")), want: yes},
	{expr: "b < :v", vals: v1(B("xz")), want: yes},
	{expr: "b < :v", vals: v1(B("\xff")), want: yes},
	{expr: "b > :v", vals: v1(B("")), want: yes},
	{expr: "b = :v", vals: v1(B("xyz")), want: yes},
	{expr: "t = :v", vals: v1(BOOL(true)), want: yes},
	{expr: "t <> :v", vals: v1(BOOL(false)), want: yes},
	{expr: "z = :v", vals: v1(NULL()), want: yes},
	{expr: "z <> :v", vals: v1(NULL()), want: no},
	{expr: "l = :v", vals: v1(L(S("a"), N("1.0"), L(N("2")))), want: yes},
	{expr: "l <> :v", vals: v1(L(N("1"))), want: yes},
	{expr: "m = :v", vals: v1(M("y", S("q"), "x", N("1.00"))), want: yes},
	{expr: "m = :v", vals: v1(M("x", N("1"), "y", S("q"), "z", NULL())), want: no},
	{expr: "m <> :v", vals: v1(M("x", N("1"))), want: yes},
	{expr: "ss = :v", vals: v1(SS("b", "a")), want: yes},
	{expr: "ns = :v", vals: v1(NS("2.0", "1")), want: yes},
	{expr: "ns = :v", vals: v1(SS("1", "2")), want: no},
	{expr: "ns <> :v", vals: v1(SS("1", "2")), want: yes},
	{expr: "bs = :v", vals: v1(BS("b", "a")), want: yes},
	{expr: ":a = :b", vals: attrs(":a", N("1"), ":b", N("1")), want: yes},
	{expr: ":a = :a", vals: attrs(":a", N("1")), want: yes},
	{expr: ":a < :b", vals: attrs(":a", N("1"), ":b", N("2")), want: yes},
	{expr: "size(s) = size(s)", want: yes},

	// Mixed types: every comparison false, except <> true.
	{expr: "s = :v", vals: v1(N("1")), want: no},
	{expr: "s <> :v", vals: v1(N("1")), want: yes},
	{expr: "s < :v", vals: v1(N("1")), want: no},
	{expr: "n < :v", vals: v1(S("z")), want: no},
	{expr: "n > :v", vals: v1(S("z")), want: no},
	{expr: ":a < :b", vals: attrs(":a", N("1"), ":b", S("2")), want: no},
	{expr: ":a <> :b", vals: attrs(":a", N("1"), ":b", S("2")), want: yes},
	{expr: "n <> :v", vals: v1(NULL()), want: yes},
	{expr: "n = :v", vals: v1(NULL()), want: no},
	{expr: "ss < ns", want: no},
	{expr: "t < n", want: no},
	{expr: "l < m", want: no},
	{expr: "l[1] = n[0]", want: no},

	// Missing attributes: every comparison false, except <> true.
	{expr: "nope <> :v", vals: v1(N("1")), want: yes},
	{expr: "nope = :v", vals: v1(N("1")), want: no},
	{expr: "nope < :v", vals: v1(N("1")), want: no},
	{expr: "nope = nope2", want: no},
	{expr: "nope <> nope2", want: yes},
	{expr: "nope < nope2", want: no},
	{expr: "nope <> :v", vals: v1(N("1")), want: yes, none: true},
	{expr: "nope = :v", vals: v1(N("1")), want: no, none: true},
	{expr: "NOT nope = :v", vals: v1(N("1")), want: yes, none: true},
	{expr: "n BETWEEN :a AND :b", vals: attrs(":a", N("1"), ":b", N("10")), want: no, none: true},
	{expr: "n IN (:a)", vals: attrs(":a", N("1")), want: no, none: true},
	{expr: "size(n) <> :v", vals: v1(N("2")), want: yes, none: true},
	{expr: "begins_with(s, :v)", vals: v1(S("")), want: no, none: true},
	{expr: "contains(s, :v)", vals: v1(S("")), want: no, none: true},
	{expr: "attribute_type(s, :t)", vals: attrs(":t", S("S")), want: no, none: true},

	// Malformed comparisons.
	{expr: "s < :v", vals: v1(BOOL(true)), want: bad},
	{expr: "t < :v", vals: v1(BOOL(true)), want: bad},
	{expr: "n <= :v", vals: v1(BOOL(true)), want: bad},
	{expr: "n > :v", vals: v1(BOOL(true)), want: bad},
	{expr: "n >= :v", vals: v1(BOOL(true)), want: bad},
	{expr: ":v > n", vals: v1(BOOL(true)), want: bad},
	{expr: "z < :v", vals: v1(NULL()), want: bad},
	{expr: "l < :v", vals: v1(L()), want: bad},
	{expr: "n < :v", vals: v1(M()), want: bad},
	{expr: "n < :v", vals: v1(NS("1")), want: bad},
	{expr: "n < :v", vals: v1(BS("1")), want: bad},
	{expr: "ss < :v", vals: v1(SS("a")), want: bad},
	{expr: "n = n", want: bad},
	{expr: "nope = nope", want: bad},
	{expr: "nope <> nope", want: bad},
	{expr: "#a = #b", names: names("#a", "n", "#b", "n"), want: bad},
	{expr: "#a = n", names: names("#a", "n"), want: bad},
	{expr: "l[0] = l[0]", want: bad},
	{expr: "m.x = #m.x", names: names("#m", "m"), want: bad},
	{expr: "(n) = n", want: bad},
	{expr: "(n) = (#n)", names: names("#n", "n"), want: bad},
	{expr: "n = :v", vals: v1(NULL()), want: no, none: true},
	{expr: "n = :v = :v", vals: v1(N("10")), want: bad},

	// BETWEEN.
	{expr: "n BETWEEN :a AND :b", vals: attrs(":a", N("1"), ":b", N("10")), want: yes},
	{expr: "n BETWEEN :a AND :a", vals: attrs(":a", N("10")), want: yes},
	{expr: "n BETWEEN :a AND :b", vals: attrs(":a", N("10"), ":b", N("1E1")), want: yes},
	{expr: "n BETWEEN :a AND :b", vals: attrs(":a", N("11"), ":b", N("12")), want: no},
	{expr: "s BETWEEN :a AND :b", vals: attrs(":a", S("a"), ":b", S("b")), want: yes},
	{expr: "n BETWEEN :a AND :b", vals: attrs(":a", B("1"), ":b", B("2")), want: no},
	{expr: ":c BETWEEN :a AND :b", vals: attrs(":a", N("1"), ":b", N("2"), ":c", S("x")), want: no},
	{expr: "n BETWEEN :a AND s", vals: attrs(":a", N("1")), want: no},
	{expr: "n BETWEEN l[1] AND :a", vals: attrs(":a", N("100")), want: yes},
	{expr: "n BETWEEN :a AND l[1]", vals: attrs(":a", N("1")), want: no},
	{expr: "n BETWEEN :a AND l[1]", vals: attrs(":a", N("100")), want: no}, // bounds out of order, known only when evaluated
	{expr: "n BETWEEN size(s) AND :a", vals: attrs(":a", N("1")), want: no},
	{expr: "n BETWEEN size(s) AND :a", vals: attrs(":a", S("a")), want: no},
	{expr: "n BETWEEN s AND s", want: no},
	{expr: "size(s) BETWEEN :a AND size(l)", vals: attrs(":a", N("1")), want: yes},
	{expr: "n between :a and :b AND s = :c", vals: attrs(":a", N("1"), ":b", N("10"), ":c", S("abc")), want: yes},
	{expr: "n BETWEEN (:a) AND (:b)", vals: attrs(":a", N("1"), ":b", N("20")), want: yes},
	{expr: "(n) BETWEEN :a AND :b", vals: attrs(":a", N("1"), ":b", N("20")), want: yes},
	{expr: "(n BETWEEN :a AND :b)", vals: attrs(":a", N("1"), ":b", N("20")), want: yes},
	{expr: "n BETWEEN :a AND :b", vals: attrs(":a", N("10"), ":b", N("1")), want: bad},
	{expr: "n BETWEEN :a AND :b", vals: attrs(":a", S("b"), ":b", S("a")), want: bad},
	{expr: "n BETWEEN :a AND :b", vals: attrs(":a", B("b"), ":b", B("a")), want: bad},
	{expr: "n BETWEEN :a AND :b", vals: attrs(":a", N("1"), ":b", S("10")), want: bad},
	{expr: "n BETWEEN :a AND :b", vals: attrs(":a", N("1"), ":b", B("a")), want: bad},
	{expr: "n BETWEEN :a AND :b", vals: attrs(":a", BOOL(false), ":b", BOOL(true)), want: bad},
	{expr: "n BETWEEN :a AND :b", vals: attrs(":a", L(), ":b", L()), want: bad},
	{expr: ":c BETWEEN :a AND :b", vals: attrs(":a", N("1"), ":b", N("2"), ":c", BOOL(true)), want: bad},
	{expr: "n BETWEEN n AND :b", vals: attrs(":b", N("1")), want: bad},
	{expr: "n BETWEEN :b AND n", vals: attrs(":b", N("1")), want: bad},
	{expr: "n BETWEEN :a", vals: attrs(":a", N("10")), want: bad},
	{expr: "n BETWEEN :a OR :b", vals: attrs(":a", N("10"), ":b", N("1")), want: bad},
	{expr: "n BETWEEN :a AND :b AND :b", vals: attrs(":a", N("1"), ":b", N("10")), want: bad},
	{expr: "n BETWEEN (:a AND :b)", vals: attrs(":a", N("1"), ":b", N("10")), want: bad},

	// IN.
	{expr: "n IN (:a, :b)", vals: attrs(":a", N("1"), ":b", N("10")), want: yes},
	{expr: "n in (:a)", vals: attrs(":a", N("10.0")), want: yes},
	{expr: "n IN (:a, :b)", vals: attrs(":a", S("1"), ":b", L()), want: no},
	{expr: "n IN (:a, :b)", vals: attrs(":a", BOOL(true), ":b", M()), want: no},
	{expr: "l IN (:a, :b)", vals: attrs(":a", S("1"), ":b", L(S("a"), N("1"), L(N("2")))), want: yes},
	{expr: "l[0] IN (l, :a)", vals: attrs(":a", S("a")), want: yes},
	{expr: ":b IN (:b, n)", vals: attrs(":b", N("1")), want: yes},
	{expr: "n IN (s, s)", want: no},
	{expr: "size(s) IN (size(l), :a)", vals: attrs(":a", N("1")), want: yes},
	{expr: "n IN ((:a))", vals: attrs(":a", N("10")), want: yes},
	{expr: "n IN (:b, n)", vals: attrs(":b", N("1")), want: bad},
	{expr: "n IN ()", want: bad},
	{expr: "n IN :a", vals: attrs(":a", N("10")), want: bad},
	{expr: "n IN :a, :b", vals: attrs(":a", N("10"), ":b", N("1")), want: bad},
	{expr: "n IN (:a,)", vals: attrs(":a", N("10")), want: bad},
	{expr: "n IN (((:a)))", vals: attrs(":a", N("10")), want: bad},

	// AND, OR, NOT, parentheses, precedence.
	{expr: "attribute_exists(s) and attribute_exists(n)", want: yes},
	{expr: "attribute_exists(s) AnD NoT attribute_exists(nope)", want: yes},
	{expr: "n = :a OR n = :a AND n <> :a", vals: attrs(":a", N("10")), want: yes},
	{expr: "(n = :a OR n = :a) AND n <> :a", vals: attrs(":a", N("10")), want: no},
	{expr: "NOT n = :a AND n = :a", vals: attrs(":a", N("10")), want: no},
	{expr: "NOT n = :a AND nope = :a", vals: attrs(":a", N("10")), want: no},
	{expr: "NOT nope = :a OR n = :a", vals: attrs(":a", N("10")), want: yes},
	{expr: "NOT NOT n = :a", vals: attrs(":a", N("10")), want: yes},
	{expr: "NOT NOT NOT NOT n = :a", vals: attrs(":a", N("10")), want: yes},
	{expr: "n = :a OR n <> :a AND NOT n = :a", vals: attrs(":a", N("10")), want: yes},
	{expr: "NOT (n = :a)", vals: attrs(":a", N("10")), want: no},
	{expr: "NOT(n = :a)", vals: attrs(":a", N("10")), want: no},
	{expr: "(NOT (n = :a))", vals: attrs(":a", N("10")), want: no},
	{expr: "n = :a AND(n = :a)", vals: attrs(":a", N("10")), want: yes},
	{expr: "((n = :a) AND s = :b)", vals: attrs(":a", N("10"), ":b", S("abc")), want: yes},
	{expr: "((n = :a) OR (s = :b))", vals: attrs(":a", N("10"), ":b", S("abc")), want: yes},
	{expr: "(n = :a)", vals: attrs(":a", N("10")), want: yes},
	{expr: "(n) = :a", vals: attrs(":a", N("10")), want: yes},
	{expr: "(:a) = n", vals: attrs(":a", N("10")), want: yes},
	{expr: "(size(s)) = :a", vals: attrs(":a", N("3")), want: yes},
	{expr: "size((s)) = :a", vals: attrs(":a", N("3")), want: yes},
	{expr: "contains((s), :a)", vals: attrs(":a", S("b")), want: yes},
	{expr: "(attribute_exists(s))", want: yes},
	{expr: "NOTn = :a", vals: attrs(":a", N("10")), want: no}, // NOTn is a name
	{expr: "\tn\n=\r:a", vals: attrs(":a", N("10")), want: yes},
	{expr: "n=:a", vals: attrs(":a", N("10")), want: yes},
	{expr: "((n = :a))", vals: attrs(":a", N("10")), want: bad},
	{expr: "NOT ((n = :a))", vals: attrs(":a", N("10")), want: bad},
	{expr: "(n = :a) AND ((s = :b))", vals: attrs(":a", N("10"), ":b", S("abc")), want: bad},
	{expr: "(n = :a AND ((s = :b)))", vals: attrs(":a", N("10"), ":b", S("abc")), want: bad},
	{expr: "((n)) = :a", vals: attrs(":a", N("10")), want: bad},
	{expr: "((attribute_exists(s)))", want: bad},
	{expr: "size(((s))) = :a", vals: attrs(":a", N("3")), want: bad},
	{expr: "((size(s))) = :a", vals: attrs(":a", N("3")), want: bad},
	{expr: "(n = :a) = :a", vals: attrs(":a", N("10")), want: bad},
	{expr: "n = NOT :a", vals: attrs(":a", N("10")), want: bad},
	{expr: "n = :a ANDn = :a", vals: attrs(":a", N("10")), want: bad},
	{expr: "n = :a and", vals: attrs(":a", N("10")), want: bad},
	{expr: "s = :a OR OR s = :a", vals: attrs(":a", S("abc")), want: bad},
	{expr: "NOT", want: bad},
	{expr: "()", want: bad},
	{expr: "", want: bad},
	{expr: "   ", want: bad},
	{expr: "n", want: bad},
	{expr: ":a", vals: attrs(":a", BOOL(true)), want: bad},
	{expr: "n\f= :a", vals: attrs(":a", N("10")), want: bad},
	{expr: "n\v= :a", vals: attrs(":a", N("10")), want: bad},
	{expr: "n\u00a0= :a", vals: attrs(":a", N("10")), want: bad},
	{expr: "n ≠ :a", vals: attrs(":a", N("10")), want: bad},
	{expr: "n != :a", vals: attrs(":a", N("10")), want: bad},
	{expr: "n == :a", vals: attrs(":a", N("10")), want: bad},
	{expr: "n = 5", want: bad},
	{expr: "n = 'x'", want: bad},
	{expr: `n = "x"`, want: bad},
	{expr: "n = true", want: bad},

	// Functions.
	{expr: "attribute_exists(s)", want: yes},
	{expr: "attribute_exists (n)", want: yes},
	{expr: "attribute_exists(m.x)", want: yes},
	{expr: "attribute_exists(m.x.y)", want: no},
	{expr: "attribute_exists(l[2][0])", want: yes},
	{expr: "attribute_exists(l[2].x)", want: no},
	{expr: "attribute_exists(#a)", names: names("#a", "x.y"), want: no},
	{expr: "attribute_not_exists(l[0])", want: no},
	{expr: "attribute_not_exists(l[7])", want: yes},
	{expr: "attribute_not_exists(s)", want: yes, none: true},
	{expr: "attribute_exists(s)", want: no, none: true},
	{expr: "attribute_type(s, :t)", vals: attrs(":t", S("S")), want: yes},
	{expr: "attribute_type(b, :t)", vals: attrs(":t", S("S")), want: no},
	{expr: "attribute_type(nope, :t)", vals: attrs(":t", S("S")), want: no},
	{expr: "attribute_type(z, :t)", vals: attrs(":t", S("NULL")), want: yes},
	{expr: "attribute_type(t, :t)", vals: attrs(":t", S("BOOL")), want: yes},
	{expr: "attribute_type(n, :t)", vals: attrs(":t", S("N")), want: yes},
	{expr: "attribute_type(b, :t)", vals: attrs(":t", S("B")), want: yes},
	{expr: "attribute_type(ss, :t)", vals: attrs(":t", S("SS")), want: yes},
	{expr: "attribute_type(ns, :t)", vals: attrs(":t", S("NS")), want: yes},
	{expr: "attribute_type(bs, :t)", vals: attrs(":t", S("BS")), want: yes},
	{expr: "attribute_type(l, :t)", vals: attrs(":t", S("L")), want: yes},
	{expr: "attribute_type(m, :t)", vals: attrs(":t", S("M")), want: yes},
	{expr: "attribute_type(l[0], :t)", vals: attrs(":t", S("S")), want: yes},
	{expr: "attribute_type(:v, :t)", vals: attrs(":v", S("x"), ":t", S("S")), want: yes},
	{expr: "attribute_type(:v, :t)", vals: attrs(":v", NULL(), ":t", S("NULL")), want: yes},
	{expr: "attribute_type(size(s), :t)", vals: attrs(":t", S("N")), want: yes},
	{expr: "begins_with(s, :v)", vals: v1(S("ab")), want: yes},
	{expr: "begins_with(s, :v)", vals: v1(S("")), want: yes},
	{expr: "begins_with(s, :v)", vals: v1(S("b")), want: no},
	{expr: "begins_with(n, :v)", vals: v1(S("1")), want: no},
	{expr: "begins_with(b, :v)", vals: v1(B("xy")), want: yes},
	{expr: "begins_with(b, :v)", vals: v1(S("xy")), want: no},
	{expr: "begins_with(s, :v)", vals: v1(B("a")), want: no},
	{expr: "begins_with(:v, s)", vals: v1(S("ab")), want: no},
	{expr: "begins_with(:v, :w)", vals: attrs(":v", S("ab"), ":w", S("a")), want: yes},
	{expr: "begins_with(:v, :w)", vals: attrs(":v", S("ab"), ":w", B("a")), want: no},
	{expr: "begins_with(:v, :w)", vals: attrs(":v", B("ab"), ":w", B("a")), want: yes},
	{expr: "begins_with(n, s)", want: no},
	{expr: "begins_with(l[0], l)", want: no},
	{expr: "contains(s, :v)", vals: v1(S("b")), want: yes},
	{expr: "contains(s, :v)", vals: v1(S("")), want: yes},
	{expr: "contains(s, :v)", vals: v1(N("1")), want: no},
	{expr: "contains(s, :v)", vals: v1(B("b")), want: no},
	{expr: "contains(s, :v)", vals: v1(BOOL(true)), want: no},
	{expr: "contains(s, :v)", vals: v1(L()), want: no},
	{expr: "contains(s, :v)", vals: v1(SS("a")), want: no},
	{expr: "contains(s, :v)", vals: v1(M()), want: no},
	{expr: "contains(s, :v)", vals: v1(NULL()), want: no},
	{expr: "contains(b, :v)", vals: v1(B("y")), want: yes},
	{expr: "contains(b, :v)", vals: v1(S("y")), want: no},
	{expr: "contains(ss, :v)", vals: v1(S("a")), want: yes},
	{expr: "contains(ss, :v)", vals: v1(SS("a")), want: no},
	{expr: "contains(ss, :v)", vals: v1(N("1")), want: no},
	{expr: "contains(ss, :v)", vals: v1(L(S("a"))), want: no},
	{expr: "contains(ns, :v)", vals: v1(N("1.0")), want: yes},
	{expr: "contains(ns, :v)", vals: v1(S("1")), want: no},
	{expr: "contains(bs, :v)", vals: v1(B("a")), want: yes},
	{expr: "contains(l, :v)", vals: v1(N("1.0")), want: yes},
	{expr: "contains(l, :v)", vals: v1(L(N("2"))), want: yes},
	{expr: "contains(l, :v)", vals: v1(NULL()), want: no},
	{expr: "contains(l, :v)", vals: v1(BOOL(true)), want: no},
	{expr: "contains(l, :v)", vals: v1(M()), want: no},
	{expr: "contains(l, l[0])", want: yes},
	{expr: "contains(l[0], l)", want: no},
	{expr: "contains(l[2], :v)", vals: v1(N("2")), want: yes},
	{expr: "contains(m, :v)", vals: v1(S("x")), want: no},
	{expr: "contains(:n, :s)", vals: attrs(":n", N("1"), ":s", S("1")), want: no},
	{expr: "contains(:n, :s)", vals: attrs(":n", M("a", N("1")), ":s", S("a")), want: no},
	{expr: "contains(:v, s)", vals: v1(S("xabcx")), want: yes},
	{expr: "contains(:b, :b)", vals: attrs(":b", S("1")), want: yes},
	{expr: "contains(size(s), :a)", vals: attrs(":a", N("1")), want: no},
	{expr: "contains(s, size(s))", want: no},
	{expr: "contains(l, size(s))", want: no},
	{expr: "size(s) = :v", vals: v1(N("3")), want: yes},
	{expr: "size (s) = :v", vals: v1(N("3")), want: yes},
	{expr: "size(s) = :v", vals: v1(S("3")), want: no},
	{expr: "size(e) = :v", vals: v1(N("0")), want: yes},
	{expr: "size(u) = :v", vals: v1(N("1")), want: yes},  // "é": one UTF-16 unit
	{expr: "size(u2) = :v", vals: v1(N("2")), want: yes}, // "😀": a surrogate pair
	{expr: "size(:u) = :v", vals: attrs(":u", S("é𝄞"), ":v", N("3")), want: yes},
	{expr: "size(b) = :v", vals: v1(N("3")), want: yes},
	{expr: "size(l) = :v", vals: v1(N("3")), want: yes},
	{expr: "size(m) = :v", vals: v1(N("2")), want: yes},
	{expr: "size(ss) = :v", vals: v1(N("2")), want: yes},
	{expr: "size(ns) = :v", vals: v1(N("2")), want: yes},
	{expr: "size(bs) = :v", vals: v1(N("2")), want: yes},
	{expr: "size(:u) = :v", vals: attrs(":u", M("a", N("1")), ":v", N("1")), want: yes},
	{expr: "size(:u) = :v", vals: attrs(":u", B("ab"), ":v", N("2")), want: yes},
	{expr: "size(n) = :v", vals: v1(N("2")), want: no},
	{expr: "size(n) <> :v", vals: v1(N("2")), want: yes},
	{expr: "NOT size(n) = :v", vals: v1(N("2")), want: yes},
	{expr: "size(t) <> :v", vals: v1(N("2")), want: yes},
	{expr: "size(z) <> :v", vals: v1(N("2")), want: yes},
	{expr: "size(nope) = size(nope2)", want: no},
	{expr: "size(nope) <> size(nope2)", want: yes},
	{expr: "size(n) = size(n)", want: no},
	{expr: "size(n) = n", want: no},
	{expr: "n = size(n)", want: no},
	{expr: "size(s) < size(l)", want: no},
	{expr: "ATTRIBUTE_EXISTS(s)", want: bad},
	{expr: "SIZE(s) = :w", vals: attrs(":w", N("3")), want: bad},
	{expr: "Size(s) = :w", vals: attrs(":w", N("3")), want: bad},
	{expr: "foo(s)", want: bad},
	{expr: "if_not_exists(s, :a) = :b", vals: attrs(":a", N("10"), ":b", N("10")), want: bad},
	{expr: "attribute_exists(:v)", vals: v1(N("2")), want: bad},
	{expr: "attribute_exists(size(s))", want: bad},
	{expr: "attribute_exists(s, n)", want: bad},
	{expr: "attribute_exists()", want: bad},
	{expr: "attribute_exists(s) = :v", vals: v1(BOOL(true)), want: bad},
	{expr: "NOT attribute_exists(n) = :v", vals: v1(N("10")), want: bad},
	{expr: "begins_with(s, :v) = :w", vals: attrs(":v", S("a"), ":w", BOOL(true)), want: bad},
	{expr: "attribute_type(s, :t)", vals: attrs(":t", S("s")), want: bad},
	{expr: "attribute_type(s, :t)", vals: attrs(":t", S("X")), want: bad},
	{expr: "attribute_type(s, :t)", vals: attrs(":t", S(" S")), want: bad},
	{expr: "attribute_type(s, :t)", vals: attrs(":t", N("1")), want: bad},
	{expr: "attribute_type(s, s)", want: bad},
	{expr: "attribute_type(n, s)", want: bad},
	{expr: "attribute_type(s, size(s))", want: bad},
	{expr: "begins_with(s, :v)", vals: v1(N("1")), want: bad},
	{expr: "begins_with(s, :v)", vals: v1(BOOL(true)), want: bad},
	{expr: "begins_with(s, :v)", vals: v1(SS("a")), want: bad},
	{expr: "begins_with(:v, :w)", vals: attrs(":v", N("1"), ":w", S("a")), want: bad},
	{expr: "begins_with(size(s), :v)", vals: v1(S("a")), want: bad},
	{expr: "begins_with(s, size(s))", want: bad},
	{expr: "begins_with(s, s)", want: bad},
	{expr: "contains(n, n)", want: bad},
	{expr: "contains(s)", want: bad},
	{expr: "size(s, n) = :v", vals: v1(N("10")), want: bad},
	{expr: "size(s)", want: bad},
	{expr: "size() = :v", vals: v1(N("10")), want: bad},
	{expr: "size(size(s)) = :v", vals: v1(N("1")), want: bad},
	{expr: "size(:u) = :v", vals: attrs(":u", N("1"), ":v", N("1")), want: bad},
	{expr: "size(:u) = :v", vals: attrs(":u", BOOL(true), ":v", N("1")), want: bad},
	{expr: "size(:u) = :v", vals: attrs(":u", NULL(), ":v", N("1")), want: bad},

	// Paths and names.
	{expr: "l[0] = :a", vals: attrs(":a", S("a")), want: yes},
	{expr: "l[2][0] = :a", vals: attrs(":a", N("2")), want: yes},
	{expr: "l [ 0 ] = :a", vals: attrs(":a", S("a")), want: yes},
	{expr: "l[ 1 ] = :a", vals: attrs(":a", N("1")), want: yes},
	{expr: "l[5] <> :a", vals: attrs(":a", N("2")), want: yes},
	{expr: "l[2147483647] <> :a", vals: attrs(":a", N("2")), want: yes},
	{expr: "m.x = :a", vals: attrs(":a", N("1")), want: yes},
	{expr: "m . x = :a", vals: attrs(":a", N("1")), want: yes},
	{expr: "m[0] <> :a", vals: attrs(":a", N("1")), want: yes},
	{expr: "l.x <> :a", vals: attrs(":a", N("1")), want: yes},
	{expr: "m.x[0] = :a", vals: attrs(":a", N("1")), want: no},
	{expr: "l[0].x = :a", vals: attrs(":a", N("1")), want: no},
	{expr: "#a.#b = :a", names: names("#a", "m", "#b", "x"), vals: attrs(":a", N("1")), want: yes},
	{expr: "m.#x = :a", names: names("#x", "x"), vals: attrs(":a", N("1")), want: yes},
	{expr: "#m.x = :a", names: names("#m", "m"), vals: attrs(":a", N("1")), want: yes},
	{expr: "#a = :a", names: names("#a", "m.x"), vals: attrs(":a", N("1")), want: no},
	{expr: "#0 = :0", names: names("#0", "n"), vals: attrs(":0", N("10")), want: yes},
	{expr: "#a_b = :a_b", names: names("#a_b", "n"), vals: attrs(":a_b", N("10")), want: yes},
	{expr: "#st = :a", names: names("#st", "status"), vals: attrs(":a", N("1")), want: no},
	{expr: "size = :a", vals: attrs(":a", N("1")), want: no},
	{expr: "size.x = :a", vals: attrs(":a", N("1")), want: no},
	{expr: "m.size = :a", vals: attrs(":a", N("1")), want: no},
	{expr: "convert = :a", vals: attrs(":a", N("1")), want: no},
	{expr: "contains = :a", vals: attrs(":a", N("1")), want: no},
	{expr: "attribute_exists = :a", vals: attrs(":a", N("1")), want: no},
	{expr: "if_not_exists = :a", vals: attrs(":a", N("1")), want: no},
	{expr: "begins_with.x = :a", vals: attrs(":a", N("1")), want: no},
	{expr: "aB9 = :a", vals: attrs(":a", N("1")), want: no},
	{expr: "a_b = :a", vals: attrs(":a", N("1")), want: no},
	{expr: "name = :a", vals: attrs(":a", N("1")), want: bad},
	{expr: "Status = :a", vals: attrs(":a", N("1")), want: bad},
	{expr: "x.name = :a", vals: attrs(":a", N("1")), want: bad},
	{expr: "remove = :a", vals: attrs(":a", N("1")), want: bad},
	{expr: "AND = :a", vals: attrs(":a", N("1")), want: bad},
	{expr: "0abc = :a", vals: attrs(":a", N("1")), want: bad},
	{expr: "_abc = :a", vals: attrs(":a", N("1")), want: bad},
	{expr: "a-b = :a", vals: attrs(":a", N("1")), want: bad},
	{expr: "é = :a", vals: attrs(":a", N("1")), want: bad},
	{expr: "#a-b = :a", names: names("#a", "n"), vals: attrs(":a", N("1")), want: bad},
	{expr: "#a = :a", names: names("#a", ""), vals: attrs(":a", N("1")), want: bad},
	{expr: "#a = :a", vals: attrs(":a", N("1")), want: bad},
	{expr: "n = :zz", vals: attrs(":a", N("1")), want: bad},
	{expr: "l[00] = :a", vals: attrs(":a", S("a")), want: bad},
	{expr: "l[-1] = :a", vals: attrs(":a", S("a")), want: bad},
	{expr: "l[2147483648] <> :a", vals: attrs(":a", N("2")), want: bad},
	{expr: "l.[0] = :a", vals: attrs(":a", N("1")), want: bad},
	{expr: "l[0]x = :a", vals: attrs(":a", N("1")), want: bad},
	{expr: "m..x = :a", vals: attrs(":a", N("1")), want: bad},
	{expr: "m. = :a", vals: attrs(":a", N("1")), want: bad},
	{expr: "m[] = :a", vals: attrs(":a", N("1")), want: bad},
	{expr: "m.:a = :a", vals: attrs(":a", N("1")), want: bad},
	{expr: ":a[0] = :a", vals: attrs(":a", L(N("1"))), want: bad},
	{expr: ":a.x = :a", vals: attrs(":a", M("x", N("1"))), want: bad},

	// Values DynamoDB refuses.
	{expr: "n = :v", vals: v1(N(" 10")), want: bad},
	{expr: "n = :v", vals: v1(N("0x10")), want: bad},
	{expr: "n = :v", vals: v1(N("")), want: bad},
	{expr: "n = :v", vals: v1(N("NaN")), want: bad},
	{expr: "n = :v", vals: v1(N("Infinity")), want: bad},
	{expr: "n = :v", vals: v1(N("-")), want: bad},
	{expr: "n = :v", vals: v1(N(".")), want: bad},
	{expr: "n = :v", vals: v1(N("1E")), want: bad},
	{expr: "n = :v", vals: v1(N("1E+")), want: bad},
	{expr: "n = :v", vals: v1(N("1E2.5")), want: bad},
	{expr: "n = :v", vals: v1(N("1.2.3")), want: bad},
	{expr: "n = :v", vals: v1(N("--1")), want: bad},
	{expr: "n = :v", vals: v1(N("1_000")), want: bad},
	{expr: "n = :v", vals: v1(N("1d")), want: bad},
	{expr: "n = :v", vals: v1(N("1E2147483648")), want: bad},
	{expr: "n = :v", vals: v1(N("1E+126")), want: bad},
	{expr: "n = :v", vals: v1(N("10E125")), want: bad},
	{expr: "n = :v", vals: v1(N("1E-131")), want: bad},
	{expr: "n = :v", vals: v1(N("123456789012345678901234567890123456789")), want: bad},
	{expr: "n = :v", vals: v1(N("10.0000000000000000000000000000000000001")), want: bad},
	{expr: "n = :v", vals: v1(N("1234567890123456789012345678901234567800")), want: no},
	{expr: "n = :v", vals: v1(N("10.000000000000000000000000000000000000000000000")), want: yes},
	{expr: "n = :v", vals: v1(N("000000000000000000000000000000000000000000000010")), want: yes},
	{expr: "n = :v", vals: v1(N("1E+0000000000000000000000001")), want: yes},
	{expr: "n > :v", vals: v1(N("0E+200")), want: yes},
	{expr: "n > :v", vals: v1(N("-0")), want: yes},
	{expr: "n > :v", vals: v1(N("100E-132")), want: yes},
	{expr: "n = :v", vals: v1(SS()), want: bad},
	{expr: "n = :v", vals: v1(SS("a", "a")), want: bad},
	{expr: "n = :v", vals: v1(NS("1", "1.0")), want: bad},
	{expr: "n = :v", vals: v1(NS("1", "x")), want: bad},
	{expr: "n = :v", vals: v1(L(N("x"))), want: bad},
	{expr: "n = :v", vals: v1(M("", N("1"))), want: bad},
	{expr: "n = :v", vals: v1(L(SS())), want: bad},
	{expr: "n = :v", vals: v1(&types.AttributeValueMemberNULL{Value: false}), want: bad},
	{expr: "n = :v", vals: v1(SS("")), want: no},
	{expr: "n = :v", vals: v1(BS("")), want: no},

	// Checks come before evaluation: an invalid branch fails the
	// expression even where it would not be reached.
	{expr: "attribute_exists(s) OR s < :v", vals: v1(BOOL(true)), want: bad},
	{expr: "attribute_not_exists(s) AND n = :zz", vals: v1(N("1")), want: bad},
	{expr: "attribute_exists(s) OR n = :zz", want: bad, none: true},
}...)

// limitCases are cases at DynamoDB's limits on expressions, just within
// and just beyond each.
func limitCases() []tcase {
	rep := func(s, sep string, n int) string { return strings.TrimSuffix(strings.Repeat(s+sep, n), sep) }
	in := func(n int) tcase {
		c := tcase{vals: map[string]types.AttributeValue{}}
		var ph []string
		for i := range n {
			p := ":v" + strconv.Itoa(i)
			ph = append(ph, p)
			c.vals[p] = N(strconv.Itoa(i))
		}
		c.expr = "n IN (" + strings.Join(ph, ", ") + ")"
		return c
	}
	in100, in101 := in(100), in(101)
	in100.want, in101.want = yes, bad
	long := strings.Repeat("x", maxPlaceholder-1)
	return []tcase{
		// 300 operators: 150 comparisons and 149 ORs; 299 NOTs and one
		// comparison; 100 sizes, 100 comparisons and 99 ORs.
		{expr: rep("n = :v", " OR ", 150), vals: v1(N("10")), want: yes},
		{expr: rep("n = :v", " OR ", 151), vals: v1(N("10")), want: bad},
		{expr: strings.Repeat("NOT ", 299) + "n = :v", vals: v1(N("10")), want: no},
		{expr: strings.Repeat("NOT ", 300) + "n = :v", vals: v1(N("10")), want: bad},
		{expr: rep("size(s) = :v", " OR ", 100), vals: v1(N("3")), want: yes},
		{expr: rep("size(s) = :v", " OR ", 101), vals: v1(N("3")), want: bad},
		{expr: rep("attribute_exists(n)", " OR ", 150), want: yes},
		{expr: rep("attribute_exists(n)", " OR ", 151), want: bad},
		{expr: rep("n BETWEEN :v AND :v", " OR ", 150), vals: v1(N("10")), want: yes},
		{expr: rep("n BETWEEN :v AND :v", " OR ", 151), vals: v1(N("10")), want: bad},
		{expr: strings.Repeat("(", 40) + "n = :v" + strings.Repeat(" OR n = :v)", 40), vals: v1(N("10")), want: yes},
		in100,
		in101,
		// 4096 bytes.
		{expr: "n = :v" + strings.Repeat(" ", maxExprBytes-6), vals: v1(N("10")), want: yes},
		{expr: "n = :v" + strings.Repeat(" ", maxExprBytes-5), vals: v1(N("10")), want: bad},
		// 32 levels of path.
		{expr: "m" + strings.Repeat(".m", 31) + " = :v", vals: v1(N("10")), want: no},
		{expr: "m" + strings.Repeat(".m", 32) + " = :v", vals: v1(N("10")), want: bad},
		{expr: "l" + strings.Repeat("[0]", 31) + " = :v", vals: v1(N("10")), want: no},
		{expr: "l" + strings.Repeat("[0]", 32) + " = :v", vals: v1(N("10")), want: bad},
		// Placeholders of 255 bytes; names of 65535 bytes.
		{expr: "#" + long + " = :" + long, names: names("#"+long, "n"), vals: attrs(":"+long, N("10")), want: yes},
		{expr: "#" + long + "x = :v", names: names("#"+long+"x", "n"), vals: v1(N("10")), want: bad},
		{expr: "n = :" + long + "x", vals: attrs(":"+long+"x", N("10")), want: bad},
		{expr: "#n = :v", names: names("#n", strings.Repeat("n", maxNameBytes)), vals: v1(N("10")), want: no},
		{expr: "#n = :v", names: names("#n", strings.Repeat("n", maxNameBytes+1)), vals: v1(N("10")), want: bad},
		{expr: rep("aaaaaaaaaa", "", 30) + " = :v", vals: v1(N("10")), want: no},
	}
}

func (c tcase) item() map[string]types.AttributeValue {
	if c.none {
		return nil
	}
	return std
}

// TestCases checks Eval against the outcomes written in cases.
func TestCases(t *testing.T) {
	for _, c := range cases {
		got, err := evalOutcome(c.expr, c.item(), c.names, c.vals)
		if err != nil || got != c.want {
			t.Errorf("got %v (err %v), want %v\n%s", got, err, c.want, describe(c.expr, c.names, c.vals, c.item()))
		}
	}
}

// TestReservedWords checks that Parse refuses every reserved word as a
// plain name, in any case, and accepts it behind a #name
// (TestReservedWordsOnDynamoDB checks that DynamoDB Local does the same).
func TestReservedWords(t *testing.T) {
	reservedRefused(t)
}

// reservedRefused checks Parse on every reserved word and returns those
// refused as plain names, in lower case.
func reservedRefused(t *testing.T) []string {
	words := strings.Fields(reservedList)
	require.Len(t, words, 573)
	var refused []string
	for _, w := range words {
		if keywords[w] != tokEOF { // a keyword: refused, as a syntax error
			continue
		}
		for _, form := range []string{w, strings.ToLower(w), strings.ToUpper(w[:1]) + strings.ToLower(w[1:])} {
			_, err := Parse(form + " = :v")
			if w == "SIZE" || w == "CONVERT" {
				require.NoError(t, err, form)
				continue
			}
			require.ErrorIs(t, err, ErrInvalid, form)
			_, err = Parse("a." + form + " = :v")
			require.ErrorIs(t, err, ErrInvalid, form)
		}
		_, err := Parse("#" + strings.ToLower(w) + " = :v")
		require.NoError(t, err, w)
		refused = append(refused, strings.ToLower(w))
	}
	_, err := Parse("sizes = :v AND converts = :v AND removes = :v")
	require.NoError(t, err)
	return refused
}
