package plan

import (
	"strconv"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func must(t *testing.T, k ActionKind, path string, v any) Action {
	t.Helper()
	a, err := NewAction(k, path, v)
	require.NoError(t, err)
	return a
}

func TestCompile(t *testing.T) {
	one := &types.AttributeValueMemberN{Value: "1"}
	actions := []Action{
		must(t, Add, "votes", 1), must(t, Append, "votedBy", "b"), must(t, Set, "a.b[2].c", "x"),
		must(t, SetIfNotExists, "created", 5), must(t, Remove, "draft", nil), must(t, Delete, "tags", []string{"old"}),
		must(t, Prepend, "recent", "b"),
		TopAction(Add, "v.1", one), TopAction(Set, "tok", one), TopAction(Remove, "gone", nil),
	}
	e, err := Compile(actions, nil)
	require.NoError(t, err)
	assert.Equal(t, "ADD #u0 :u0, #u9 :u8\n"+
		"DELETE #u7 :u5\n"+
		"REMOVE #u6, #u11\n"+
		"SET #u1 = list_append(if_not_exists(#u1, :u1), :u2), #u2.#u3[2].#u4 = :u3, #u5 = if_not_exists(#u5, :u4), #u8 = list_append(:u6, if_not_exists(#u8, :u7)), #u10 = :u9",
		e.Expression)
	assert.Equal(t, "v.1", e.Names["#u9"], "top-level names are taken whole")
	assert.Equal(t, "votedBy", e.Names["#u1"], "a name used twice has one placeholder")
	assert.Len(t, e.Values, 10)
	for ph := range e.Names {
		assert.Regexp(t, `^#u\d+$`, ph, "never #0, the expression package's")
	}

	_, err = Compile(nil, nil)
	assert.ErrorIs(t, err, ErrNoActions)
	_, err = NewAction(Add, "n", "not a number")
	assert.ErrorIs(t, err, ErrNotNumberOrSet)
}

// A table's encoder options reach the values of update actions given as Go
// values; values given as attribute values are taken as they are.
func TestCompileWithEncoder(t *testing.T) {
	unix := func(o *attributevalue.EncoderOptions) {
		o.EncodeTime = func(t time.Time) (types.AttributeValue, error) {
			return &types.AttributeValueMemberN{Value: strconv.FormatInt(t.Unix(), 10)}, nil
		}
	}
	at := time.Unix(1700000000, 0).UTC()
	a := must(t, Set, "at", at)
	def, err := Compile([]Action{a}, nil)
	require.NoError(t, err)
	assert.Equal(t, &types.AttributeValueMemberS{Value: "2023-11-14T22:13:20Z"}, def.Values[":u0"])
	custom, err := Compile([]Action{a}, NewEncoder([]func(*attributevalue.EncoderOptions){unix}))
	require.NoError(t, err)
	assert.Equal(t, &types.AttributeValueMemberN{Value: "1700000000"}, custom.Values[":u0"], "EncodeTime applied")
	raw := TopAction(Set, "at", &types.AttributeValueMemberS{Value: "x"})
	got, err := Compile([]Action{raw}, NewEncoder([]func(*attributevalue.EncoderOptions){unix}))
	require.NoError(t, err)
	assert.Equal(t, &types.AttributeValueMemberS{Value: "x"}, got.Values[":u0"])
}
