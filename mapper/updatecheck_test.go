package mapper_test

// Table.Update checks its values against the struct; errors after an
// applied update, and a refused oversized update, say what happened.

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/optimist-dynamo/optimist/dynamolocal"
	"github.com/optimist-dynamo/optimist/internal/ddbtest"
	"github.com/optimist-dynamo/optimist/mapper"
	"github.com/optimist-dynamo/optimist/update"
)

// Purchase is the item of the report: a number field that an Append would
// turn into a list.
type Purchase struct {
	ID      string `dynamo:"id,hash"`
	Total   int64  `dynamo:"total"`
	Note    string `dynamo:"note"`
	Version int64  `dynamo:"version,version"`
}

type orders struct {
	ctx   context.Context
	raw   *dynamodb.Client
	calls *ddbtest.CountingClient
	table *mapper.Table[Purchase]
	name  string
}

func newOrders(t *testing.T) *orders {
	t.Helper()
	srv := dynamolocal.New(t)
	raw := srv.Client()
	name := ddbtest.CreateTable(t, raw, "id", types.ScalarAttributeTypeS, "", "")
	calls := ddbtest.NewCounting(raw)
	table, err := mapper.NewTable[Purchase](calls, name)
	require.NoError(t, err)
	return &orders{ctx: context.Background(), raw: raw, calls: calls, table: table, name: name}
}

// putRaw stores item as is, bypassing the mapper (another program's write).
func (o *orders) putRaw(t *testing.T, item map[string]types.AttributeValue) {
	t.Helper()
	_, err := o.raw.PutItem(o.ctx, &dynamodb.PutItemInput{TableName: aws.String(o.name), Item: item})
	require.NoError(t, err)
}

// An update whose value the field cannot hold is refused before sending,
// naming the field; the item stays readable and unchanged.
func TestUpdateRefusesValuesTheStructCannotHold(t *testing.T) {
	o := newOrders(t)
	require.NoError(t, o.table.Put(o.ctx, &Purchase{ID: "u2", Total: 7}))
	o.calls.Reset()
	_, err := o.table.Update(o.ctx, Purchase{ID: "u2"}, update.Append("total", "x"))
	require.Error(t, err)
	assert.ErrorIs(t, err, mapper.ErrInvalidItem)
	assert.Contains(t, err.Error(), "Total")
	assert.Contains(t, err.Error(), "int64")
	assert.Contains(t, err.Error(), o.name)
	_, err = o.table.UpdateOp(Purchase{ID: "u2"}, update.Append("total", "x")).Action()
	assert.ErrorIs(t, err, mapper.ErrInvalidItem, "a transaction's update is checked the same")
	assert.Zero(t, o.calls.Total(), "nothing sent")
	got, err := o.table.Get(o.ctx, Purchase{ID: "u2"})
	require.NoError(t, err, "the item is still readable")
	assert.Equal(t, Purchase{ID: "u2", Total: 7, Version: 1}, *got)
}

// Nested fields, list elements, sets and Add on a non-number, on the
// Candidate type: each refused with nothing sent, naming the field.
func TestUpdateChecksNestedFieldsListElementsAndSets(t *testing.T) {
	c := newCandidates(t)
	require.NoError(t, c.table.Put(c.ctx, &Candidate{ID: "ada", Name: "Ada"}))
	for name, tc := range map[string]struct {
		u     *update.Builder
		field string
	}{
		"nested field":                {update.Set("data.k[0].names", "x"), "Data"},
		"nested field by Append":      {update.Append("data.k[0].label", "x"), "Data"},
		"list element":                {update.Set("votedBy[0]", []string{"a"}), "VotedBy"},
		"whole list":                  {update.Set("votedBy", 5), "VotedBy"},
		"set on a number":             {update.Add("votes", []string{"a"}), "Votes"},
		"set Delete on a string":      {update.Delete("name", []string{"a"}), "Name"},
		"Add of a number on a string": {update.Add("name", 1), "Name"},
		"Add of a number on a set":    {update.Add("tags", 1), "Tags"},
		"field matched by case":       {update.Append("VOTES", 1), "Votes"},
	} {
		t.Run(name, func(t *testing.T) {
			c.calls.Reset()
			_, err := c.table.Update(c.ctx, Candidate{ID: "ada"}, tc.u)
			require.Error(t, err)
			assert.True(t, errorsIsEither(err, mapper.ErrInvalidItem, mapper.ErrInvalidOption), "%v", err)
			assert.Contains(t, err.Error(), tc.field)
			assert.Zero(t, c.calls.Total(), "nothing sent")
		})
	}
	got, err := c.table.Get(c.ctx, Candidate{ID: "ada"})
	require.NoError(t, err)
	assert.Equal(t, int64(1), got.Version, "no update applied")
}

// Updates that fit the struct, and updates of attributes outside it, are
// sent and applied.
func TestUpdateAllowsFittingValuesAndAttributesOutsideTheStruct(t *testing.T) {
	c := newCandidates(t)
	require.NoError(t, c.table.Put(c.ctx, &Candidate{ID: "ada", Data: map[string][]Slot{"k": {{Label: "a"}}}}))
	got, err := c.table.Update(c.ctx, Candidate{ID: "ada"}, update.Append("votedBy", "x").
		Add("votes", 2).Add("tags", []string{"t"}).Set("data.k[0].label", "b").Set("data.k[0].names", []string{"n"}).
		Set("elsewhere", []int{1, 2}).Add("outsideCounter", 1).Set("outsideMap", map[string]any{"a": []any{"b"}}))
	require.NoError(t, err)
	assert.Equal(t, []string{"x"}, got.VotedBy)
	assert.Equal(t, 2, got.Votes)
	assert.Equal(t, []Slot{{Label: "b", Names: []string{"n"}}}, got.Data["k"])
	_, err = c.table.Get(c.ctx, Candidate{ID: "ada"})
	require.NoError(t, err)
}

func errorsIsEither(err error, a, b error) bool {
	return errors.Is(err, a) || errors.Is(err, b)
}

// A Get of an item that does not decode names the table, the key and the
// attribute.
func TestGetDecodeErrorNamesTableKeyAndAttribute(t *testing.T) {
	o := newOrders(t)
	o.putRaw(t, map[string]types.AttributeValue{
		"id":      &types.AttributeValueMemberS{Value: "bad"},
		"total":   &types.AttributeValueMemberL{Value: []types.AttributeValue{&types.AttributeValueMemberS{Value: "x"}}},
		"version": &types.AttributeValueMemberN{Value: "3"},
	})
	_, err := o.table.Get(o.ctx, Purchase{ID: "bad"})
	require.Error(t, err)
	msg := err.Error()
	assert.Contains(t, msg, o.name, "table")
	assert.Contains(t, msg, `"bad"`, "key")
	assert.Contains(t, msg, `attribute "total"`, "attribute")
}

// An Update applied to an item that then does not decode (another program
// stored a list in total) says the write was applied, with table, key and
// attribute.
func TestUpdateAppliedButUndecodableSaysSo(t *testing.T) {
	o := newOrders(t)
	o.putRaw(t, map[string]types.AttributeValue{
		"id":      &types.AttributeValueMemberS{Value: "bad"},
		"total":   &types.AttributeValueMemberL{Value: []types.AttributeValue{&types.AttributeValueMemberS{Value: "x"}}},
		"version": &types.AttributeValueMemberN{Value: "3"},
	})
	_, err := o.table.Update(o.ctx, Purchase{ID: "bad"}, update.Set("note", "n"))
	require.Error(t, err)
	msg := err.Error()
	assert.Contains(t, msg, "applied")
	assert.Contains(t, msg, o.name, "table")
	assert.Contains(t, msg, `"bad"`, "key")
	assert.Contains(t, msg, `attribute "total"`, "attribute")
	out, gerr := o.raw.GetItem(o.ctx, &dynamodb.GetItemInput{TableName: aws.String(o.name), ConsistentRead: aws.Bool(true),
		Key: map[string]types.AttributeValue{"id": &types.AttributeValueMemberS{Value: "bad"}}})
	require.NoError(t, gerr)
	assert.Equal(t, &types.AttributeValueMemberS{Value: "n"}, out.Item["note"], "the write was applied")
	assert.Equal(t, &types.AttributeValueMemberN{Value: "4"}, out.Item["version"])
}

// An Update that takes the item past 400 KB is refused by DynamoDB (the
// stored size is unknown before sending); the error matches
// ErrItemTooLarge and names the update's largest value.
func TestUpdatePast400KBIsItemTooLarge(t *testing.T) {
	o := newOrders(t)
	require.NoError(t, o.table.Put(o.ctx, &Purchase{ID: "big", Note: strings.Repeat("a", 300_000)}))
	_, err := o.table.Update(o.ctx, Purchase{ID: "big"}, update.Set("extra", strings.Repeat("b", 150_000)).Add("total", 1))
	require.Error(t, err)
	assert.ErrorIs(t, err, mapper.ErrItemTooLarge)
	assert.ErrorIs(t, err, mapper.ErrInvalidItem)
	assert.Contains(t, err.Error(), `"extra"`)
	got, err := o.table.Get(o.ctx, Purchase{ID: "big"})
	require.NoError(t, err)
	assert.Equal(t, int64(1), got.Version, "nothing written")
}
