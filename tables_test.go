package optimist_test

// Tables from structs (issue 13): CreateTable with indexes and TTL, Check,
// against DynamoDB Local.

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/optimist-dynamo/optimist/internal/ddbtest"
	"github.com/optimist-dynamo/optimist/mapper"
)

// Order has a hash and a range key, two global indexes (by-status,
// by-sku), one local index (by-placed) and a TTL.
type Order struct {
	Customer string    `dynamo:"customer,hash" index:"by-status,range"`
	ID       string    `dynamo:"id,range"`
	Status   string    `dynamo:"status,omitempty" index:"by-status,hash"`
	SKU      string    `dynamo:"sku,omitempty" index:"by-sku,hash"`
	Placed   int64     `dynamo:"placed" localIndex:"by-placed,range" index:"by-sku,range"`
	Expires  time.Time `dynamo:"expires,ttl,unixtime"`
	Version  int64     `dynamo:"v,version"`
}

// tableClient counts the control-plane calls of CreateTable.
type tableClient struct {
	*dynamodb.Client
	calls map[string]int
}

func (c *tableClient) CreateTable(ctx context.Context, in *dynamodb.CreateTableInput, o ...func(*dynamodb.Options)) (*dynamodb.CreateTableOutput, error) {
	c.calls["CreateTable"]++
	return c.Client.CreateTable(ctx, in, o...)
}

func (c *tableClient) DescribeTable(ctx context.Context, in *dynamodb.DescribeTableInput, o ...func(*dynamodb.Options)) (*dynamodb.DescribeTableOutput, error) {
	c.calls["DescribeTable"]++
	return c.Client.DescribeTable(ctx, in, o...)
}

func (c *tableClient) UpdateTimeToLive(ctx context.Context, in *dynamodb.UpdateTimeToLiveInput, o ...func(*dynamodb.Options)) (*dynamodb.UpdateTimeToLiveOutput, error) {
	c.calls["UpdateTimeToLive"]++
	return c.Client.UpdateTimeToLive(ctx, in, o...)
}

func (c *tableClient) DescribeTimeToLive(ctx context.Context, in *dynamodb.DescribeTimeToLiveInput, o ...func(*dynamodb.Options)) (*dynamodb.DescribeTimeToLiveOutput, error) {
	c.calls["DescribeTimeToLive"]++
	return c.Client.DescribeTimeToLive(ctx, in, o...)
}

// createTable creates the table of T with a fresh name, deleted at the end.
func createTable[T any](t *testing.T, opts ...mapper.CreateOption) (*dynamodb.Client, string) {
	t.Helper()
	raw := ddbtest.Server(t).Client()
	name := ddbtest.TableName(t)
	ddbtest.DeleteAtCleanup(t, raw, name)
	require.NoError(t, mapper.CreateTable[T](context.Background(), raw, name, opts...))
	return raw, name
}

func keys(ks []types.KeySchemaElement) []string {
	var out []string
	for _, k := range ks {
		out = append(out, aws.ToString(k.AttributeName)+" "+string(k.KeyType))
	}
	return out
}

func TestCreateTableFromTags(t *testing.T) {
	ctx := context.Background()
	raw := ddbtest.Server(t).Client()
	c := &tableClient{Client: raw, calls: map[string]int{}}
	name := ddbtest.TableName(t)
	ddbtest.DeleteAtCleanup(t, raw, name)
	require.NoError(t, mapper.CreateTable[Order](ctx, c, name))
	assert.Equal(t, 1, c.calls["CreateTable"])
	assert.Equal(t, 1, c.calls["UpdateTimeToLive"])
	assert.Equal(t, 0, c.calls["DescribeTimeToLive"], "a new table needs no TTL check")

	out, err := raw.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(name)})
	require.NoError(t, err)
	tbl := out.Table
	assert.Equal(t, types.TableStatusActive, tbl.TableStatus)
	assert.Equal(t, []string{"customer HASH", "id RANGE"}, keys(tbl.KeySchema))
	defs := map[string]types.ScalarAttributeType{}
	for _, d := range tbl.AttributeDefinitions {
		defs[aws.ToString(d.AttributeName)] = d.AttributeType
	}
	assert.Equal(t, map[string]types.ScalarAttributeType{"customer": "S", "id": "S", "status": "S", "sku": "S", "placed": "N"}, defs)
	require.NotNil(t, tbl.BillingModeSummary)
	assert.Equal(t, types.BillingModePayPerRequest, tbl.BillingModeSummary.BillingMode)

	gsis := map[string][]string{}
	for _, g := range tbl.GlobalSecondaryIndexes {
		gsis[aws.ToString(g.IndexName)] = keys(g.KeySchema)
		assert.Equal(t, types.ProjectionTypeAll, g.Projection.ProjectionType)
		assert.Equal(t, types.IndexStatusActive, g.IndexStatus)
	}
	assert.Equal(t, map[string][]string{
		"by-status": {"status HASH", "customer RANGE"},
		"by-sku":    {"sku HASH", "placed RANGE"},
	}, gsis)
	require.Len(t, tbl.LocalSecondaryIndexes, 1)
	lsi := tbl.LocalSecondaryIndexes[0]
	assert.Equal(t, "by-placed", aws.ToString(lsi.IndexName))
	assert.Equal(t, []string{"customer HASH", "placed RANGE"}, keys(lsi.KeySchema))
	assert.Equal(t, types.ProjectionTypeAll, lsi.Projection.ProjectionType)

	ttl, err := raw.DescribeTimeToLive(ctx, &dynamodb.DescribeTimeToLiveInput{TableName: aws.String(name)})
	require.NoError(t, err)
	assert.Equal(t, types.TimeToLiveStatusEnabled, ttl.TimeToLiveDescription.TimeToLiveStatus)
	assert.Equal(t, "expires", aws.ToString(ttl.TimeToLiveDescription.AttributeName))

	// Twice: not an error; TTL is checked, already on, left alone.
	clear(c.calls)
	require.NoError(t, mapper.CreateTable[Order](ctx, c, name))
	assert.Equal(t, map[string]int{"CreateTable": 1, "DescribeTable": 1, "DescribeTimeToLive": 1}, c.calls)

	// The table works with the indexes.
	orders, err := mapper.NewTable[Order](raw, name)
	require.NoError(t, err)
	require.NoError(t, orders.Check(ctx))
	require.NoError(t, orders.Put(ctx, &Order{Customer: "c1", ID: "o1", Status: "open", SKU: "k", Placed: 7, Expires: time.Now().Add(time.Hour)}))
	n, err := orders.Count(ctx, exprKey("status", "open"), mapper.Index("by-status"))
	require.NoError(t, err)
	assert.Equal(t, 1, n)
}

// An existing table whose TTL is off gets it turned on.
func TestCreateTableEnablesTTLOnExistingTable(t *testing.T) {
	type Session struct {
		ID  string `dynamo:"id,hash"`
		TTL int64  `dynamo:"exp,ttl"`
	}
	ctx := context.Background()
	raw := ddbtest.Server(t).Client()
	name := ddbtest.CreateTable(t, raw, "id", types.ScalarAttributeTypeS, "", "")
	require.NoError(t, mapper.CreateTable[Session](ctx, raw, name))
	ttl, err := raw.DescribeTimeToLive(ctx, &dynamodb.DescribeTimeToLiveInput{TableName: aws.String(name)})
	require.NoError(t, err)
	assert.Equal(t, types.TimeToLiveStatusEnabled, ttl.TimeToLiveDescription.TimeToLiveStatus)
	assert.Equal(t, "exp", aws.ToString(ttl.TimeToLiveDescription.AttributeName))

	type Other struct {
		ID  string `dynamo:"id,hash"`
		TTL int64  `dynamo:"gone,ttl"`
	}
	err = mapper.CreateTable[Other](ctx, raw, name)
	var me *mapper.MismatchError
	require.ErrorAs(t, err, &me)
	assert.Equal(t, []mapper.Mismatch{{Part: "ttl", Field: "TTL", Attribute: "gone", Expected: `TTL on "gone"`, Actual: `TTL on "exp"`}}, me.Mismatches)
}

func TestCreateTableRefusesAnotherSchema(t *testing.T) {
	raw, name := createTable[Order](t)
	type OrderV2 struct {
		Customer int64  `dynamo:"customer,hash"`                                 // N, table has S
		ID       string `dynamo:"id,range"`                                      // same
		Status   string `dynamo:"status" index:"by-status,hash"`                 // no range key now
		Region   string `dynamo:"region" index:"by-region,hash"`                 // no such index
		Placed   int64  `dynamo:"placed" localIndex:"by-sku,range"`              // by-sku is global
		Note     string `dynamo:"note" localIndex:"by-placed,range"`             // by-placed ranges on placed (N)
		Extra    string `dynamo:"extra" index:"by-status-extra,hash;x-idx,hash"` // two more missing
	}
	err := mapper.CreateTable[OrderV2](context.Background(), raw, name, mapper.ProjectKeysOnly("by-status"))
	require.ErrorIs(t, err, mapper.ErrSchemaMismatch)
	var me *mapper.MismatchError
	require.ErrorAs(t, err, &me)
	got := make([]string, len(me.Mismatches))
	for i, m := range me.Mismatches {
		got[i] = m.String()
	}
	assert.Equal(t, []string{
		`hash key (field Customer): want customer (N), table has customer (S)`,
		`index by-status: range key: want none, table has customer (S)`,
		`index by-status: projection: want KEYS_ONLY, table has ALL`,
		`index by-region: index (field Region): want a global index (hash region (S), range none), table has no such index`,
		`index by-sku: index: want a local index, table has a global index`,
		`index by-placed: hash key (field Customer): want customer (N), table has customer (S)`,
		`index by-placed: range key (field Note): want note (S), table has placed (N)`,
		`index by-status-extra: index (field Extra): want a global index (hash extra (S), range none), table has no such index`,
		`index x-idx: index (field Extra): want a global index (hash extra (S), range none), table has no such index`,
	}, got)
	assert.Contains(t, err.Error(), "does not match optimist_test.OrderV2 (9 difference(s))")

	// Nothing was changed.
	out, err := raw.DescribeTable(context.Background(), &dynamodb.DescribeTableInput{TableName: aws.String(name)})
	require.NoError(t, err)
	assert.Len(t, out.Table.GlobalSecondaryIndexes, 2)
}

func TestCheck(t *testing.T) {
	type Actual struct {
		ID    string `dynamo:"id,hash"`
		Owner string `dynamo:"owner" index:"by-owner,hash"`
	}
	raw, name := createTable[Actual](t)
	ctx := context.Background()

	type Wrong struct {
		PK    string `dynamo:"pk,hash"`                     // wrong hash key name
		SK    string `dynamo:"sk,range"`                    // the table has no range key
		Owner int    `dynamo:"owner" index:"by-owner,hash"` // wrong key type
		Day   string `dynamo:"day" index:"by-day,hash"`     // missing index
	}
	calls := ddbtest.NewCounting(raw)
	wrong, err := mapper.NewTable[Wrong](calls, name)
	require.NoError(t, err, "NewTable makes no call")
	err = wrong.Check(ctx)
	assert.Equal(t, int64(1), calls.Count("DescribeTable"))
	assert.Equal(t, int64(1), calls.Total(), "one DescribeTable, nothing else")
	require.ErrorIs(t, err, mapper.ErrSchemaMismatch)
	var me *mapper.MismatchError
	require.ErrorAs(t, err, &me)
	assert.Equal(t, name, me.Table)
	assert.Equal(t, []mapper.Mismatch{
		{Part: "hash key", Field: "PK", Attribute: "pk", Expected: "pk (S)", Actual: "id (S)"},
		{Part: "range key", Field: "SK", Attribute: "sk", Expected: "sk (S)", Actual: "none"},
		{Index: "by-owner", Part: "hash key", Field: "Owner", Attribute: "owner", Expected: "owner (N)", Actual: "owner (S)"},
		{Index: "by-day", Part: "index", Field: "Day", Attribute: "day", Expected: "a global index (hash day (S), range none)", Actual: "no such index"},
	}, me.Mismatches)
	for _, want := range []string{
		"hash key (field PK): want pk (S), table has id (S)",
		"range key (field SK): want sk (S), table has none",
		"index by-owner: hash key (field Owner): want owner (N), table has owner (S)",
		"index by-day: index (field Day): want a global index",
	} {
		assert.Contains(t, err.Error(), want)
	}

	// A key of the wrong type on the table's own key.
	type WrongType struct {
		ID int `dynamo:"id,hash"`
	}
	wt, err := mapper.NewTable[WrongType](raw, name)
	require.NoError(t, err)
	err = wt.Check(ctx)
	require.ErrorAs(t, err, &me)
	assert.Equal(t, []mapper.Mismatch{{Part: "hash key", Field: "ID", Attribute: "id", Expected: "id (N)", Actual: "id (S)"}}, me.Mismatches)

	// A struct without the table's range key: every key it builds lacks it.
	type NoRange struct {
		ID string `dynamo:"id,hash"`
	}
	_, ranged := createTable[Order](t)
	nr, err := mapper.NewTable[NoRange](raw, ranged)
	require.NoError(t, err)
	err = nr.Check(ctx)
	require.ErrorAs(t, err, &me)
	assert.Equal(t, []mapper.Mismatch{
		{Part: "hash key", Field: "ID", Attribute: "id", Expected: "id (S)", Actual: "customer (S)"},
		{Part: "range key", Expected: "none", Actual: "id (S)"},
	}, me.Mismatches)

	// A matching struct, and a missing table.
	ok, err := mapper.NewTable[Actual](raw, name)
	require.NoError(t, err)
	assert.NoError(t, ok.Check(ctx))
	gone, err := mapper.NewTable[Actual](raw, "no-such-table")
	require.NoError(t, err)
	err = gone.Check(ctx)
	var nf *types.ResourceNotFoundException
	assert.ErrorAs(t, err, &nf)
	assert.NotErrorIs(t, err, mapper.ErrSchemaMismatch)

	// A client without DescribeTable.
	type onlyClient struct{ mapper.Client }
	bare, err := mapper.NewTable[Actual](onlyClient{raw}, name)
	require.NoError(t, err)
	err = bare.Check(ctx)
	assert.ErrorIs(t, err, errors.ErrUnsupported)
	assert.Contains(t, err.Error(), "has no DescribeTable method")
}

func exprKey(name string, v any) expression.KeyConditionBuilder {
	return expression.Key(name).Equal(expression.Value(v))
}
