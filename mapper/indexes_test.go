package mapper_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/optimist-dynamo/optimist/dynamolocal"
	"github.com/optimist-dynamo/optimist/internal/ddbtest"
	"github.com/optimist-dynamo/optimist/mapper"
	"github.com/optimist-dynamo/optimist/txn"
)

// createFor creates a table for T with mapper.CreateTable on the shared
// DynamoDB Local, deleted when the test ends.
func createFor[T any](t *testing.T, opts ...mapper.CreateOption) (*dynamodb.Client, string) {
	t.Helper()
	c := dynamolocal.New(t).Client()
	name := ddbtest.TableName(t)
	require.NoError(t, mapper.CreateTable[T](context.Background(), c, name, opts...))
	ddbtest.DeleteAtCleanup(t, c, name)
	return c, name
}

func indexNames(t *testing.T, c *dynamodb.Client, table string) (global, local []string) {
	t.Helper()
	out, err := c.DescribeTable(context.Background(), &dynamodb.DescribeTableInput{TableName: aws.String(table)})
	require.NoError(t, err)
	for _, g := range out.Table.GlobalSecondaryIndexes {
		global = append(global, aws.ToString(g.IndexName))
	}
	for _, l := range out.Table.LocalSecondaryIndexes {
		local = append(local, aws.ToString(l.IndexName))
	}
	return global, local
}

// Contact names its indexes guregu's way: the tag key repeated, which
// reflect's StructTag.Lookup would read only once (and staticcheck's
// SA5008 flags).
type Contact struct {
	ID  string `dynamo:"id,hash"`
	Seq int64  `dynamo:"seq,range"`
	//lint:ignore SA5008 repeated keys are the form under test
	Email string `dynamo:"email" index:"by-email,hash" index:"by-email-2,hash"`
	//lint:ignore SA5008 repeated keys are the form under test
	Name string `dynamo:"name" localIndex:"by-name,range" localIndex:"by-name-2,range"`
	//lint:ignore SA5008 repeated keys are the form under test
	Phone string `dynamo:"phone" index:"by-phone,hash;by-phone-2,hash" index:"by-phone-3,hash"`
}

// ContactFirstOnly is what Contact's tags meant before repeated keys were
// read: only the first occurrence of each.
type ContactFirstOnly struct {
	ID    string `dynamo:"id,hash"`
	Seq   int64  `dynamo:"seq,range"`
	Email string `dynamo:"email" index:"by-email,hash"`
	Name  string `dynamo:"name" localIndex:"by-name,range"`
	Phone string `dynamo:"phone" index:"by-phone,hash;by-phone-2,hash"`
}

func TestRepeatedIndexTagKey(t *testing.T) {
	c, name := createFor[Contact](t)
	global, local := indexNames(t, c, name)
	assert.ElementsMatch(t, []string{"by-email", "by-email-2", "by-phone", "by-phone-2", "by-phone-3"}, global)
	assert.ElementsMatch(t, []string{"by-name", "by-name-2"}, local)

	tb, err := mapper.NewTable[Contact](c, name)
	require.NoError(t, err)
	require.NoError(t, tb.Check(context.Background()))

	// A table made from the first occurrences only lacks the others, and
	// Check says so.
	_, short := createFor[ContactFirstOnly](t)
	tb, err = mapper.NewTable[Contact](c, short)
	require.NoError(t, err)
	err = tb.Check(context.Background())
	var me *mapper.MismatchError
	require.ErrorAs(t, err, &me)
	var missing []string
	for _, m := range me.Mismatches {
		assert.Equal(t, "no such index", m.Actual, m.String())
		missing = append(missing, m.Index+" "+m.Field)
	}
	assert.ElementsMatch(t, []string{"by-email-2 Email", "by-name-2 Name", "by-phone-3 Phone"}, missing)

	// An index named twice on one field, across repeated keys, is refused.
	type twice struct {
		ID string `dynamo:"id,hash"`
		//lint:ignore SA5008 repeated keys are the form under test
		Email string `dynamo:"email" index:"by-email,hash" index:"by-email,hash"`
	}
	_, err = mapper.NewTable[twice](c, name)
	require.ErrorIs(t, err, mapper.ErrInvalidSchema)
	assert.ErrorContains(t, err, "index by-email is named twice on one field")
}

// Ticket's status, tag and assignee are keys of secondary indexes only;
// an empty value must leave the item out of the index, as guregu does,
// instead of failing the write.
type Ticket struct {
	Queue    string  `dynamo:"queue,hash"`
	ID       string  `dynamo:"id,range"`
	Status   string  `dynamo:"status" index:"by-status,hash"`
	Tag      []byte  `dynamo:"tag" index:"by-tag,hash"`
	Assignee string  `dynamo:"assignee" localIndex:"by-assignee,range"`
	Ref      *string `dynamo:"ref" index:"by-ref,hash"` // nil: NULL, left out too
	Title    string  `dynamo:"title"`
	Version  int64   `dynamo:"v,version"`
}

func rawItem(t *testing.T, c *dynamodb.Client, table, queue, id string) map[string]types.AttributeValue {
	t.Helper()
	out, err := c.GetItem(context.Background(), &dynamodb.GetItemInput{
		TableName:      aws.String(table),
		Key:            map[string]types.AttributeValue{"queue": &types.AttributeValueMemberS{Value: queue}, "id": &types.AttributeValueMemberS{Value: id}},
		ConsistentRead: aws.Bool(true),
	})
	require.NoError(t, err)
	require.NotNil(t, out.Item, "item %s/%s", queue, id)
	return out.Item
}

// inIndex returns the ids of the items that a Query of the global index
// finds under attr = v.
func inIndex(t *testing.T, tb *mapper.Table[Ticket], index, attr string, v types.AttributeValue) []string {
	t.Helper()
	in := &dynamodb.QueryInput{
		TableName:                 aws.String(tb.Name()),
		IndexName:                 aws.String(index),
		KeyConditionExpression:    aws.String("#k = :v"),
		ExpressionAttributeNames:  map[string]string{"#k": attr},
		ExpressionAttributeValues: map[string]types.AttributeValue{":v": v},
	}
	out, err := tb.Client().Query(context.Background(), in)
	require.NoError(t, err)
	var ids []string
	for _, it := range out.Items {
		ids = append(ids, it["id"].(*types.AttributeValueMemberS).Value)
	}
	return ids
}

func TestEmptyIndexKeyIsLeftOut(t *testing.T) {
	c, name := createFor[Ticket](t)
	tb, err := mapper.NewTable[Ticket](c, name)
	require.NoError(t, err)
	ctx := context.Background()
	absent := func(t *testing.T, id string) {
		t.Helper()
		item := rawItem(t, c, name, "q", id)
		for _, a := range []string{"status", "tag", "assignee", "ref"} {
			assert.NotContains(t, item, a, "%s: empty index key %s is left out", id, a)
		}
		assert.Contains(t, item, "title")
		got, err := tb.Get(ctx, Ticket{Queue: "q", ID: id})
		require.NoError(t, err)
		assert.Equal(t, "", got.Status, "reads back as the zero value")
		assert.Empty(t, got.Tag)
		assert.Equal(t, "", got.Assignee)
		assert.Nil(t, got.Ref)
	}

	t.Run("Put", func(t *testing.T) {
		// Each kind alone: a global S key, a global B key (nil, stored as
		// NULL before, and empty), a local S key, a pointer (nil: NULL).
		r, empty := aws.String("r"), aws.String("")
		for _, tk := range []*Ticket{
			{ID: "status", Tag: []byte{1}, Assignee: "a", Ref: r},
			{ID: "tag-nil", Status: "s", Assignee: "a", Ref: r},
			{ID: "tag-empty", Status: "s", Tag: []byte{}, Assignee: "a", Ref: r},
			{ID: "assignee", Status: "s", Tag: []byte{1}, Ref: r},
			{ID: "ref-nil", Status: "s", Tag: []byte{1}, Assignee: "a"},
			{ID: "ref-empty", Status: "s", Tag: []byte{1}, Assignee: "a", Ref: empty},
		} {
			tk.Queue = "q"
			if !assert.NoError(t, tb.Put(ctx, tk), tk.ID) {
				continue
			}
			item := rawItem(t, c, name, "q", tk.ID)
			want := map[string]bool{"status": tk.Status != "", "tag": len(tk.Tag) > 0, "assignee": tk.Assignee != "", "ref": tk.Ref != nil && *tk.Ref != ""}
			for a, present := range want {
				_, ok := item[a]
				assert.Equal(t, present, ok, "%s: attribute %s", tk.ID, a)
			}
		}
		// All at once, and read back.
		require.NoError(t, tb.Put(ctx, &Ticket{Queue: "q", ID: "put", Title: "x"}))
		absent(t, "put")
	})
	t.Run("PutAll", func(t *testing.T) {
		items := []*Ticket{{Queue: "q", ID: "all-1", Title: "x"}, {Queue: "q", ID: "all-2", Status: "open", Title: "x"}}
		require.NoError(t, tb.PutAll(ctx, items, mapper.Unversioned()))
		absent(t, "all-1")
		assert.Equal(t, []string{"all-2"}, inIndex(t, tb, "by-status", "status", &types.AttributeValueMemberS{Value: "open"}))
	})
	t.Run("PutOp", func(t *testing.T) {
		tx := txn.New(c)
		require.NoError(t, tx.Add(tb.PutOp(&Ticket{Queue: "q", ID: "op", Title: "x"})))
		require.NoError(t, tx.Commit(ctx))
		absent(t, "op")
	})
	t.Run("Save", func(t *testing.T) {
		tk := &Ticket{Queue: "q", ID: "save", Status: "done", Tag: []byte{7}, Assignee: "ann", Ref: aws.String("r"), Title: "x"}
		require.NoError(t, tb.Put(ctx, tk))
		assert.Equal(t, []string{"save"}, inIndex(t, tb, "by-status", "status", &types.AttributeValueMemberS{Value: "done"}))
		// Emptied: the attributes are removed, and the item leaves the
		// indexes.
		tk.Status, tk.Tag, tk.Assignee, tk.Ref = "", nil, "", nil
		require.NoError(t, tb.Save(ctx, tk))
		absent(t, "save")
		assert.Empty(t, inIndex(t, tb, "by-status", "status", &types.AttributeValueMemberS{Value: "done"}))
		assert.Empty(t, inIndex(t, tb, "by-tag", "tag", &types.AttributeValueMemberB{Value: []byte{7}}))
		// And Save of a new item with empty index keys.
		require.NoError(t, tb.Save(ctx, &Ticket{Queue: "q", ID: "save-new", Title: "x"}))
		absent(t, "save-new")
	})
	t.Run("Modify", func(t *testing.T) {
		_, err := tb.Modify(ctx, Ticket{Queue: "q", ID: "modify"}, func(tk *Ticket) error {
			tk.Title = "x"
			return nil
		})
		require.NoError(t, err)
		absent(t, "modify")
	})
	t.Run("table key stays refused", func(t *testing.T) {
		calls := ddbtest.NewCounting(c)
		kt, err := mapper.NewTable[Ticket](calls, name)
		require.NoError(t, err)
		assert.ErrorIs(t, kt.Put(ctx, &Ticket{Queue: "q", Title: "x"}), mapper.ErrInvalidItem)
		assert.ErrorIs(t, kt.Save(ctx, &Ticket{ID: "x", Title: "x"}), mapper.ErrInvalidItem)
		assert.Zero(t, calls.Total(), "nothing sent")
	})
}

// A table's own key that is also an index key keeps its check: an empty
// one is an ErrInvalidItem, not an item left out of the index.
func TestEmptyTableKeyThatIsAnIndexKey(t *testing.T) {
	type Doc struct {
		Owner string `dynamo:"owner,hash"`
		Path  string `dynamo:"path,range" index:"by-path,hash"`
	}
	calls := &ddbtest.CountingClient{}
	tb, err := mapper.NewTable[Doc](calls, "docs")
	require.NoError(t, err)
	assert.ErrorIs(t, tb.Put(context.Background(), &Doc{Owner: "a"}), mapper.ErrInvalidItem)
	assert.ErrorIs(t, tb.PutOp(&Doc{Owner: "a"}).Err(), mapper.ErrInvalidItem)
	assert.Zero(t, calls.Total())
}

// noTables counts the control-plane calls made on it, and makes none.
type noTables struct{ calls int }

func (n *noTables) CreateTable(context.Context, *dynamodb.CreateTableInput, ...func(*dynamodb.Options)) (*dynamodb.CreateTableOutput, error) {
	n.calls++
	return nil, errors.New("not sent")
}

func (n *noTables) DescribeTable(context.Context, *dynamodb.DescribeTableInput, ...func(*dynamodb.Options)) (*dynamodb.DescribeTableOutput, error) {
	n.calls++
	return nil, errors.New("not sent")
}

func (n *noTables) UpdateTimeToLive(context.Context, *dynamodb.UpdateTimeToLiveInput, ...func(*dynamodb.Options)) (*dynamodb.UpdateTimeToLiveOutput, error) {
	n.calls++
	return nil, errors.New("not sent")
}

func (n *noTables) DescribeTimeToLive(context.Context, *dynamodb.DescribeTimeToLiveInput, ...func(*dynamodb.Options)) (*dynamodb.DescribeTimeToLiveOutput, error) {
	n.calls++
	return nil, errors.New("not sent")
}

func TestIndexThroughputOfALocalIndexRefused(t *testing.T) {
	var c noTables
	err := mapper.CreateTable[Ticket](context.Background(), &c, "t", mapper.Provisioned(5, 5), mapper.IndexThroughput("by-assignee", 1, 1))
	require.ErrorIs(t, err, mapper.ErrInvalidOption)
	assert.ErrorContains(t, err, "by-assignee is a local index")
	assert.Zero(t, c.calls, "refused before any call")

	// On a global index it is honoured.
	srv := dynamolocal.New(t)
	name := ddbtest.TableName(t)
	require.NoError(t, mapper.CreateTable[Ticket](context.Background(), srv.Client(), name, mapper.Provisioned(5, 5), mapper.IndexThroughput("by-status", 2, 3)))
	ddbtest.DeleteAtCleanup(t, srv.Client(), name)
	out, err := srv.Client().DescribeTable(context.Background(), &dynamodb.DescribeTableInput{TableName: aws.String(name)})
	require.NoError(t, err)
	found := false
	for _, g := range out.Table.GlobalSecondaryIndexes {
		if aws.ToString(g.IndexName) == "by-status" {
			found = true
			// A DescribeTable without throughput must fail the test, not
			// kill the test binary.
			require.NotNil(t, g.ProvisionedThroughput, "by-status has no ProvisionedThroughput")
			assert.Equal(t, int64(2), aws.ToInt64(g.ProvisionedThroughput.ReadCapacityUnits))
			assert.Equal(t, int64(3), aws.ToInt64(g.ProvisionedThroughput.WriteCapacityUnits))
		}
	}
	assert.True(t, found, "no index by-status")
}

// Kinds has a global index on X and a local one on Y.
type Kinds struct {
	ID string `dynamo:"id,hash"`
	At int64  `dynamo:"at,range"`
	X  string `dynamo:"x" index:"by-x,hash"`
	Y  string `dynamo:"y" localIndex:"by-y,range"`
}

func TestCheckNamesTheFieldOfEveryIndexDifference(t *testing.T) {
	c, name := createFor[Kinds](t)
	// The same names, with the kinds swapped, and a local index missing.
	type Swapped struct {
		ID string `dynamo:"id,hash"`
		At int64  `dynamo:"at,range"`
		X  string `dynamo:"x" localIndex:"by-x,range"`
		Y  string `dynamo:"y" index:"by-y,hash"`
		Z  string `dynamo:"z" localIndex:"by-z,range"`
	}
	tb, err := mapper.NewTable[Swapped](c, name)
	require.NoError(t, err)
	err = tb.Check(context.Background())
	var me *mapper.MismatchError
	require.ErrorAs(t, err, &me)
	assert.Equal(t, []mapper.Mismatch{
		{Index: "by-x", Part: "index", Field: "X", Attribute: "x", Expected: "a local index", Actual: "a global index"},
		{Index: "by-y", Part: "index", Field: "Y", Attribute: "y", Expected: "a global index", Actual: "a local index"},
		{Index: "by-z", Part: "index", Field: "Z", Attribute: "z", Expected: "a local index (hash id (S), range z (S))", Actual: "no such index"},
	}, me.Mismatches)
	assert.ErrorContains(t, err, "index by-x: index (field X): want a local index, table has a global index")

	// CreateTable on the existing table reports the same differences.
	err = mapper.CreateTable[Swapped](context.Background(), c, name)
	var ce *mapper.MismatchError
	require.ErrorAs(t, err, &ce)
	assert.Equal(t, me.Mismatches, ce.Mismatches)
}

// decimalText is a number key that keeps the text it was given or read,
// as json.Number does: "1.0" and "1" are one key to DynamoDB.
type decimalText string

func (d decimalText) MarshalDynamoDBAttributeValue() (types.AttributeValue, error) {
	return &types.AttributeValueMemberN{Value: string(d)}, nil
}

func (d *decimalText) UnmarshalDynamoDBAttributeValue(av types.AttributeValue) error {
	n, ok := av.(*types.AttributeValueMemberN)
	if !ok {
		return fmt.Errorf("decimalText: want N, got %T", av)
	}
	*d = decimalText(n.Value)
	return nil
}

type Priced struct {
	Price   decimalText `dynamo:"price,hash"`
	Count   int         `dynamo:"count"`
	Version int64       `dynamo:"v,version"`
}

// Modify compares the key fn leaves with the key it was given by the
// rule DynamoDB applies: numbers by value.
func TestModifyKeyNumbersByValue(t *testing.T) {
	c, name := createFor[Priced](t)
	tb, err := mapper.NewTable[Priced](c, name)
	require.NoError(t, err)
	ctx := context.Background()
	require.NoError(t, tb.Put(ctx, &Priced{Price: "1", Count: 1}))
	got, err := tb.Modify(ctx, Priced{Price: "1.0"}, func(p *Priced) error {
		p.Count++
		return nil
	})
	require.NoError(t, err, "1.0 is the stored key 1")
	assert.Equal(t, 2, got.Count)
	assert.Equal(t, int64(2), got.Version)
	// A changed key is still refused.
	_, err = tb.Modify(ctx, Priced{Price: "1"}, func(p *Priced) error {
		p.Price = "2"
		return nil
	})
	assert.ErrorIs(t, err, mapper.ErrInvalidOption)
}
