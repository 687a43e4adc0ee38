// Command tables is the README's section on tables from structs as a
// program: a table created from a struct's tags (keys, a global secondary
// index, TTL), checked against the struct, and read through its index.
//
//	go run ./examples/tables                 # on the embedded DynamoDB engine, in the process
//	go run ./examples/tables -endpoint http://localhost:8000
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/optimist-dynamo/optimist/dynamolocal"
	"github.com/optimist-dynamo/optimist/examples/internal/demo"
	"github.com/optimist-dynamo/optimist/mapper"
)

// Order has a global secondary index "by-status" and a TTL on Expires.
type Order struct {
	Customer string    `dynamo:"customer,hash"`
	ID       string    `dynamo:"id,range"`
	Status   string    `dynamo:"status" index:"by-status,hash"`
	Placed   int64     `dynamo:"placed" index:"by-status,range"`
	Expires  time.Time `dynamo:"expires,ttl,unixtime"`
	Version  int64     `dynamo:"v,version"`
}

func main() {
	demo.Main(func(ctx context.Context, srv *dynamolocal.Server) error {
		return Run(ctx, srv.Client(), demo.Table("orders"), os.Stdout)
	})
}

// Run creates the table (the code the README describes), creates it again, writes
// three orders, one without a status, and reads the open ones through the
// index, printing what it finds to w.
func Run(ctx context.Context, client *dynamodb.Client, table string, w io.Writer) error {
	// One call: keys, attribute definitions, the index, on-demand billing,
	// TTL; it waits until the table is active. On a table that exists with
	// this schema it changes nothing; on another, it names every difference.
	if err := mapper.CreateTable[Order](ctx, client, table); err != nil {
		return err
	}
	orders, err := mapper.NewTable[Order](client, table)
	if err != nil {
		return err
	}
	// At start-up: one DescribeTable, every difference between table and struct.
	if err := orders.Check(ctx); err != nil {
		return err // errors.Is(err, mapper.ErrSchemaMismatch); the *mapper.MismatchError lists them
	}
	fmt.Fprintln(w, "created, and the table matches Order")
	if err := mapper.CreateTable[Order](ctx, client, table); err != nil {
		return err
	}
	fmt.Fprintln(w, "CreateTable again on the table as it is: no error")

	expires := time.Now().Add(30 * 24 * time.Hour)
	for _, o := range []*Order{
		{Customer: "alice", ID: "o-1", Status: "open", Placed: 3, Expires: expires},
		{Customer: "alice", ID: "o-2", Status: "shipped", Placed: 1, Expires: expires},
		{Customer: "bob", ID: "o-3", Status: "open", Placed: 2, Expires: expires},
		{Customer: "bob", ID: "o-4", Placed: 4, Expires: expires}, // no status: in no index
	} {
		if err := orders.Put(ctx, o); err != nil {
			return err
		}
	}
	open := expression.Key("status").Equal(expression.Value("open"))
	list, err := mapper.All(orders.Query(ctx, open, mapper.Index("by-status")))
	if err != nil {
		return err
	}
	var ids []string
	for _, o := range list {
		ids = append(ids, o.ID)
	}
	fmt.Fprintf(w, "open orders by index by-status, in order of Placed: %s\n", strings.Join(ids, " "))
	all, err := orders.ScanCount(ctx)
	if err != nil {
		return err
	}
	indexed, err := orders.ScanCount(ctx, mapper.Index("by-status"))
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "%d orders in the table, %d in the index: an empty status leaves the order out of it\n", all, indexed)

	// A table whose writes all go to one Region may be a global table:
	// said so, no DescribeTable is asked to check.
	region := client.Options().Region
	orders, err = mapper.NewTable[Order](client, table, func(o *mapper.TableOptions) {
		o.WriteRegion = region // every write goes to this Region; a client elsewhere is refused
	})
	if err != nil {
		return err
	}
	if err := orders.Put(ctx, &Order{Customer: "carol", ID: "o-5", Status: "open", Placed: 5, Expires: expires}); err != nil {
		return err
	}
	fmt.Fprintln(w, "written with WriteRegion set to the client's Region")
	return nil
}
