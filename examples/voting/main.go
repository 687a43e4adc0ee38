// Command voting shows what happens when many voters vote for one candidate
// at the same moment, three ways: a naive read-modify-write, optimistic
// locking with mapper.Table.Modify, and an atomic mapper.Table.Update.
//
//	go run ./examples/voting            # on the embedded DynamoDB engine, in the process
//	go run ./examples/voting -voters 200
//	go run ./examples/voting -endpoint http://localhost:8000
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/optimist-dynamo/optimist/dynamolocal"
	"github.com/optimist-dynamo/optimist/examples/internal/demo"
	"github.com/optimist-dynamo/optimist/mapper"
	"github.com/optimist-dynamo/optimist/update"
	"github.com/optimist-dynamo/optimist/version"
)

// Candidate is the item every voter writes to.
type Candidate struct {
	ID      string   `dynamo:"id,hash"`
	Votes   int      `dynamo:"votes"`
	VotedBy []string `dynamo:"votedBy"`
	Version int64    `dynamo:"version,version"`
}

// Result is what one strategy did.
type Result struct {
	Strategy  string
	Cast      int           // votes cast
	Recorded  int           // votes stored at the end
	Calls     int64         // DynamoDB calls made
	Conflicts int64         // writes refused because another voter got there first
	GaveUp    int64         // votes whose voter got an error back (Modify's attempts ran out)
	Wall      time.Duration // from the first vote to the last
}

// Lost is how many votes the strategy lost without telling the voter.
func (r Result) Lost() int { return r.Cast - int(r.GaveUp) - r.Recorded }

func main() {
	voters := flag.Int("voters", 50, "number of voters, all voting at once")
	demo.Main(func(ctx context.Context, srv *dynamolocal.Server) error {
		if *voters < 1 {
			return errors.New("voting: -voters must be at least 1")
		}
		results, err := Run(ctx, srv.Client(), "votes", *voters)
		if err == nil {
			Print(os.Stdout, *voters, results)
		}
		return err
	})
}

// Run creates the table (if needed), then lets n voters vote at once for a
// fresh candidate per strategy, and reports what each strategy did.
func Run(ctx context.Context, client *dynamodb.Client, table string, n int) ([]Result, error) {
	if err := mapper.CreateTable[Candidate](ctx, client, table); err != nil {
		return nil, err
	}
	run := time.Now().UnixNano()
	strategies := []struct {
		name string
		vote func(ctx context.Context, t *mapper.Table[Candidate], id, voter string, conflicts, gaveUp *atomic.Int64) error
	}{
		{"naive: read, add one, write back", voteNaive},
		{"optimistic: Modify (version check)", voteModify},
		{"atomic: Update (Append + Add)", voteUpdate},
	}
	var results []Result
	for i, s := range strategies {
		calls := &countingClient{Client: client}
		t, err := mapper.NewTable[Candidate](calls, table)
		if err != nil {
			return nil, err
		}
		id := fmt.Sprintf("candidate-%d-%d", run, i)
		if err := t.Put(ctx, &Candidate{ID: id}); err != nil {
			return nil, err
		}
		calls.n.Store(0)

		var conflicts, gaveUp atomic.Int64
		var wg sync.WaitGroup
		errs := make(chan error, n)
		start := time.Now()
		for v := range n {
			// Each voter is a process of its own, with a Table of its own
			// (Modify's calls on one Table take turns within the process,
			// and would not conflict: Print says so).
			vt, err := mapper.NewTable[Candidate](calls, table)
			if err != nil {
				return nil, err
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				if err := s.vote(ctx, vt, id, fmt.Sprintf("voter-%d", v), &conflicts, &gaveUp); err != nil {
					errs <- err
				}
			}()
		}
		wg.Wait()
		wall, made := time.Since(start), calls.n.Load()
		close(errs)
		if err := <-errs; err != nil {
			return nil, fmt.Errorf("%s: %w", s.name, err)
		}
		final, err := t.Get(ctx, Candidate{ID: id})
		if err != nil {
			return nil, err
		}
		results = append(results, Result{
			Strategy: s.name, Cast: n, Recorded: final.Votes,
			Calls: made, Conflicts: conflicts.Load(), GaveUp: gaveUp.Load(), Wall: wall,
		})
	}
	return results, nil
}

// voteNaive is the bug this library exists to prevent: read the item, add
// the vote, write the whole item back without a check. Voters who read the
// same version overwrite each other's votes.
func voteNaive(ctx context.Context, t *mapper.Table[Candidate], id, voter string, _, _ *atomic.Int64) error {
	c, err := t.Get(ctx, Candidate{ID: id})
	if err != nil {
		return err
	}
	c.Votes++
	c.VotedBy = append(c.VotedBy, voter)
	return t.Put(ctx, c, mapper.Unversioned()) // no version check: last writer wins
}

// voteModify is optimistic locking: the write is refused if the version
// changed since the read, and fn runs again on the item DynamoDB sent back
// with the refusal. After MaxAttempts refusals (50 by default) the voter gets
// the conflict back: the vote is not recorded, but not silently lost either.
func voteModify(ctx context.Context, t *mapper.Table[Candidate], id, voter string, conflicts, gaveUp *atomic.Int64) error {
	runs := 0
	_, err := t.Modify(ctx, Candidate{ID: id}, func(c *Candidate) error {
		if runs++; runs > 1 {
			conflicts.Add(1)
		}
		c.Votes++
		c.VotedBy = append(c.VotedBy, voter)
		return nil
	})
	if version.IsConflict(err) {
		gaveUp.Add(1)
		return nil
	}
	return err
}

// voteUpdate lets DynamoDB do the change: one UpdateItem appends the voter
// and adds the vote, with nothing to read and nothing to retry.
func voteUpdate(ctx context.Context, t *mapper.Table[Candidate], id, voter string, _, _ *atomic.Int64) error {
	_, err := t.Update(ctx, Candidate{ID: id}, update.Append("votedBy", voter).Add("votes", 1))
	return err
}

// Print writes the comparison as a table a newcomer can read at a glance.
func Print(w io.Writer, voters int, results []Result) {
	fmt.Fprintf(w, "%d voters vote for one candidate at the same moment, three ways:\n\n", voters)
	const row = "%-36s  %10v  %14v  %4v  %14v  %9v  %9v\n"
	fmt.Fprintf(w, row, "strategy", "votes cast", "votes recorded", "lost", "DynamoDB calls", "conflicts", "wall time")
	for _, r := range results {
		fmt.Fprintf(w, row, r.Strategy, r.Cast, r.Recorded, r.Lost(), r.Calls, r.Conflicts, r.Wall.Round(time.Millisecond))
	}
	fmt.Fprintln(w)
	for _, r := range results {
		if r.GaveUp > 0 {
			fmt.Fprintf(w, "%s: %d voters gave up after too many conflicts (they got an error; those votes were not lost silently).\n", r.Strategy, r.GaveUp)
		}
	}
	fmt.Fprintln(w, "naive       loses votes: voters read the same count and overwrite each other.")
	fmt.Fprintln(w, "optimistic  loses none: a stale write is refused, and retried on the item that came back with the refusal.")
	fmt.Fprintf(w, "            It conflicts here because each of the %d voters is a Table of its own, as %d processes or\n", voters, voters)
	fmt.Fprintln(w, "            Lambda invocations would be; within one process, Modify's calls on one Table take turns and do not conflict.")
	fmt.Fprintln(w, "atomic      loses none with one call per vote: DynamoDB appends and adds; nothing to read, nothing to retry.")
}

// countingClient counts the calls made through it.
type countingClient struct {
	*dynamodb.Client
	n atomic.Int64
}

func (c *countingClient) GetItem(ctx context.Context, in *dynamodb.GetItemInput, o ...func(*dynamodb.Options)) (*dynamodb.GetItemOutput, error) {
	c.n.Add(1)
	return c.Client.GetItem(ctx, in, o...)
}

func (c *countingClient) PutItem(ctx context.Context, in *dynamodb.PutItemInput, o ...func(*dynamodb.Options)) (*dynamodb.PutItemOutput, error) {
	c.n.Add(1)
	return c.Client.PutItem(ctx, in, o...)
}

func (c *countingClient) UpdateItem(ctx context.Context, in *dynamodb.UpdateItemInput, o ...func(*dynamodb.Options)) (*dynamodb.UpdateItemOutput, error) {
	c.n.Add(1)
	return c.Client.UpdateItem(ctx, in, o...)
}
