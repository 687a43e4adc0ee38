// readme:begin quickstart

// Command quickstart creates a table, then writes items with version
// checks, on the embedded engine or, with -aws, on DynamoDB on AWS.
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

var table = "optimist-quickstart-accounts" // created if it does not exist

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
	// The table from the struct's tags; one that exists with this schema is fine.
	if err := mapper.CreateTable[Account](ctx, client, table); err != nil {
		return err
	}
	accounts, err := mapper.NewTable[Account](client, table)
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
	// Or let DynamoDB make the change: one UpdateItem, no read, no retry.
	staleCopy := *acct
	if acct, err = accounts.Update(ctx, Account{ID: "alice"}, update.Add("balance", -30)); err != nil {
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
	// A stale copy can never overwrite a newer one.
	var ce *version.ConflictError
	if err := accounts.Put(ctx, &staleCopy); !errors.As(err, &ce) { // errors.Is(err, version.ErrConflict) too
		return fmt.Errorf("the stale write was not refused: %v", err)
	}
	fmt.Fprintf(w, "stale write refused: expected version %d, table has %d\n", ce.Expected, ce.Actual)
	// Delete, each at the version read, so that the program can run again.
	if err := accounts.Delete(ctx, *from); err != nil {
		return err
	}
	return accounts.Delete(ctx, *to)
}

// connect returns a DynamoDB client, and a function to call when done.
func connect(ctx context.Context, useAWS bool) (*dynamodb.Client, func(), error) {
	if useAWS { // region and credentials as the AWS CLI finds them
		cfg, err := config.LoadDefaultConfig(ctx)
		if err != nil {
			return nil, nil, err
		}
		return dynamodb.NewFromConfig(cfg), func() {}, nil
	}
	// The embedded engine, in this process; or the server at DYNAMODB_ENDPOINT.
	srv, err := dynamolocal.Start(ctx)
	if err != nil {
		return nil, nil, err
	}
	return srv.Client(), func() { srv.Close() }, nil
}

// readme:end quickstart
