// Command units is the README's section on package unit as a program: a
// unit of work moves money between two accounts with locking reads and a
// commit, and the program prints what readers and writers see meanwhile,
// what a rollback leaves, and what Recover does for a unit whose process
// died.
//
//	go run ./examples/units                  # on the embedded DynamoDB engine, in the process
//	go run ./examples/units -endpoint http://localhost:8000
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/optimist-dynamo/optimist/dynamolocal"
	"github.com/optimist-dynamo/optimist/examples/internal/demo"
	"github.com/optimist-dynamo/optimist/mapper"
	"github.com/optimist-dynamo/optimist/unit"
	"github.com/optimist-dynamo/optimist/update"
)

// Account is a versioned item.
type Account struct {
	ID      string `dynamo:"id,hash"`
	Balance int64  `dynamo:"balance"`
	Version int64  `dynamo:"v,version"`
}

func main() {
	demo.Main(func(ctx context.Context, srv *dynamolocal.Server) error {
		return Run(ctx, srv.Client(), demo.Table("accounts"), demo.Table("units"), os.Stdout)
	})
}

// Run creates the accounts table with alice (100) and bob (0), moves 10
// from alice to bob in a unit (the code the README describes), then shows a rollback
// and a crash, printing what it finds to w.
func Run(ctx context.Context, client *dynamodb.Client, accountsTable, coordinator string, w io.Writer) error {
	accounts, err := demo.NewTable[Account](ctx, client, accountsTable)
	if err != nil {
		return err
	}
	for _, a := range []*Account{{ID: "alice", Balance: 100}, {ID: "bob"}} {
		if err := accounts.Put(ctx, a); err != nil {
			return err
		}
	}

	// Once: the coordinator table (key "id", TTL), where units are recorded.
	if err := unit.CreateTable(ctx, client, coordinator); err != nil {
		return err
	}

	// Move 10 from alice to bob: locking reads, writes, commit.
	u, err := unit.Begin(ctx, client, unit.Coordinator(coordinator))
	if err != nil {
		return err
	}
	alice, err := unit.Get(ctx, u, accounts, Account{ID: "alice"}) // locks alice, reads her
	if err != nil {
		return errors.Join(err, u.Rollback(ctx)) // Rollback unlocks all, writes nothing
	}
	bob, err := unit.Get(ctx, u, accounts, Account{ID: "bob"})
	if err != nil {
		return errors.Join(err, u.Rollback(ctx))
	}
	alice.Balance, bob.Balance = alice.Balance-10, bob.Balance+10
	// Any number of writes, to any tables, with their version checks; Commit sends them.
	if err := u.Add(accounts.PutOp(alice), accounts.PutOp(bob)); err != nil {
		return errors.Join(err, u.Rollback(ctx))
	}
	if err := meanwhile(ctx, accounts, w); err != nil {
		return errors.Join(err, u.Rollback(ctx))
	}
	// Until the commit point, plain reads see alice and bob as committed,
	// and plain writes of them are refused with unit.ErrLocked.
	if err := u.Commit(ctx); err != nil {
		return err // failed before the commit point: rolled back
	}

	// At start-up, or from cmd/optimist: finish the units past their commit
	// point, and undo the others, whose owner died (silent for a lease).
	n, err := unit.Recover(ctx, client, coordinator)
	if err != nil {
		return err
	}
	if err := balances(ctx, accounts, w, "after Commit"); err != nil {
		return err
	}
	fmt.Fprintf(w, "Recover found %d unit(s) to finish\n", n)

	if err := rollback(ctx, client, accounts, coordinator, w); err != nil {
		return err
	}
	return crash(ctx, client, accounts, coordinator, w)
}

// meanwhile reads and writes alice outside the unit, which holds her.
func meanwhile(ctx context.Context, accounts *mapper.Table[Account], w io.Writer) error {
	return plainAccess(ctx, accounts, 1000, "during the unit", w)
}

// plainAccess reads alice and adds add to her balance outside any unit,
// and prints, after what, what the read saw and whether the write was
// refused because a unit holds her.
func plainAccess(ctx context.Context, accounts *mapper.Table[Account], add int64, what string, w io.Writer) error {
	read, err := accounts.Get(ctx, Account{ID: "alice"})
	if err != nil {
		return err
	}
	_, err = accounts.Update(ctx, Account{ID: "alice"}, update.Add("balance", add))
	if err != nil && !errors.Is(err, unit.ErrLocked) {
		return err
	}
	fmt.Fprintf(w, "%s: a plain read sees alice %d; a plain write is refused with unit.ErrLocked: %v\n",
		what, read.Balance, errors.Is(err, unit.ErrLocked))
	return nil
}

// rollback runs a unit that empties alice's account, and rolls it back.
func rollback(ctx context.Context, client *dynamodb.Client, accounts *mapper.Table[Account], coordinator string, w io.Writer) error {
	u, err := unit.Begin(ctx, client, unit.Coordinator(coordinator))
	if err != nil {
		return err
	}
	alice, err := unit.Get(ctx, u, accounts, Account{ID: "alice"})
	if err != nil {
		return errors.Join(err, u.Rollback(ctx))
	}
	alice.Balance = 0
	if err := u.Add(accounts.PutOp(alice)); err != nil {
		return errors.Join(err, u.Rollback(ctx))
	}
	if err := u.Rollback(ctx); err != nil {
		return err
	}
	return balances(ctx, accounts, w, "after a unit that emptied alice rolled back")
}

// crash runs a unit that empties alice's account, through a client whose
// network is cut (dynamolocal.FaultTransport's partition) before Commit, as
// if its process died. Plain writes of
// alice are refused until Recover (run here at once) undoes the unit, a
// lease after its last heartbeat.
func crash(ctx context.Context, client *dynamodb.Client, accounts *mapper.Table[Account], coordinator string, w io.Writer) error {
	const lease = time.Second
	cut := &dynamolocal.FaultTransport{}
	dying := dynamodb.New(client.Options(), cut.Option())
	u, err := unit.Begin(ctx, dying, unit.Coordinator(coordinator), unit.LeaseDuration(lease))
	if err != nil {
		return err
	}
	alice, err := unit.Get(ctx, u, accounts, Account{ID: "alice"})
	if err != nil {
		return errors.Join(err, u.Rollback(ctx))
	}
	alice.Balance = 0
	if err := u.Add(accounts.PutOp(alice)); err != nil {
		return errors.Join(err, u.Rollback(ctx))
	}
	cut.Partition(true)

	if err := plainAccess(ctx, accounts, 0, "a unit holding alice died", w); err != nil {
		return err
	}

	start := time.Now()
	n, err := unit.Recover(ctx, client, coordinator)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "Recover undid %d unit(s), no sooner than the %v lease: %v\n", n, lease, time.Since(start) >= lease)
	_, err = accounts.Update(ctx, Account{ID: "alice"}, update.Add("balance", 0))
	fmt.Fprintf(w, "alice can be written again: %v\n", err == nil)
	if err != nil {
		return err
	}
	if err := balances(ctx, accounts, w, "after Recover"); err != nil {
		return err
	}
	// The dead unit's heartbeats still run in this process: end them.
	cut.Partition(false)
	if err := u.Rollback(ctx); err != nil && !errors.Is(err, unit.ErrAborted) {
		return err
	}
	return nil
}

// balances prints alice's and bob's balances.
func balances(ctx context.Context, accounts *mapper.Table[Account], w io.Writer, when string) error {
	all, err := accounts.GetAll(ctx, []Account{{ID: "alice"}, {ID: "bob"}})
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "%s: alice %d, bob %d\n", when, all[0].Balance, all[1].Balance)
	return nil
}
