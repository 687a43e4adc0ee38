// Command observe is the README's section on observability as a program:
// a table whose events go to structured logs (observe.Slog) and to a
// counter of conflicts of the program's own, then a conflict to see them.
//
//	go run ./examples/observe                 # on the embedded DynamoDB engine, in the process
//	go run ./examples/observe -endpoint http://localhost:8000
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"sync/atomic"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/optimist-dynamo/optimist/dynamolocal"
	"github.com/optimist-dynamo/optimist/examples/internal/demo"
	"github.com/optimist-dynamo/optimist/mapper"
	"github.com/optimist-dynamo/optimist/observe"
	"github.com/optimist-dynamo/optimist/version"
)

// Account is a versioned item.
type Account struct {
	ID      string `dynamo:"id,hash"`
	Balance int64  `dynamo:"balance"`
	Version int64  `dynamo:"v,version"`
}

func main() {
	demo.Main(func(ctx context.Context, srv *dynamolocal.Server) error {
		return Run(ctx, srv.Client(), demo.Table("accounts"), os.Stdout, os.Stderr)
	})
}

// Run makes the table with an observer (the code the README describes), makes a
// conflict, and prints to w what the observer counted; the logs go to logs.
func Run(ctx context.Context, client *dynamodb.Client, table string, w, logs io.Writer) error {
	if err := mapper.CreateTable[Account](ctx, client, table); err != nil {
		return err
	}
	// Every event as a JSON log line (decisions at Info, lost leases and
	// unknown outcomes at Warn, each write's span and each conflict at
	// Debug), and a count of conflicts of our own.
	logger := slog.New(slog.NewJSONHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	var conflicts atomic.Int64
	obs := observe.Multi(observe.Slog(logger), observe.Func(func(ctx context.Context, e observe.Event) {
		if e.Kind == observe.Conflict {
			conflicts.Add(1)
		}
	}))
	accounts, err := mapper.NewTable[Account](client, table, func(o *mapper.TableOptions) {
		o.Observer = obs // also: txn.Observer(obs), pessimistic.Observer(obs), unit.Observer(obs)
	})
	if err != nil {
		return err
	}
	if err := accounts.Put(ctx, &Account{ID: "alice", Balance: 100}); err != nil {
		return err
	}
	stale := &Account{ID: "alice", Balance: 90} // version 0: a create, which now conflicts
	if err := accounts.Put(ctx, stale); !errors.Is(err, version.ErrConflict) {
		return fmt.Errorf("expected a conflict, got %v", err)
	}
	fmt.Fprintf(w, "conflicts seen by the observer: %d\n", conflicts.Load())
	return nil
}
