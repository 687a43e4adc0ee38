package unit_test

import (
	"context"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/optimist-dynamo/optimist/internal/unitproto"
	"github.com/optimist-dynamo/optimist/mapper"
	"github.com/optimist-dynamo/optimist/txn"
	"github.com/optimist-dynamo/optimist/unit"
	"github.com/optimist-dynamo/optimist/update"
)

// A typed nil client (a nil *dynamodb.Client in the interface) and a nil
// option are refused with ErrInvalidOption by every entry point, never a
// panic.
func TestNilClientAndNilOptionAreRefused(t *testing.T) {
	ctx := context.Background()
	var nilClient *dynamodb.Client
	assert.NotPanics(t, func() {
		_, err := unit.Begin(ctx, nilClient, unit.Coordinator("c"))
		assert.ErrorIs(t, err, unit.ErrInvalidOption)
		_, err = unit.Recover(ctx, nilClient, "c")
		assert.ErrorIs(t, err, unit.ErrInvalidOption)
		for _, err := range unit.List(ctx, nilClient, "c") {
			assert.ErrorIs(t, err, unit.ErrInvalidOption)
		}
	})
	e := newEnv(t)
	assert.NotPanics(t, func() {
		_, err := unit.Begin(ctx, e.c, unit.Coordinator(e.coord), nil)
		assert.ErrorIs(t, err, unit.ErrInvalidOption)
		_, err = unit.Recover(ctx, e.c, e.coord, nil)
		assert.ErrorIs(t, err, unit.ErrInvalidOption)
	})
}

// pages counts the item-list pages in the coordinator table.
func pages(t *testing.T, e *env) int {
	n := 0
	for _, it := range raw(t, e.c, e.coord) {
		if _, ok := it[unitproto.RecItems]; ok {
			n++
		}
	}
	return n
}

// A raw op whose key cannot name an item (none, empty, or a put whose item
// lacks the key) is refused by Add as an invalid item, before anything is
// logged; the unit goes on.
func TestAddRefusesAnOpWithoutAKey(t *testing.T) {
	e := newEnv(t)
	ctx := ctxT(t, time.Minute)
	e.seed(t, 1, 100)
	table := e.accounts.Name()
	item := map[string]types.AttributeValue{"balance": &types.AttributeValueMemberN{Value: "1"}}
	u := begin(t, e, e.c)
	for name, op := range map[string]txn.Op{
		"put, no key":          txn.Put(table, nil, item),
		"put, empty key value": txn.Put(table, keyS("id", ""), map[string]types.AttributeValue{"id": &types.AttributeValueMemberS{}}),
		"update, no key":       txn.Update(table, map[string]types.AttributeValue{}, update.Set("balance", 2)),
		"delete, three keys":   txn.Delete(table, map[string]types.AttributeValue{"a": avS("1"), "b": avS("2"), "c": avS("3")}),
		"check, key of a list": txn.Check(table, map[string]types.AttributeValue{"id": &types.AttributeValueMemberL{}}, expression.AttributeExists(expression.Name("id"))),
	} {
		err := u.Add(op)
		require.ErrorIs(t, err, txn.ErrInvalidItem, name)
		require.ErrorIs(t, err, mapper.ErrInvalidItem, name)
	}
	assert.Zero(t, pages(t, e), "nothing logged")
	require.NoError(t, u.Add(e.accounts.UpdateOp(Account{ID: accountID(0)}, update.Add("balance", 1))))
	require.NoError(t, u.Commit(ctx))
	got, err := e.accounts.Get(ctx, Account{ID: accountID(0)})
	require.NoError(t, err)
	assert.Equal(t, int64(101), got.Balance)
	n, err := unit.Recover(ctx, e.c, e.coord)
	require.NoError(t, err)
	assert.Zero(t, n)
}

func avS(s string) *types.AttributeValueMemberS { return &types.AttributeValueMemberS{Value: s} }

// A unit whose log holds a key that DynamoDB refuses in every call (here
// written there by hand, as an older version could) is finished by
// Recover all the same: its good items are freed, the record is marked
// finished, and the bad key is reported.
func TestRecoverPassesOverAnUnusableLoggedKey(t *testing.T) {
	e := newEnv(t)
	ctx := ctxT(t, time.Minute)
	e.seed(t, 1, 100)
	u := begin(t, e, e.c)
	_, err := unit.Get(ctx, u, e.accounts, Account{ID: accountID(0)})
	require.NoError(t, err)
	bad, err := unitproto.EncodeKey(e.accounts.Name(), map[string]types.AttributeValue{})
	require.NoError(t, err)
	_, err = e.c.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName: aws.String(e.coord), Key: unitproto.PageKey(u.ID(), 0),
		UpdateExpression:          aws.String("ADD #items :r"),
		ExpressionAttributeNames:  map[string]string{"#items": unitproto.RecItems},
		ExpressionAttributeValues: map[string]types.AttributeValue{":r": &types.AttributeValueMemberSS{Value: []string{bad}}},
	})
	require.NoError(t, err)
	// The unit's process gives up: its record says aborted, its locks stay.
	st, err := unitproto.NewCoordinator(e.c, e.coord, nil).SetState(ctx, u.ID(), unitproto.StateAborted, "")
	require.NoError(t, err)
	require.Equal(t, unitproto.StateAborted, st)
	require.Equal(t, 1, lockedItems(t, e.c, e.accounts.Name()))

	n, err := unit.Recover(ctx, e.c, e.coord)
	require.ErrorIs(t, err, txn.ErrInvalidItem)
	assert.Contains(t, err.Error(), u.ID())
	assert.Equal(t, 1, n, "the unit is finished")
	assert.Zero(t, lockedItems(t, e.c, e.accounts.Name()))
	rec, err := unitproto.ReadRecord(ctx, e.c, e.coord, u.ID())
	require.NoError(t, err)
	assert.True(t, rec.Done, "record finished")
	n, err = unit.Recover(ctx, e.c, e.coord)
	require.NoError(t, err, "nothing left to recover")
	assert.Zero(t, n)
	_ = u.Rollback(ctx) // its record is finished: nothing to do
}

// unitOnly hides every call but unit.Client's (no DescribeTable).
type unitOnly struct{ unit.Client }

// List and Recover refuse a table that is not a coordinator table, rather
// than listing its items as units or reporting nothing to recover.
func TestListAndRecoverRefuseAnOrdinaryTable(t *testing.T) {
	e := newEnv(t)
	ctx := ctxT(t, time.Minute)
	e.seed(t, 3, 100)
	for _, table := range []string{e.accounts.Name(), e.orders.Name()} {
		n := 0
		for _, err := range unit.List(ctx, e.c, table) {
			require.ErrorIs(t, err, unit.ErrNotCoordinator, table)
			assert.Contains(t, err.Error(), "not a coordinator table")
			n++
		}
		assert.Equal(t, 1, n, "one error, no units")
		_, err := unit.Recover(ctx, e.c, table)
		require.ErrorIs(t, err, unit.ErrNotCoordinator, table)
	}
	// Without DescribeTable, List tells by the items.
	for _, err := range unit.List(ctx, unitOnly{e.c}, e.accounts.Name()) {
		require.ErrorIs(t, err, unit.ErrNotCoordinator)
	}
	// A coordinator table is accepted.
	u := begin(t, e, e.c)
	require.NoError(t, u.Rollback(ctx))
	for info, err := range unit.List(ctx, e.c, e.coord) {
		require.NoError(t, err)
		assert.Equal(t, u.ID(), info.ID)
	}
	_, err := unit.Recover(ctx, e.c, e.coord)
	require.NoError(t, err)
}
