// Command testing is the README's section on testing your own code: the
// embedded engine, and a write whose answer it loses on purpose. Its test,
// main_test.go, runs the same world in a testing/synctest bubble, where a
// session expires and a crashed lock holder is taken over in virtual time.
//
//	go run ./examples/testing
//
// It always runs the embedded engine: faults inside the server are what
// only the embedded engine offers.
package main

import (
	"context"
	"fmt"
	"io"
	"log"
	"os"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/optimist-dynamo/optimist/dynamolocal"
	"github.com/optimist-dynamo/optimist/examples/internal/demo"
)

// Session is an item that expires: its ttl field is epoch seconds, and
// mapper.CreateTable turns TTL on for it.
type Session struct {
	ID      string    `dynamo:"id,hash"`
	User    string    `dynamo:"user"`
	Expires time.Time `dynamo:"expires,unixtime,ttl"`
	Version int64     `dynamo:"v,version"`
}

func main() {
	srv, err := dynamolocal.StartEngine(dynamolocal.Options{})
	if err != nil {
		log.Fatal(err)
	}
	defer srv.Close()
	if err := Run(context.Background(), srv, os.Stdout); err != nil {
		log.Fatal(err)
	}
}

// Run creates the sessions table on srv (the embedded engine) and loses
// the answer of a Put; it prints what it sees to w.
func Run(ctx context.Context, srv *dynamolocal.Server, w io.Writer) error {
	sessions, err := demo.NewTable[Session](ctx, srv.Client(), "sessions")
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
	s := Session{ID: "s1", User: "ada", Expires: time.Now().Add(30 * time.Minute)}
	err = sessions.Put(ctx, &s) // the write token in the item says the write was ours
	fmt.Fprintf(w, "Put with its answer lost: err=%v, version %d, answers lost %d\n",
		err, s.Version, srv.Injected(dynamolocal.FaultLostResponse))
	return nil
}
