//go:build conformance

package cond

import (
	"bytes"
	"fmt"
	"math/big"
	"math/rand/v2"
	"regexp"
	"strconv"
	"strings"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// This file generates random items and random conditions for
// TestDifferential. The generator knows nothing of the evaluator: values
// that conditions compare are taken from the items (so that conditions hold
// often enough to be interesting), numbers are respelled by editing their
// text, and the few orderings it needs use math/big.

// Pools of attribute names. "name" is a reserved word and "x.y" holds a
// dot: both can only be written as #placeholders, except when the
// generator writes "name" plain on purpose, which DynamoDB refuses.
var (
	topNames    = []string{"a", "b", "c", "d", "e", "f", "name", "x.y"}
	nestedNames = []string{"p", "q", "r", "name", "x.y"}
)

// Number pool: pairwise different values, in varied spellings, and at the
// edges of DynamoDB's range and precision.
var numberPool = []string{
	"0", "1", "-1", "2", "10", "100", "0.1", "0.25E1", "-5.5", "3.14159",
	"1E+3", "1.5E-7", "-1E+100", "1E+100", "123.456E-7", "0.000001",
	"12345678901234567890123456789012345678",
	"-12345678901234567890123456789012345678",
	"1.2345678901234567890123456789012345679E+37",
	"1E-130", "-1E-130", "9.9999999999999999999999999999999999999E+125",
	"-9.9999999999999999999999999999999999999E+125", "7", "42", "-42",
}

var stringPool = []string{
	"", "a", "ab", "abc", "abd", "b", "ba", "A", "Z", "é", "e\u0301", "😀",
	"\uffff", "\U0010FFFF", "a b", "a\x00", "ab😀", "🙂x", "name", "10",
}

var binaryPool = []string{"", "\x00", "\x00\x00", "\xff", "\x7f", "\x80", "a", "ab", "abc", "b"}

var typeCodes = []string{"S", "N", "B", "SS", "NS", "BS", "BOOL", "NULL", "L", "M"}

type gen struct {
	r     *rand.Rand
	items []map[string]types.AttributeValue
	used  map[string]bool // top-level names an update being generated writes
}

func (g *gen) chance(p float64) bool { return g.r.Float64() < p }

func pick[E any](g *gen, s []E) E { return s[g.r.IntN(len(s))] }

// item generates an item: each top-level name present or not, of any type.
func (g *gen) item() map[string]types.AttributeValue {
	item := map[string]types.AttributeValue{}
	for _, name := range topNames {
		if g.chance(0.7) {
			item[name] = g.value(0)
		}
	}
	return item
}

// value generates a value of a random type; lists and maps nest to three
// levels.
func (g *gen) value(depth int) types.AttributeValue {
	k := g.r.IntN(100)
	if depth >= 3 && k >= 76 {
		k = g.r.IntN(76)
	}
	switch {
	case k < 15:
		return S(g.str())
	case k < 35:
		return N(g.number())
	case k < 43:
		return B(pick(g, binaryPool))
	case k < 48:
		return BOOL(g.chance(0.5))
	case k < 52:
		return NULL()
	case k < 60:
		return SS(distinct(g, stringPool, func(s string) string { return s })...)
	case k < 68:
		return NS(distinct(g, numberPool, g.respell)...)
	case k < 76:
		return BS(distinct(g, binaryPool, func(s string) string { return s })...)
	case k < 88:
		l := make([]types.AttributeValue, g.r.IntN(5))
		for i := range l {
			l[i] = g.value(depth + 1)
		}
		return L(l...)
	default:
		m := map[string]types.AttributeValue{}
		for range g.r.IntN(4) {
			m[pick(g, nestedNames)] = g.value(depth + 1)
		}
		return &types.AttributeValueMemberM{Value: m}
	}
}

// distinct picks 1 to 4 different elements of pool (whose elements are
// different values), each passed through spell.
func distinct(g *gen, pool []string, spell func(string) string) []string {
	idx := g.r.Perm(len(pool))[:1+g.r.IntN(4)]
	out := make([]string, len(idx))
	for i, j := range idx {
		out[i] = spell(pool[j])
	}
	return out
}

func (g *gen) str() string {
	if g.chance(0.7) {
		return pick(g, stringPool)
	}
	alphabet := []rune("abAB é😀\uffff0")
	rs := make([]rune, g.r.IntN(5))
	for i := range rs {
		rs[i] = pick(g, alphabet)
	}
	return string(rs)
}

// number returns a number from the pool, respelled, or a random one: up to
// 38 random digits, a decimal point anywhere, an exponent that keeps it
// within DynamoDB's range.
func (g *gen) number() string {
	if g.chance(0.5) {
		return g.respell(pick(g, numberPool))
	}
	if g.chance(0.2) {
		return g.longNumber()
	}
	if g.chance(0.3) {
		return strconv.Itoa(g.r.IntN(21) - 10)
	}
	n := 1 + g.r.IntN(38)
	if g.chance(0.6) {
		n = 1 + g.r.IntN(4)
	}
	digits := []byte{byte('1' + g.r.IntN(9))}
	for len(digits) < n {
		digits = append(digits, byte('0'+g.r.IntN(10)))
	}
	// The value is 0.digits × 10^mag; mag in [-129, 126] keeps it in range.
	mag := g.r.IntN(10) - 3
	if g.chance(0.05) {
		mag = -129 + g.r.IntN(256)
	}
	point := g.r.IntN(n + 1)
	exp := mag - point
	sign := ""
	if g.chance(0.3) {
		sign = "-"
	}
	s := sign + string(digits[:point]) + "." + string(digits[point:])
	if point == 0 && g.chance(0.5) {
		s = sign + "0" + s[len(sign):]
	}
	if exp != 0 || g.chance(0.2) {
		s += "E" + strconv.Itoa(exp)
	}
	return strings.TrimSuffix(s, ".")
}

// longNumber returns one of a family of numbers of 38 significant digits
// that differ only in the last, or only in sign or exponent: far closer
// together than float64 can tell apart.
func (g *gen) longNumber() string {
	sign := ""
	if g.chance(0.2) {
		sign = "-"
	}
	return fmt.Sprintf("%s1.234567890123456789012345678901234567%dE%d", sign, g.r.IntN(10), g.r.IntN(3))
}

// respell writes the number n another way, with the same value: a sign, a
// leading zero, trailing zeros, a zero exponent, or the point moved one
// place left against an exponent of one.
func (g *gen) respell(n string) string {
	if !g.chance(0.6) {
		return n
	}
	sign := ""
	if n[0] == '-' || n[0] == '+' {
		sign, n = n[:1], n[1:]
	}
	switch g.r.IntN(5) {
	case 0:
		if sign == "" {
			sign = "+"
		}
	case 1:
		n = "0" + n
	case 2:
		if !strings.ContainsAny(n, "eE") {
			if !strings.Contains(n, ".") {
				n += "."
			}
			n += strings.Repeat("0", 1+g.r.IntN(3))
		}
	case 3:
		if !strings.ContainsAny(n, "eE") {
			n += pick(g, []string{"E0", "e+0", "E-0", "e00"})
		}
	case 4:
		if !strings.ContainsAny(n, "eE") {
			p := strings.IndexByte(n, '.')
			if p < 0 {
				p = len(n)
			}
			digits := strings.Replace(n, ".", "", 1)
			if p >= 1 {
				n = digits[:p-1] + "." + digits[p-1:] + "E1"
			}
		}
	}
	return sign + n
}

// A gnode is a generated condition or operand. Conditions are rendered to
// text by render, or to the SDK's builder by build.
type gnode struct {
	kind  kind
	op    string // kCompare: "=", "<>", ...
	fn    string // kFunc: the function's name
	kids  []*gnode
	path  []gelem
	value types.AttributeValue
}

type gelem struct {
	name  string
	index int // when name == ""
}

// at resolves a generated path on an item, as DynamoDB would.
func at(item map[string]types.AttributeValue, path []gelem) types.AttributeValue {
	cur := item[path[0].name]
	for _, el := range path[1:] {
		switch v := cur.(type) {
		case *types.AttributeValueMemberM:
			if el.name == "" {
				return nil
			}
			cur = v.Value[el.name]
		case *types.AttributeValueMemberL:
			if el.name != "" || el.index >= len(v.Value) {
				return nil
			}
			cur = v.Value[el.index]
		default:
			return nil
		}
	}
	return cur
}

// path generates a document path, mostly one that leads somewhere in some
// item.
func (g *gen) path() *gnode {
	item := pick(g, g.items)
	var p []gelem
	var cur types.AttributeValue
	if len(item) > 0 && g.chance(0.85) {
		keys := make([]string, 0, len(item))
		for _, k := range topNames {
			if item[k] != nil {
				keys = append(keys, k)
			}
		}
		name := pick(g, keys)
		p, cur = []gelem{{name: name}}, item[name]
	} else {
		p = []gelem{{name: pick(g, append(topNames, "pk", "zz"))}}
		if p[0].name == "pk" {
			// DynamoDB refuses a path into a key attribute ("Key
			// attributes must be scalars"): it knows the table's keys,
			// which Eval does not.
			return &gnode{kind: kPath, path: p}
		}
	}
	for g.chance(0.5) && len(p) < 5 {
		switch v := cur.(type) {
		case *types.AttributeValueMemberM:
			name := pick(g, nestedNames)
			p, cur = append(p, gelem{name: name}), v.Value[name]
			continue
		case *types.AttributeValueMemberL:
			i := g.r.IntN(len(v.Value) + 2)
			p = append(p, gelem{index: i})
			cur = nil
			if i < len(v.Value) {
				cur = v.Value[i]
			}
			continue
		}
		if g.chance(0.8) {
			break
		}
		// A path through something that is not a map or list.
		if g.chance(0.5) {
			p = append(p, gelem{name: pick(g, nestedNames)})
		} else {
			p = append(p, gelem{index: g.r.IntN(3)})
		}
		cur = nil
	}
	return &gnode{kind: kPath, path: p}
}

// sample returns what path holds in a random item that has it; nil if
// none has it, or if path is not a path.
func (g *gen) sample(path *gnode) types.AttributeValue {
	if path.kind != kPath {
		return nil
	}
	start := g.r.IntN(len(g.items))
	for i := range g.items {
		if v := at(g.items[(start+i)%len(g.items)], path.path); v != nil {
			return v
		}
	}
	return nil
}

func valueNode(v types.AttributeValue) *gnode { return &gnode{kind: kValue, value: v} }

// related returns a value like v: the same (numbers respelled), one a
// little different, or one of the same type at random.
func (g *gen) related(v types.AttributeValue) types.AttributeValue {
	switch v := v.(type) {
	case *types.AttributeValueMemberN:
		switch k := g.r.IntN(100); {
		case k < 55:
			return N(g.respell(v.Value))
		case k < 70 && strings.HasPrefix(strings.TrimLeft(v.Value, "+-"), "1.234567890123456789012345678901234567"):
			return N(g.longNumber())
		case k < 72:
			// DynamoDB refuses 39 significant digits, or a magnitude out
			// of range, in a value.
			return N(pick(g, []string{"1.234567890123456789012345678901234567891", "1E+126", "-1E-131", "1e", "0x1"}))
		}
		return N(g.number())
	case *types.AttributeValueMemberS:
		rs := []rune(v.Value)
		switch g.r.IntN(4) {
		case 0, 1:
			return v
		case 2:
			if len(rs) > 0 {
				return S(string(rs[:len(rs)-1]))
			}
			return S(v.Value + "a")
		}
		return S(g.str())
	case *types.AttributeValueMemberB:
		switch g.r.IntN(4) {
		case 0, 1:
			return v
		case 2:
			return B(string(v.Value) + "\x00")
		}
		return B(pick(g, binaryPool))
	case nil:
		return g.value(1)
	}
	if g.chance(0.7) {
		return g.respellAll(v)
	}
	return g.value(1)
}

// respellAll returns v with every number in it respelled, and sets in
// another order.
func (g *gen) respellAll(v types.AttributeValue) types.AttributeValue {
	switch v := v.(type) {
	case *types.AttributeValueMemberN:
		return N(g.respell(v.Value))
	case *types.AttributeValueMemberNS:
		out := make([]string, len(v.Value))
		for i, j := range g.r.Perm(len(v.Value)) {
			out[i] = g.respell(v.Value[j])
		}
		return NS(out...)
	case *types.AttributeValueMemberSS:
		out := make([]string, len(v.Value))
		for i, j := range g.r.Perm(len(v.Value)) {
			out[i] = v.Value[j]
		}
		return SS(out...)
	case *types.AttributeValueMemberL:
		out := make([]types.AttributeValue, len(v.Value))
		for i, e := range v.Value {
			out[i] = g.respellAll(e)
		}
		return L(out...)
	case *types.AttributeValueMemberM:
		out := make(map[string]types.AttributeValue, len(v.Value))
		for k, e := range v.Value {
			out[k] = g.respellAll(e)
		}
		return &types.AttributeValueMemberM{Value: out}
	}
	return v
}

// orderableValue returns a value for <, BETWEEN and the like: mostly N, S
// or B, sometimes of another type, which DynamoDB refuses.
func (g *gen) orderableValue() types.AttributeValue {
	switch g.r.IntN(20) {
	case 0:
		return g.value(1)
	case 1, 2, 3, 4, 5, 6, 7, 8:
		return N(g.number())
	case 9, 10, 11, 12, 13, 14, 15:
		return S(g.str())
	}
	return B(pick(g, binaryPool))
}

// operandFor returns a second operand to set against first: mostly a value
// like one that first holds in some item.
func (g *gen) operandFor(first *gnode, ordering bool) *gnode {
	k := g.r.IntN(100)
	switch {
	case k < 10:
		return g.path()
	case k < 16:
		return &gnode{kind: kSize, kids: []*gnode{g.path()}}
	case first.kind == kSize:
		return valueNode(N(strconv.Itoa(g.r.IntN(6))))
	case k < 70 && first.kind == kPath:
		if v := g.sample(first); v != nil && (!ordering || isOrderable(v) || g.chance(0.1)) {
			return valueNode(g.related(v))
		}
	}
	if ordering {
		return valueNode(g.orderableValue())
	}
	return valueNode(g.value(1))
}

// firstOperand returns the first operand of a comparison: mostly a path;
// when ordering (for <, BETWEEN, ...), a value is mostly N, S or B.
func (g *gen) firstOperand(ordering bool) *gnode {
	switch k := g.r.IntN(100); {
	case k < 75:
		return g.path()
	case k < 90:
		return &gnode{kind: kSize, kids: []*gnode{g.path()}}
	case k < 92:
		return &gnode{kind: kSize, kids: []*gnode{valueNode(g.value(1))}}
	case ordering:
		return valueNode(g.orderableValue())
	}
	return valueNode(g.value(1))
}

// fnOperand returns the first operand of begins_with, contains and
// attribute_type: mostly a path.
func (g *gen) fnOperand() *gnode {
	if g.chance(0.9) {
		return g.path()
	}
	return g.firstOperand(false)
}

// cond generates a condition, nesting AND, OR and NOT up to depth.
func (g *gen) cond(depth int) *gnode {
	if depth > 0 {
		switch k := g.r.IntN(100); {
		case k < 30:
			n := &gnode{kind: kAnd}
			if g.chance(0.5) {
				n.kind = kOr
			}
			for range 2 + g.r.IntN(2) {
				n.kids = append(n.kids, g.cond(depth-1))
			}
			return n
		case k < 40:
			return &gnode{kind: kNot, kids: []*gnode{g.cond(depth - 1)}}
		}
	}
	return g.predicate()
}

var compareOps = []string{"=", "<>", "<", "<=", ">", ">="}

func (g *gen) predicate() *gnode {
	switch k := g.r.IntN(100); {
	case k < 35:
		op := pick(g, compareOps)
		first := g.firstOperand(op != "=" && op != "<>")
		return &gnode{kind: kCompare, op: op, kids: []*gnode{first, g.operandFor(first, op != "=" && op != "<>")}}
	case k < 47:
		return g.between()
	case k < 55:
		first := g.firstOperand(false)
		n := &gnode{kind: kIn, kids: []*gnode{first}}
		for range 1 + g.r.IntN(4) {
			n.kids = append(n.kids, g.operandFor(first, false))
		}
		return n
	case k < 61:
		return &gnode{kind: kFunc, fn: "attribute_exists", kids: []*gnode{g.path()}}
	case k < 66:
		return &gnode{kind: kFunc, fn: "attribute_not_exists", kids: []*gnode{g.path()}}
	case k < 73:
		first := g.fnOperand()
		code := pick(g, typeCodes)
		if first.kind == kPath && g.chance(0.5) {
			if v := g.sample(first); v != nil {
				code = codeOf(v)
			}
		}
		if g.chance(0.02) {
			code = strings.ToLower(code)
		}
		return &gnode{kind: kFunc, fn: "attribute_type", kids: []*gnode{first, valueNode(S(code))}}
	case k < 83:
		return g.beginsWith()
	}
	return g.contains()
}

func (g *gen) between() *gnode {
	first := g.firstOperand(true)
	var lo, hi types.AttributeValue
	if v := g.sample(first); isOrderable(v) && g.chance(0.7) {
		lo, hi = g.related(v), g.related(v)
	} else {
		lo = g.orderableValue()
		hi = g.orderableValue()
		if g.chance(0.9) {
			hi = sameType(g, lo)
		}
	}
	if g.chance(0.95) && before(hi, lo) {
		lo, hi = hi, lo
	}
	n := &gnode{kind: kBetween, kids: []*gnode{first, valueNode(lo), valueNode(hi)}}
	if g.chance(0.1) {
		n.kids[1+g.r.IntN(2)] = g.path()
	}
	return n
}

// codeOf returns the type code attribute_type uses for v.
func codeOf(v types.AttributeValue) string {
	switch v.(type) {
	case *types.AttributeValueMemberS:
		return "S"
	case *types.AttributeValueMemberN:
		return "N"
	case *types.AttributeValueMemberB:
		return "B"
	case *types.AttributeValueMemberSS:
		return "SS"
	case *types.AttributeValueMemberNS:
		return "NS"
	case *types.AttributeValueMemberBS:
		return "BS"
	case *types.AttributeValueMemberBOOL:
		return "BOOL"
	case *types.AttributeValueMemberNULL:
		return "NULL"
	case *types.AttributeValueMemberL:
		return "L"
	}
	return "M"
}

// isOrderable reports whether v is N, S or B.
func isOrderable(v types.AttributeValue) bool {
	switch v.(type) {
	case *types.AttributeValueMemberN, *types.AttributeValueMemberS, *types.AttributeValueMemberB:
		return true
	}
	return false
}

// sameType returns a random value of v's type, for N, S and B.
func sameType(g *gen, v types.AttributeValue) types.AttributeValue {
	switch v.(type) {
	case *types.AttributeValueMemberN:
		return N(g.number())
	case *types.AttributeValueMemberS:
		return S(g.str())
	case *types.AttributeValueMemberB:
		return B(pick(g, binaryPool))
	}
	return g.orderableValue()
}

// before reports whether a sorts before b, both N, S or B of one type.
func before(a, b types.AttributeValue) bool {
	switch a := a.(type) {
	case *types.AttributeValueMemberN:
		b, ok := b.(*types.AttributeValueMemberN)
		if !ok {
			return false
		}
		x, okx := new(big.Rat).SetString(strings.TrimPrefix(a.Value, "+"))
		y, oky := new(big.Rat).SetString(strings.TrimPrefix(b.Value, "+"))
		return okx && oky && x.Cmp(y) < 0
	case *types.AttributeValueMemberS:
		b, ok := b.(*types.AttributeValueMemberS)
		return ok && a.Value < b.Value
	case *types.AttributeValueMemberB:
		b, ok := b.(*types.AttributeValueMemberB)
		return ok && bytes.Compare(a.Value, b.Value) < 0
	}
	return false
}

func (g *gen) beginsWith() *gnode {
	first := g.fnOperand()
	var second *gnode
	switch v := g.sample(first).(type) {
	case *types.AttributeValueMemberS:
		rs := []rune(v.Value)
		second = valueNode(S(string(rs[:g.r.IntN(len(rs)+1)])))
	case *types.AttributeValueMemberB:
		second = valueNode(B(string(v.Value[:g.r.IntN(len(v.Value)+1)])))
	}
	if second == nil || g.chance(0.2) {
		switch g.r.IntN(10) {
		case 0:
			second = g.operandFor(first, false)
		case 1, 2:
			second = valueNode(B(pick(g, binaryPool)))
		default:
			second = valueNode(S(g.str()))
		}
	}
	return &gnode{kind: kFunc, fn: "begins_with", kids: []*gnode{first, second}}
}

func (g *gen) contains() *gnode {
	first := g.fnOperand()
	var second types.AttributeValue
	switch v := g.sample(first).(type) {
	case *types.AttributeValueMemberS:
		rs := []rune(v.Value)
		i := g.r.IntN(len(rs) + 1)
		j := i + g.r.IntN(len(rs)-i+1)
		second = S(string(rs[i:j]))
	case *types.AttributeValueMemberB:
		i := g.r.IntN(len(v.Value) + 1)
		second = B(string(v.Value[i:]))
	case *types.AttributeValueMemberSS:
		second = S(pick(g, v.Value))
	case *types.AttributeValueMemberNS:
		second = N(g.respell(pick(g, v.Value)))
	case *types.AttributeValueMemberBS:
		second = B(string(pick(g, v.Value)))
	case *types.AttributeValueMemberL:
		if len(v.Value) > 0 {
			second = pick(g, v.Value)
		}
	}
	kid := valueNode(second)
	if second == nil || g.chance(0.2) {
		kid = g.operandFor(first, false)
	}
	return &gnode{kind: kFunc, fn: "contains", kids: []*gnode{first, kid}}
}

// renderer writes a generated condition as text, with random spacing,
// keyword case and extra parentheses, collecting the names and values the
// text uses.
type renderer struct {
	g      *gen
	b      strings.Builder
	names  map[string]string // #placeholder: name
	byName map[string]string // name: #placeholder
	vals   map[string]types.AttributeValue
}

func (g *gen) render(n *gnode) (string, map[string]string, map[string]types.AttributeValue) {
	w := &renderer{g: g, names: map[string]string{}, byName: map[string]string{}, vals: map[string]types.AttributeValue{}}
	w.cond(n, false)
	return w.b.String(), w.names, w.vals
}

func (w *renderer) space() {
	switch w.g.r.IntN(20) {
	case 0:
		w.b.WriteString("\n")
	case 1:
		w.b.WriteString("\t ")
	case 2:
		w.b.WriteString("  ")
	default:
		w.b.WriteString(" ")
	}
}

// keyword writes kw in a random case.
func (w *renderer) keyword(kw string) {
	switch w.g.r.IntN(4) {
	case 0:
		kw = strings.ToLower(kw)
	case 1:
		kw = kw[:1] + strings.ToLower(kw[1:])
	}
	w.space()
	w.b.WriteString(kw)
	w.space()
}

// cond writes a condition; must is set where precedence needs it in
// parentheses. Rarely it writes a second, redundant pair, which DynamoDB
// refuses.
func (w *renderer) cond(n *gnode, must bool) {
	parens := 0
	if must || w.g.chance(0.15) {
		parens = 1
		if w.g.chance(0.01) {
			parens = 2
		}
	}
	w.b.WriteString(strings.Repeat("(", parens))
	switch n.kind {
	case kAnd, kOr:
		kw := "AND"
		if n.kind == kOr {
			kw = "OR"
		}
		for i, k := range n.kids {
			if i > 0 {
				w.keyword(kw)
			}
			w.cond(k, n.kind == kAnd && k.kind == kOr)
		}
	case kNot:
		w.keyword("NOT")
		w.cond(n.kids[0], n.kids[0].kind == kAnd || n.kids[0].kind == kOr)
	case kCompare:
		w.operand(n.kids[0])
		w.space()
		w.b.WriteString(n.op)
		w.space()
		w.operand(n.kids[1])
	case kBetween:
		w.operand(n.kids[0])
		w.keyword("BETWEEN")
		w.operand(n.kids[1])
		w.keyword("AND")
		w.operand(n.kids[2])
	case kIn:
		w.operand(n.kids[0])
		w.keyword("IN")
		w.b.WriteString("(")
		for i, k := range n.kids[1:] {
			if i > 0 {
				w.b.WriteString(",")
				w.space()
			}
			w.operand(k)
		}
		w.b.WriteString(")")
	case kFunc:
		w.call(n.fn, n.kids)
	}
	w.b.WriteString(strings.Repeat(")", parens))
}

func (w *renderer) call(fn string, args []*gnode) {
	w.b.WriteString(fn)
	if w.g.chance(0.3) {
		w.b.WriteString(" ")
	}
	w.b.WriteString("(")
	for i, a := range args {
		if i > 0 {
			w.b.WriteString(",")
			w.space()
		}
		w.operand(a)
	}
	w.b.WriteString(")")
}

var plainName = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_]*$`)

func (w *renderer) operand(n *gnode) {
	paren := w.g.chance(0.05)
	if paren {
		w.b.WriteString("(")
	}
	switch n.kind {
	case kPath:
		for i, el := range n.path {
			switch {
			case el.name == "":
				fmt.Fprintf(&w.b, "[%d]", el.index)
				continue
			case i > 0:
				w.b.WriteString(".")
			}
			plain := plainName.MatchString(el.name) && (!isReserved(el.name) || w.g.chance(0.05))
			if plain && w.g.chance(0.5) {
				w.b.WriteString(el.name)
				continue
			}
			ph, ok := w.byName[el.name]
			if !ok {
				ph = fmt.Sprintf("#n%d", len(w.names))
				w.names[ph], w.byName[el.name] = el.name, ph
			}
			w.b.WriteString(ph)
		}
	case kValue:
		ph := fmt.Sprintf(":v%d", len(w.vals))
		w.vals[ph] = n.value
		w.b.WriteString(ph)
	case kSize:
		w.call("size", n.kids)
	}
	if paren {
		w.b.WriteString(")")
	}
}

// build returns the condition as the SDK's expression builder makes it, or
// ok false where the builder cannot express it (a function of a value, a
// path element it cannot name, ...).
func build(n *gnode) (cb expression.ConditionBuilder, ok bool) {
	ops := make([]expression.OperandBuilder, len(n.kids))
	conds := make([]expression.ConditionBuilder, len(n.kids))
	for i, k := range n.kids {
		if k.kind < kPath {
			if conds[i], ok = build(k); !ok {
				return cb, false
			}
		} else if ops[i], ok = buildOperand(k); !ok {
			return cb, false
		}
	}
	switch n.kind {
	case kAnd:
		return expression.And(conds[0], conds[1], conds[2:]...), true
	case kOr:
		return expression.Or(conds[0], conds[1], conds[2:]...), true
	case kNot:
		return expression.Not(conds[0]), true
	case kCompare:
		f := map[string]func(l, r expression.OperandBuilder) expression.ConditionBuilder{
			"=": expression.Equal, "<>": expression.NotEqual, "<": expression.LessThan,
			"<=": expression.LessThanEqual, ">": expression.GreaterThan, ">=": expression.GreaterThanEqual,
		}[n.op]
		return f(ops[0], ops[1]), true
	case kBetween:
		return expression.Between(ops[0], ops[1], ops[2]), true
	case kIn:
		return expression.In(ops[0], ops[1], ops[2:]...), true
	}
	nb, isName := ops[0].(expression.NameBuilder)
	if !isName {
		return cb, false
	}
	switch n.fn {
	case "attribute_exists":
		return expression.AttributeExists(nb), true
	case "attribute_not_exists":
		return expression.AttributeNotExists(nb), true
	case "attribute_type":
		return expression.AttributeType(nb, expression.DynamoDBAttributeType(n.kids[1].value.(*types.AttributeValueMemberS).Value)), true
	case "begins_with":
		if s, isS := n.kids[1].value.(*types.AttributeValueMemberS); isS {
			return expression.BeginsWith(nb, s.Value), true
		}
	case "contains":
		if n.kids[1].kind == kValue {
			return expression.Contains(nb, n.kids[1].value), true
		}
	}
	return cb, false
}

func buildOperand(n *gnode) (expression.OperandBuilder, bool) {
	switch n.kind {
	case kValue:
		return expression.Value(n.value), true
	case kSize:
		if nb, ok := buildName(n.kids[0]); ok {
			return expression.Size(nb), true
		}
		return nil, false
	}
	return buildName(n)
}

// buildName names a path for the builder, which splits names at dots and
// reads [i] as an index: a path whose names hold neither is written out;
// a single name with a dot is taken as it is.
func buildName(n *gnode) (expression.NameBuilder, bool) {
	if n.kind != kPath {
		return expression.NameBuilder{}, false
	}
	if len(n.path) == 1 && strings.Contains(n.path[0].name, ".") {
		return expression.NameNoDotSplit(n.path[0].name), true
	}
	var b strings.Builder
	for i, el := range n.path {
		switch {
		case el.name == "":
			fmt.Fprintf(&b, "[%d]", el.index)
			continue
		case strings.ContainsAny(el.name, ".[]"):
			return expression.NameBuilder{}, false
		case i > 0:
			b.WriteString(".")
		}
		b.WriteString(el.name)
	}
	return expression.Name(b.String()), true
}
