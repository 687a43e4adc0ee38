package optimist_test

import (
	"context"
	"testing"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/optimist-dynamo/optimist/dynamolocal"
	"github.com/optimist-dynamo/optimist/internal/ddbtest"
	"github.com/optimist-dynamo/optimist/mapper"
	"github.com/optimist-dynamo/optimist/pessimistic"
	"github.com/optimist-dynamo/optimist/txn"
	"github.com/optimist-dynamo/optimist/update"
)

type guardAcct struct {
	ID      string `dynamo:"id,hash"`
	Balance int64  `dynamo:"balance"`
	Version int64  `dynamo:"v,version"`
}

type guardPlain struct {
	ID string `dynamo:"id,hash"`
	N  int    `dynamo:"n"`
}

// TestGlobalTableGuardEveryPath: on a global table in multi-Region eventual
// consistency every path that relies on a condition is refused with
// ErrGlobalTable before anything is sent: the Table's writes, Modify, the
// transaction ops of the mapper (versioned or conditional PutOp, UpdateOp,
// DeleteOp, CheckOp) and raw conditional ops, and item locks (units: see
// unit's TestUnitOnGlobalTables). Unconditional writes pass; WriteRegion
// (the Table's for its ops, the Tx's for raw ops) lets them through.
func TestGlobalTableGuardEveryPath(t *testing.T) {
	ctx := context.Background()
	srv := dynamolocal.NewEngine(t)
	raw := srv.Client()
	region := raw.Options().Region
	name := ddbtest.CreateTable(t, raw, "id", types.ScalarAttributeTypeS, "", "")
	seed, err := mapper.NewTable[guardAcct](raw, name)
	require.NoError(t, err)
	require.NoError(t, seed.Put(ctx, &guardAcct{ID: "a", Balance: 1}))
	ddbtest.MakeGlobal(t, raw, name, "", "eu-west-1")

	counted := ddbtest.NewCounting(raw)
	accts, err := mapper.NewTable[guardAcct](counted, name)
	require.NoError(t, err)
	plain, err := mapper.NewTable[guardPlain](counted, name)
	require.NoError(t, err)
	cond := mapper.If(expression.AttributeExists(expression.Name("id")))
	key := map[string]types.AttributeValue{"id": &types.AttributeValueMemberS{Value: "r"}}

	refused := map[string]func() error{
		"Put":    func() error { return accts.Put(ctx, &guardAcct{ID: "a", Version: 1}) },
		"Save":   func() error { return accts.Save(ctx, &guardAcct{ID: "a", Version: 1}) },
		"Update": func() error { _, err := accts.Update(ctx, guardAcct{ID: "a"}, update.Add("balance", 1)); return err },
		"Delete": func() error { return accts.Delete(ctx, guardAcct{ID: "a", Version: 1}) },
		"Modify": func() error {
			_, err := accts.Modify(ctx, guardAcct{ID: "a"}, func(*guardAcct) error { return nil })
			return err
		},
		"unversioned Put with If": func() error { return plain.Put(ctx, &guardPlain{ID: "p"}, cond) },
		"Put with Fence":          func() error { return plain.Put(ctx, &guardPlain{ID: "p"}, mapper.Fence("f", 1)) },
		"versioned PutOp":         func() error { return commit(ctx, counted, accts.PutOp(&guardAcct{ID: "b"})) },
		"versioned UpdateOp": func() error {
			return commit(ctx, counted, accts.UpdateOp(guardAcct{ID: "a"}, update.Add("balance", 1)))
		},
		"versioned DeleteOp": func() error { return commit(ctx, counted, accts.DeleteOp(guardAcct{ID: "a", Version: 1})) },
		"versioned CheckOp":  func() error { return commit(ctx, counted, accts.CheckOp(guardAcct{ID: "a", Version: 1})) },
		"conditional PutOp":  func() error { return commit(ctx, counted, plain.PutOp(&guardPlain{ID: "p"}, cond)) },
		"conditional UpdateOp": func() error {
			return commit(ctx, counted, plain.UpdateOp(guardPlain{ID: "p"}, update.Set("n", 1), cond))
		},
		"conditional DeleteOp": func() error { return commit(ctx, counted, plain.DeleteOp(guardPlain{ID: "p"}, cond)) },
		"conditional CheckOp":  func() error { return commit(ctx, counted, plain.CheckOp(guardPlain{ID: "p"}, cond)) },
		"raw Put with If": func() error {
			return commit(ctx, counted, txn.Put(name, key, key, txn.If(expression.AttributeNotExists(expression.Name("id")))))
		},
		"raw Check": func() error {
			return commit(ctx, counted, txn.Check(name, key, expression.AttributeNotExists(expression.Name("id"))))
		},
		"mixed: a plain op first": func() error {
			return commit(ctx, counted, plain.PutOp(&guardPlain{ID: "q"}), accts.PutOp(&guardAcct{ID: "c"}))
		},
		"LockItem": func() error {
			_, _, err := pessimistic.LockItem(ctx, accts, guardAcct{ID: "a"}, pessimistic.Wait(0))
			return err
		},
	}
	for what, call := range refused {
		err := call()
		assert.ErrorIs(t, err, mapper.ErrGlobalTable, what)
		assert.ErrorIs(t, err, txn.ErrGlobalTable, what)
	}
	for _, op := range []string{"PutItem", "UpdateItem", "DeleteItem", "TransactWriteItems"} {
		assert.Zero(t, counted.Count(op), "%s sent", op)
	}
	got, err := seed.Get(ctx, guardAcct{ID: "a"})
	require.NoError(t, err)
	assert.Equal(t, guardAcct{ID: "a", Balance: 1, Version: 1}, *got, "untouched, and not locked")

	// What relies on no condition passes.
	require.NoError(t, plain.Put(ctx, &guardPlain{ID: "p", N: 1}))
	require.NoError(t, commit(ctx, counted, plain.PutOp(&guardPlain{ID: "q"}), txn.Put(name, key, key)))

	// The one write Region named: the Table's for its ops, the Tx's for raw ones.
	home, err := mapper.NewTable[guardAcct](raw, name, func(o *mapper.TableOptions) { o.WriteRegion = region })
	require.NoError(t, err)
	require.NoError(t, commit(ctx, raw, home.UpdateOp(guardAcct{ID: "a", Version: 1}, update.Add("balance", 1))))
	rawCheck := txn.Check(name, key, expression.AttributeExists(expression.Name("id")))
	require.ErrorIs(t, commit(ctx, raw, rawCheck), txn.ErrGlobalTable)
	tx := txn.New(raw, txn.WriteRegion(region))
	require.NoError(t, tx.Add(rawCheck))
	require.NoError(t, tx.Commit(ctx))
	away, err := mapper.NewTable[guardAcct](raw, name, func(o *mapper.TableOptions) { o.WriteRegion = "ap-south-1" })
	require.NoError(t, err)
	err = commit(ctx, raw, away.UpdateOp(guardAcct{ID: "a", Version: 2}, update.Add("balance", 1)))
	assert.ErrorIs(t, err, txn.ErrGlobalTable)
	assert.Contains(t, err.Error(), "ap-south-1")
	_, lock, err := pessimistic.LockItem(ctx, home, guardAcct{ID: "a"}, pessimistic.Wait(0))
	require.NoError(t, err)
	require.NoError(t, lock.Release(ctx))
}

func commit(ctx context.Context, c txn.Client, ops ...txn.Op) error {
	tx := txn.New(c)
	if err := tx.Add(ops...); err != nil {
		return err
	}
	return tx.Commit(ctx)
}
