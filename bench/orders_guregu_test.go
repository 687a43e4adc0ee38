package bench

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"testing"
	"time"

	"github.com/guregu/dynamo/v2"

	"github.com/optimist-dynamo/optimist/dynamolocal"
)

// The orders example (examples/orders) written with guregu/dynamo v2, for
// the line counts in the README's comparison: the same design (customers,
// orders and lines in one table with pk/sk and an overloaded gsi1), the same
// steps and output. guregu/dynamo has no entities, key templates, type
// attribute or versions: each struct carries the design's attributes,
// filled by hand before every write; the type switch reads the type
// attribute itself; the version check is a condition and an increment
// written out, and the read-modify-write loop is the caller's.
//
// ordersguregu:begin

type gKeys struct {
	PK     string `dynamo:"pk,hash"`
	SK     string `dynamo:"sk,range"`
	GSI1PK string `dynamo:"gsi1pk" index:"gsi1,hash"`
	GSI1SK string `dynamo:"gsi1sk" index:"gsi1,range"`
	Type   string `dynamo:"_type"`
}

type gCustomer struct {
	gKeys
	ID    string `dynamo:"id"`
	Name  string `dynamo:"name"`
	Email string `dynamo:"email"`
	V     int64  `dynamo:"v"`
}

type gOrder struct {
	gKeys
	CustomerID string `dynamo:"customer"`
	ID         string `dynamo:"id"`
	Status     string `dynamo:"status"`
	Lines      int    `dynamo:"lines"`
	V          int64  `dynamo:"v"`
}

type gLine struct {
	gKeys
	CustomerID string `dynamo:"customer"`
	OrderID    string `dynamo:"order"`
	SKU        string `dynamo:"sku"`
	Qty        int    `dynamo:"qty"`
	V          int64  `dynamo:"v"`
}

func (c *gCustomer) keys() *gCustomer {
	c.gKeys = gKeys{"CUSTOMER#" + c.ID, "CUSTOMER", "EMAIL#" + c.Email, "CUSTOMER", "Customer"}
	return c
}

func (o *gOrder) keys() *gOrder {
	o.gKeys = gKeys{"CUSTOMER#" + o.CustomerID, "ORDER#" + o.ID, "ORDER#" + o.ID, "ORDER", "Order"}
	return o
}

func (l *gLine) keys() *gLine {
	l.gKeys = gKeys{"CUSTOMER#" + l.CustomerID, "ORDER#" + l.OrderID + "#LINE#" + l.SKU, "ORDER#" + l.OrderID, "ORDER#LINE#" + l.SKU, "Line"}
	return l
}

func runOrdersGuregu(ctx context.Context, db *dynamo.DB, name string, w io.Writer) error {
	if err := db.CreateTable(name, gKeys{}).OnDemand(true).Wait(ctx); err != nil {
		return err
	}
	table := db.Table(name)
	create := func(item any) error { return table.Put(item).If("attribute_not_exists(pk)").Run(ctx) }
	if err := create((&gCustomer{ID: "c1", Name: "Ada", Email: "ada@example.com", V: 1}).keys()); err != nil {
		return err
	}
	for _, o := range []*gOrder{{CustomerID: "c1", ID: "o1", Status: "open", Lines: 2}, {CustomerID: "c1", ID: "o2", Status: "open", Lines: 1}} {
		o.V = 1
		if err := create(o.keys()); err != nil {
			return err
		}
	}
	for _, l := range []*gLine{{OrderID: "o1", SKU: "apple", Qty: 3}, {OrderID: "o1", SKU: "pear", Qty: 1}, {OrderID: "o2", SKU: "fig", Qty: 9}} {
		l.CustomerID, l.V = "c1", 1
		if err := create(l.keys()); err != nil {
			return err
		}
	}
	show := func(q *dynamo.Query) error {
		var items []dynamo.Item
		if err := q.All(ctx, &items); err != nil {
			return err
		}
		for _, item := range items {
			var typ string
			if err := dynamo.Unmarshal(item["_type"], &typ); err != nil {
				return err
			}
			switch typ {
			case "Customer":
				var c gCustomer
				if err := dynamo.UnmarshalItem(item, &c); err != nil {
					return err
				}
				fmt.Fprintf(w, "customer %s <%s>\n", c.Name, c.Email)
			case "Order":
				var o gOrder
				if err := dynamo.UnmarshalItem(item, &o); err != nil {
					return err
				}
				fmt.Fprintf(w, "  order %s: %s, %d lines (v%d)\n", o.ID, o.Status, o.Lines, o.V)
			case "Line":
				var l gLine
				if err := dynamo.UnmarshalItem(item, &l); err != nil {
					return err
				}
				fmt.Fprintf(w, "    %d %s\n", l.Qty, l.SKU)
			default:
				fmt.Fprintf(w, "  (an item of type %q)\n", typ)
			}
		}
		return nil
	}
	if err := show(table.Get("pk", "CUSTOMER#c1")); err != nil {
		return err
	}

	// Change an order with a version check: read, change, write if the
	// version is still the one read, else again.
	for {
		var o gOrder
		if err := table.Get("pk", "CUSTOMER#c1").Range("sk", dynamo.Equal, "ORDER#o1").Consistent(true).One(ctx, &o); err != nil {
			return err
		}
		o.Status, o.V = "paid", o.V+1
		err := table.Put(o.keys()).If("v = ?", o.V-1).Run(ctx)
		if dynamo.IsCondCheckFailed(err) {
			continue
		}
		if err != nil {
			return err
		}
		break
	}
	stale := (&gOrder{CustomerID: "c1", ID: "o1", Status: "cancelled", Lines: 2, V: 2}).keys()
	if err := table.Put(stale).If("v = ?", 1).Run(ctx); !dynamo.IsCondCheckFailed(err) {
		return fmt.Errorf("a stale write was not refused: %v", err)
	}
	fmt.Fprintln(w, "a stale Put of o1 is refused: version.IsConflict")

	// Move the pear line from o1 to o2 in one transaction, each op checking
	// the version it read.
	var from, to gOrder
	if err := table.Get("pk", "CUSTOMER#c1").Range("sk", dynamo.Equal, "ORDER#o1").Consistent(true).One(ctx, &from); err != nil {
		return err
	}
	if err := table.Get("pk", "CUSTOMER#c1").Range("sk", dynamo.Equal, "ORDER#o2").Consistent(true).One(ctx, &to); err != nil {
		return err
	}
	var line gLine
	if err := table.Get("pk", "CUSTOMER#c1").Range("sk", dynamo.Equal, "ORDER#o1#LINE#pear").Consistent(true).One(ctx, &line); err != nil {
		return err
	}
	moved := line
	moved.OrderID, moved.V = "o2", 1
	err := db.WriteTx().
		Delete(table.Delete("pk", line.PK).Range("sk", line.SK).If("v = ?", line.V)).
		Put(table.Put(moved.keys()).If("attribute_not_exists(pk)")).
		Update(table.Update("pk", from.PK).Range("sk", from.SK).Add("lines", -1).Add("v", 1).If("v = ?", from.V)).
		Update(table.Update("pk", to.PK).Range("sk", to.SK).Add("lines", 1).Add("v", 1).If("v = ?", to.V)).
		Run(ctx)
	if err != nil {
		return err
	}

	fmt.Fprintln(w, "after the move, by index gsi1:")
	return show(table.Get("gsi1pk", "ORDER#o2").Index("gsi1"))
}

// ordersguregu:end

// TestOrdersGuregu runs the guregu/dynamo version of the orders example on
// the embedded engine: its output is the example's (examples/orders), so
// the two programs do the same work.
func TestOrdersGuregu(t *testing.T) {
	srv, err := dynamolocal.StartEngine(dynamolocal.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	var out bytes.Buffer
	if err := runOrdersGuregu(context.Background(), dynamo.NewFromIface(srv.Client()), fmt.Sprintf("orders-%d", time.Now().UnixNano()), &out); err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	want := `customer Ada <ada@example.com>
  order o1: open, 2 lines (v1)
    3 apple
    1 pear
  order o2: open, 1 lines (v1)
    9 fig
a stale Put of o1 is refused: version.IsConflict
after the move, by index gsi1:
  order o2: open, 2 lines (v2)
    9 fig
    1 pear
`
	if out.String() != want {
		t.Errorf("got\n%s\nwant\n%s", out.String(), want)
	}
}
