package update

import (
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestCompile(t *testing.T) {
	one := &types.AttributeValueMemberN{Value: "1"}
	e, err := Add("votes", 1).Append("votedBy", "b").Set("a.b[2].c", "x").SetIfNotExists("created", 5).
		Remove("draft").Delete("tags", []string{"old"}).Prepend("recent", "b").
		Compile(TopAction{Op: "ADD", Name: "v.1", Value: one}, TopAction{Op: "SET", Name: "tok", Value: one}, TopAction{Op: "REMOVE", Name: "gone"})
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

	_, err = (*Builder)(nil).Compile()
	assert.ErrorIs(t, err, ErrNoActions)
	e, err = (*Builder)(nil).Compile(TopAction{Op: "REMOVE", Name: "x"})
	require.NoError(t, err)
	assert.Equal(t, "REMOVE #u0", e.Expression)
	_, err = Add("n", "not a number").Compile()
	assert.ErrorIs(t, err, ErrNotNumberOrSet)
}
