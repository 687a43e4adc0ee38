// Command testing is the README's section on testing your own code as a
// program: the embedded engine, a write whose answer it loses on purpose,
// and an item that expires when a clock the test owns says so.
//
//	go run ./examples/testing
//
// It always runs the embedded engine: faults inside the server and a
// clock of one's own are what only the embedded engine offers.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"os"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/optimist-dynamo/optimist/dynamolocal"
	"github.com/optimist-dynamo/optimist/mapper"
)

// Session is an item that expires: its ttl field is epoch seconds, and
// mapper.CreateTable turns TTL on for it.
type Session struct {
	ID      string    `dynamo:"id,hash"`
	User    string    `dynamo:"user"`
	Expires time.Time `dynamo:"expires,unixtime,ttl"`
	Version int64     `dynamo:"v,version"`
}

// Clock is a clock that moves only when told to.
type Clock struct {
	mu  sync.Mutex
	now time.Time
}

// Now returns the clock's time.
func (c *Clock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.now }

// Advance moves the clock forward by d.
func (c *Clock) Advance(d time.Duration) { c.mu.Lock(); defer c.mu.Unlock(); c.now = c.now.Add(d) }

func main() {
	if err := Run(context.Background(), os.Stdout); err != nil {
		log.Fatal(err)
	}
}

// Run starts an engine of its own, loses the answer of a Put, and lets a
// session expire; it prints what it sees to w.
func Run(ctx context.Context, w io.Writer) error {
	// readme:begin testing
	clock := &Clock{now: time.Date(2030, 1, 1, 12, 0, 0, 0, time.UTC)}
	srv, err := dynamolocal.StartEngine(dynamolocal.Options{Clock: clock})
	if err != nil {
		return err
	}
	defer srv.Close()
	if err := mapper.CreateTable[Session](ctx, srv.Client(), "sessions"); err != nil {
		return err
	}
	sessions, err := mapper.NewTable[Session](srv.Client(), "sessions")
	if err != nil {
		return err
	}

	// The engine applies the first PutItem of s1 and loses its answer; the
	// SDK sends it again, and the version check refuses the resend.
	remove, err := srv.Inject(dynamolocal.Rule{
		Op: "PutItem", Table: "sessions", Fault: dynamolocal.FaultLostResponse, Times: 1,
		Key: map[string]types.AttributeValue{"id": &types.AttributeValueMemberS{Value: "s1"}},
	})
	if err != nil {
		return err
	}
	defer remove()
	s := Session{ID: "s1", User: "ada", Expires: clock.Now().Add(30 * time.Minute)}
	err = sessions.Put(ctx, &s) // the write token in the item says the write was ours
	fmt.Fprintf(w, "Put with its answer lost: err=%v, version %d, answers lost %d\n",
		err, s.Version, srv.Injected(dynamolocal.FaultLostResponse))

	clock.Advance(29 * time.Minute)
	_, err = sessions.Get(ctx, Session{ID: "s1"})
	fmt.Fprintf(w, "after 29 minutes: err=%v\n", err)
	clock.Advance(time.Minute)
	_, err = sessions.Get(ctx, Session{ID: "s1"})
	fmt.Fprintf(w, "after 30 minutes: expired: %v\n", errors.Is(err, mapper.ErrNotFound))
	// readme:end testing
	return nil
}
