// Command ledger closes a month of postings atomically with a unit of work
// (package unit): every posting of the month is read with a lock and
// marked closed, each account's balance gets the month's net amount, and a
// summary of the month is created — hundreds of items, more than a
// DynamoDB transaction holds, all or nothing. While the month is being
// closed, an attempt to edit one of its postings is refused (ErrLocked);
// readers see the month open until the commit point, then closed.
//
//	go run ./examples/ledger                  # on the embedded DynamoDB engine, in the process
//	go run ./examples/ledger -postings 800
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/optimist-dynamo/optimist/dynamolocal"
	"github.com/optimist-dynamo/optimist/examples/internal/demo"
	"github.com/optimist-dynamo/optimist/mapper"
	"github.com/optimist-dynamo/optimist/unit"
)

// Posting is one entry of the ledger.
type Posting struct {
	ID      string `dynamo:"id,hash"` // month/number
	Account string `dynamo:"account"`
	Amount  int64  `dynamo:"amount"`
	Closed  bool   `dynamo:"closed"`
	Version int64  `dynamo:"v,version"`
}

// Account holds a closed balance and, once a month closes, its summary.
type Account struct {
	ID      string `dynamo:"id,hash"`
	Balance int64  `dynamo:"balance"`
	Months  int    `dynamo:"months"`
	Version int64  `dynamo:"v,version"`
}

// Config is what a run does.
type Config struct {
	Month    string
	Postings int
	Accounts int
}

// Report is what a run found.
type Report struct {
	Config
	Net            int64 // sum of the month's amounts
	BalanceChange  int64 // sum of the accounts' balance changes
	Closed         int   // postings closed after the run
	EditRefused    bool  // an edit during the close was refused with ErrLocked
	OpenDuring     bool  // a plain read during the close saw the posting open
	SummaryCreated bool
}

func main() {
	var cfg Config
	flag.StringVar(&cfg.Month, "month", "2026-10", "month to close")
	flag.IntVar(&cfg.Postings, "postings", 400, "postings in the month")
	flag.IntVar(&cfg.Accounts, "accounts", 20, "accounts")
	demo.Main(func(ctx context.Context, srv *dynamolocal.Server) error {
		rep, err := Run(ctx, srv.Client(), "ledger", cfg)
		if err == nil {
			Print(os.Stdout, rep)
		}
		return err
	})
}

// Run sets up the tables (prefix-postings, prefix-accounts and the
// coordinator prefix-units), writes the month's postings and closes the
// month in one unit.
func Run(ctx context.Context, c *dynamodb.Client, prefix string, cfg Config) (*Report, error) {
	if err := mapper.CreateTable[Posting](ctx, c, prefix+"-postings"); err != nil {
		return nil, err
	}
	if err := mapper.CreateTable[Account](ctx, c, prefix+"-accounts"); err != nil {
		return nil, err
	}
	if err := unit.CreateTable(ctx, c, prefix+"-units"); err != nil {
		return nil, err
	}
	postings, err := mapper.NewTable[Posting](c, prefix+"-postings")
	if err != nil {
		return nil, err
	}
	accounts, err := mapper.NewTable[Account](c, prefix+"-accounts")
	if err != nil {
		return nil, err
	}
	rep := &Report{Config: cfg}
	for i := range cfg.Accounts {
		if err := accounts.Put(ctx, &Account{ID: fmt.Sprintf("acct-%02d", i)}); err != nil {
			return nil, err
		}
	}
	ids := make([]string, cfg.Postings)
	for i := range cfg.Postings {
		p := &Posting{ID: fmt.Sprintf("%s/%05d", cfg.Month, i), Account: fmt.Sprintf("acct-%02d", i%cfg.Accounts), Amount: int64(i%17 - 8)}
		if err := postings.Put(ctx, p); err != nil {
			return nil, err
		}
		ids[i] = p.ID
		rep.Net += p.Amount
	}

	// Close the month in one unit.
	u, err := unit.Begin(ctx, c, unit.Coordinator(prefix+"-units"), unit.Owner("month-close"))
	if err != nil {
		return nil, err
	}
	net := map[string]int64{}
	for _, id := range ids {
		p, err := unit.Get(ctx, u, postings, Posting{ID: id})
		if err != nil {
			return nil, errors.Join(err, u.Rollback(ctx))
		}
		if p.Closed {
			return nil, errors.Join(fmt.Errorf("posting %s already closed", id), u.Rollback(ctx))
		}
		net[p.Account] += p.Amount
		p.Closed = true
		if err := u.Add(postings.PutOp(p)); err != nil {
			return nil, errors.Join(err, u.Rollback(ctx))
		}
	}
	for i := range cfg.Accounts {
		a, err := unit.Get(ctx, u, accounts, Account{ID: fmt.Sprintf("acct-%02d", i)})
		if err != nil {
			return nil, errors.Join(err, u.Rollback(ctx))
		}
		a.Balance += net[a.ID]
		a.Months++
		if err := u.Add(accounts.PutOp(a)); err != nil {
			return nil, errors.Join(err, u.Rollback(ctx))
		}
	}
	if err := u.Add(accounts.PutOp(&Account{ID: "month/" + cfg.Month, Balance: rep.Net})); err != nil {
		return nil, errors.Join(err, u.Rollback(ctx))
	}

	// Meanwhile: an edit of a posting is refused; a plain read sees it open.
	edit := &Posting{ID: ids[0], Account: "acct-00", Amount: 1000, Version: 1}
	rep.EditRefused = errors.Is(postings.Put(ctx, edit), unit.ErrLocked)
	if p, err := postings.Get(ctx, Posting{ID: ids[0]}); err == nil {
		rep.OpenDuring = !p.Closed
	}

	if err := u.Commit(ctx); err != nil {
		return nil, err
	}

	for p, err := range postings.Scan(ctx, mapper.ConsistentRead(true)) {
		if err != nil {
			return nil, err
		}
		if p.Closed {
			rep.Closed++
		}
	}
	for a, err := range accounts.Scan(ctx, mapper.ConsistentRead(true)) {
		if err != nil {
			return nil, err
		}
		if a.ID == "month/"+cfg.Month {
			rep.SummaryCreated = a.Balance == rep.Net
			continue
		}
		rep.BalanceChange += a.Balance
	}
	return rep, nil
}

// Print writes the report.
func Print(w io.Writer, r *Report) {
	fmt.Fprintf(w, "closed month %s: %d of %d postings closed in one unit (%d accounts)\n", r.Month, r.Closed, r.Postings, r.Accounts)
	fmt.Fprintf(w, "net of the month %d, change of the balances %d, summary created: %v\n", r.Net, r.BalanceChange, r.SummaryCreated)
	fmt.Fprintf(w, "during the close: edit refused %v, plain read saw the posting open %v\n", r.EditRefused, r.OpenDuring)
}
