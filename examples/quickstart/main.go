// Command quickstart is the README's quick start as a program: the code
// between the "quickstart:begin" and "quickstart:end" lines below is the
// README's snippet, word for word (a test compares them, and runs the
// program against DynamoDB Local, so the snippet cannot drift).
//
//	go run ./examples/quickstart   # starts DynamoDB Local by itself
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"os"
	"time"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/optimist-dynamo/optimist/examples/internal/demo"
	"github.com/optimist-dynamo/optimist/mapper"
	"github.com/optimist-dynamo/optimist/txn"
	"github.com/optimist-dynamo/optimist/update"
	"github.com/optimist-dynamo/optimist/version"
)

// quickstart:begin
// Account is a versioned item.
type Account struct {
	ID      string `dynamo:"id,hash"`
	Balance int64  `dynamo:"balance"`
	Version int64  `dynamo:"v,version"` // every write checks it
}

// Order is an item with a hash and a range key, and no version.
type Order struct {
	Customer string `dynamo:"customer,hash"`
	ID       string `dynamo:"id,range"`
	Total    int64  `dynamo:"total"`
}

// quickstart:end

func main() {
	endpoint := demo.Endpoint()
	flag.Parse()
	ctx := context.Background()
	srv := demo.Start(ctx, *endpoint)
	defer srv.Close()
	suffix := fmt.Sprint(time.Now().UnixNano())
	if err := Run(ctx, srv.Client(), "accounts-"+suffix, "orders-"+suffix, os.Stdout); err != nil {
		log.Fatal(err)
	}
}

// Run creates the two tables and runs the quick start on them, printing
// what it does to w.
func Run(ctx context.Context, client *dynamodb.Client, accountsTable, ordersTable string, w io.Writer) error {
	if err := mapper.CreateTable[Account](ctx, client, accountsTable); err != nil {
		return err
	}
	if err := mapper.CreateTable[Order](ctx, client, ordersTable); err != nil {
		return err
	}
	return quickstart(ctx, client, accountsTable, ordersTable, w)
}

func quickstart(ctx context.Context, client *dynamodb.Client, accountsTable, ordersTable string, w io.Writer) error {
	// quickstart:begin
	accounts, err := mapper.NewTable[Account](client, accountsTable)
	if err != nil {
		return err
	}

	// Create: version 0 means "must not exist yet"; it is stored as version 1.
	if err := accounts.Put(ctx, &Account{ID: "alice", Balance: 100}); err != nil {
		return err
	}

	// Change safely, however many processes do the same at once. On a conflict
	// fn runs again on the current item, which DynamoDB returned with the
	// conflict: no second read.
	acct, err := accounts.Modify(ctx, Account{ID: "alice"}, func(a *Account) error {
		a.Balance -= 30
		return nil
	})
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "alice has %d at version %d\n", acct.Balance, acct.Version)

	// Or let DynamoDB make the change: one UpdateItem, no read, no retry; the
	// version moves too, so stale full-item writes still conflict.
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

	// Many items: Query and Scan iterate over every page (resume with
	// CursorAfter and StartAfter); GetAll, PutAll, DeleteAll batch.
	orders, err := mapper.NewTable[Order](client, ordersTable)
	if err != nil {
		return err
	}
	if err := orders.PutAll(ctx, []*Order{{"alice", "o-1", 25}, {"alice", "o-2", 40}}); err != nil {
		return err
	}
	alices := expression.Key("customer").Equal(expression.Value("alice"))
	for order, err := range orders.Query(ctx, alices, mapper.Limit(20)) {
		if err != nil {
			return err
		}
		fmt.Fprintf(w, "order %s: %d\n", order.ID, order.Total)
	}

	// A stale copy can never overwrite a newer one.
	err = accounts.Put(ctx, &staleCopy)
	var ce *version.ConflictError
	if errors.As(err, &ce) { // errors.Is(err, version.ErrConflict) also holds
		fmt.Fprintf(w, "stale write refused: expected version %d, table has %d\n", ce.Expected, ce.Actual)
	}
	// quickstart:end
	return nil
}
