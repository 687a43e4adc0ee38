package mapper_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"os"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/optimist-dynamo/optimist/dynamolocal"
	"github.com/optimist-dynamo/optimist/mapper"
	"github.com/optimist-dynamo/optimist/update"
	"github.com/optimist-dynamo/optimist/version"
)

// The examples run against DynamoDB Local, started on first use and
// stopped when the test binary ends.
var (
	localOnce sync.Once
	local     *dynamolocal.Server
)

func TestMain(m *testing.M) {
	code := m.Run()
	if local != nil {
		local.Close()
	}
	os.Exit(code)
}

// exampleTable returns a client for a fresh table with a string hash key
// "id". Real programs get the client from config.LoadDefaultConfig.
func exampleTable(name string) *dynamodb.Client {
	localOnce.Do(func() {
		var err error
		if local, err = dynamolocal.Start(context.Background()); err != nil {
			log.Fatal(err)
		}
	})
	c := local.Client()
	_, err := c.CreateTable(context.Background(), &dynamodb.CreateTableInput{
		TableName:            aws.String(name),
		BillingMode:          types.BillingModePayPerRequest,
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("id"), AttributeType: types.ScalarAttributeTypeS}},
		KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("id"), KeyType: types.KeyTypeHash}},
	})
	if err != nil {
		log.Fatal(err)
	}
	return c
}

type Account struct {
	ID      string `dynamo:"id,hash"`
	Owner   string `dynamo:"owner"`
	Balance int64  `dynamo:"balance"`
	Version int64  `dynamo:"v,version"`
}

// Writes of a versioned type are conditional: a stale copy cannot overwrite
// a newer one.
func ExampleTable_Put() {
	ctx := context.Background()
	accounts, err := mapper.NewTable[Account](exampleTable("accounts-put"), "accounts-put")
	if err != nil {
		log.Fatal(err)
	}

	acct := &Account{ID: "alice", Owner: "Alice", Balance: 100}
	if err := accounts.Put(ctx, acct); err != nil { // version 0: create
		log.Fatal(err)
	}
	fmt.Println("created, version", acct.Version)

	stale := *acct // someone else's copy of version 1
	acct.Balance = 70
	if err := accounts.Put(ctx, acct); err != nil { // replaces version 1
		log.Fatal(err)
	}
	fmt.Println("saved, version", acct.Version)

	stale.Balance = 1000
	err = accounts.Put(ctx, &stale)
	var ce *version.ConflictError
	if errors.As(err, &ce) {
		fmt.Printf("stale write refused: expected v%d, table has v%d\n", ce.Expected, ce.Actual)
	}
	// Output:
	// created, version 1
	// saved, version 2
	// stale write refused: expected v1, table has v2
}

// Modify is the read-modify-write loop: it retries fn on version conflicts,
// on the item returned with the conflict, so concurrent changes all land.
func ExampleTable_Modify() {
	ctx := context.Background()
	accounts, err := mapper.NewTable[Account](exampleTable("accounts-modify"), "accounts-modify")
	if err != nil {
		log.Fatal(err)
	}

	var wg sync.WaitGroup
	for range 10 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := accounts.Modify(ctx, Account{ID: "bob"}, func(a *Account) error {
				a.Balance += 10 // a missing item arrives as a zero value: Modify creates it
				return nil
			})
			if err != nil {
				log.Print(err)
			}
		}()
	}
	wg.Wait()

	bob, err := accounts.Get(ctx, Account{ID: "bob"})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("balance %d after %d versions\n", bob.Balance, bob.Version)

	_, err = accounts.Get(ctx, Account{ID: "nobody"})
	fmt.Println(errors.Is(err, mapper.ErrNotFound))
	// Output:
	// balance 100 after 10 versions
	// true
}

type Poll struct {
	ID      string   `dynamo:"id,hash"`
	Votes   int      `dynamo:"votes"`
	VotedBy []string `dynamo:"votedBy"`
	Version int64    `dynamo:"v,version"`
}

// Update changes an item on the server, with no read: here 20 voters vote
// at once, one UpdateItem each, and none is lost. The version moves with
// every update, so a full Put from an older copy would still conflict.
func ExampleTable_Update() {
	ctx := context.Background()
	polls, err := mapper.NewTable[Poll](exampleTable("polls"), "polls")
	if err != nil {
		log.Fatal(err)
	}
	var wg sync.WaitGroup
	for i := range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			voter := fmt.Sprintf("voter-%d", i)
			if _, err := polls.Update(ctx, Poll{ID: "best-editor"}, update.Append("votedBy", voter).Add("votes", 1)); err != nil {
				log.Print(err)
			}
		}()
	}
	wg.Wait()

	p, err := polls.Get(ctx, Poll{ID: "best-editor"})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(p.Votes, "votes,", len(p.VotedBy), "voters, version", p.Version)
	// Output: 20 votes, 20 voters, version 20
}
