package cond

import (
	"errors"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/require"
)

// updateVals are the values the update cases use; each case gets only
// those its expression names.
var updateVals = attrs(
	":x", N("1"), ":y", N("2.5"), ":l", L(S("z")), ":s", SS("q"), ":ns", NS("5"),
	":str", S("s"), ":m", M("k", S("v")), ":null", NULL(), ":t", BOOL(true),
)

// TestUpdateApply checks Apply against answers measured on DynamoDB Local:
// the item after the update (without the key), or the error's message.
func TestUpdateApply(t *testing.T) {
	list := func() types.AttributeValue { return L(N("0"), N("1"), N("2"), N("3")) }
	cases := []struct {
		item map[string]types.AttributeValue
		expr string
		want map[string]types.AttributeValue
		msg  string
	}{
		{attrs("n", N("1")), "SET n = n + :x", attrs("n", N("2")), ""},
		{attrs("n", N("1")), "SET n = n + :str", nil, "Invalid UpdateExpression: Incorrect operand type for operator or function; operator or function: +, operand type: S"},
		{attrs("n", N("1")), "SET n = :str - :x", nil, "Invalid UpdateExpression: Incorrect operand type for operator or function; operator or function: -, operand type: S"},
		{attrs("n", N("9.9999999999999999999999999999999999999E+125")), "SET n = n + n", nil, "DynamoDB only supports precision up to 38 digits"},
		{attrs("n", N("9.9999999999999999999999999999999999999E+125"), "m", N("1E+88")), "SET a = n + m", nil, "Number overflow. Attempting to store a number with magnitude larger than supported range"},
		{attrs("n", N("1E-130")), "SET n = n - :x", nil, "DynamoDB only supports precision up to 38 digits"},
		{attrs("n", N("1E-130")), "SET n = n - n", attrs("n", N("0.0000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000")), ""},
		{attrs("n", N("2.5"), "o", N("0.5"), "q", N("1E-5"), "r", N("1E+5")), "SET a = n + n, b = o + o, d = q - q, e = r - r, f = r + q, g = r + r",
			attrs("n", N("2.5"), "o", N("0.5"), "q", N("1E-5"), "r", N("1E+5"), "a", N("5.0"), "b", N("1.0"), "d", N("0.00000"), "e", N("0"), "f", N("100000.00001"), "g", N("200000")), ""},
		{attrs("n", N("1")), "SET n = m + :x", nil, "The provided expression refers to an attribute that does not exist in the item"},
		{attrs("a", M()), "SET a.b.c = :x", nil, "The document path provided in the update expression is invalid for update"},
		{nil, "SET a.b = :x", nil, "The document path provided in the update expression is invalid for update"},
		{nil, "SET a = :x, a.b = :x", nil, "Invalid UpdateExpression: Two document paths overlap with each other; must remove or rewrite one of these paths; path one: [a], path two: [a, b]"},
		{nil, "SET e = :x, a = :x, b = :x, e = :x", nil, "Invalid UpdateExpression: Two document paths overlap with each other; must remove or rewrite one of these paths; path one: [e], path two: [e]"},
		{nil, "SET c = :x, a.b = :x, a = :x", nil, "Invalid UpdateExpression: Two document paths overlap with each other; must remove or rewrite one of these paths; path one: [a, b], path two: [a]"},
		{nil, "SET a = :x, a = :x REMOVE b.c, b[1]", nil, "Invalid UpdateExpression: Two document paths conflict with each other; must remove or rewrite one of these paths; path one: [b, c], path two: [b, [1]]"},
		{nil, "SET pk = :str", nil, "One or more parameter values were invalid: Cannot update attribute pk. This attribute is part of the key"},
		{nil, "SET a = :undefined", nil, "Invalid UpdateExpression: An expression attribute value used in expression is not defined; attribute value: :undefined"},
		{nil, "SET a = #x", nil, "Invalid UpdateExpression: An expression attribute name used in the document path is not defined; attribute name: #x"},
		{nil, "SET a = :x +", nil, `Invalid UpdateExpression: Syntax error; token: "<EOF>", near: "+"`},
		{nil, "SET a = :x,", nil, `Invalid UpdateExpression: Syntax error; token: "<EOF>", near: ","`},
		{nil, "SET a :x", nil, `Invalid UpdateExpression: Syntax error; token: ":x", near: "a :x"`},
		{nil, "SET", nil, `Invalid UpdateExpression: Syntax error; token: "<EOF>", near: "SET"`},
		{nil, "PUT a = :x", nil, `Invalid UpdateExpression: Syntax error; token: "PUT", near: "PUT a"`},
		{nil, "SET a.b[x] = :x", nil, `Invalid UpdateExpression: Syntax error; token: "x", near: "[x]"`},
		{nil, "SET a = :x + :x + :x", nil, `Invalid UpdateExpression: Syntax error; token: "+", near: ":x + :x"`},
		{nil, "SET a = :x - (:x + :x)", nil, `Invalid UpdateExpression: Syntax error; token: "+", near: ":x + :x"`},
		{attrs("n", N("1")), "SET n = (n + :x)", attrs("n", N("2")), ""},
		{attrs("n", N("1")), "SET n = ((n) - :x)", attrs("n", N("0")), ""},
		{attrs("n", N("1")), "SET n = (n) + (:x)", attrs("n", N("2")), ""},
		{nil, "SET a = (:x + :x) + :x", nil, `Invalid UpdateExpression: Syntax error; token: "+", near: ") + :x"`},
		{nil, "SET a = ((:x + :x))", nil, "Invalid UpdateExpression: The expression has redundant parentheses;"},
		{nil, "SET a = ((:x)) + :x", nil, "Invalid UpdateExpression: The expression has redundant parentheses;"},
		{nil, "SET a = list_append(((:l)), :l)", nil, "Invalid UpdateExpression: The expression has redundant parentheses;"},
		{nil, "SET a = ((:x + :x)", nil, `Invalid UpdateExpression: Syntax error; token: "<EOF>", near: ")"`},
		{nil, "ADD a :str, b :undefined", nil, "Invalid UpdateExpression: An expression attribute value used in expression is not defined; attribute value: :undefined"},
		{nil, "ADD b :undefined, a :str", nil, "Invalid UpdateExpression: Incorrect operand type for operator or function; operator: ADD, operand type: STRING, typeSet: ALLOWED_FOR_ADD_OPERAND"},
		{nil, "SET a = :str + :x, b = :undefined", nil, "Invalid UpdateExpression: An expression attribute value used in expression is not defined; attribute value: :undefined"},
		{nil, "SET b = :undefined, a = :str + :x", nil, "Invalid UpdateExpression: Incorrect operand type for operator or function; operator or function: +, operand type: S"},
		{nil, "DELETE a :str, b :undefined", nil, "Invalid UpdateExpression: An expression attribute value used in expression is not defined; attribute value: :undefined"},
		{nil, "SET a = :str + :undefined", nil, "Invalid UpdateExpression: An expression attribute value used in expression is not defined; attribute value: :undefined"},
		{nil, "SET a = list_append(:x, :undefined)", nil, "Invalid UpdateExpression: An expression attribute value used in expression is not defined; attribute value: :undefined"},
		{nil, "SET a = if_not_exists(:x, :x) + :undefined", nil, "Invalid UpdateExpression: Operator or function requires a document path; operator or function: if_not_exists"},
		{nil, "SET a = list_append(:undefined, if_not_exists(:x, :x))", nil, "Invalid UpdateExpression: An expression attribute value used in expression is not defined; attribute value: :undefined"},
		{nil, "SET a = :str + if_not_exists(:x, :x)", nil, "Invalid UpdateExpression: Operator or function requires a document path; operator or function: if_not_exists"},
		{nil, "SET a = list_append(:str, if_not_exists(:x, :x))", nil, "Invalid UpdateExpression: Operator or function requires a document path; operator or function: if_not_exists"},
		{nil, "SET a = :undefined + list_append(:l, :l)", nil, "Invalid UpdateExpression: The function is not allowed to be used this way in an expression; function: list_append"},
		{nil, "SET a = list_append(list_append(:l, :l), :l)", nil, "Invalid UpdateExpression: The function is not allowed to be used this way in an expression; function: list_append"},
		{nil, "SET a = if_not_exists(b, list_append(:l, :l))", nil, "Invalid UpdateExpression: The function is not allowed to be used this way in an expression; function: list_append"},
		{nil, "SET a == :x", nil, `Invalid UpdateExpression: Syntax error; token: "=", near: "== :x"`},
		{nil, "REMOVE a = :x", nil, `Invalid UpdateExpression: Syntax error; token: "=", near: "a = :x"`},
		{nil, "SET #  = :x", nil, `Invalid UpdateExpression: Syntax error; token: "#", near: "SET #  ="`},
		{nil, "SET a = :x SET b = :x", nil, `Invalid UpdateExpression: The "SET" section can only be used once in an update expression;`},
		{nil, "", nil, "Invalid UpdateExpression: The expression can not be empty;"},
		{nil, "  ", nil, `Invalid UpdateExpression: Syntax error; token: "<EOF>", near: "  "`},
		{nil, "SET a = list_append(:l)", nil, "Invalid UpdateExpression: Incorrect number of operands for operator or function; operator or function: list_append, number of operands: 1"},
		{nil, "SET a = list_append(:x, :l)", nil, "Invalid UpdateExpression: Incorrect operand type for operator or function; operator or function: list_append, operand type: N"},
		{nil, "SET a = foo(:x)", nil, "Invalid UpdateExpression: Invalid function name; function: foo"},
		{nil, "SET a = size(:l)", nil, "Invalid UpdateExpression: The function is not allowed in an update expression; function: size"},
		{nil, "SET name = :x", nil, "Invalid UpdateExpression: Attribute name is a reserved keyword; reserved keyword: name"},
		{nil, "SET a = if_not_exists(:x, :x)", nil, "Invalid UpdateExpression: Operator or function requires a document path; operator or function: if_not_exists"},
		{nil, "DELETE a :x", nil, "Invalid UpdateExpression: Incorrect operand type for operator or function; operator: DELETE, operand type: NUMBER, typeSet: ALLOWED_FOR_DELETE_OPERAND"},
		{nil, "ADD q :l", nil, "Invalid UpdateExpression: Incorrect operand type for operator or function; operator: ADD, operand type: LIST, typeSet: ALLOWED_FOR_ADD_OPERAND"},
		{nil, "ADD q :str", nil, "Invalid UpdateExpression: Incorrect operand type for operator or function; operator: ADD, operand type: STRING, typeSet: ALLOWED_FOR_ADD_OPERAND"},
		{nil, "SET size = :str", attrs("size", S("s")), ""},
		{attrs("l", list()), "SET l[10] = :x, l[7] = :str", attrs("l", L(N("0"), N("1"), N("2"), N("3"), S("s"), N("1"))), ""},
		{attrs("l", list()), "REMOVE l[1], l[2], l[9]", attrs("l", L(N("0"), N("3"))), ""},
		{attrs("l", list()), "REMOVE l[0] SET l[2] = :str", attrs("l", L(N("1"), S("s"), N("3"))), ""},
		{attrs("l", list()), "REMOVE l[0] SET l[5] = :str, l[4] = :x", attrs("l", L(N("1"), N("2"), N("3"), N("1"), S("s"))), ""},
		{attrs("l", list()), "REMOVE l[3] SET l[4] = :str", attrs("l", L(N("0"), N("1"), N("2"), S("s"))), ""},
		{attrs("l", list()), "SET l = list_append(l, :l)", attrs("l", L(N("0"), N("1"), N("2"), N("3"), S("z"))), ""},
		{attrs("l", list()), "SET l = list_append(m, :l)", nil, "The provided expression refers to an attribute that does not exist in the item"},
		{attrs("l", list()), "SET q = if_not_exists(q, :x), r = if_not_exists(l, :x)", attrs("l", list(), "q", N("1"), "r", list()), ""},
		{attrs("l", list()), "SET q = if_not_exists(q.z, :x)", attrs("l", list(), "q", N("1")), ""},
		{nil, "ADD q :x, r :s, t :ns", attrs("q", N("1"), "r", SS("q"), "t", NS("5")), ""},
		{attrs("q", NS("1")), "ADD q :x", nil, "An operand in the update expression has an incorrect data type"},
		{attrs("q", NS("1")), "ADD q :s", nil, "An operand in the update expression has an incorrect data type"},
		{attrs("q", SS("q")), "DELETE q :s", attrs(), ""},
		{attrs("q", SS("q", "r")), "DELETE q :s", attrs("q", SS("r")), ""},
		{attrs("q", SS("q", "r")), "DELETE q :ns", nil, "An operand in the update expression has an incorrect data type"},
		{nil, "DELETE q :s", attrs(), ""},
		{attrs("q", S("x")), "ADD q :x", nil, "An operand in the update expression has an incorrect data type"},
		{attrs("l", list()), "ADD l[1] :x", attrs("l", L(N("0"), N("2"), N("2"), N("3"))), ""},
		{attrs("l", list()), "ADD l[9] :x", attrs("l", L(N("0"), N("1"), N("2"), N("3"), N("1"))), ""},
		{attrs("l", list()), "SET l[1] = l[2] + :x", attrs("l", L(N("0"), N("3"), N("2"), N("3"))), ""},
		{attrs("l", list()), "SET l.a = :x", nil, "The document path provided in the update expression is invalid for update"},
		{attrs("l", list()), "SET l = l + :x", nil, "An operand in the update expression has an incorrect data type"},
		{attrs("m", M("a", N("1"))), "SET m.b = m.a, m.a = :x", attrs("m", M("a", N("1"), "b", N("1"))), ""},
		{attrs("m", M("a", N("1"))), "SET m.b = m.a REMOVE m.a", attrs("m", M("b", N("1"))), ""},
		{attrs("m", N("1")), "REMOVE m[0]", nil, "The document path provided in the update expression is invalid for update"},
		{attrs("m", M()), "REMOVE m.a.b", nil, "The document path provided in the update expression is invalid for update"},
		{attrs("m", M()), "DELETE m.a :s", attrs("m", M()), ""},
		{attrs("m", NS("1", "2")), "ADD m :ns", attrs("m", NS("1", "2", "5")), ""},
		{attrs("m", NS("1", "2")), "DELETE m :ns", attrs("m", NS("1", "2")), ""},
		{nil, "set a = :x remove b", attrs("a", N("1")), ""},
	}
	for _, c := range cases {
		t.Run(c.expr, func(t *testing.T) {
			got, err := applyString(c.expr, c.item, nil, updateVals)
			if c.msg != "" {
				require.Error(t, err)
				require.True(t, errors.Is(err, ErrInvalid), "%v", err)
				require.Equal(t, c.msg, Message(err))
				return
			}
			require.NoError(t, err)
			require.Equal(t, formatMap(c.want), formatMap(got))
		})
	}
}

// applyString parses expr and applies it with the values it uses, on a
// table whose key is pk.
func applyString(expr string, item map[string]types.AttributeValue, nm map[string]string, vals map[string]types.AttributeValue) (map[string]types.AttributeValue, error) {
	u, err := ParseUpdate(expr)
	if err != nil {
		return nil, err
	}
	used := map[string]types.AttributeValue{}
	for _, v := range u.Values() {
		if x, ok := vals[v]; ok {
			used[v] = x
		}
	}
	return u.Apply(item, nm, used, []string{"pk"})
}

func TestApplyLeavesItemAlone(t *testing.T) {
	item := attrs("l", L(N("0"), N("1")), "m", M("a", SS("x", "y")))
	before := formatMap(item)
	_, err := applyString("SET l[0] = :x, l[5] = :x, m.b = :x DELETE m.a :s", item, nil, attrs(":x", N("1"), ":s", SS("x")))
	require.NoError(t, err)
	require.Equal(t, before, formatMap(item))
}

// TestExpressionSizeMessages checks DynamoDB Local's messages for an
// expression over 4 KB: update and projection expressions give no size,
// conditions do.
func TestExpressionSizeMessages(t *testing.T) {
	pad := strings.Repeat(" ", 4100)
	_, err := ParseUpdate("SET a = :v" + pad)
	require.Equal(t, "Invalid UpdateExpression: Expression size has exceeded the maximum allowed size;", Message(err))
	_, err = ParseProjection("a" + pad)
	require.Equal(t, "Invalid ProjectionExpression: Expression size has exceeded the maximum allowed size;", Message(err))
	_, err = ParseAs("a = :v"+pad, "ConditionExpression")
	require.Equal(t, "Invalid ConditionExpression: Expression size has exceeded the maximum allowed size; expression size: 4106", Message(err))
}
