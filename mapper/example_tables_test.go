package mapper_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/optimist-dynamo/optimist/mapper"
	"github.com/optimist-dynamo/optimist/update"
)

// Invoice is an orders-style table: hash and range keys, a global
// secondary index by status (newest first by issue date), and a TTL.
type Invoice struct {
	Customer string    `dynamo:"customer,hash"`
	ID       string    `dynamo:"id,range"`
	Status   string    `dynamo:"status" index:"by-status,hash"`
	Issued   int64     `dynamo:"issued" index:"by-status,range"`
	Number   string    `dynamo:"number,omitempty" index:"by-number,hash"`
	Total    int       `dynamo:"total"`
	Expires  time.Time `dynamo:"expires,ttl,unixtime"`
	Version  int64     `dynamo:"v,version"`
}

// CreateTable reads the keys, indexes and TTL from the struct's tags,
// waits until the table is active, and accepts a table that exists with
// the same schema.
func ExampleCreateTable() {
	ctx := context.Background()
	client := exampleClient()

	if err := mapper.CreateTable[Invoice](ctx, client, "invoices"); err != nil {
		log.Fatal(err)
	}

	out, err := client.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String("invoices")})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("key:", keyNames(out.Table.KeySchema...))
	for _, g := range out.Table.GlobalSecondaryIndexes {
		fmt.Printf("index %s: %s, projection %s\n", aws.ToString(g.IndexName), keyNames(g.KeySchema...), g.Projection.ProjectionType)
	}
	ttl, err := client.DescribeTimeToLive(ctx, &dynamodb.DescribeTimeToLiveInput{TableName: aws.String("invoices")})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("TTL:", aws.ToString(ttl.TimeToLiveDescription.AttributeName), ttl.TimeToLiveDescription.TimeToLiveStatus)

	fmt.Println("again:", mapper.CreateTable[Invoice](ctx, client, "invoices"))

	// A struct that disagrees with the existing table is refused, with
	// every difference named; nothing is changed.
	type Renamed struct {
		Customer string `dynamo:"cust,hash"`
		ID       string `dynamo:"id,range"`
	}
	err = mapper.CreateTable[Renamed](ctx, client, "invoices")
	fmt.Println(errors.Is(err, mapper.ErrSchemaMismatch))
	var me *mapper.MismatchError
	if errors.As(err, &me) {
		for _, m := range me.Mismatches {
			fmt.Println(m)
		}
	}
	// Output:
	// key: customer HASH, id RANGE
	// index by-status: status HASH, issued RANGE, projection ALL
	// index by-number: number HASH, projection ALL
	// TTL: expires ENABLED
	// again: <nil>
	// true
	// hash key (field Customer): want cust (S), table has customer (S)
}

// Check compares a table with the struct that will read and write it, in
// one DescribeTable call, before the first request fails on a key.
func ExampleTable_Check() {
	ctx := context.Background()
	client := exampleTable[Invoice]("invoices-check")

	type OldInvoice struct {
		Customer string `dynamo:"customer_id,hash"`
		ID       int    `dynamo:"id,range"`
		Status   string `dynamo:"status" index:"by-state,hash"`
	}
	old, err := mapper.NewTable[OldInvoice](client, "invoices-check")
	if err != nil {
		log.Fatal(err)
	}
	err = old.Check(ctx)
	var me *mapper.MismatchError
	if errors.As(err, &me) {
		for _, m := range me.Mismatches {
			fmt.Println(m)
		}
	}

	invoices, err := mapper.NewTable[Invoice](client, "invoices-check")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("Invoice:", invoices.Check(ctx))
	// Output:
	// hash key (field Customer): want customer_id (S), table has customer (S)
	// range key (field ID): want id (N), table has id (S)
	// index by-state: index (field Status): want a global index (hash status (S), range none), table has no such index
	// Invoice: <nil>
}

func seedInvoices(ctx context.Context, invoices *mapper.Table[Invoice]) {
	for i, status := range []string{"paid", "open", "paid", "open", "open"} {
		inv := &Invoice{Customer: "acme", ID: fmt.Sprintf("inv-%d", i+1), Status: status, Issued: int64(100 + i),
			Number: fmt.Sprintf("N-%03d", i+1), Total: 10 * (i + 1), Expires: time.Now().AddDate(1, 0, 0)}
		if err := invoices.Put(ctx, inv); err != nil {
			log.Fatal(err)
		}
	}
}

// Count counts without reading the items out (Select=COUNT), following
// every page; ScanCount counts a whole table or index.
func ExampleTable_Count() {
	ctx := context.Background()
	invoices, err := mapper.NewTable[Invoice](exampleTable[Invoice]("invoices-count"), "invoices-count")
	if err != nil {
		log.Fatal(err)
	}
	seedInvoices(ctx, invoices)

	var cc mapper.Capacity
	open, err := invoices.Count(ctx, expression.Key("status").Equal(expression.Value("open")),
		mapper.Index("by-status"), mapper.PageSize(2), mapper.ReadCapacity(&cc))
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("open:", open, "in", cc.Calls, "calls")

	big, err := invoices.Count(ctx, expression.Key("customer").Equal(expression.Value("acme")),
		mapper.Filter(expression.Name("total").GreaterThanEqual(expression.Value(30))))
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("30 or more:", big)

	all, err := invoices.ScanCount(ctx)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("all:", all)
	// Output:
	// open: 3 in 2 calls
	// 30 or more: 3
	// all: 5
}

// One is for lookups that must find exactly one item, such as by a unique
// attribute through an index.
func ExampleTable_One() {
	ctx := context.Background()
	invoices, err := mapper.NewTable[Invoice](exampleTable[Invoice]("invoices-one"), "invoices-one")
	if err != nil {
		log.Fatal(err)
	}
	seedInvoices(ctx, invoices)

	inv, err := invoices.One(ctx, expression.Key("number").Equal(expression.Value("N-004")), mapper.Index("by-number"))
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(inv.ID, inv.Status, inv.Total)

	_, err = invoices.One(ctx, expression.Key("number").Equal(expression.Value("N-999")), mapper.Index("by-number"))
	fmt.Println(errors.Is(err, mapper.ErrNotFound))
	_, err = invoices.One(ctx, expression.Key("status").Equal(expression.Value("open")), mapper.Index("by-status"))
	fmt.Println(errors.Is(err, mapper.ErrNotUnique))
	// Output:
	// inv-4 open 40
	// true
	// true
}

// Old returns the item as it was before a Put, Update or Delete, from the
// same call (ReturnValues=ALL_OLD).
func ExampleOld() {
	ctx := context.Background()
	invoices, err := mapper.NewTable[Invoice](exampleTable[Invoice]("invoices-old"), "invoices-old")
	if err != nil {
		log.Fatal(err)
	}

	var prev *Invoice
	inv := &Invoice{Customer: "acme", ID: "inv-1", Status: "open", Total: 10}
	if err := invoices.Put(ctx, inv, mapper.Old(&prev)); err != nil {
		log.Fatal(err)
	}
	fmt.Println("before the create:", prev)

	if _, err := invoices.Update(ctx, Invoice{Customer: "acme", ID: "inv-1"}, update.Set("status", "paid"), mapper.Old(&prev)); err != nil {
		log.Fatal(err)
	}
	fmt.Println("before the update:", prev.Status, "version", prev.Version)

	if err := invoices.Delete(ctx, Invoice{Customer: "acme", ID: "inv-1"}, mapper.Old(&prev)); err != nil {
		log.Fatal(err)
	}
	fmt.Println("deleted:", prev.Status, "version", prev.Version)
	// Output:
	// before the create: <nil>
	// before the update: open version 1
	// deleted: paid version 2
}

func keyNames(ks ...types.KeySchemaElement) string {
	out := ""
	for i, k := range ks {
		if i > 0 {
			out += ", "
		}
		out += aws.ToString(k.AttributeName) + " " + string(k.KeyType)
	}
	return out
}
