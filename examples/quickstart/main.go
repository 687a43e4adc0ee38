// readme:begin quickstart

// Command quickstart is optimist's quick start: it gets a DynamoDB client,
// creates two tables, then writes and reads items with version checks.
//
//	go run .        # against the embedded DynamoDB engine, in the process
//	go run . -aws   # against DynamoDB on AWS (creates two on-demand tables)
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"os"

	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/optimist-dynamo/optimist/dynamolocal"
	"github.com/optimist-dynamo/optimist/mapper"
	"github.com/optimist-dynamo/optimist/txn"
	"github.com/optimist-dynamo/optimist/update"
	"github.com/optimist-dynamo/optimist/version"
)

// Account is a versioned item: every write checks the version it read.
type Account struct {
	ID      string `dynamo:"id,hash"`
	Balance int64  `dynamo:"balance"`
	Version int64  `dynamo:"v,version"`
}

// Order is an item with a hash and a range key, and no version.
type Order struct {
	Customer string `dynamo:"customer,hash"`
	ID       string `dynamo:"id,range"`
	Total    int64  `dynamo:"total"`
}

// The tables of the program; it creates them if they do not exist.
var accountsTable, ordersTable = "optimist-quickstart-accounts", "optimist-quickstart-orders"

func main() {
	useAWS := flag.Bool("aws", false, "use DynamoDB on AWS instead of the embedded engine")
	flag.Parse()
	ctx := context.Background()
	client, stop, err := connect(ctx, *useAWS)
	if err != nil {
		log.Fatal(err)
	}
	err = quickstart(ctx, client, os.Stdout)
	stop()
	if err != nil {
		log.Fatal(err)
	}
}

func quickstart(ctx context.Context, client *dynamodb.Client, w io.Writer) error {
	// Tables first, from the structs' tags. A table that exists already
	// with this schema is fine, so this may run at every start.
	if err := mapper.CreateTable[Account](ctx, client, accountsTable); err != nil {
		return err
	}
	if err := mapper.CreateTable[Order](ctx, client, ordersTable); err != nil {
		return err
	}
	accounts, err := mapper.NewTable[Account](client, accountsTable)
	if err != nil {
		return err
	}
	orders, err := mapper.NewTable[Order](client, ordersTable)
	if err != nil {
		return err
	}

	// Create: version 0 means "must not exist yet"; it is stored as version 1.
	if err := accounts.Put(ctx, &Account{ID: "alice", Balance: 100}); err != nil {
		return err
	}

	// Read, change, write back, however many processes do the same at once:
	// on a conflict fn runs again on the item that came back with it.
	acct, err := accounts.Modify(ctx, Account{ID: "alice"}, func(a *Account) error {
		a.Balance -= 30
		return nil
	})
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "alice has %d at version %d\n", acct.Balance, acct.Version)

	// Or let DynamoDB make the change: one UpdateItem, no read, no retry;
	// the version moves too, so stale full-item writes still conflict.
	staleCopy := *acct
	acct, err = accounts.Update(ctx, Account{ID: "alice"}, update.Add("balance", -30))
	if err != nil {
		return err
	}

	// Several items, all or nothing, each with its version check.
	from, to := acct, &Account{ID: "bob"}
	from.Balance, to.Balance = from.Balance-10, to.Balance+10
	tx := txn.New(client)
	if err := tx.Add(accounts.PutOp(from), accounts.PutOp(to)); err != nil {
		return err
	}
	if err := tx.Commit(ctx); err != nil {
		return err // version.IsConflict(err) if either changed since it was read
	}
	fmt.Fprintf(w, "alice has %d at version %d, bob %d at version %d\n", from.Balance, from.Version, to.Balance, to.Version)

	// Query and Scan iterate over every page; mapper.All collects them.
	if err := orders.PutAll(ctx, []*Order{{"alice", "o-1", 25}, {"alice", "o-2", 40}}); err != nil {
		return err
	}
	alices := expression.Key("customer").Equal(expression.Value("alice"))
	list, err := mapper.All(orders.Query(ctx, alices))
	if err != nil {
		return err
	}
	for _, o := range list {
		fmt.Fprintf(w, "order %s: %d\n", o.ID, o.Total)
	}

	// A stale copy can never overwrite a newer one.
	err = accounts.Put(ctx, &staleCopy)
	var ce *version.ConflictError
	if !errors.As(err, &ce) { // errors.Is(err, version.ErrConflict) holds too
		return fmt.Errorf("the stale write was not refused: %v", err)
	}
	fmt.Fprintf(w, "stale write refused: expected version %d, table has %d\n", ce.Expected, ce.Actual)

	// Delete, each account only at the version read; then the program can
	// run again on the same tables.
	if err := accounts.Delete(ctx, *from); err != nil {
		return err
	}
	if err := accounts.Delete(ctx, *to); err != nil {
		return err
	}
	return orders.DeleteAll(ctx, []Order{{Customer: "alice", ID: "o-1"}, {Customer: "alice", ID: "o-2"}})
}

// readme:begin connect

// connect returns a DynamoDB client, and a function to call when done.
func connect(ctx context.Context, useAWS bool) (*dynamodb.Client, func(), error) {
	if useAWS {
		// Region and credentials as the AWS CLI finds them: environment
		// variables, ~/.aws/config and credentials, SSO, an instance role.
		cfg, err := config.LoadDefaultConfig(ctx)
		if err != nil {
			return nil, nil, err
		}
		return dynamodb.NewFromConfig(cfg), func() {}, nil
	}
	// The embedded DynamoDB engine, in memory, in this process: Go alone.
	// With DYNAMODB_ENDPOINT set (such as http://localhost:8000) the server
	// running there is used instead.
	srv, err := dynamolocal.Start(ctx)
	if err != nil {
		return nil, nil, err
	}
	return srv.Client(), func() { srv.Close() }, nil
}

// readme:end connect
// readme:end quickstart
