package cond

import (
	"errors"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/require"
)

// requireMessage checks that err is a ValidationException with DynamoDB's
// message msg.
func requireMessage(t *testing.T, err error, msg string) {
	t.Helper()
	require.Error(t, err)
	require.True(t, errors.Is(err, ErrInvalid), "%v", err)
	require.Equal(t, msg, Message(err))
}

// TestProject checks projections against answers measured on DynamoDB
// Local, on one item.
func TestProject(t *testing.T) {
	item := attrs(
		"pk", S("pj"), "a", N("1"),
		"l", L(N("0"), M("x", N("1"), "y", N("2")), N("2"), L(S("a"), S("b"))),
		"m", M("b", M("c", S("c"), "d", S("d")), "e", S("e")),
	)
	cases := []struct {
		expr string
		nm   map[string]string
		want map[string]types.AttributeValue
		msg  string
	}{
		{"l[2], l[0]", nil, attrs("l", L(N("0"), N("2"))), ""},
		{"l[3][1], l[1].y, l[9]", nil, attrs("l", L(M("y", N("2")), L(S("b")))), ""},
		{"m.b.c, m.e, m.zz, zz.y", nil, attrs("m", M("e", S("e"), "b", M("c", S("c")))), ""},
		{"l[3][0], l[1].y, l[0]", nil, attrs("l", L(N("0"), M("y", N("2")), L(S("a")))), ""},
		{"l[1].x, l[1].y", nil, attrs("l", L(M("x", N("1"), "y", N("2")))), ""},
		{"a.x, l.x, m[0]", nil, attrs(), ""},
		{"m.zz", nil, attrs(), ""},
		{"l[9]", nil, attrs(), ""},
		{"#n", names("#n", "a"), attrs("a", N("1")), ""},
		{"a, size", nil, attrs("a", N("1")), ""},
		{"l [ 1 ] . x", nil, attrs("l", L(M("x", N("1")))), ""},
		{"a, a", nil, nil, "Invalid ProjectionExpression: Two document paths overlap with each other; must remove or rewrite one of these paths; path one: [a], path two: [a]"},
		{"m.b, m.b.c", nil, nil, "Invalid ProjectionExpression: Two document paths overlap with each other; must remove or rewrite one of these paths; path one: [m, b], path two: [m, b, c]"},
		{"l[1], l.x", nil, nil, "Invalid ProjectionExpression: Two document paths conflict with each other; must remove or rewrite one of these paths; path one: [l, [1]], path two: [l, x]"},
		{"name", nil, nil, "Invalid ProjectionExpression: Attribute name is a reserved keyword; reserved keyword: name"},
		{"a,", nil, nil, `Invalid ProjectionExpression: Syntax error; token: "<EOF>", near: ","`},
		{"a b", nil, nil, `Invalid ProjectionExpression: Syntax error; token: "b", near: "a b"`},
		{"l[01]", nil, nil, `Invalid ProjectionExpression: Syntax error; token: "1", near: "01]"`},
		{"#q", nil, nil, "Invalid ProjectionExpression: An expression attribute name used in the document path is not defined; attribute name: #q"},
		{"", nil, nil, "Invalid ProjectionExpression: The expression can not be empty;"},
		{" \n", nil, nil, "Invalid ProjectionExpression: Syntax error; token: \"<EOF>\", near: \" \n\""},
	}
	for _, c := range cases {
		t.Run(c.expr, func(t *testing.T) {
			p, err := ParseProjection(c.expr)
			var paths []Path
			if err == nil {
				paths, err = p.Paths(c.nm)
			}
			if c.msg != "" {
				requireMessage(t, err, c.msg)
				return
			}
			require.NoError(t, err)
			require.Equal(t, formatMap(c.want), formatMap(Project(item, paths)))
		})
	}
}

func TestPathString(t *testing.T) {
	p := Path{{Name: "a"}, {Name: "b"}, {Index: 2, IsIndex: true}, {Name: "c"}}
	require.Equal(t, "a.b[2].c", p.String())
	require.Equal(t, "[a, b, [2], c]", p.listing())
}

// TestKeyCondition checks key conditions against answers measured on
// DynamoDB Local, on a table with hash key pk (S) and range key sk (N).
func TestKeyCondition(t *testing.T) {
	vals := attrs(":p", S("pj"), ":n", N("1"), ":m", N("5"))
	cases := []struct {
		expr       string
		hash       KeyTerm
		rng        *KeyTerm
		msg        string
		hashOnlMsg string // the message on a table without range key, if it differs
	}{
		{"pk = :p", KeyTerm{"pk", "=", []types.AttributeValue{S("pj")}}, nil, "", ""},
		{":p = pk", KeyTerm{"pk", "=", []types.AttributeValue{S("pj")}}, nil, "", ""},
		{"(pk = :p)", KeyTerm{"pk", "=", []types.AttributeValue{S("pj")}}, nil, "", ""},
		{"pk = :p AND sk < :n", KeyTerm{"pk", "=", []types.AttributeValue{S("pj")}}, &KeyTerm{"sk", "<", []types.AttributeValue{N("1")}}, "", "Query key condition not supported"},
		{"sk < :n AND pk = :p", KeyTerm{"pk", "=", []types.AttributeValue{S("pj")}}, &KeyTerm{"sk", "<", []types.AttributeValue{N("1")}}, "", "Query key condition not supported"},
		{":n < sk AND pk = :p", KeyTerm{"pk", "=", []types.AttributeValue{S("pj")}}, &KeyTerm{"sk", ">", []types.AttributeValue{N("1")}}, "", "Query key condition not supported"},
		{"pk = :p AND sk BETWEEN :n AND :m", KeyTerm{"pk", "=", []types.AttributeValue{S("pj")}}, &KeyTerm{"sk", "BETWEEN", []types.AttributeValue{N("1"), N("5")}}, "", "Query key condition not supported"},
		{"pk = :p AND (sk = :n)", KeyTerm{"pk", "=", []types.AttributeValue{S("pj")}}, &KeyTerm{"sk", "=", []types.AttributeValue{N("1")}}, "", "Query key condition not supported"},
		{"pk = :p AND zz < :n", KeyTerm{}, nil, "Query condition missed key schema element", "Query key condition not supported"},
		{"a = :p", KeyTerm{}, nil, "Query condition missed key schema element", ""},
		{"pk < :p", KeyTerm{}, nil, "Query key condition not supported", ""},
		{"begins_with(pk, :p)", KeyTerm{}, nil, "Query key condition not supported", ""},
		{"pk = :p OR pk = :p", KeyTerm{}, nil, "Invalid operator used in KeyConditionExpression: OR", ""},
		{"pk = :p AND NOT a = :p", KeyTerm{}, nil, "Invalid operator used in KeyConditionExpression: NOT", ""},
		{"pk IN (:p)", KeyTerm{}, nil, "Invalid operator used in KeyConditionExpression: IN", ""},
		{"pk = :p AND sk <> :n", KeyTerm{}, nil, "Invalid operator used in KeyConditionExpression: <>", ""},
		{"pk = :p AND contains(sk, :n)", KeyTerm{}, nil, "Invalid operator used in KeyConditionExpression: contains", ""},
		{"pk = :p AND attribute_exists(sk)", KeyTerm{}, nil, "Invalid operator used in KeyConditionExpression: attribute_exists", ""},
		{"pk = :p AND pk = :p", KeyTerm{}, nil, "KeyConditionExpressions must only contain one condition per key", ""},
		{"pk = :p AND sk = :n AND sk = :n", KeyTerm{}, nil, "KeyConditionExpressions must only contain one condition per key", ""},
		{"pk = :p AND size(sk) = :n", KeyTerm{}, nil, "KeyConditionExpressions cannot contain nested operations", ""},
		{"pk = :p AND sk.x = :n", KeyTerm{}, nil, "Key attributes must be scalars; list random access '[]' and map lookup '.' are not allowed: Key: sk", ""},
		{"pk = :q", KeyTerm{}, nil, "Invalid KeyConditionExpression: An expression attribute value used in expression is not defined; attribute value: :q", ""},
		{"pk = pk", KeyTerm{}, nil, "Invalid KeyConditionExpression: The first operand must be distinct from the remaining operands for this operator or function; operator: =, first operand: [pk]", ""},
		{"pk = :p AND begins_with(sk, :n)", KeyTerm{}, nil, "Invalid KeyConditionExpression: Incorrect operand type for operator or function; operator or function: begins_with, operand type: N", ""},
		{"pk = :p AND sk BETWEEN :m AND :n", KeyTerm{}, nil, "Invalid KeyConditionExpression: The BETWEEN operator requires upper bound to be greater than or equal to lower bound; lower bound operand: AttributeValue: {N:5}, upper bound operand: AttributeValue: {N:1}", ""},
	}
	for _, c := range cases {
		t.Run(c.expr, func(t *testing.T) {
			for _, rangeKey := range []string{"sk", ""} {
				msg := c.msg
				if rangeKey == "" && c.hashOnlMsg != "" {
					msg = c.hashOnlMsg
				}
				kc, err := ParseKeyCondition(c.expr, nil, vals)
				var hash KeyTerm
				var rng *KeyTerm
				if err == nil {
					hash, rng, err = kc.Schema("pk", rangeKey)
				}
				if msg != "" {
					requireMessage(t, err, msg)
					continue
				}
				require.NoError(t, err)
				require.Equal(t, c.hash, hash)
				require.Equal(t, c.rng, rng)
			}
		})
	}
}

// TestConditionMessages checks the messages of condition errors against
// DynamoDB Local's, for each parameter that takes a condition.
func TestConditionMessages(t *testing.T) {
	vals := attrs(":p", S("pj"), ":n", N("1"), ":t", BOOL(true), ":q", S("Q"), ":z", S("z"), ":a", S("a"))
	cases := []struct{ expr, msg string }{
		{"a = :p AND", `Syntax error; token: "<EOF>", near: "AND"`},
		{"a = :p AND :n", `Syntax error; token: "<EOF>", near: ":n"`},
		{"((a = :p)) AND b = :n", "The expression has redundant parentheses;"},
		{"a BETWEEN :p AND :n", "The BETWEEN operator requires same data type for lower and upper bounds; lower bound operand: AttributeValue: {S:pj}, upper bound operand: AttributeValue: {N:1}"},
		{"b = :n AND a BETWEEN :z AND :a", "The BETWEEN operator requires upper bound to be greater than or equal to lower bound; lower bound operand: AttributeValue: {S:z}, upper bound operand: AttributeValue: {S:a}"},
		{"a < :t AND b = :p", "Incorrect operand type for operator or function; operator or function: <, operand type: BOOL"},
		{"SIZE(a) = :n", "Invalid function name; function: SIZE"},
		{"size(a, b) = :n", "Incorrect number of operands for operator or function; operator or function: size, number of operands: 2"},
		{"attribute_type(a, :n)", "Incorrect operand type for operator or function; operator or function: attribute_type, operand type: N"},
		{"attribute_type(a, :q)", "Invalid attribute type name found; type: Q, valid types: {N,BS,L,B,NULL,M,S,SS,NS,BOOL}"},
		{"size(:n) = :n", "Incorrect operand type for operator or function; operator or function: size, operand type: N"},
		{"attribute_exists(:p)", "Operator or function requires a document path; operator or function: attribute_exists"},
		{"a IN (:p) AND a = a", "The first operand must be distinct from the remaining operands for this operator or function; operator: =, first operand: [a]"},
		{"a = :undefined", "An expression attribute value used in expression is not defined; attribute value: :undefined"},
		{"#u = :p", "An expression attribute name used in the document path is not defined; attribute name: #u"},
	}
	for _, c := range cases {
		for _, param := range []string{"ConditionExpression", "FilterExpression"} {
			e, err := ParseAs(c.expr, param)
			if err == nil {
				_, err = e.Eval(nil, nil, vals)
			}
			requireMessage(t, err, "Invalid "+param+": "+c.msg)
		}
	}
}

func TestNames(t *testing.T) {
	e, err := Parse("#a.#b = :x OR contains(#a, :y) OR #c = :x")
	require.NoError(t, err)
	require.Equal(t, []string{"#a", "#b", "#c"}, e.Names())
	require.Equal(t, []string{":x", ":y"}, e.Values())
	u, err := ParseUpdate("SET #a = :x + #b REMOVE #c[1] ADD d :y DELETE #a.#d :z")
	require.NoError(t, err)
	require.Equal(t, []string{"#a", "#b", "#c", "#d"}, u.Names())
	require.Equal(t, []string{":x", ":y", ":z"}, u.Values())
	paths, err := u.Paths(names("#a", "A", "#b", "B", "#c", "C", "#d", "D"))
	require.NoError(t, err)
	require.Equal(t, []Path{{{Name: "A"}}, {{Name: "C"}, {Index: 1, IsIndex: true}}, {{Name: "d"}}, {{Name: "A"}, {Name: "D"}}}, paths)
	p, err := ParseProjection("#a, b.#c")
	require.NoError(t, err)
	require.Equal(t, []string{"#a", "#c"}, p.Names())
}

// TestNumbers checks CanonicalNumber against DynamoDB Local's answers to
// PutItem then GetItem.
func TestNumbers(t *testing.T) {
	for in, want := range map[string]string{
		"01.50": "1.5", "1E2": "100", "-0": "0", "+5": "5", ".5": "0.5", "5.": "5", "1e+2": "100", "-0.000": "0", "100.0": "100",
		"12345678901234567890123456789012345678000": "12345678901234567890123456789012345678000",
		"9.9E125": "99" + string(make([]byte, 0)) + zeros(124),
		"1E-130":  "0." + zeros(129) + "1",
	} {
		got, err := CanonicalNumber(in)
		require.NoError(t, err, in)
		require.Equal(t, want, got, in)
	}
	for in, msg := range map[string]string{
		"NaN":      "A value provided cannot be converted into a number",
		"Infinity": "A value provided cannot be converted into a number",
		" 5":       "A value provided cannot be converted into a number",
		"0x10":     "A value provided cannot be converted into a number",
		"1e126":    "Number overflow. Attempting to store a number with magnitude larger than supported range",
		"1E-131":   "Number underflow. Attempting to store a number with magnitude smaller than supported range",
		"123456789012345678901234567890123456789": "DynamoDB only supports precision up to 38 digits",
	} {
		_, err := CanonicalNumber(in)
		requireMessage(t, err, msg)
	}
}

func zeros(n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = '0'
	}
	return string(b)
}

func TestCompareAndEqual(t *testing.T) {
	c, ok := CompareValues(N("10"), N("9.5"))
	require.True(t, ok)
	require.Equal(t, 1, c)
	c, ok = CompareValues(S("a"), S("b"))
	require.True(t, ok)
	require.Equal(t, -1, c)
	_, ok = CompareValues(S("1"), N("1"))
	require.False(t, ok)
	_, ok = CompareValues(BOOL(true), BOOL(true))
	require.False(t, ok)
	require.True(t, Equal(NS("1", "2"), NS("2.0", "1")))
	require.True(t, Equal(M("a", L(N("1E0"))), M("a", L(N("1")))))
	require.False(t, Equal(L(N("1"), N("2")), L(N("2"), N("1"))))
}

// TestValidateValue checks the messages DynamoDB Local gives for a bad
// value of ExpressionAttributeValues (there with the context
// "ExpressionAttributeValues contains invalid value: ... for key :v").
func TestValidateValue(t *testing.T) {
	cases := []struct {
		v   types.AttributeValue
		msg string
	}{
		{SS(), "One or more parameter values were invalid: An string set  may not be empty"},
		{NS(), "One or more parameter values were invalid: An number set  may not be empty"},
		{BS(), "One or more parameter values were invalid: Binary sets should not be empty"},
		{SS("b", "a", "b"), "One or more parameter values were invalid: Input collection [b, a, b] contains duplicates"},
		{NS("1", "1.0"), "Input collection contains duplicates"},
		{BS("x", "x"), "One or more parameter values were invalid: Input collection of type BS contains duplicates."},
		{NS("x"), "A value provided cannot be converted into a number"},
		{N(""), "A value provided cannot be converted into a number"},
		{&types.AttributeValueMemberNULL{Value: false}, "One or more parameter values were invalid: Null attribute value types must have the value of true"},
		{M("", S("a")), "Empty attribute name"},
		{L(SS()), "One or more parameter values were invalid: An string set  may not be empty"},
		{N("1E126"), "Number overflow. Attempting to store a number with magnitude larger than supported range"},
		{nil, "Supplied AttributeValue is empty, must contain exactly one of the supported datatypes"},
	}
	for _, c := range cases {
		requireMessage(t, ValidateValue(c.v), c.msg)
	}
	for _, v := range []types.AttributeValue{S(""), B(""), SS(""), L(), M()} {
		require.NoError(t, ValidateValue(v))
	}
	_, err := applyString("SET a = :v", nil, nil, attrs(":v", SS()))
	requireMessage(t, err, "ExpressionAttributeValues contains invalid value: One or more parameter values were invalid: An string set  may not be empty for key :v")
}
