package mapper_test

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

	"github.com/optimist-dynamo/optimist/dynamolocal"
	"github.com/optimist-dynamo/optimist/internal/ddbtest"
	"github.com/optimist-dynamo/optimist/mapper"
	"github.com/optimist-dynamo/optimist/update"
	"github.com/optimist-dynamo/optimist/version"
)

// IndexedOrder has a hash and a range key, two global indexes (by-status,
// by-sku), one local index (by-placed) and a TTL.
type IndexedOrder struct {
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
	raw := dynamolocal.New(t).Client()
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
	raw := dynamolocal.New(t).Client()
	c := &tableClient{Client: raw, calls: map[string]int{}}
	name := ddbtest.TableName(t)
	ddbtest.DeleteAtCleanup(t, raw, name)
	require.NoError(t, mapper.CreateTable[IndexedOrder](ctx, c, name))
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
	require.NoError(t, mapper.CreateTable[IndexedOrder](ctx, c, name))
	assert.Equal(t, map[string]int{"CreateTable": 1, "DescribeTable": 1, "DescribeTimeToLive": 1}, c.calls)

	// The table works with the indexes.
	orders, err := mapper.NewTable[IndexedOrder](raw, name)
	require.NoError(t, err)
	require.NoError(t, orders.Check(ctx))
	require.NoError(t, orders.Put(ctx, &IndexedOrder{Customer: "c1", ID: "o1", Status: "open", SKU: "k", Placed: 7, Expires: time.Now().Add(time.Hour)}))
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
	raw := dynamolocal.New(t).Client()
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
	raw, name := createTable[IndexedOrder](t)
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
		`index by-sku: index (field Placed): want a local index, table has a global index`,
		`index by-placed: hash key (field Customer): want customer (N), table has customer (S)`,
		`index by-placed: range key (field Note): want note (S), table has placed (N)`,
		`index by-status-extra: index (field Extra): want a global index (hash extra (S), range none), table has no such index`,
		`index x-idx: index (field Extra): want a global index (hash extra (S), range none), table has no such index`,
	}, got)
	assert.Contains(t, err.Error(), "does not match mapper_test.OrderV2 (9 difference(s))")

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
	_, ranged := createTable[IndexedOrder](t)
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

// Reading is a sensor's reading: sensor/at, a global index by-kind, and a
// sparse one by-serial.
type Reading struct {
	Sensor string `dynamo:"sensor,hash"`
	At     int    `dynamo:"at,range"`
	Kind   string `dynamo:"kind" index:"by-kind,hash"`
	Serial string `dynamo:"serial,omitempty" index:"by-serial,hash"`
	Value  int    `dynamo:"value"`
}

// readings creates a table with sensor "one" holding 1 reading and sensor
// "many" 25 (at 1..25, kind "odd" or "even"), read through a counting
// client.
func readings(t *testing.T) (*mapper.Table[Reading], *ddbtest.CountingClient) {
	t.Helper()
	raw, name := createTable[Reading](t)
	calls := ddbtest.NewCounting(raw)
	tbl, err := mapper.NewTable[Reading](calls, name)
	require.NoError(t, err)
	items := []*Reading{{Sensor: "one", At: 1, Kind: "solo", Serial: "S-1"}}
	for i := 1; i <= 25; i++ {
		kind := "odd"
		if i%2 == 0 {
			kind = "even"
		}
		items = append(items, &Reading{Sensor: "many", At: i, Kind: kind, Value: i})
	}
	require.NoError(t, tbl.PutAll(context.Background(), items))
	calls.Reset()
	return tbl, calls
}

func TestCount(t *testing.T) {
	tbl, calls := readings(t)
	ctx := context.Background()
	for _, tc := range []struct {
		sensor string
		opts   []mapper.ReadOption
		want   int
		calls  int64
	}{
		{"none", nil, 0, 1},
		{"one", nil, 1, 1},
		{"many", nil, 25, 1},
		{"many", []mapper.ReadOption{mapper.PageSize(4)}, 25, 7}, // 6 full pages, then 1 item and no LastEvaluatedKey
		{"many", []mapper.ReadOption{mapper.PageSize(5)}, 25, 6}, // the 5th page is full, so a 6th, empty, ends it
		{"many", []mapper.ReadOption{mapper.PageSize(4), mapper.Filter(expression.Name("kind").Equal(expression.Value("even")))}, 12, 7},
		{"many", []mapper.ReadOption{mapper.ConsistentRead(true)}, 25, 1},
	} {
		calls.Reset()
		n, err := tbl.Count(ctx, exprKey("sensor", tc.sensor), tc.opts...)
		require.NoError(t, err)
		assert.Equal(t, tc.want, n, "%s %d options", tc.sensor, len(tc.opts))
		assert.Equal(t, tc.calls, calls.Count("Query"), "%s %d options", tc.sensor, len(tc.opts))
	}
	n, err := tbl.Count(ctx, exprKey("kind", "odd"), mapper.Index("by-kind"), mapper.PageSize(3))
	require.NoError(t, err)
	assert.Equal(t, 13, n, "through a global index, across pages")

	calls.Reset()
	n, err = tbl.ScanCount(ctx, mapper.PageSize(10))
	require.NoError(t, err)
	assert.Equal(t, 26, n)
	assert.Equal(t, int64(3), calls.Count("Scan"))
	n, err = tbl.ScanCount(ctx, mapper.Segments(3), mapper.PageSize(2))
	require.NoError(t, err)
	assert.Equal(t, 26, n, "parallel")
	n, err = tbl.ScanCount(ctx, mapper.Index("by-serial"))
	require.NoError(t, err)
	assert.Equal(t, 1, n, "a sparse index holds only the items with the attribute")

	calls.Reset()
	_, err = tbl.Count(ctx, exprKey("sensor", "many"), mapper.Project("kind"))
	assert.ErrorIs(t, err, mapper.ErrInvalidOption)
	_, err = tbl.ScanCount(ctx, mapper.Limit(3))
	assert.ErrorIs(t, err, mapper.ErrInvalidOption)
	assert.Equal(t, int64(0), calls.Total(), "invalid options: nothing sent")
}

func TestOne(t *testing.T) {
	tbl, calls := readings(t)
	ctx := context.Background()

	_, err := tbl.One(ctx, exprKey("sensor", "none"))
	assert.ErrorIs(t, err, mapper.ErrNotFound)
	assert.NotErrorIs(t, err, mapper.ErrNotUnique)

	calls.Reset()
	r, err := tbl.One(ctx, exprKey("sensor", "one"))
	require.NoError(t, err)
	assert.Equal(t, Reading{Sensor: "one", At: 1, Kind: "solo", Serial: "S-1"}, *r)
	assert.Equal(t, int64(1), calls.Count("Query"), "Limit 2 settles it in one call")

	calls.Reset()
	_, err = tbl.One(ctx, exprKey("sensor", "many"))
	require.ErrorIs(t, err, mapper.ErrNotUnique)
	assert.NotErrorIs(t, err, mapper.ErrNotFound)
	assert.Contains(t, err.Error(), "several items")
	assert.Equal(t, int64(1), calls.Count("Query"))

	// Across pages: one page per item, so the second item needs a second call.
	calls.Reset()
	_, err = tbl.One(ctx, exprKey("sensor", "many"), mapper.PageSize(1))
	require.ErrorIs(t, err, mapper.ErrNotUnique)
	assert.Equal(t, int64(2), calls.Count("Query"))
	calls.Reset()
	r, err = tbl.One(ctx, exprKey("sensor", "one"), mapper.PageSize(1))
	require.NoError(t, err)
	assert.Equal(t, 1, r.At)
	assert.Equal(t, int64(2), calls.Count("Query"), "a full page of 1 leaves a LastEvaluatedKey: a second page finds nothing")

	// A filter that one item of 25 passes, found on the last of 7 pages.
	calls.Reset()
	r, err = tbl.One(ctx, exprKey("sensor", "many"), mapper.PageSize(4), mapper.Filter(expression.Name("value").Equal(expression.Value(25))))
	require.NoError(t, err)
	assert.Equal(t, 25, r.At)
	assert.Equal(t, int64(7), calls.Count("Query"))
	_, err = tbl.One(ctx, exprKey("sensor", "many"), mapper.PageSize(4), mapper.Filter(expression.Name("value").GreaterThan(expression.Value(23))))
	assert.ErrorIs(t, err, mapper.ErrNotUnique, "two pass the filter, on the last page")
	_, err = tbl.One(ctx, exprKey("sensor", "many"), mapper.PageSize(4), mapper.Filter(expression.Name("value").GreaterThan(expression.Value(99))))
	assert.ErrorIs(t, err, mapper.ErrNotFound)

	// Through an index: a unique lookup.
	r, err = tbl.One(ctx, exprKey("serial", "S-1"), mapper.Index("by-serial"))
	require.NoError(t, err)
	assert.Equal(t, "one", r.Sensor)

	_, err = tbl.One(ctx, exprKey("sensor", "many"), mapper.Limit(1))
	assert.ErrorIs(t, err, mapper.ErrInvalidOption)
}

func TestOldValues(t *testing.T) {
	raw, name := createTable[Counter](t)
	calls := ddbtest.NewCounting(raw)
	tbl, err := mapper.NewTable[Counter](calls, name)
	require.NoError(t, err)
	ctx := context.Background()
	strip := func(c *Counter) Counter { return *c }

	// Put: a create has no old item.
	prev := &Counter{ID: "stale"}
	c := &Counter{ID: "a", N: 1}
	require.NoError(t, tbl.Put(ctx, c, mapper.Old(&prev)))
	assert.Nil(t, prev, "no item before a create")
	assert.Equal(t, int64(1), c.Version)

	// Put: a replace returns what it replaced.
	c.N = 2
	require.NoError(t, tbl.Put(ctx, c, mapper.Old(&prev)))
	require.NotNil(t, prev)
	assert.Equal(t, Counter{ID: "a", N: 1, Version: 1}, strip(prev))

	// Update: the item before; Update itself returns nil then.
	calls.Reset()
	got, err := tbl.Update(ctx, Counter{ID: "a"}, update.Add("n", 10), mapper.Old(&prev))
	require.NoError(t, err)
	assert.Nil(t, got, "UpdateItem returns the old item or the new one, not both")
	assert.Equal(t, Counter{ID: "a", N: 2, Version: 2}, strip(prev))
	assert.Equal(t, int64(1), calls.Total(), "no extra call")
	got, err = tbl.Update(ctx, Counter{ID: "b"}, update.Set("n", 5), mapper.Old(&prev))
	require.NoError(t, err)
	assert.Nil(t, got)
	assert.Nil(t, prev, "an update that creates the item has no old item")

	// Save, as Put.
	cur, err := tbl.Get(ctx, Counter{ID: "a"})
	require.NoError(t, err)
	cur.Status = "saved"
	require.NoError(t, tbl.Save(ctx, cur, mapper.Old(&prev)))
	assert.Equal(t, Counter{ID: "a", N: 12, Version: 3}, strip(prev))

	// Delete: the item deleted; nil when there was none.
	calls.Reset()
	require.NoError(t, tbl.Delete(ctx, *cur, mapper.Old(&prev)))
	assert.Equal(t, Counter{ID: "a", N: 12, Status: "saved", Version: 4}, strip(prev))
	assert.Equal(t, int64(1), calls.Total(), "no extra call")
	require.NoError(t, tbl.Delete(ctx, Counter{ID: "never"}, mapper.Old(&prev)))
	assert.Nil(t, prev)

	// A refused write leaves prev alone; the conflict has the item.
	prev = &Counter{ID: "untouched"}
	err = tbl.Put(ctx, &Counter{ID: "b", N: 9}, mapper.Old(&prev))
	require.Error(t, err)
	var ce *version.ConflictError
	require.ErrorAs(t, err, &ce)
	assert.Equal(t, "untouched", prev.ID)

	// Where it cannot apply, nothing is sent.
	calls.Reset()
	var wrongType *IndexedOrder
	assert.ErrorIs(t, tbl.Put(ctx, &Counter{ID: "x"}, mapper.Old(&wrongType)), mapper.ErrInvalidOption)
	// Old with PutAll, Modify or PutOp does not compile
	// (options_compile_test.go).
	assert.Equal(t, int64(0), calls.Total())
}

// A write whose response is lost and whose resend finds our own write
// cannot know the item it replaced: ErrOldUnknown, and the write is done.
func TestOldValueAfterLostResponse(t *testing.T) {
	f := newFixture(t)
	c := &Counter{ID: "a", N: 1}
	require.NoError(t, f.Table.Put(f.Ctx, c))
	drop := &ddbtest.DropTransport{DropOps: map[string]int{"PutItem": 1}}
	lossy, err := mapper.NewTable[Counter](f.Client(drop.Option()), f.Name)
	require.NoError(t, err)
	prev := &Counter{ID: "untouched"}
	c.N = 2
	err = lossy.Put(f.Ctx, c, mapper.Old(&prev))
	require.ErrorIs(t, err, mapper.ErrOldUnknown)
	assert.NotErrorIs(t, err, mapper.ErrUnknownOutcome)
	assert.False(t, version.IsConflict(err))
	assert.Equal(t, 1, drop.Dropped())
	assert.Equal(t, int64(2), c.Version, "the write was applied")
	assert.Equal(t, 2, f.StoredCounter(t, "a").N)
	assert.Equal(t, "untouched", prev.ID)
}

func TestConsumedCapacity(t *testing.T) {
	tbl, calls := readings(t)
	ctx := context.Background()
	var cc mapper.Capacity
	n, err := tbl.Count(ctx, exprKey("sensor", "many"), mapper.PageSize(4), mapper.ReadCapacity(&cc))
	require.NoError(t, err)
	assert.Equal(t, 25, n)
	assert.Equal(t, 7, cc.Calls, "every page")
	assert.Greater(t, cc.Read, 0.0)
	assert.Zero(t, cc.Write)

	before := cc
	_, err = tbl.Get(ctx, Reading{Sensor: "one", At: 1}, mapper.ReadCapacity(&cc))
	require.NoError(t, err)
	assert.Equal(t, before.Calls+1, cc.Calls)
	assert.InDelta(t, before.Read+1, cc.Read, 1e-9, "a consistent read of a small item is 1 unit")

	var wc mapper.Capacity
	require.NoError(t, tbl.Put(ctx, &Reading{Sensor: "w", At: 1, Kind: "k"}, mapper.WriteCapacity(&wc)))
	_, err = tbl.Update(ctx, Reading{Sensor: "w", At: 1}, update.Set("kind", "j"), mapper.WriteCapacity(&wc))
	require.NoError(t, err)
	require.NoError(t, tbl.Delete(ctx, Reading{Sensor: "w", At: 1}, mapper.WriteCapacity(&wc)))
	assert.Equal(t, 3, wc.Calls)
	assert.Greater(t, wc.Write, 0.0)
	assert.Equal(t, wc.Write, wc.Total())

	var sc mapper.Capacity
	n = 0
	for _, err := range tbl.Scan(ctx, mapper.Segments(2), mapper.PageSize(5), mapper.ReadCapacity(&sc)) {
		require.NoError(t, err)
		n++
	}
	assert.Equal(t, 26, n)
	assert.GreaterOrEqual(t, sc.Calls, 6)
	calls.Reset()
	_, err = tbl.GetAll(ctx, []Reading{{Sensor: "one", At: 1}}, mapper.ReadCapacity(&sc))
	assert.ErrorIs(t, err, mapper.ErrInvalidOption)
	// WriteCapacity with DeleteAll does not compile (options_compile_test.go).
	assert.Equal(t, int64(0), calls.Total())
}

// Processes starting at once may all create the table: every call succeeds.
func TestCreateTableConcurrently(t *testing.T) {
	raw := dynamolocal.New(t).Client()
	name := ddbtest.TableName(t)
	ddbtest.DeleteAtCleanup(t, raw, name)
	errs := make(chan error, 4)
	for range 4 {
		go func() { errs <- mapper.CreateTable[IndexedOrder](context.Background(), raw, name) }()
	}
	for range 4 {
		assert.NoError(t, <-errs)
	}
}
