// Command exactlyonce is the README's section on lost responses as a
// program: writes whose answers are lost on the way back, after DynamoDB
// applied them, are applied once, with and without ExactlyOnce.
//
//	go run ./examples/exactlyonce            # on the embedded DynamoDB engine, in the process
//	go run ./examples/exactlyonce -endpoint http://localhost:8000
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"sync"
	"syscall"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/optimist-dynamo/optimist/dynamolocal"
	"github.com/optimist-dynamo/optimist/examples/internal/demo"
	"github.com/optimist-dynamo/optimist/mapper"
	"github.com/optimist-dynamo/optimist/update"
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
		return Run(ctx, srv, demo.Table("accounts"), os.Stdout)
	})
}

// Run creates the table and alice's account (100), then adds 5 twice
// through a client whose answers get lost: once with a plain Update, once
// with ExactlyOnce (the code the README describes). It prints what it finds to w.
func Run(ctx context.Context, srv *dynamolocal.Server, table string, w io.Writer) error {
	if err := mapper.CreateTable[Account](ctx, srv.Client(), table); err != nil {
		return err
	}
	lossy := &losing{}
	accounts, err := mapper.NewTable[Account](srv.NewClient(lossy.option()), table)
	if err != nil {
		return err
	}
	if err := accounts.Put(ctx, &Account{ID: "alice", Balance: 100}); err != nil {
		return err
	}

	// A plain Update whose answer is lost is not sent again (it has no
	// version check to stop a second application): one consistent GetItem
	// finds the write's token in the item.
	lossy.loseNext("UpdateItem", 1)
	first, err := accounts.Update(ctx, Account{ID: "alice"}, update.Add("balance", 5))
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "Update, its answer lost: %d UpdateItem sent, balance %d, applied once: %v\n",
		lossy.sent("UpdateItem"), first.Balance, first.Balance == 105)

	// With ExactlyOnce every answer is lost: the SDK sends it three times.
	lossy.loseNext("TransactWriteItems", 3)
	acct, err := accounts.Update(ctx, Account{ID: "alice"}, update.Add("balance", 5), mapper.ExactlyOnce())
	var uo *version.UnknownOutcomeError
	if errors.As(err, &uo) { // every answer was lost: it may or may not have been applied
		// The same write with the same token, within 10 minutes, applies at most once.
		acct, err = accounts.Update(ctx, Account{ID: "alice"}, update.Add("balance", 5), mapper.ExactlyOnceToken(uo.Token))
	}
	if err != nil {
		return err // never a conflict when the outcome is unknown: version.IsConflict(err) is false
	}
	fmt.Fprintf(w, "Update with ExactlyOnce, 3 answers lost, then resent with its token: %d TransactWriteItems sent, balance %d, applied once: %v\n",
		lossy.sent("TransactWriteItems"), acct.Balance, acct.Balance == 110)
	return nil
}

// losing is an http.RoundTripper that loses the answers of the next calls
// of an operation: it makes the real round trip, so DynamoDB applies the
// request, then drops the answer and reports a reset connection.
type losing struct {
	mu    sync.Mutex
	lose  map[string]int // operation -> answers still to lose
	calls map[string]int // operation -> requests sent
}

func (l *losing) loseNext(op string, n int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.lose == nil {
		l.lose = map[string]int{}
	}
	l.lose[op] = n
}

func (l *losing) sent(op string) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.calls[op]
}

func (l *losing) option() func(*dynamodb.Options) {
	return func(o *dynamodb.Options) { o.HTTPClient = &http.Client{Transport: l} }
}

func (l *losing) RoundTrip(req *http.Request) (*http.Response, error) {
	op := dynamolocal.OpName(req)
	l.mu.Lock()
	if l.calls == nil {
		l.calls = map[string]int{}
	}
	l.calls[op]++
	lose := l.lose[op] > 0
	if lose {
		l.lose[op]--
	}
	l.mu.Unlock()
	resp, err := http.DefaultTransport.RoundTrip(req)
	if err != nil || !lose {
		return resp, err
	}
	_, _ = io.Copy(io.Discard, resp.Body) // the server is done with it
	resp.Body.Close()
	return nil, &net.OpError{Op: "read", Net: "tcp", Err: os.NewSyscallError("read", syscall.ECONNRESET)}
}
