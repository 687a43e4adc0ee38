// Command orders is the README's section on several entity types in one
// table as a program: an orders service whose customers, orders and order
// lines share one table and one overloaded index (single-table design).
// It creates the table and the items, reads a customer with its orders in
// one Query, changes an order under a version check, and moves a line from
// one order to another in one transaction.
//
//	go run ./examples/orders                 # on the embedded DynamoDB engine, in the process
//	go run ./examples/orders -endpoint http://localhost:8000
package main

import (
	"context"
	"fmt"
	"io"
	"iter"
	"os"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/optimist-dynamo/optimist/dynamolocal"
	"github.com/optimist-dynamo/optimist/examples/internal/demo"
	"github.com/optimist-dynamo/optimist/mapper"
	"github.com/optimist-dynamo/optimist/txn"
	"github.com/optimist-dynamo/optimist/update"
	"github.com/optimist-dynamo/optimist/version"
)

type Customer struct {
	ID    string `dynamo:"id"`
	Name  string `dynamo:"name"`
	Email string `dynamo:"email"`
	V     int64  `dynamo:"v,version"`
}

type Order struct {
	CustomerID string `dynamo:"customer"`
	ID         string `dynamo:"id"`
	Status     string `dynamo:"status"`
	Lines      int    `dynamo:"lines"`
	V          int64  `dynamo:"v,version"`
}

type Line struct {
	CustomerID string `dynamo:"customer"`
	OrderID    string `dynamo:"order"`
	SKU        string `dynamo:"sku"`
	Qty        int    `dynamo:"qty"`
	V          int64  `dynamo:"v,version"`
}

func main() {
	demo.Main(func(ctx context.Context, srv *dynamolocal.Server) error {
		return Run(ctx, srv.Client(), demo.Table("orders"), os.Stdout)
	})
}

// Run is the orders service's work on the table named table, printing
// what it reads to w.
func Run(ctx context.Context, client *dynamodb.Client, table string, w io.Writer) error {
	// One table: pk/sk, and gsi1 overloaded (a customer by email, an order with its lines).
	d := mapper.Design{Table: table, PK: "pk", SK: "sk",
		Indexes: []mapper.OverloadedIndex{{Name: "gsi1", PK: "gsi1pk", SK: "gsi1sk"}}}
	if err := d.CreateTable(ctx, client); err != nil {
		return err
	}
	customers, err := mapper.NewEntity[Customer](client, d, mapper.Entity{Type: "Customer",
		Key:     mapper.Keys{PK: "CUSTOMER#{ID}", SK: "CUSTOMER"},
		Indexes: map[string]mapper.Keys{"gsi1": {PK: "EMAIL#{Email}", SK: "CUSTOMER"}}})
	if err != nil {
		return err
	}
	orders, err := mapper.NewEntity[Order](client, d, mapper.Entity{Type: "Order",
		Key:     mapper.Keys{PK: "CUSTOMER#{CustomerID}", SK: "ORDER#{ID}#"}, // the closing # keeps an ID from reaching into a line's key
		Indexes: map[string]mapper.Keys{"gsi1": {PK: "ORDER#{ID}", SK: "ORDER"}}})
	if err != nil {
		return err
	}
	lines, err := mapper.NewEntity[Line](client, d, mapper.Entity{Type: "Line",
		Key:     mapper.Keys{PK: "CUSTOMER#{CustomerID}", SK: "ORDER#{OrderID}#LINE#{SKU}"},
		Indexes: map[string]mapper.Keys{"gsi1": {PK: "ORDER#{OrderID}", SK: "ORDER#LINE#{SKU}"}}})
	if err != nil {
		return err
	}
	shop, err := mapper.NewCollection(customers, orders, lines)
	if err != nil {
		return err
	}
	// Each item in its own type: a type switch.
	show := func(items iter.Seq2[any, error]) error {
		for item, err := range items {
			if err != nil {
				return err
			}
			switch v := item.(type) {
			case *Customer:
				fmt.Fprintf(w, "customer %s <%s>\n", v.Name, v.Email)
			case *Order:
				fmt.Fprintf(w, "  order %s: %s, %d lines (v%d)\n", v.ID, v.Status, v.Lines, v.V)
			case *Line:
				fmt.Fprintf(w, "    %d %s\n", v.Qty, v.SKU)
			case *mapper.UnknownItem:
				fmt.Fprintf(w, "  (an item of type %q)\n", v.Type)
			}
		}
		return nil
	}

	// Create a customer, two orders and their lines.
	if err := customers.Put(ctx, &Customer{ID: "c1", Name: "Ada", Email: "ada@example.com"}); err != nil {
		return err
	}
	for _, o := range []*Order{{CustomerID: "c1", ID: "o1", Status: "open", Lines: 2}, {CustomerID: "c1", ID: "o2", Status: "open", Lines: 1}} {
		if err := orders.Put(ctx, o); err != nil {
			return err
		}
	}
	for _, l := range []*Line{{OrderID: "o1", SKU: "apple", Qty: 3}, {OrderID: "o1", SKU: "pear", Qty: 1}, {OrderID: "o2", SKU: "fig", Qty: 9}} {
		l.CustomerID = "c1"
		if err := lines.Put(ctx, l); err != nil {
			return err
		}
	}

	// A customer with its orders and their lines: one Query of its partition.
	if err := show(shop.Query(ctx, mapper.InPartition("CUSTOMER#c1"))); err != nil {
		return err
	}

	// Change an order with a version check: Modify reads it, applies fn and
	// writes it if its version is still the one read (else it retries).
	if _, err := orders.Modify(ctx, Order{CustomerID: "c1", ID: "o1"}, func(o *Order) error {
		o.Status = "paid"
		return nil
	}); err != nil {
		return err
	}
	stale := &Order{CustomerID: "c1", ID: "o1", Status: "cancelled", Lines: 2, V: 1}
	if err := orders.Put(ctx, stale); !version.IsConflict(err) {
		return fmt.Errorf("a stale write was not refused: %v", err)
	}
	fmt.Fprintln(w, "a stale Put of o1 is refused: version.IsConflict")

	// Move the pear line from o1 to o2: one transaction over two entity types,
	// each op checking the version it read.
	from, err := orders.Get(ctx, Order{CustomerID: "c1", ID: "o1"})
	if err != nil {
		return err
	}
	to, err := orders.Get(ctx, Order{CustomerID: "c1", ID: "o2"})
	if err != nil {
		return err
	}
	line, err := lines.Get(ctx, Line{CustomerID: "c1", OrderID: "o1", SKU: "pear"})
	if err != nil {
		return err
	}
	moved := *line
	moved.OrderID, moved.V = "o2", 0
	tx := txn.New(client)
	if err := tx.Add(lines.DeleteOp(*line), lines.PutOp(&moved),
		orders.UpdateOp(*from, update.Add("lines", -1)), orders.UpdateOp(*to, update.Add("lines", 1))); err != nil {
		return err
	}
	if err := tx.Commit(ctx); err != nil {
		return err
	}

	// Order o2 with its lines, through the overloaded index.
	fmt.Fprintln(w, "after the move, by index gsi1:")
	if err := show(shop.Query(ctx, mapper.InPartition("ORDER#o2"), mapper.Index("gsi1"))); err != nil {
		return err
	}
	return nil
}
