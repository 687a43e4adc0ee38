package unit_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/require"

	"github.com/optimist-dynamo/optimist/dynamolocal"
	"github.com/optimist-dynamo/optimist/internal/ddbtest"
	"github.com/optimist-dynamo/optimist/internal/unitproto"
	"github.com/optimist-dynamo/optimist/mapper"
	"github.com/optimist-dynamo/optimist/unit"
)

// Account is a versioned item with a balance and the transfers applied.
type Account struct {
	ID      string   `dynamo:"id,hash"`
	Balance int64    `dynamo:"balance"`
	Applied []string `dynamo:"applied,omitempty"`
	Version int64    `dynamo:"v,version"`
}

// Order is a second kind of item, in another table, with a range key.
type Order struct {
	Customer string `dynamo:"customer,hash"`
	N        int    `dynamo:"n,range"`
	Amount   int64  `dynamo:"amount"`
	Version  int64  `dynamo:"v,version"`
}

type env struct {
	c        *dynamodb.Client
	coord    string
	accounts *mapper.Table[Account]
	orders   *mapper.Table[Order]
}

func newEnv(t *testing.T) *env {
	t.Helper()
	return newEnvOn(t, dynamolocal.New(t))
}

// newEnvOn is newEnv on the server srv: dynamolocal.NewEngine for a test in a
// testing/synctest bubble, whose units then run on the bubble's time.
func newEnvOn(t *testing.T, srv *dynamolocal.Server) *env {
	t.Helper()
	c := srv.Client()
	coord := ddbtest.TableName(t) + "-coord"
	ctx := context.Background()
	require.NoError(t, unit.CreateTable(ctx, c, coord))
	t.Cleanup(func() {
		_, _ = c.DeleteTable(context.Background(), &dynamodb.DeleteTableInput{TableName: aws.String(coord)})
	})
	acc, err := mapper.NewTable[Account](c, ddbtest.CreateTable(t, c, "id", types.ScalarAttributeTypeS, "", ""))
	require.NoError(t, err)
	ord, err := mapper.NewTable[Order](c, ddbtest.CreateTable(t, c, "customer", types.ScalarAttributeTypeS, "n", types.ScalarAttributeTypeN))
	require.NoError(t, err)
	return &env{c: c, coord: coord, accounts: acc, orders: ord}
}

func accountID(i int) string { return fmt.Sprintf("acct-%04d", i) }

// seed creates n accounts with balance each, with PutAll (unversioned).
func (e *env) seed(t *testing.T, n int, balance int64) {
	t.Helper()
	items := make([]*Account, n)
	for i := range items {
		items[i] = &Account{ID: accountID(i), Balance: balance}
	}
	require.NoError(t, e.accounts.PutAll(context.Background(), items, mapper.Unversioned()))
}

// raw returns every item of a table as stored.
func raw(t *testing.T, c *dynamodb.Client, table string) []map[string]types.AttributeValue {
	t.Helper()
	var items []map[string]types.AttributeValue
	in := &dynamodb.ScanInput{TableName: aws.String(table), ConsistentRead: aws.Bool(true)}
	for {
		out, err := c.Scan(context.Background(), in)
		require.NoError(t, err)
		items = append(items, out.Items...)
		if len(out.LastEvaluatedKey) == 0 {
			return items
		}
		in.ExclusiveStartKey = out.LastEvaluatedKey
	}
}

// lockedItems counts the items of table that hold a unit's lock.
func lockedItems(t *testing.T, c *dynamodb.Client, table string) int {
	n := 0
	for _, it := range raw(t, c, table) {
		if _, ok := it[unitproto.Attr]; ok {
			n++
		}
	}
	return n
}

// begin begins a unit through c. A unit left unfinished (its client
// crashed, say) heartbeats on until its Rollback, which the test's cleanup
// makes: a testing/synctest bubble ends only once every goroutine in it
// has. (After Commit or Rollback, that Rollback is ErrDone and sends
// nothing.)
func begin(t *testing.T, e *env, c unit.Client, opts ...unit.Option) *unit.Unit {
	t.Helper()
	u, err := unit.Begin(context.Background(), c, append([]unit.Option{unit.Coordinator(e.coord)}, opts...)...)
	require.NoError(t, err)
	t.Cleanup(func() { _ = u.Rollback(context.Background()) })
	return u
}

func ctxT(t *testing.T, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}
