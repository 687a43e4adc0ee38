// Command bank moves money between accounts from many goroutines at once,
// each transfer one versioned transaction: both accounts are read together
// (TransactGetItems), and both are written only if neither changed since
// (TransactWriteItems with a version check per account). However the
// transfers interleave, the total balance never changes.
//
//	go run ./examples/bank                 # on the embedded DynamoDB engine, in the process
//	go run ./examples/bank -workers 16 -transfers 50
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/optimist-dynamo/optimist/dynamolocal"
	"github.com/optimist-dynamo/optimist/examples/internal/demo"
	"github.com/optimist-dynamo/optimist/mapper"
	"github.com/optimist-dynamo/optimist/txn"
	"github.com/optimist-dynamo/optimist/version"
)

// Account is a versioned item: every write checks the version read.
type Account struct {
	ID      string `dynamo:"id,hash"`
	Balance int64  `dynamo:"balance"`
	Version int64  `dynamo:"v,version"`
}

// Config is what a run does.
type Config struct {
	Accounts  int   // number of accounts
	Opening   int64 // opening balance of each
	Workers   int   // goroutines making transfers at once
	Transfers int   // transfers per worker
}

// Report is what a run did.
type Report struct {
	Config
	Committed    int64 // transfers committed
	Refused      int64 // transfers refused for lack of funds
	Conflicts    int64 // commits canceled because an account changed since it was read
	TotalBefore  int64
	TotalAfter   int64
	MinBalance   int64 // lowest balance at the end (never negative)
	Wall         time.Duration
	MaxRetries   int64 // most conflicts one transfer met
	Transactions int64 // TransactWriteItems calls
}

func main() {
	cfg := Config{}
	flag.IntVar(&cfg.Accounts, "accounts", 10, "number of accounts")
	flag.Int64Var(&cfg.Opening, "balance", 100, "opening balance of each account")
	flag.IntVar(&cfg.Workers, "workers", 8, "goroutines making transfers at once")
	flag.IntVar(&cfg.Transfers, "transfers", 25, "transfers per worker")
	demo.Main(func(ctx context.Context, srv *dynamolocal.Server) error {
		rep, err := Run(ctx, srv.Client(), demo.Table("bank"), cfg)
		if err == nil {
			Print(os.Stdout, rep)
		}
		return err
	})
}

// Run opens the accounts in a new table and lets the workers transfer.
func Run(ctx context.Context, client *dynamodb.Client, table string, cfg Config) (*Report, error) {
	if cfg.Accounts < 2 || cfg.Workers < 1 || cfg.Transfers < 0 {
		return nil, errors.New("bank: need at least 2 accounts and 1 worker")
	}
	if err := mapper.CreateTable[Account](ctx, client, table); err != nil {
		return nil, err
	}
	calls := &countingClient{Client: client}
	accounts, err := mapper.NewTable[Account](calls, table)
	if err != nil {
		return nil, err
	}
	ids := make([]string, cfg.Accounts)
	for i := range ids {
		ids[i] = fmt.Sprintf("acct-%02d", i)
		if err := accounts.Put(ctx, &Account{ID: ids[i], Balance: cfg.Opening}); err != nil {
			return nil, err
		}
	}
	rep := &Report{Config: cfg}
	if rep.TotalBefore, rep.MinBalance, err = total(ctx, accounts, ids); err != nil {
		return nil, err
	}

	var wg sync.WaitGroup
	errs := make(chan error, cfg.Workers)
	start := time.Now()
	for range cfg.Workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range cfg.Transfers {
				from, to := rand.IntN(len(ids)), rand.IntN(len(ids)-1)
				if to >= from {
					to++
				}
				if err := transfer(ctx, accounts, ids[from], ids[to], 1+rand.Int64N(cfg.Opening/2+1), rep); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	rep.Wall = time.Since(start)
	close(errs)
	if err := <-errs; err != nil {
		return nil, err
	}
	rep.Transactions = calls.n.Load()
	rep.TotalAfter, rep.MinBalance, err = total(ctx, accounts, ids)
	return rep, err
}

// transfer moves amount from one account to another, or refuses for lack
// of funds. On a version conflict it reads both accounts again and retries.
func transfer(ctx context.Context, accounts *mapper.Table[Account], fromID, toID string, amount int64, rep *Report) error {
	for retries := int64(0); ; retries++ {
		var from, to *Account
		if err := txn.Get(ctx, accounts.Client(), accounts.GetOp(Account{ID: fromID}, &from), accounts.GetOp(Account{ID: toID}, &to)); err != nil {
			return err
		}
		if from.Balance < amount {
			atomic.AddInt64(&rep.Refused, 1)
			return nil
		}
		from.Balance -= amount
		to.Balance += amount
		tx := txn.New(accounts.Client())
		if err := tx.Add(accounts.PutOp(from), accounts.PutOp(to)); err != nil {
			return err
		}
		err := tx.Commit(ctx)
		if err == nil {
			atomic.AddInt64(&rep.Committed, 1)
			for {
				m := atomic.LoadInt64(&rep.MaxRetries)
				if retries <= m || atomic.CompareAndSwapInt64(&rep.MaxRetries, m, retries) {
					return nil
				}
			}
		}
		if !version.IsConflict(err) {
			return err
		}
		atomic.AddInt64(&rep.Conflicts, 1)
		// Another transfer touched one of the accounts: wait a little, with
		// jitter so that the colliding transfers do not meet again in step.
		time.Sleep(rand.N(2 * time.Millisecond << min(retries, 5)))
	}
}

// total reads every account in one consistent snapshot.
func total(ctx context.Context, accounts *mapper.Table[Account], ids []string) (sum, lowest int64, err error) {
	got := make([]*Account, len(ids))
	ops := make([]txn.GetOp, len(ids))
	for i, id := range ids {
		ops[i] = accounts.GetOp(Account{ID: id}, &got[i])
	}
	if err := txn.Get(ctx, accounts.Client(), ops...); err != nil {
		return 0, 0, err
	}
	lowest = got[0].Balance
	for _, a := range got {
		sum += a.Balance
		lowest = min(lowest, a.Balance)
	}
	return sum, lowest, nil
}

// Print writes the report.
func Print(w io.Writer, r *Report) {
	fmt.Fprintf(w, "%d workers made %d transfers each between %d accounts, each transfer one versioned transaction.\n\n",
		r.Workers, r.Transfers, r.Accounts)
	fmt.Fprintf(w, "committed           %6d\n", r.Committed)
	fmt.Fprintf(w, "refused (no funds)  %6d\n", r.Refused)
	fmt.Fprintf(w, "conflicts, retried  %6d   (at most %d for one transfer)\n", r.Conflicts, r.MaxRetries)
	fmt.Fprintf(w, "transactions sent   %6d\n", r.Transactions)
	fmt.Fprintf(w, "wall time           %6v\n\n", r.Wall.Round(time.Millisecond))
	verdict := "holds"
	if r.TotalAfter != r.TotalBefore || r.MinBalance < 0 {
		verdict = "BROKEN"
	}
	fmt.Fprintf(w, "invariant: total balance %d before, %d after, lowest balance %d: %s\n", r.TotalBefore, r.TotalAfter, r.MinBalance, verdict)
}

// countingClient counts TransactWriteItems calls.
type countingClient struct {
	*dynamodb.Client
	n atomic.Int64
}

func (c *countingClient) TransactWriteItems(ctx context.Context, in *dynamodb.TransactWriteItemsInput, o ...func(*dynamodb.Options)) (*dynamodb.TransactWriteItemsOutput, error) {
	c.n.Add(1)
	return c.Client.TransactWriteItems(ctx, in, o...)
}
