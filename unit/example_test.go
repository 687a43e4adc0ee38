package unit_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/optimist-dynamo/optimist/dynamolocal"
	"github.com/optimist-dynamo/optimist/mapper"
	"github.com/optimist-dynamo/optimist/unit"
)

// exampleTB lets the examples share the test binary's DynamoDB Local
// (dynamolocal.New), failing with log.Fatal.
type exampleTB struct{ testing.TB }

func (exampleTB) Helper()                           {}
func (exampleTB) Fatalf(format string, args ...any) { log.Fatalf(format, args...) }

// exampleClient returns a client of DynamoDB Local with a fresh table
// "accounts" (hash key "id"). Real programs get the client from
// config.LoadDefaultConfig.
func exampleClient(table string) *dynamodb.Client {
	// An access key of its own: tables are kept apart by access key, so
	// the fixed names below are new on every run, even against one
	// long-lived endpoint.
	key := fmt.Sprintf("example%d", time.Now().UnixNano())
	c := dynamolocal.New(exampleTB{}).NewClient(func(o *dynamodb.Options) {
		o.Credentials = aws.CredentialsProviderFunc(func(context.Context) (aws.Credentials, error) {
			return aws.Credentials{AccessKeyID: key, SecretAccessKey: "x"}, nil
		})
	})
	_, err := c.CreateTable(context.Background(), &dynamodb.CreateTableInput{
		TableName:            aws.String(table),
		BillingMode:          types.BillingModePayPerRequest,
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("id"), AttributeType: types.ScalarAttributeTypeS}},
		KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("id"), KeyType: types.KeyTypeHash}},
	})
	if err != nil {
		log.Fatal(err)
	}
	return c
}

// A unit of work moves money among any number of accounts, all or
// nothing: locking reads, writes, commit.
func Example() {
	ctx := context.Background()
	type Account struct {
		ID      string `dynamo:"id,hash"`
		Balance int64  `dynamo:"balance"`
		Version int64  `dynamo:"v,version"`
	}
	c := exampleClient("example-accounts")
	if err := unit.CreateTable(ctx, c, "example-units"); err != nil {
		log.Fatal(err)
	}
	accounts, err := mapper.NewTable[Account](c, "example-accounts")
	if err != nil {
		log.Fatal(err)
	}
	// 250 accounts of 10 each: more than a DynamoDB transaction can hold.
	// PutAll writes them 25 per call (BatchWriteItem, unconditioned: for
	// data no one else is writing yet).
	seed := make([]*Account, 250)
	for i := range seed {
		seed[i] = &Account{ID: fmt.Sprintf("a%03d", i), Balance: 10}
	}
	if err := accounts.PutAll(ctx, seed, mapper.Unversioned()); err != nil {
		log.Fatal(err)
	}

	// Sweep every account's balance into a new account "pool".
	u, err := unit.Begin(ctx, c, unit.Coordinator("example-units"))
	if err != nil {
		log.Fatal(err)
	}
	var total int64
	for i := range 250 {
		a, err := unit.Get(ctx, u, accounts, Account{ID: fmt.Sprintf("a%03d", i)}) // locks it
		if err != nil {
			log.Fatal(err)
		}
		total += a.Balance
		a.Balance = 0
		if err := u.Add(accounts.PutOp(a)); err != nil {
			log.Fatal(err)
		}
	}
	if _, err := unit.Get(ctx, u, accounts, Account{ID: "pool"}); !errors.Is(err, mapper.ErrNotFound) {
		log.Fatal(err) // missing, and now locked for u to create
	}
	if err := u.Add(accounts.PutOp(&Account{ID: "pool", Balance: total})); err != nil {
		log.Fatal(err)
	}

	// Meanwhile plain writes of a locked item are refused, and plain reads
	// see the committed state.
	err = accounts.Put(ctx, &Account{ID: "a007", Balance: 99, Version: 1})
	fmt.Println("plain write while locked:", errors.Is(err, unit.ErrLocked))
	a7, _ := accounts.Get(ctx, Account{ID: "a007"})
	fmt.Println("a007 before commit:", a7.Balance)

	if err := u.Commit(ctx); err != nil {
		log.Fatal(err)
	}
	a7, _ = accounts.Get(ctx, Account{ID: "a007"})
	pool, _ := accounts.Get(ctx, Account{ID: "pool"})
	fmt.Println("a007 after commit:", a7.Balance, "version", a7.Version)
	fmt.Println("pool:", pool.Balance)
	// Output:
	// plain write while locked: true
	// a007 before commit: 10
	// a007 after commit: 0 version 2
	// pool: 2500
}
