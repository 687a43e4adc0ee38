package plan_test

import (
	"context"
	"testing"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/optimist-dynamo/optimist/dynamolocal"
	"github.com/optimist-dynamo/optimist/internal/attrs"
	"github.com/optimist-dynamo/optimist/internal/ddbtest"
	"github.com/optimist-dynamo/optimist/internal/plan"
)

// execFixture is a table with key "pk" and a write of version 1 of item
// "a" carrying token tok, recognised by it.
func execFixture(t *testing.T, drop *ddbtest.DropTransport) (*dynamodb.Client, *plan.Request, plan.Settle) {
	t.Helper()
	srv := dynamolocal.New(t)
	c := srv.Client()
	name := ddbtest.CreateTable(t, c, "pk", types.ScalarAttributeTypeS, "", "")
	if drop != nil {
		c = srv.NewClient(drop.Option())
	}
	key := map[string]types.AttributeValue{"pk": attrs.S("a")}
	w := &plan.Write{Kind: plan.WritePut, T: plan.NewTable(name, "pk", "v"), Key: key, Check: plan.MustNotExist, Token: "mine",
		Item: map[string]types.AttributeValue{"pk": attrs.S("a"), "v": attrs.N(1), "tok": attrs.S("mine")}}
	r, err := w.Render()
	require.NoError(t, err)
	return c, r, plan.Settle{Ours: func(item map[string]types.AttributeValue) bool { return w.Landed(item, "tok") }}
}

func TestExecAppliedThenRefused(t *testing.T) {
	ctx := context.Background()
	c, r, settle := execFixture(t, nil)
	res := plan.Exec(ctx, c, r, plan.Call{Settle: settle})
	require.NoError(t, res.Err)
	assert.Equal(t, plan.Applied, res.Outcome)
	assert.False(t, res.Lost())

	res = plan.Exec(ctx, c, r, plan.Call{Settle: settle})
	assert.Equal(t, plan.Refused, res.Outcome)
	assert.True(t, res.ConditionFailed())
	assert.Equal(t, attrs.S("mine"), res.Item["tok"], "the refusal carries the item as stored (ALL_OLD)")
}

// A lost answer whose resend fails its condition is settled by the item the
// refusal returns: our token, so Applied, with no read.
func TestExecLostAnswerSettledByRefusal(t *testing.T) {
	drop := &ddbtest.DropTransport{DropOps: map[string]int{"PutItem": 1}}
	c, r, settle := execFixture(t, drop)
	res := plan.Exec(context.Background(), c, r, plan.Call{Settle: settle})
	assert.Equal(t, plan.Applied, res.Outcome)
	assert.True(t, res.Lost())
	assert.False(t, res.Read)
	assert.True(t, res.Seen())
	assert.Equal(t, 2, drop.Calls("PutItem"))
	assert.Equal(t, 0, drop.Calls("GetItem"))
}

// A lost answer of a write that is never resent is settled by one read.
func TestExecLostAnswerSettledByRead(t *testing.T) {
	drop := &ddbtest.DropTransport{DropOps: map[string]int{"PutItem": 1}}
	c, r, settle := execFixture(t, drop)
	res := plan.Exec(context.Background(), c, r, plan.Call{Settle: settle, NoResend: true})
	assert.Equal(t, plan.Applied, res.Outcome)
	assert.True(t, res.Read)
	assert.Equal(t, 1, drop.Calls("PutItem"))
	assert.Equal(t, 1, drop.Calls("GetItem"))
}

// A write that cannot be recognised ends Unknown after a lost answer, and
// reads nothing.
func TestExecLostAnswerUnknown(t *testing.T) {
	drop := &ddbtest.DropTransport{DropOps: map[string]int{"PutItem": 1}}
	c, r, _ := execFixture(t, drop)
	res := plan.Exec(context.Background(), c, r, plan.Call{})
	assert.Equal(t, plan.Unknown, res.Outcome)
	assert.True(t, res.ConditionFailed(), "the resend met the first attempt's item")
	assert.Error(t, res.LostErr)
	assert.Equal(t, 0, drop.Calls("GetItem"))
}

// Render renders a Write once: the Request carries the condition and the
// compiled update, and a transaction action is made from it, not from a new
// rendering (the strings are the Request's own).
func TestRenderOnce(t *testing.T) {
	tb := plan.NewTable("t", "pk", "v")
	w := &plan.Write{Kind: plan.WriteUpdate, T: tb, Key: map[string]types.AttributeValue{"pk": attrs.S("a")},
		Check: plan.MustBeVersion, Expected: 3, Guard: true,
		Conds:   []expression.ConditionBuilder{expression.Name("x").Equal(expression.Value(1))},
		Actions: []plan.Action{plan.TopAction(plan.Set, "x", attrs.N(2)), plan.TopAction(plan.Add, "v", attrs.N(1))}}
	r, err := w.Render()
	require.NoError(t, err)
	ti := r.TransactItem()
	require.NotNil(t, ti.Update)
	assert.Same(t, r.Update.UpdateExpression, ti.Update.UpdateExpression)
	assert.Same(t, r.Update.ConditionExpression, ti.Update.ConditionExpression)
	assert.Equal(t, types.ReturnValuesOnConditionCheckFailureAllOld, ti.Update.ReturnValuesOnConditionCheckFailure)
	cp := plan.CopyTransactItem(ti)
	cp.Update.ExpressionAttributeValues[":x"] = attrs.N(9)
	assert.NotContains(t, r.Update.ExpressionAttributeValues, ":x", "a copied action shares no map with the request")
}
