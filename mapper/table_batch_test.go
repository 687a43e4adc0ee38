package mapper_test

// GetAll, PutAll and DeleteAll against DynamoDB Local.

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
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
)

func key(i int) string { return fmt.Sprintf("k%03d", i) }

// count scans the table and counts its items.
func count(t *testing.T, c *dynamodb.Client, table string) int {
	t.Helper()
	out, err := c.Scan(context.Background(), &dynamodb.ScanInput{TableName: aws.String(table), Select: types.SelectCount, ConsistentRead: aws.Bool(true)})
	require.NoError(t, err)
	require.Nil(t, out.LastEvaluatedKey)
	return int(out.Count)
}

// TestGetAllReportsMissing: 250 keys, of which every fifth has no item: the
// 200 items come back at their keys' positions, the 50 missing positions
// are nil and listed in a MissingError, in 3 calls (100, 100, 50).
func TestGetAllReportsMissing(t *testing.T) {
	f := newFixture(t)
	var stored []*Counter
	keys := make([]Counter, 250)
	var missing []int
	for i := range keys {
		keys[i] = Counter{ID: key(i)}
		if i%5 == 4 {
			missing = append(missing, i)
			continue
		}
		stored = append(stored, &Counter{ID: key(i), N: i})
	}
	require.NoError(t, f.Table.PutAll(f.Ctx, stored, mapper.Unversioned()))
	f.Calls.Reset()

	got, err := f.Table.GetAll(f.Ctx, keys)
	require.ErrorIs(t, err, mapper.ErrNotFound)
	var me *mapper.MissingError
	require.ErrorAs(t, err, &me)
	assert.Equal(t, missing, me.Keys)
	assert.Equal(t, f.Name, me.Table)
	require.Len(t, got, 250)
	for i, c := range got {
		if i%5 == 4 {
			assert.Nil(t, c, "keys[%d] has no item", i)
			continue
		}
		if assert.NotNil(t, c, "keys[%d]", i) {
			assert.Equal(t, Counter{ID: key(i), N: i, Version: 1}, *c)
		}
	}
	assert.Equal(t, int64(3), f.Calls.Count("BatchGetItem"))

	// All present: no error.
	got, err = f.Table.GetAll(f.Ctx, []Counter{{ID: key(0)}, {ID: key(1)}})
	require.NoError(t, err)
	assert.Equal(t, []*Counter{{ID: key(0), N: 0, Version: 1}, {ID: key(1), N: 1, Version: 1}}, got)

	// None asked: no call.
	f.Calls.Reset()
	got, err = f.Table.GetAll(f.Ctx, nil)
	require.NoError(t, err)
	assert.Empty(t, got)
	assert.Equal(t, int64(0), f.Calls.Total())
}

// TestGetAllDuplicateKeys: a key given twice is read once (DynamoDB refuses
// duplicates in one call) and returned at both positions, as separate
// structs.
func TestGetAllDuplicateKeys(t *testing.T) {
	f := newFixture(t)
	require.NoError(t, f.Table.PutAll(f.Ctx, []*Counter{{ID: "a", N: 1}, {ID: "b", N: 2}}, mapper.Unversioned()))
	f.Calls.Reset()
	got, err := f.Table.GetAll(f.Ctx, []Counter{{ID: "a"}, {ID: "x"}, {ID: "b"}, {ID: "a"}, {ID: "x"}})
	var me *mapper.MissingError
	require.ErrorAs(t, err, &me)
	assert.Equal(t, []int{1, 4}, me.Keys, "a missing key is reported at each position")
	require.Len(t, got, 5)
	assert.Equal(t, &Counter{ID: "a", N: 1, Version: 1}, got[0])
	assert.Equal(t, got[0], got[3])
	assert.NotSame(t, got[0], got[3], "separate structs")
	assert.Equal(t, 2, got[2].N)
	assert.Equal(t, int64(1), f.Calls.Count("BatchGetItem"))

	got, err = f.Table.GetAll(f.Ctx, []Counter{{ID: "a"}, {ID: "b"}}, mapper.Project("n"), mapper.ConsistentRead(false))
	require.NoError(t, err)
	assert.Equal(t, []*Counter{{ID: "a", N: 1}, {ID: "b", N: 2}}, got, "projected: the key and n only (version 0: do not Put these back)")
}

// TestGetAllBeyond16MB: 50 items of 390 KB are 19.5 MB, more than one
// BatchGetItem returns (16 MB): DynamoDB Local leaves keys unprocessed, and
// GetAll reads them in further calls. Nothing is lost.
func TestGetAllBeyond16MB(t *testing.T) {
	const n, size = 50, 390 << 10
	srv := dynamolocal.New(t)
	name := ddbtest.CreateTable(t, srv.Client(), "pk", types.ScalarAttributeTypeS, "sk", types.ScalarAttributeTypeN)
	calls := ddbtest.NewCounting(srv.Client())
	table, err := mapper.NewTable[Plain](calls, name)
	require.NoError(t, err)
	ctx := context.Background()
	items := make([]*Plain, n)
	for i := range items {
		items[i] = &Plain{PK: "big", SK: i, Text: strings.Repeat(strconv.Itoa(i%10), size)}
	}
	require.NoError(t, table.PutAll(ctx, items))
	assert.Equal(t, int64(2), calls.Count("BatchWriteItem"))

	// Two keys without items, at the start and at the end.
	keys := []Plain{{PK: "big", SK: -1}}
	for i := range n {
		keys = append(keys, Plain{PK: "big", SK: i})
	}
	keys = append(keys, Plain{PK: "big", SK: n})
	calls.Reset()
	got, err := table.GetAll(ctx, keys)
	var me *mapper.MissingError
	require.ErrorAs(t, err, &me)
	assert.Equal(t, []int{0, n + 1}, me.Keys)
	for i := range n {
		if assert.NotNil(t, got[i+1], "item %d", i) {
			assert.Equal(t, *items[i], *got[i+1], "item %d whole", i)
		}
	}
	rounds := calls.Count("BatchGetItem")
	assert.GreaterOrEqual(t, rounds, int64(2), "one call cannot return 19.5 MB")
	t.Logf("GetAll of %d keys, %d items of %d KB (%.1f MB): %d BatchGetItem calls", len(keys), n, size>>10, float64(n*size)/(1<<20), rounds)
}

// TestPutAllThenDeleteAll: 60 versioned items, written and deleted in
// batches of 25, which a versioned type allows only with Unversioned.
func TestPutAllThenDeleteAll(t *testing.T) {
	f := newFixture(t)
	items := make([]*Counter, 60)
	keys := make([]Counter, 60)
	for i := range items {
		items[i] = &Counter{ID: key(i), N: i}
		keys[i] = Counter{ID: key(i)}
	}

	err := f.Table.PutAll(f.Ctx, items)
	require.ErrorIs(t, err, mapper.ErrInvalidOption)
	assert.Contains(t, err.Error(), "txn")
	assert.Contains(t, err.Error(), "PutOp")
	assert.Contains(t, err.Error(), "Unversioned()")
	err = f.Table.DeleteAll(f.Ctx, keys)
	require.ErrorIs(t, err, mapper.ErrInvalidOption)
	assert.Contains(t, err.Error(), "DeleteOp")
	assert.Equal(t, int64(0), f.Calls.Total(), "refused before sending")
	assert.Equal(t, int64(0), items[0].Version)

	require.NoError(t, f.Table.PutAll(f.Ctx, items, mapper.Unversioned()))
	assert.Equal(t, int64(3), f.Calls.Count("BatchWriteItem"), "25 + 25 + 10")
	for i, c := range items {
		assert.Equal(t, int64(1), c.Version, "items[%d]: the version written is set, as Put(Unversioned()) would", i)
	}
	assert.Equal(t, Counter{ID: key(59), N: 59, Version: 1}, *f.StoredCounter(t, key(59)))
	_, hasToken := f.Stored(t, key(0))["optimist_token"]
	assert.False(t, hasToken, "a batch write stores no token: nothing could settle it")
	assert.Equal(t, 60, count(t, f.Raw, f.Name))

	items[7].N = 700
	require.NoError(t, f.Table.PutAll(f.Ctx, items[:10], mapper.Unversioned()))
	assert.Equal(t, Counter{ID: key(7), N: 700, Version: 2}, *f.StoredCounter(t, key(7)))

	f.Calls.Reset()
	require.NoError(t, f.Table.DeleteAll(f.Ctx, keys, mapper.Unversioned()))
	assert.Equal(t, int64(3), f.Calls.Count("BatchWriteItem"))
	assert.Equal(t, 0, count(t, f.Raw, f.Name))
	require.NoError(t, f.Table.DeleteAll(f.Ctx, keys[:3], mapper.Unversioned()), "deleting missing items is not an error")
}

// TestBatchWritesRefusedBeforeSending: conditions, duplicate keys and bad
// items are refused before any call.
func TestBatchWritesRefusedBeforeSending(t *testing.T) {
	srv := dynamolocal.New(t)
	name := ddbtest.CreateTable(t, srv.Client(), "pk", types.ScalarAttributeTypeS, "sk", types.ScalarAttributeTypeN)
	calls := ddbtest.NewCounting(srv.Client())
	plain, err := mapper.NewTable[Plain](calls, name)
	require.NoError(t, err)
	f := newFixture(t)
	ctx := context.Background()
	// If and Fence with PutAll or DeleteAll do not compile
	// (options_compile_test.go).

	anyErr := errors.New("any error")
	cases := map[string]struct {
		call func() error
		want error // nil: no error (and no call); anyErr: an error of no class
	}{
		"PutAll duplicate": {func() error {
			return plain.PutAll(ctx, []*Plain{{PK: "a", SK: 1}, {PK: "b", SK: 1}, {PK: "a", SK: 1, Text: "x"}})
		}, mapper.ErrInvalidItem},
		"DeleteAll duplicate": {func() error {
			return plain.DeleteAll(ctx, []Plain{{PK: "a", SK: 1}, {PK: "a", SK: 1}})
		}, mapper.ErrInvalidItem},
		"PutAll empty key":    {func() error { return plain.PutAll(ctx, []*Plain{{PK: "a"}, {SK: 2}}) }, mapper.ErrInvalidItem},
		"DeleteAll empty key": {func() error { return plain.DeleteAll(ctx, []Plain{{SK: 2}}) }, mapper.ErrInvalidItem},
		"GetAll empty key": {func() error {
			_, err := plain.GetAll(ctx, []Plain{{PK: "a"}, {}})
			return err
		}, mapper.ErrInvalidItem},
		"versioned DeleteAll": {func() error {
			return f.Table.DeleteAll(ctx, []Counter{{ID: "a", Version: 3}})
		}, mapper.ErrInvalidOption},
		"PutAll nil item": {func() error { return plain.PutAll(ctx, []*Plain{{PK: "a"}, nil}) }, anyErr},
		"negative version": {func() error {
			return f.Table.PutAll(ctx, []*Counter{{ID: "a", Version: -1}}, mapper.Unversioned())
		}, anyErr},
		"PutAll of nothing":    {func() error { return plain.PutAll(ctx, nil) }, nil},
		"DeleteAll of nothing": {func() error { return plain.DeleteAll(ctx, []Plain{}) }, nil},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			calls.Reset()
			f.Calls.Reset()
			err := tc.call()
			switch tc.want {
			case nil:
				assert.NoError(t, err)
			case anyErr:
				assert.Error(t, err)
			default:
				assert.ErrorIs(t, err, tc.want)
			}
			assert.Equal(t, int64(0), calls.Total()+f.Calls.Total(), "no call sent")
		})
	}
	err = plain.PutAll(ctx, []*Plain{{PK: "a", SK: 1}, {PK: "b", SK: 1}, {PK: "a", SK: 1}})
	assert.ErrorContains(t, err, `items[0] and items[2] both have the key {pk="a", sk=1}`)
}

// throttled is a client that, like DynamoDB under throttling, processes
// only the first keep requests of each batch call, and left requests in
// all, and returns the rest as unprocessed, without sending them. Batch
// calls are sequential, so it needs no locking.
type throttled struct {
	mapper.Client
	table string
	keep  int
	left  int
	calls int
}

func newThrottled(c mapper.Client, table string, keep int) *throttled {
	return &throttled{Client: c, table: table, keep: keep, left: 1 << 30}
}

func (c *throttled) take(n int) int {
	c.calls++
	n = min(n, c.keep, c.left)
	c.left -= n
	return n
}

func (c *throttled) BatchWriteItem(ctx context.Context, in *dynamodb.BatchWriteItemInput, optFns ...func(*dynamodb.Options)) (*dynamodb.BatchWriteItemOutput, error) {
	reqs := in.RequestItems[c.table]
	n := c.take(len(reqs))
	out := &dynamodb.BatchWriteItemOutput{}
	if n > 0 {
		var err error
		if out, err = c.Client.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{c.table: reqs[:n]}}, optFns...); err != nil {
			return nil, err
		}
	}
	if n < len(reqs) {
		out.UnprocessedItems = map[string][]types.WriteRequest{c.table: reqs[n:]}
	}
	return out, nil
}

func (c *throttled) BatchGetItem(ctx context.Context, in *dynamodb.BatchGetItemInput, optFns ...func(*dynamodb.Options)) (*dynamodb.BatchGetItemOutput, error) {
	ka := in.RequestItems[c.table]
	n := c.take(len(ka.Keys))
	out := &dynamodb.BatchGetItemOutput{}
	if n > 0 {
		sent := ka
		sent.Keys = ka.Keys[:n]
		var err error
		if out, err = c.Client.BatchGetItem(ctx, &dynamodb.BatchGetItemInput{RequestItems: map[string]types.KeysAndAttributes{c.table: sent}}, optFns...); err != nil {
			return nil, err
		}
	}
	if n < len(ka.Keys) {
		rest := ka
		rest.Keys = ka.Keys[n:]
		out.UnprocessedKeys = map[string]types.KeysAndAttributes{c.table: rest}
	}
	return out, nil
}

// TestBatchRetriesUnprocessed: items left unprocessed are sent again until
// all are written and read.
func TestBatchRetriesUnprocessed(t *testing.T) {
	f := newFixture(t)
	slow := newThrottled(f.Raw, f.Name, 10)
	table, err := mapper.NewTable[Counter](slow, f.Name)
	require.NoError(t, err)
	items := make([]*Counter, 60)
	keys := make([]Counter, 60)
	for i := range items {
		items[i] = &Counter{ID: key(i), N: i}
		keys[i] = Counter{ID: key(i)}
	}
	require.NoError(t, table.PutAll(f.Ctx, items, mapper.Unversioned()))
	assert.Equal(t, 6, slow.calls, "10 items per call")
	assert.Equal(t, 60, count(t, f.Raw, f.Name))
	for _, c := range items {
		assert.Equal(t, int64(1), c.Version)
	}

	slow.calls, slow.keep = 0, 30
	got, err := table.GetAll(f.Ctx, keys)
	require.NoError(t, err)
	for i, c := range got {
		assert.Equal(t, items[i], c)
	}
	assert.Equal(t, 2, slow.calls, "30 of 60 keys, then the 30 left")

	slow.calls, slow.keep = 0, 7
	require.NoError(t, table.DeleteAll(f.Ctx, keys, mapper.Unversioned()))
	assert.Equal(t, 9, slow.calls, "7 items per call")
	assert.Equal(t, 0, count(t, f.Raw, f.Name))
}

// TestBatchGivesUpWhenNothingIsProcessed: when calls keep processing
// nothing, the batch stops after the table's MaxAttempts calls in a row
// with a BatchError (ErrUnprocessed) that lists what was not done, and the
// items done keep their results.
func TestBatchGivesUpWhenNothingIsProcessed(t *testing.T) {
	f := newFixture(t)
	require.NoError(t, f.Table.PutAll(f.Ctx, []*Counter{{ID: "x", N: 1}}, mapper.Unversioned()))
	stuck := newThrottled(f.Raw, f.Name, 25)
	table, err := mapper.NewTable[Counter](stuck, f.Name, func(o *mapper.TableOptions) {
		o.MaxAttempts, o.BackoffBase, o.BackoffMax = 4, time.Millisecond, 5*time.Millisecond
	})
	require.NoError(t, err)

	items := []*Counter{{ID: "a"}, {ID: "b"}, {ID: "c"}}
	stuck.left = 1 // one item, then nothing
	err = table.PutAll(f.Ctx, items, mapper.Unversioned())
	require.ErrorIs(t, err, mapper.ErrUnprocessed)
	var be *mapper.BatchError
	require.ErrorAs(t, err, &be)
	assert.Equal(t, "BatchWriteItem", be.Op)
	assert.Equal(t, []int{1, 2}, be.Pending)
	assert.Equal(t, 1+4, stuck.calls, "one call that wrote one, then 4 that wrote nothing")
	assert.Equal(t, int64(1), items[0].Version, "written: its version is set")
	assert.Equal(t, int64(0), items[1].Version, "not written: unchanged")
	assert.Equal(t, int64(1), f.StoredCounter(t, "a").Version)
	assert.Empty(t, f.Stored(t, "b"))

	stuck.calls, stuck.left = 0, 1
	got, err := table.GetAll(f.Ctx, []Counter{{ID: "x"}, {ID: "a"}, {ID: "nope"}})
	require.ErrorIs(t, err, mapper.ErrUnprocessed)
	require.ErrorAs(t, err, &be)
	assert.Equal(t, "BatchGetItem", be.Op)
	assert.Equal(t, []int{1, 2}, be.Pending)
	assert.Equal(t, []*Counter{{ID: "x", N: 1, Version: 1}, nil, nil}, got, "what was read is returned")

	// ctx ends during the backoff.
	patient, err := mapper.NewTable[Counter](stuck, f.Name, func(o *mapper.TableOptions) { o.BackoffBase, o.BackoffMax = time.Hour, time.Hour })
	require.NoError(t, err)
	stuck.left = 0
	ctx, cancel := context.WithTimeout(f.Ctx, 50*time.Millisecond)
	defer cancel()
	err = patient.DeleteAll(ctx, []Counter{{ID: "a"}}, mapper.Unversioned())
	require.ErrorIs(t, err, context.DeadlineExceeded)
	require.ErrorAs(t, err, &be)
	assert.Equal(t, []int{0}, be.Pending)
}

// SKU is stored as one string, "BOLT-0007", through attributevalue's
// Marshaler and Unmarshaler.
type SKU struct {
	Line string
	N    int
}

func (s SKU) MarshalDynamoDBAttributeValue() (types.AttributeValue, error) {
	return &types.AttributeValueMemberS{Value: fmt.Sprintf("%s-%04d", s.Line, s.N)}, nil
}

func (s *SKU) UnmarshalDynamoDBAttributeValue(av types.AttributeValue) error {
	v, ok := av.(*types.AttributeValueMemberS)
	if !ok {
		return fmt.Errorf("SKU: want a string, got %T", av)
	}
	line, n, ok := strings.Cut(v.Value, "-")
	if !ok {
		return fmt.Errorf("SKU: malformed %q", v.Value)
	}
	num, err := strconv.Atoi(n)
	*s = SKU{Line: line, N: num}
	return err
}

// Lot is a number written with a decimal point ("3.0"), which DynamoDB
// stores normalised ("3"): the keys sent and the keys returned are spelt
// differently.
type Lot int

func (l Lot) MarshalDynamoDBAttributeValue() (types.AttributeValue, error) {
	return &types.AttributeValueMemberN{Value: fmt.Sprintf("%d.0", l)}, nil
}

func (l *Lot) UnmarshalDynamoDBAttributeValue(av types.AttributeValue) error {
	v, ok := av.(*types.AttributeValueMemberN)
	if !ok {
		return fmt.Errorf("Lot: want a number, got %T", av)
	}
	f, err := strconv.ParseFloat(v.Value, 64)
	*l = Lot(f)
	return err
}

type Stock struct {
	SKU  SKU    `dynamo:"sku,hash"`
	Lot  Lot    `dynamo:"lot,range"`
	Bin  SKU    `dynamo:"bin"`
	Note string `dynamo:"note,omitempty"`
}

// TestCustomEncodingInEveryPath: keys and fields encoded by custom
// Marshalers work in Get, GetAll, Query, cursors, Scan, PutAll and
// DeleteAll.
func TestCustomEncodingInEveryPath(t *testing.T) {
	srv := dynamolocal.New(t)
	raw := srv.Client()
	name := ddbtest.CreateTable(t, raw, "sku", types.ScalarAttributeTypeS, "lot", types.ScalarAttributeTypeN)
	slow := newThrottled(raw, name, 3) // unprocessed items must be matched back too
	table, err := mapper.NewTable[Stock](slow, name)
	require.NoError(t, err)
	ctx := context.Background()
	bolt, nut := SKU{"BOLT", 7}, SKU{"NUT", 12}
	var all []*Stock
	for _, s := range []SKU{bolt, nut} {
		for lot := 1; lot <= 5; lot++ {
			all = append(all, &Stock{SKU: s, Lot: Lot(lot), Bin: SKU{"BIN", lot}})
		}
	}

	require.NoError(t, table.PutAll(ctx, all))
	assert.Equal(t, 4, slow.calls, "3 per call")
	out, err := raw.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(name), Key: map[string]types.AttributeValue{
		"sku": &types.AttributeValueMemberS{Value: "BOLT-0007"}, "lot": &types.AttributeValueMemberN{Value: "2"},
	}})
	require.NoError(t, err)
	assert.Equal(t, &types.AttributeValueMemberS{Value: "BIN-0002"}, out.Item["bin"], "stored through the Marshaler")

	got, err := table.Get(ctx, Stock{SKU: bolt, Lot: 2})
	require.NoError(t, err)
	assert.Equal(t, all[1], got)

	many, err := table.GetAll(ctx, []Stock{{SKU: nut, Lot: 3}, {SKU: nut, Lot: 9}, {SKU: bolt, Lot: 1}, {SKU: nut, Lot: 3}})
	var me *mapper.MissingError
	require.ErrorAs(t, err, &me)
	assert.Equal(t, []int{1}, me.Keys, `"3.0" sent, "3" returned: matched all the same`)
	assert.Equal(t, []*Stock{all[7], nil, all[0], all[7]}, many)

	key := expression.Key("sku").Equal(expression.Value(bolt))
	var lots []Lot
	for s, err := range table.Query(ctx, key.And(expression.Key("lot").Between(expression.Value(Lot(2)), expression.Value(Lot(4))))) {
		require.NoError(t, err)
		lots = append(lots, s.Lot)
	}
	assert.Equal(t, []Lot{2, 3, 4}, lots)

	var third *Stock
	for s, err := range table.Query(ctx, key, mapper.PageSize(2), mapper.Limit(3)) {
		require.NoError(t, err)
		third = s
	}
	cursor, err := table.CursorAfter(third)
	require.NoError(t, err)
	var rest []*Stock
	for s, err := range table.Query(ctx, key, mapper.StartAfter(cursor)) {
		require.NoError(t, err)
		rest = append(rest, s)
	}
	assert.Equal(t, all[3:5], rest)

	n := 0
	for s, err := range table.Scan(ctx, mapper.Segments(2)) {
		require.NoError(t, err)
		assert.Contains(t, all, s)
		n++
	}
	assert.Equal(t, 10, n)

	keys := make([]Stock, len(all))
	for i, s := range all {
		keys[i] = Stock{SKU: s.SKU, Lot: s.Lot}
	}
	err = table.DeleteAll(ctx, append(keys, Stock{SKU: bolt, Lot: 1}))
	assert.ErrorIs(t, err, mapper.ErrInvalidItem)
	require.NoError(t, table.DeleteAll(ctx, keys))
	assert.Equal(t, 0, count(t, raw, name))
}
