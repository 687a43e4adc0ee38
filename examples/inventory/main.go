// Command inventory sells the last units of a product to more buyers than
// there are units, each sale under a lease lock: read the stock, take a
// slow payment, write the stock back, guarded by the lease's fencing token.
// The stock never goes below zero and every unit is sold once.
//
//	go run ./examples/inventory                  # on the embedded DynamoDB engine, in the process
//	go run ./examples/inventory -buyers 30 -fifo
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/optimist-dynamo/optimist/dynamolocal"
	"github.com/optimist-dynamo/optimist/examples/internal/demo"
	"github.com/optimist-dynamo/optimist/mapper"
	"github.com/optimist-dynamo/optimist/pessimistic"
)

// Product is the item under the lock.
type Product struct {
	SKU     string `dynamo:"sku,hash"`
	Stock   int    `dynamo:"stock"`
	Version int64  `dynamo:"v,version"`
}

// Config is what a run does.
type Config struct {
	Stock   int           // units on sale
	Buyers  int           // concurrent buyers, one unit each
	Payment time.Duration // how long a payment takes, under the lock
	FIFO    bool          // first come, first served
}

// Report is what a run did.
type Report struct {
	Config
	Grants     int           // times the lock was granted
	Waits      int           // buyers who found the lock held and waited
	Sold       int           // units sold
	SoldOut    int           // buyers turned away: nothing left
	FinalStock int           // stock at the end
	MaxWait    time.Duration // longest wait for the lock
	Wall       time.Duration
}

func main() {
	cfg := Config{}
	flag.IntVar(&cfg.Stock, "stock", 10, "units on sale")
	flag.IntVar(&cfg.Buyers, "buyers", 15, "concurrent buyers")
	flag.DurationVar(&cfg.Payment, "payment", 20*time.Millisecond, "how long a payment takes")
	flag.BoolVar(&cfg.FIFO, "fifo", false, "serve buyers first come, first served")
	demo.Main(func(ctx context.Context, srv *dynamolocal.Server) error {
		rep, err := Run(ctx, srv.Client(), demo.Table("products"), demo.Table("locks"), cfg)
		if err == nil {
			Print(os.Stdout, rep)
		}
		return err
	})
}

// Run creates the tables, puts the product on sale and lets the buyers in.
func Run(ctx context.Context, client *dynamodb.Client, productsTable, locksTable string, cfg Config) (*Report, error) {
	if err := mapper.CreateTable[Product](ctx, client, productsTable); err != nil {
		return nil, err
	}
	if err := pessimistic.CreateTable(ctx, client, locksTable); err != nil {
		return nil, err
	}
	products, err := mapper.NewTable[Product](client, productsTable)
	if err != nil {
		return nil, err
	}
	opts := []pessimistic.Option{pessimistic.PollInterval(20 * time.Millisecond)}
	if cfg.FIFO {
		opts = append(opts, pessimistic.FIFO())
	}
	locker, err := pessimistic.New(client, locksTable, opts...)
	if err != nil {
		return nil, err
	}
	defer locker.Close()
	if err := products.Put(ctx, &Product{SKU: "widget", Stock: cfg.Stock}); err != nil {
		return nil, err
	}

	rep := &Report{Config: cfg}
	var mu sync.Mutex
	var wg sync.WaitGroup
	errs := make(chan error, cfg.Buyers)
	start := time.Now()
	for range cfg.Buyers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			asked := time.Now()
			lease, err := locker.Acquire(ctx, "widget", pessimistic.Wait(0))
			waited := errors.Is(err, pessimistic.ErrNotAcquired)
			if waited {
				lease, err = locker.Acquire(ctx, "widget")
			}
			if err != nil {
				errs <- err
				return
			}
			sold, err := buy(lease.Context(), products, lease, cfg.Payment)
			err = errors.Join(err, lease.Release(ctx))
			mu.Lock()
			defer mu.Unlock()
			rep.Grants++
			if waited {
				rep.Waits++
				rep.MaxWait = max(rep.MaxWait, time.Since(asked))
			}
			if sold {
				rep.Sold++
			} else {
				rep.SoldOut++
			}
			if err != nil {
				errs <- err
			}
		}()
	}
	wg.Wait()
	rep.Wall = time.Since(start)
	close(errs)
	if err := <-errs; err != nil {
		return nil, err
	}
	final, err := products.Get(ctx, Product{SKU: "widget"})
	if err != nil {
		return nil, err
	}
	rep.FinalStock = final.Stock
	return rep, nil
}

// buy sells one unit if there is one: a plain read and write under the
// lock, with a slow payment in between. The write is fenced: had the lease
// been lost during the payment, and someone else taken the lock, it would
// be refused.
func buy(ctx context.Context, products *mapper.Table[Product], lease *pessimistic.Lease, payment time.Duration) (bool, error) {
	p, err := products.Get(ctx, Product{SKU: "widget"})
	if err != nil {
		return false, err
	}
	if p.Stock == 0 {
		return false, nil
	}
	select { // the payment provider
	case <-time.After(payment):
	case <-ctx.Done():
		return false, context.Cause(ctx)
	}
	p.Stock--
	return true, products.Put(ctx, p, mapper.Fence("fence", lease.Token()))
}

// Print writes the report.
func Print(w io.Writer, r *Report) {
	mode := "lease lock"
	if r.FIFO {
		mode = "FIFO lease lock"
	}
	fmt.Fprintf(w, "%d buyers, %d units, a %v payment under a %s for each sale.\n\n", r.Buyers, r.Stock, r.Payment, mode)
	fmt.Fprintf(w, "lock grants     %4d\n", r.Grants)
	fmt.Fprintf(w, "buyers waited   %4d   (longest wait %v)\n", r.Waits, r.MaxWait.Round(time.Millisecond))
	fmt.Fprintf(w, "units sold      %4d\n", r.Sold)
	fmt.Fprintf(w, "turned away     %4d   (sold out)\n", r.SoldOut)
	fmt.Fprintf(w, "final stock     %4d\n", r.FinalStock)
	fmt.Fprintf(w, "wall time       %4v\n\n", r.Wall.Round(time.Millisecond))
	verdict := "every unit sold once, none oversold"
	if r.Sold+r.FinalStock != r.Stock || r.FinalStock < 0 {
		verdict = "BROKEN"
	}
	fmt.Fprintf(w, "%d sold + %d left = %d on sale: %s\n", r.Sold, r.FinalStock, r.Stock, verdict)
}
