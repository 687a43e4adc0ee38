package mapper_test

// Entities of a single-table design against the engine: three types in one
// table with one overloaded index, collections, versions, transactions and
// units across types, unknown types, cursors.

import (
	"context"
	"errors"
	"fmt"
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
	"github.com/optimist-dynamo/optimist/txn"
	"github.com/optimist-dynamo/optimist/unit"
	"github.com/optimist-dynamo/optimist/update"
	"github.com/optimist-dynamo/optimist/version"
)

type SCustomer struct {
	ID      string `dynamo:"id"`
	Name    string `dynamo:"name"`
	Email   string `dynamo:"email"`
	Version int64  `dynamo:"v,version"`
}

type SOrder struct {
	CustomerID string `dynamo:"customer"`
	ID         string `dynamo:"id"`
	Status     string `dynamo:"status"`
	Lines      int    `dynamo:"lines"`
	Version    int64  `dynamo:"v,version"`
}

type SLine struct {
	CustomerID string `dynamo:"customer"`
	OrderID    string `dynamo:"order"`
	N          int    `dynamo:"n"`
	SKU        string `dynamo:"sku"`
	Qty        int    `dynamo:"qty"`
	Version    int64  `dynamo:"v,version"`
}

// shop is the design of the tests: customers, their orders and order lines
// in one partition per customer; gsi1 finds a customer by email, and an
// order with its lines by order ID.
type shop struct {
	ctx       context.Context
	client    *dynamodb.Client
	design    mapper.Design
	customers *mapper.Table[SCustomer]
	orders    *mapper.Table[SOrder]
	lines     *mapper.Table[SLine]
	coll      *mapper.Collection
}

func shopDesign(table string) mapper.Design {
	return mapper.Design{Table: table, PK: "pk", SK: "sk",
		Indexes: []mapper.OverloadedIndex{{Name: "gsi1", PK: "gsi1pk", SK: "gsi1sk"}}}
}

func newShop(t *testing.T) *shop {
	t.Helper()
	ctx := context.Background()
	srv := dynamolocal.New(t)
	c := srv.Client()
	d := shopDesign(ddbtest.TableName(t))
	require.NoError(t, d.CreateTable(ctx, c))
	ddbtest.DeleteAtCleanup(t, c, d.Table)
	s := &shop{ctx: ctx, client: c, design: d}
	var err error
	s.customers, err = mapper.NewEntity[SCustomer](c, d, mapper.Entity{Type: "Customer",
		Key:     mapper.Keys{PK: "CUSTOMER#{ID}", SK: "CUSTOMER"},
		Indexes: map[string]mapper.Keys{"gsi1": {PK: "EMAIL#{Email}", SK: "CUSTOMER"}}})
	require.NoError(t, err)
	s.orders, err = mapper.NewEntity[SOrder](c, d, mapper.Entity{Type: "Order",
		Key:     mapper.Keys{PK: "CUSTOMER#{CustomerID}", SK: "ORDER#{ID}"},
		Indexes: map[string]mapper.Keys{"gsi1": {PK: "ORDER#{ID}", SK: "ORDER"}}})
	require.NoError(t, err)
	s.lines, err = mapper.NewEntity[SLine](c, d, mapper.Entity{Type: "Line",
		Key:     mapper.Keys{PK: "CUSTOMER#{CustomerID}", SK: "LINE#{OrderID}#{N:%03d}"},
		Indexes: map[string]mapper.Keys{"gsi1": {PK: "ORDER#{OrderID}", SK: "ORDER#LINE#{N:%03d}"}}})
	require.NoError(t, err)
	s.coll, err = mapper.NewCollection(s.customers, s.orders, s.lines)
	require.NoError(t, err)
	return s
}

// seed writes customer c1 with orders o1 (two lines) and o2 (one line).
func (s *shop) seed(t *testing.T) {
	t.Helper()
	require.NoError(t, s.customers.Put(s.ctx, &SCustomer{ID: "c1", Name: "Ada", Email: "ada@example.com"}))
	require.NoError(t, s.orders.Put(s.ctx, &SOrder{CustomerID: "c1", ID: "o1", Status: "open", Lines: 2}))
	require.NoError(t, s.orders.Put(s.ctx, &SOrder{CustomerID: "c1", ID: "o2", Status: "open", Lines: 1}))
	for _, l := range []SLine{{OrderID: "o1", N: 1, SKU: "apple", Qty: 3}, {OrderID: "o1", N: 2, SKU: "pear", Qty: 1}, {OrderID: "o2", N: 1, SKU: "fig", Qty: 9}} {
		l.CustomerID = "c1"
		require.NoError(t, s.lines.Put(s.ctx, &l))
	}
}

func (s *shop) raw(t *testing.T, pk, sk string) map[string]types.AttributeValue {
	t.Helper()
	out, err := s.client.GetItem(s.ctx, &dynamodb.GetItemInput{TableName: aws.String(s.design.Table),
		Key: map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: pk}, "sk": &types.AttributeValueMemberS{Value: sk}}})
	require.NoError(t, err)
	return out.Item
}

func collectAny(seq func(func(any, error) bool)) ([]any, error) {
	var out []any
	for item, err := range seq {
		if err != nil {
			return out, err
		}
		out = append(out, item)
	}
	return out, nil
}

func str(av types.AttributeValue) string {
	if s, ok := av.(*types.AttributeValueMemberS); ok {
		return s.Value
	}
	return fmt.Sprintf("%#v", av)
}

// describeItems spells what a collection yielded, one string per item.
func describeItems(t *testing.T, seq func(func(any, error) bool)) []string {
	t.Helper()
	var got []string
	for item, err := range seq {
		require.NoError(t, err)
		switch v := item.(type) {
		case *SCustomer:
			got = append(got, "customer "+v.ID+" "+v.Name)
		case *SOrder:
			got = append(got, fmt.Sprintf("order %s %s v%d", v.ID, v.Status, v.Version))
		case *SLine:
			got = append(got, fmt.Sprintf("line %s/%d %s", v.OrderID, v.N, v.SKU))
		case *mapper.UnknownItem:
			got = append(got, fmt.Sprintf("unknown %q %s", v.Type, str(v.Item["sk"])))
		default:
			t.Fatalf("unexpected %T", item)
		}
	}
	return got
}

func TestEntityItemsCarryKeysTypeAndIndex(t *testing.T) {
	s := newShop(t)
	s.seed(t)
	item := s.raw(t, "CUSTOMER#c1", "LINE#o1#002")
	require.NotNil(t, item)
	assert.Equal(t, "Line", str(item["_type"]))
	assert.Equal(t, "ORDER#o1", str(item["gsi1pk"]))
	assert.Equal(t, "ORDER#LINE#002", str(item["gsi1sk"]))
	assert.Equal(t, "o1", str(item["order"]), "the fields are stored too")

	l, err := s.lines.Get(s.ctx, SLine{CustomerID: "c1", OrderID: "o1", N: 2})
	require.NoError(t, err)
	assert.Equal(t, SLine{CustomerID: "c1", OrderID: "o1", N: 2, SKU: "pear", Qty: 1, Version: 1}, *l)

	// An empty field in an index template leaves the item out of the
	// index; an entity in no index writes no index attributes.
	require.NoError(t, s.customers.Put(s.ctx, &SCustomer{ID: "c9", Name: "No mail"}))
	noMail := s.raw(t, "CUSTOMER#c9", "CUSTOMER")
	assert.NotContains(t, noMail, "gsi1pk")
	assert.NotContains(t, noMail, "gsi1sk")
	assert.Equal(t, "Customer", str(noMail["_type"]))
	plain, err := mapper.NewEntity[SOrder](s.client, s.design, mapper.Entity{Type: "Plain", Key: mapper.Keys{PK: "PLAIN#{ID}", SK: "P"}})
	require.NoError(t, err)
	require.NoError(t, plain.Put(s.ctx, &SOrder{ID: "p1"}))
	assert.NotContains(t, s.raw(t, "PLAIN#p1", "P"), "gsi1pk")
	// Save of an item that leaves the index removes its index attributes.
	c9, err := s.customers.Get(s.ctx, SCustomer{ID: "c9"})
	require.NoError(t, err)
	c9.Email = "c9@example.com"
	require.NoError(t, s.customers.Save(s.ctx, c9))
	assert.Equal(t, "EMAIL#c9@example.com", str(s.raw(t, "CUSTOMER#c9", "CUSTOMER")["gsi1pk"]))
	c9.Email = ""
	require.NoError(t, s.customers.Save(s.ctx, c9))
	assert.NotContains(t, s.raw(t, "CUSTOMER#c9", "CUSTOMER"), "gsi1pk")

	// An empty key field is refused before sending.
	err = s.orders.Put(s.ctx, &SOrder{CustomerID: "c1"})
	require.ErrorIs(t, err, mapper.ErrInvalidItem)
	_, err = s.orders.Get(s.ctx, SOrder{ID: "o1"})
	require.ErrorIs(t, err, mapper.ErrInvalidItem)
}

func TestCollectionQueryDecodesThreeTypes(t *testing.T) {
	s := newShop(t)
	s.seed(t)
	pk, err := s.customers.Partition(SCustomer{ID: "c1"})
	require.NoError(t, err)
	assert.Equal(t, "CUSTOMER#c1", pk)

	calls := ddbtest.NewCounting(s.client)
	cust, err := mapper.NewEntity[SCustomer](calls, s.design, mapper.Entity{Type: "Customer",
		Key: mapper.Keys{PK: "CUSTOMER#{ID}", SK: "CUSTOMER"}, Indexes: map[string]mapper.Keys{"gsi1": {PK: "EMAIL#{Email}", SK: "CUSTOMER"}}})
	require.NoError(t, err)
	coll, err := mapper.NewCollection(cust, s.orders, s.lines)
	require.NoError(t, err)
	assert.Equal(t, []string{
		"customer c1 Ada",
		"line o1/1 apple", "line o1/2 pear", "line o2/1 fig",
		"order o1 open v1", "order o2 open v1",
	}, describeItems(t, coll.Query(s.ctx, mapper.InPartition(pk))))
	assert.EqualValues(t, 1, calls.Count("Query"), "one call for three types")

	assert.Equal(t, []string{"order o2 open v1", "order o1 open v1"},
		describeItems(t, s.coll.Query(s.ctx, mapper.InPartition(pk).SortBeginsWith("ORDER#"), mapper.Descending())))
	assert.Equal(t, []string{"line o1/2 pear", "line o2/1 fig"},
		describeItems(t, s.coll.Query(s.ctx, mapper.InPartition(pk).SortBetween("LINE#o1#002", "LINE#o2#999"))))
	assert.Equal(t, []string{"order o1 open v1", "order o2 open v1"},
		describeItems(t, s.coll.Query(s.ctx, mapper.InPartition(pk), mapper.Filter(expression.Name("status").Equal(expression.Value("open"))))))

	// The overloaded index as a collection: an order with its lines.
	opk, err := s.orders.IndexPartition("gsi1", SOrder{ID: "o1"})
	require.NoError(t, err)
	assert.Equal(t, []string{"order o1 open v1", "line o1/1 apple", "line o1/2 pear"},
		describeItems(t, s.coll.Query(s.ctx, mapper.InPartition(opk), mapper.Index("gsi1"))))
	// And a customer by email.
	assert.Equal(t, []string{"customer c1 Ada"},
		describeItems(t, s.coll.Query(s.ctx, mapper.InPartition("EMAIL#ada@example.com"), mapper.Index("gsi1"))))

	// Through one entity's table, the other types are filtered out.
	var orders []string
	for o, err := range s.orders.Query(s.ctx, expression.Key("pk").Equal(expression.Value(pk))) {
		require.NoError(t, err)
		orders = append(orders, o.ID)
	}
	assert.Equal(t, []string{"o1", "o2"}, orders)
	n, err := s.lines.Count(s.ctx, expression.Key("pk").Equal(expression.Value(pk)))
	require.NoError(t, err)
	assert.Equal(t, 3, n)
	var viaIndex []string
	for l, err := range s.lines.Query(s.ctx, expression.Key("gsi1pk").Equal(expression.Value("ORDER#o1")), mapper.Index("gsi1")) {
		require.NoError(t, err)
		viaIndex = append(viaIndex, l.SKU)
	}
	assert.Equal(t, []string{"apple", "pear"}, viaIndex)
	all, err := mapper.All(s.customers.Scan(s.ctx))
	require.NoError(t, err)
	require.Len(t, all, 1)
}

func TestCollectionRefusals(t *testing.T) {
	s := newShop(t)
	_, err := mapper.NewCollection()
	require.ErrorIs(t, err, mapper.ErrInvalidOption)
	plain, err := mapper.NewTable[Counter](s.client, "x")
	require.NoError(t, err)
	_, err = mapper.NewCollection(s.orders, plain)
	require.ErrorIs(t, err, mapper.ErrInvalidOption)
	other := shopDesign("other")
	o2, err := mapper.NewEntity[SLine](s.client, other, mapper.Entity{Type: "Line", Key: mapper.Keys{PK: "L#{OrderID}", SK: "{N}"}})
	require.NoError(t, err)
	_, err = mapper.NewCollection(s.orders, o2)
	require.ErrorIs(t, err, mapper.ErrInvalidOption, "another design")
	_, err = mapper.NewCollection(s.orders, s.orders)
	require.ErrorIs(t, err, mapper.ErrInvalidOption, "a type twice")

	for _, tc := range []struct {
		name string
		key  mapper.KeyCond
		opts []mapper.ReadOption
	}{
		{"empty partition", mapper.InPartition(""), nil},
		{"unknown index", mapper.InPartition("x"), []mapper.ReadOption{mapper.Index("nope")}},
		{"projection", mapper.InPartition("x"), []mapper.ReadOption{mapper.Project("id")}},
		{"segments", mapper.InPartition("x"), []mapper.ReadOption{mapper.Segments(2)}},
	} {
		_, err := collectAny(s.coll.Query(s.ctx, tc.key, tc.opts...))
		require.ErrorIs(t, err, mapper.ErrInvalidOption, tc.name)
	}
	_, err = s.orders.IndexPartition("nope", SOrder{ID: "o1"})
	require.ErrorIs(t, err, mapper.ErrInvalidOption)
	_, err = plain.Partition(Counter{ID: "a"})
	require.ErrorIs(t, err, mapper.ErrInvalidOption)
}

func TestEntityVersionsAndConditions(t *testing.T) {
	s := newShop(t)
	s.seed(t)
	ctx := s.ctx

	// A stale Put is refused with the stored item.
	stale := SOrder{CustomerID: "c1", ID: "o1", Status: "open", Lines: 2, Version: 1}
	fresh, err := s.orders.Get(ctx, SOrder{CustomerID: "c1", ID: "o1"})
	require.NoError(t, err)
	fresh.Status = "paid"
	require.NoError(t, s.orders.Put(ctx, fresh))
	assert.EqualValues(t, 2, fresh.Version)
	stale.Status = "cancelled"
	ce := requireConflict(t, s.orders.Put(ctx, &stale), 1, 2)
	assert.Equal(t, "paid", str(ce.Item["status"]))
	assert.EqualValues(t, 1, stale.Version, "the struct is unchanged")

	// Creating an existing item conflicts.
	requireConflict(t, s.customers.Put(ctx, &SCustomer{ID: "c1", Name: "Eve", Email: "eve@example.com"}), 0, 1)

	// Modify re-reads and retries on conflict, per entity.
	o, err := s.orders.Modify(ctx, SOrder{CustomerID: "c1", ID: "o1"}, func(o *SOrder) error {
		o.Status = "shipped"
		return nil
	})
	require.NoError(t, err)
	assert.Equal(t, SOrder{CustomerID: "c1", ID: "o1", Status: "shipped", Lines: 2, Version: 3}, *o)
	// Modify of a missing item creates it, typed and keyed.
	o, err = s.orders.Modify(ctx, SOrder{CustomerID: "c2", ID: "o9"}, func(o *SOrder) error {
		o.Status = "new"
		return nil
	})
	require.NoError(t, err)
	assert.EqualValues(t, 1, o.Version)
	assert.Equal(t, "Order", str(s.raw(t, "CUSTOMER#c2", "ORDER#o9")["_type"]))

	// Update bumps the version, checks it when given, keeps the item typed.
	o, err = s.orders.Update(ctx, SOrder{CustomerID: "c1", ID: "o1"}, update.Add("lines", 1))
	require.NoError(t, err)
	assert.Equal(t, 3, o.Lines)
	assert.EqualValues(t, 4, o.Version)
	_, err = s.orders.Update(ctx, SOrder{CustomerID: "c1", ID: "o1", Version: 3}, update.Set("status", "lost"))
	requireConflict(t, err, 3, 4)
	// An Update that creates the item leaves it whole: type, key fields and
	// the index attributes built from key fields.
	o, err = s.orders.Update(ctx, SOrder{CustomerID: "c3", ID: "o7"}, update.Set("status", "draft"))
	require.NoError(t, err)
	assert.Equal(t, SOrder{CustomerID: "c3", ID: "o7", Status: "draft", Version: 1}, *o)
	created := s.raw(t, "CUSTOMER#c3", "ORDER#o7")
	assert.Equal(t, "Order", str(created["_type"]))
	assert.Equal(t, "ORDER#o7", str(created["gsi1pk"]))
	assert.Equal(t, "ORDER", str(created["gsi1sk"]))

	// Updates that would leave a rendered attribute stale are refused.
	for _, u := range []*update.Builder{update.Set("id", "o5"), update.Set("customer", "c9"), update.Set("_type", "X"), update.Set("gsi1pk", "X")} {
		_, err = s.orders.Update(ctx, SOrder{CustomerID: "c1", ID: "o1"}, u)
		require.ErrorIs(t, err, mapper.ErrInvalidOption)
	}
	_, err = s.customers.Update(ctx, SCustomer{ID: "c1"}, update.Set("email", "new@example.com"))
	require.ErrorIs(t, err, mapper.ErrInvalidOption, "email is in the index template")
	c, err := s.customers.Update(ctx, SCustomer{ID: "c1"}, update.Set("name", "Ada L."))
	require.NoError(t, err)
	assert.Equal(t, "Ada L.", c.Name)

	// Conditions of the caller, ANDed with the version.
	err = s.orders.Put(ctx, o, mapper.If(expression.Name("status").Equal(expression.Value("open"))))
	require.ErrorIs(t, err, mapper.ErrConditionFailed)
	require.NoError(t, s.orders.Put(ctx, o, mapper.If(expression.Name("status").Equal(expression.Value("draft")))))
	err = s.orders.Delete(ctx, SOrder{CustomerID: "c3", ID: "o7", Version: 1})
	requireConflict(t, err, 1, 2)

	// ExactlyOnce, per entity.
	c.Email = "ada@new.example.com"
	require.NoError(t, s.customers.Put(ctx, c, mapper.ExactlyOnce()))
	assert.Equal(t, "EMAIL#ada@new.example.com", str(s.raw(t, "CUSTOMER#c1", "CUSTOMER")["gsi1pk"]), "Put rewrites the index attributes")
	l, err := s.lines.Update(ctx, SLine{CustomerID: "c1", OrderID: "o1", N: 1}, update.Add("qty", 2), mapper.ExactlyOnce())
	require.NoError(t, err)
	assert.Equal(t, 5, l.Qty)
	require.NoError(t, s.orders.Delete(ctx, *o, mapper.ExactlyOnce()))
	_, err = s.orders.Get(ctx, *o)
	require.ErrorIs(t, err, mapper.ErrNotFound)

	// Save keeps the design's attributes.
	c.Email = "ada@saved.example.com"
	require.NoError(t, s.customers.Save(ctx, c))
	saved := s.raw(t, "CUSTOMER#c1", "CUSTOMER")
	assert.Equal(t, "EMAIL#ada@saved.example.com", str(saved["gsi1pk"]))
	assert.Equal(t, "Customer", str(saved["_type"]))
}

func TestEntityTxnAndUnitAcrossTypes(t *testing.T) {
	s := newShop(t)
	s.seed(t)
	ctx := s.ctx

	// Move line o1/2 to order o2, in a transaction over two entity types.
	line, err := s.lines.Get(ctx, SLine{CustomerID: "c1", OrderID: "o1", N: 2})
	require.NoError(t, err)
	moved := *line
	moved.OrderID, moved.N, moved.Version = "o2", 2, 0
	from, err := s.orders.Get(ctx, SOrder{CustomerID: "c1", ID: "o1"})
	require.NoError(t, err)
	tx := txn.New(s.client)
	require.NoError(t, tx.Add(
		s.lines.DeleteOp(*line),
		s.lines.PutOp(&moved),
		s.orders.UpdateOp(*from, update.Add("lines", -1)),
		s.orders.UpdateOp(SOrder{CustomerID: "c1", ID: "o2"}, update.Add("lines", 1)),
	))
	require.NoError(t, tx.Commit(ctx))
	assert.EqualValues(t, 1, moved.Version)
	opk, err := s.orders.IndexPartition("gsi1", SOrder{ID: "o2"})
	require.NoError(t, err)
	assert.Equal(t, []string{"order o2 open v2", "line o2/1 fig", "line o2/2 pear"},
		describeItems(t, s.coll.Query(ctx, mapper.InPartition(opk), mapper.Index("gsi1"))))

	// A stale op cancels the whole transaction.
	tx = txn.New(s.client)
	require.NoError(t, tx.Add(
		s.orders.UpdateOp(*from, update.Set("status", "x")), // version 1, now 2
		s.lines.DeleteOp(moved),
	))
	err = tx.Commit(ctx)
	require.True(t, version.IsConflict(err), "%v", err)
	_, err = s.lines.Get(ctx, moved)
	require.NoError(t, err, "the delete did not apply")

	// A unit of work: locking reads of two types, then the move back.
	coord := ddbtest.TableName(t)
	require.NoError(t, unit.CreateTable(ctx, s.client, coord))
	ddbtest.DeleteAtCleanup(t, s.client, coord)
	u, err := unit.Begin(ctx, s.client, unit.Coordinator(coord))
	require.NoError(t, err)
	o2, err := unit.Get(ctx, u, s.orders, SOrder{CustomerID: "c1", ID: "o2"})
	require.NoError(t, err)
	l, err := unit.Get(ctx, u, s.lines, moved)
	require.NoError(t, err)
	back := *l
	back.OrderID, back.N, back.Version = "o1", 2, 0
	_, err = unit.Get(ctx, u, s.lines, back) // locks the new key too
	require.ErrorIs(t, err, mapper.ErrNotFound)
	require.NoError(t, u.Add(
		s.lines.DeleteOp(*l),
		s.lines.PutOp(&back),
		s.orders.UpdateOp(*o2, update.Add("lines", -1)),
	))
	require.NoError(t, u.Commit(ctx))
	pk, err := s.customers.Partition(SCustomer{ID: "c1"})
	require.NoError(t, err)
	assert.Equal(t, []string{
		"customer c1 Ada",
		"line o1/1 apple", "line o1/2 pear", "line o2/1 fig",
		"order o1 open v2", "order o2 open v3",
	}, describeItems(t, s.coll.Query(ctx, mapper.InPartition(pk))))
	assert.Equal(t, "Line", str(s.raw(t, "CUSTOMER#c1", "LINE#o1#002")["_type"]))
}

func TestDesignCreateTableAndCheck(t *testing.T) {
	ctx := context.Background()
	c := dynamolocal.New(t).Client()
	d := shopDesign(ddbtest.TableName(t))
	d.Indexes = append(d.Indexes, mapper.OverloadedIndex{Name: "gsi2", PK: "gsi2pk"})
	require.NoError(t, d.CreateTable(ctx, c))
	ddbtest.DeleteAtCleanup(t, c, d.Table)
	out, err := c.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(d.Table)})
	require.NoError(t, err)
	tbl := out.Table
	require.Len(t, tbl.KeySchema, 2)
	assert.Equal(t, "pk", aws.ToString(tbl.KeySchema[0].AttributeName))
	assert.Equal(t, "sk", aws.ToString(tbl.KeySchema[1].AttributeName))
	require.Len(t, tbl.GlobalSecondaryIndexes, 2)
	for _, g := range tbl.GlobalSecondaryIndexes {
		assert.Equal(t, types.ProjectionTypeAll, g.Projection.ProjectionType, aws.ToString(g.IndexName))
	}
	for _, a := range tbl.AttributeDefinitions {
		assert.Equal(t, types.ScalarAttributeTypeS, a.AttributeType, aws.ToString(a.AttributeName))
	}
	assert.Len(t, tbl.AttributeDefinitions, 5)

	require.NoError(t, d.Check(ctx, c))
	require.NoError(t, d.CreateTable(ctx, c), "the same layout again is not an error")
	orders, err := mapper.NewEntity[SOrder](c, d, mapper.Entity{Type: "Order", Key: mapper.Keys{PK: "C#{CustomerID}", SK: "O#{ID}"}})
	require.NoError(t, err)
	require.NoError(t, orders.Check(ctx), "an entity checks the design's layout")

	// Mismatches: an index key named otherwise, an index the table lacks.
	bad := d
	bad.Indexes = []mapper.OverloadedIndex{{Name: "gsi1", PK: "gsi1pk", SK: "gsi1sort"}, {Name: "gsi2", PK: "gsi2pk"}, {Name: "gsi3", PK: "gsi3pk"}}
	err = bad.Check(ctx, c)
	var me *mapper.MismatchError
	require.ErrorAs(t, err, &me)
	require.ErrorIs(t, err, mapper.ErrSchemaMismatch)
	var idx []string
	for _, m := range me.Mismatches {
		idx = append(idx, m.Index+" "+m.Part)
	}
	assert.ElementsMatch(t, []string{"gsi1 range key", "gsi3 index"}, idx, "%v", err)
	err = bad.CreateTable(ctx, c)
	require.ErrorIs(t, err, mapper.ErrSchemaMismatch)
	badOrders, err := mapper.NewEntity[SOrder](c, bad, mapper.Entity{Type: "Order", Key: mapper.Keys{PK: "C#{CustomerID}", SK: "O#{ID}"}})
	require.NoError(t, err)
	require.ErrorIs(t, badOrders.Check(ctx), mapper.ErrSchemaMismatch)

	// A narrow overloaded index keeps the type attribute; keys only is refused.
	narrow := shopDesign(ddbtest.TableName(t))
	require.ErrorIs(t, narrow.CreateTable(ctx, c, mapper.ProjectKeysOnly("gsi1")), mapper.ErrInvalidOption)
	require.NoError(t, narrow.CreateTable(ctx, c, mapper.ProjectInclude("gsi1", "status")))
	ddbtest.DeleteAtCleanup(t, c, narrow.Table)
	out, err = c.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(narrow.Table)})
	require.NoError(t, err)
	require.Len(t, out.Table.GlobalSecondaryIndexes, 1)
	assert.Subset(t, out.Table.GlobalSecondaryIndexes[0].Projection.NonKeyAttributes, []string{"status", "_type"})

	// A design whose table has no sort key.
	flat := mapper.Design{Table: ddbtest.TableName(t), PK: "id"}
	require.NoError(t, flat.CreateTable(ctx, c))
	ddbtest.DeleteAtCleanup(t, c, flat.Table)
	wrong := flat
	wrong.SK = "sk"
	require.ErrorIs(t, wrong.Check(ctx, c), mapper.ErrSchemaMismatch)
}

func TestEntityUnknownTypeInPartition(t *testing.T) {
	s := newShop(t)
	s.seed(t)
	put := func(item map[string]types.AttributeValue) {
		_, err := s.client.PutItem(s.ctx, &dynamodb.PutItemInput{TableName: aws.String(s.design.Table), Item: item})
		require.NoError(t, err)
	}
	S := func(v string) types.AttributeValue { return &types.AttributeValueMemberS{Value: v} }
	// A type this reader does not know, and an item with no type at all.
	put(map[string]types.AttributeValue{"pk": S("CUSTOMER#c1"), "sk": S("NOTE#1"), "_type": S("Note"), "id": S("c1"), "name": S("not a customer")})
	put(map[string]types.AttributeValue{"pk": S("CUSTOMER#c1"), "sk": S("LEGACY"), "id": S("zzz")})

	pk := "CUSTOMER#c1"
	assert.Equal(t, []string{
		"customer c1 Ada", `unknown "" LEGACY`,
		"line o1/1 apple", "line o1/2 pear", "line o2/1 fig",
		`unknown "Note" NOTE#1`,
		"order o1 open v1", "order o2 open v1",
	}, describeItems(t, s.coll.Query(s.ctx, mapper.InPartition(pk))))

	// A collection that knows fewer types reports the others as unknown.
	only, err := mapper.NewCollection(s.orders)
	require.NoError(t, err)
	got := describeItems(t, only.Query(s.ctx, mapper.InPartition(pk)))
	assert.Len(t, got, 8)
	assert.Equal(t, `unknown "Customer" CUSTOMER`, got[0])

	// An entity's table never decodes another type's item.
	custAtNote, err := mapper.NewEntity[SCustomer](s.client, s.design, mapper.Entity{Type: "Customer",
		Key: mapper.Keys{PK: "CUSTOMER#{ID}", SK: "NOTE#1"}})
	require.NoError(t, err)
	_, err = custAtNote.Get(s.ctx, SCustomer{ID: "c1"})
	var wt *mapper.WrongTypeError
	require.ErrorAs(t, err, &wt)
	require.ErrorIs(t, err, mapper.ErrWrongType)
	assert.Equal(t, "Note", wt.Got)
	assert.Equal(t, "Customer", wt.Want)
	assert.False(t, errors.Is(err, mapper.ErrNotFound))
	_, err = custAtNote.Modify(s.ctx, SCustomer{ID: "c1"}, func(*SCustomer) error {
		t.Fatal("fn must not see another type's item")
		return nil
	})
	require.ErrorIs(t, err, mapper.ErrWrongType)
	_, err = custAtNote.GetAll(s.ctx, []SCustomer{{ID: "c1"}})
	require.ErrorIs(t, err, mapper.ErrWrongType)
	custs, err := mapper.All(s.customers.Query(s.ctx, expression.Key("pk").Equal(expression.Value(pk))))
	require.NoError(t, err)
	require.Len(t, custs, 1, "Query through an entity filters on the type")
}

func TestCollectionCursorResumes(t *testing.T) {
	s := newShop(t)
	s.seed(t)
	_, err := s.client.PutItem(s.ctx, &dynamodb.PutItemInput{TableName: aws.String(s.design.Table), Item: map[string]types.AttributeValue{
		"pk": &types.AttributeValueMemberS{Value: "CUSTOMER#c1"}, "sk": &types.AttributeValueMemberS{Value: "NOTE#1"}, "_type": &types.AttributeValueMemberS{Value: "Note"}}})
	require.NoError(t, err)
	pk := mapper.InPartition("CUSTOMER#c1")
	want := describeItems(t, s.coll.Query(s.ctx, pk))
	require.Len(t, want, 7)

	// Pages of two, each resumed from a cursor of the last item.
	var got []string
	var cursor mapper.Cursor
	for page := 0; page < 10; page++ {
		opts := []mapper.ReadOption{mapper.Limit(2)}
		if cursor != "" {
			opts = append(opts, mapper.StartAfter(cursor))
		}
		var last any
		items := describeItems(t, func(yield func(any, error) bool) {
			for item, err := range s.coll.Query(s.ctx, pk, opts...) {
				last = item
				if !yield(item, err) {
					return
				}
			}
		})
		got = append(got, items...)
		if len(items) < 2 {
			break
		}
		cursor, err = s.coll.CursorAfter(last)
		require.NoError(t, err)
	}
	assert.Equal(t, want, got)

	// On the index, the cursor carries the index key from the design.
	idx := []mapper.ReadOption{mapper.Index("gsi1")}
	first, err := collectAny(s.coll.Query(s.ctx, mapper.InPartition("ORDER#o1"), append(idx, mapper.Limit(1))...))
	require.NoError(t, err)
	require.Len(t, first, 1)
	cur, err := s.coll.CursorAfter(first[0], idx...)
	require.NoError(t, err)
	assert.Equal(t, []string{"line o1/1 apple", "line o1/2 pear"},
		describeItems(t, s.coll.Query(s.ctx, mapper.InPartition("ORDER#o1"), append(idx, mapper.StartAfter(cur))...)))
	// An entity table's own cursor on the index works the same way.
	l, err := s.lines.Get(s.ctx, SLine{CustomerID: "c1", OrderID: "o1", N: 1})
	require.NoError(t, err)
	cur, err = s.lines.CursorAfter(l, idx...)
	require.NoError(t, err)
	rest, err := mapper.All(s.lines.Query(s.ctx, expression.Key("gsi1pk").Equal(expression.Value("ORDER#o1")), append(idx, mapper.StartAfter(cur))...))
	require.NoError(t, err)
	require.Len(t, rest, 1)
	assert.Equal(t, "pear", rest[0].SKU)

	_, err = s.coll.CursorAfter(&Counter{ID: "x"})
	require.ErrorIs(t, err, mapper.ErrInvalidOption)
}

func TestNewEntityRefusals(t *testing.T) {
	c := dynamolocal.New(t).Client()
	d := shopDesign("t")
	type Tagged struct {
		ID string `dynamo:"id,hash"`
	}
	type Indexed struct {
		ID string `dynamo:"id" index:"byID,hash"`
	}
	type Clash struct {
		ID string `dynamo:"gsi1pk"`
	}
	type Struct struct {
		ID  string
		Sub struct{ A int }
	}
	type TTL struct {
		ID  string
		Exp int64 `dynamo:"exp,ttl"`
	}
	k := mapper.Keys{PK: "X#{ID}", SK: "X"}
	for _, tc := range []struct {
		name string
		err  error
		fn   func() error
	}{
		{"hash tag", mapper.ErrInvalidSchema, func() error {
			_, err := mapper.NewEntity[Tagged](c, d, mapper.Entity{Type: "T", Key: k})
			return err
		}},
		{"index tag", mapper.ErrInvalidSchema, func() error {
			_, err := mapper.NewEntity[Indexed](c, d, mapper.Entity{Type: "T", Key: k})
			return err
		}},
		{"clash with a design attribute", mapper.ErrInvalidSchema, func() error {
			_, err := mapper.NewEntity[Clash](c, d, mapper.Entity{Type: "T", Key: k})
			return err
		}},
		{"unknown field", mapper.ErrInvalidSchema, func() error {
			_, err := mapper.NewEntity[SOrder](c, d, mapper.Entity{Type: "T", Key: mapper.Keys{PK: "X#{Nope}", SK: "X"}})
			return err
		}},
		{"version field", mapper.ErrInvalidSchema, func() error {
			_, err := mapper.NewEntity[SOrder](c, d, mapper.Entity{Type: "T", Key: mapper.Keys{PK: "X#{Version}", SK: "X"}})
			return err
		}},
		{"struct field", mapper.ErrInvalidSchema, func() error {
			_, err := mapper.NewEntity[Struct](c, d, mapper.Entity{Type: "T", Key: mapper.Keys{PK: "X#{Sub}", SK: "X"}})
			return err
		}},
		{"bad template", mapper.ErrInvalidSchema, func() error {
			_, err := mapper.NewEntity[SOrder](c, d, mapper.Entity{Type: "T", Key: mapper.Keys{PK: "X#{ID}{Status}", SK: "X"}})
			return err
		}},
		{"ttl not the design's", mapper.ErrInvalidSchema, func() error {
			_, err := mapper.NewEntity[TTL](c, d, mapper.Entity{Type: "T", Key: k})
			return err
		}},
		{"no SK template", mapper.ErrInvalidOption, func() error {
			_, err := mapper.NewEntity[SOrder](c, d, mapper.Entity{Type: "T", Key: mapper.Keys{PK: "X#{ID}"}})
			return err
		}},
		{"no type", mapper.ErrInvalidOption, func() error {
			_, err := mapper.NewEntity[SOrder](c, d, mapper.Entity{Key: k})
			return err
		}},
		{"unknown index", mapper.ErrInvalidOption, func() error {
			_, err := mapper.NewEntity[SOrder](c, d, mapper.Entity{Type: "T", Key: k, Indexes: map[string]mapper.Keys{"gsi9": {PK: "A"}}})
			return err
		}},
		{"index without its SK template", mapper.ErrInvalidOption, func() error {
			_, err := mapper.NewEntity[SOrder](c, d, mapper.Entity{Type: "T", Key: k, Indexes: map[string]mapper.Keys{"gsi1": {PK: "A"}}})
			return err
		}},
		{"design attribute twice", mapper.ErrInvalidSchema, func() error {
			dd := shopDesign("t")
			dd.Indexes[0].PK = "sk"
			_, err := mapper.NewEntity[SOrder](c, dd, mapper.Entity{Type: "T", Key: k})
			return err
		}},
		{"token attribute clash", mapper.ErrInvalidSchema, func() error {
			_, err := mapper.NewEntity[SOrder](c, d, mapper.Entity{Type: "T", Key: k}, func(o *mapper.TableOptions) { o.TokenAttribute = "_type" })
			return err
		}},
	} {
		require.ErrorIs(t, tc.fn(), tc.err, tc.name)
	}
	// A TTL field under the design's TTL attribute, and a field reached by
	// its promoted name, are fine.
	dt := d
	dt.TTL = "exp"
	_, err := mapper.NewEntity[TTL](c, dt, mapper.Entity{Type: "T", Key: k})
	require.NoError(t, err)
	type Base struct{ ID string }
	type Derived struct {
		Base
		When time.Time
	}
	dv, err := mapper.NewEntity[Derived](c, d, mapper.Entity{Type: "D", Key: mapper.Keys{PK: "D#{ID}", SK: "{When}"}})
	require.NoError(t, err)
	when := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	pk, err := dv.Partition(Derived{Base: Base{ID: "7"}})
	require.NoError(t, err)
	assert.Equal(t, "D#7", pk)
	key, err := dv.Key(Derived{Base: Base{ID: "7"}, When: when})
	require.NoError(t, err)
	assert.Equal(t, "2026-01-02T03:04:05Z", str(key["sk"]))
}

// TestEntityConcurrentModifyAndCollection: Modify's conflict loop holds
// for an entity (no increment lost under contention), while collection
// queries of the same partition run beside it and always decode each
// item into its own type.
func TestEntityConcurrentModifyAndCollection(t *testing.T) {
	s := newShop(t)
	s.seed(t)
	const workers, each = 6, 8
	done := make(chan error, workers+1)
	stop := make(chan struct{})
	for w := 0; w < workers; w++ {
		go func() {
			for i := 0; i < each; i++ {
				if _, err := s.orders.Modify(s.ctx, SOrder{CustomerID: "c1", ID: "o1"}, func(o *SOrder) error {
					o.Lines++
					return nil
				}, mapper.MaxAttempts(1000)); err != nil {
					done <- err
					return
				}
			}
			done <- nil
		}()
	}
	go func() {
		for {
			select {
			case <-stop:
				done <- nil
				return
			default:
			}
			items, err := collectAny(s.coll.Query(s.ctx, mapper.InPartition("CUSTOMER#c1")))
			if err == nil && len(items) != 6 {
				err = fmt.Errorf("%d items", len(items))
			}
			for _, it := range items {
				if _, ok := it.(*mapper.UnknownItem); ok && err == nil {
					err = fmt.Errorf("an unknown item: %+v", it)
				}
			}
			if err != nil {
				done <- err
				return
			}
		}
	}()
	for w := 0; w < workers; w++ {
		require.NoError(t, <-done)
	}
	close(stop)
	require.NoError(t, <-done)
	o, err := s.orders.Get(s.ctx, SOrder{CustomerID: "c1", ID: "o1"})
	require.NoError(t, err)
	assert.Equal(t, 2+workers*each, o.Lines)
	assert.EqualValues(t, 1+workers*each, o.Version)
}
