package mapper_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/optimist-dynamo/optimist/dynamolocal"
	"github.com/optimist-dynamo/optimist/mapper"
	"github.com/optimist-dynamo/optimist/update"
	"github.com/optimist-dynamo/optimist/version"
)

// exampleTB lets the examples share the test binary's one DynamoDB Local
// (dynamolocal.New) with its tests, failing with log.Fatal.
type exampleTB struct{ testing.TB }

func (exampleTB) Helper()                           {}
func (exampleTB) Fatalf(format string, args ...any) { log.Fatalf(format, args...) }

// exampleClient returns a client of the examples' server with an access
// key of its own: the embedded engine and DynamoDB Local keep tables apart
// by access key, so the examples' fixed table names are new on every run,
// even against one long-lived endpoint. Real programs get a client from
// config.LoadDefaultConfig.
func exampleClient() *dynamodb.Client {
	return dynamolocal.New(exampleTB{}).NewClient(ownAccessKey)
}

// ownAccessKey gives a client an access key made for it (letters and
// digits only: DynamoDB Local refuses others).
func ownAccessKey(o *dynamodb.Options) {
	key := fmt.Sprintf("example%d", exampleKeys.Add(1)+time.Now().UnixNano())
	o.Credentials = aws.CredentialsProviderFunc(func(context.Context) (aws.Credentials, error) {
		return aws.Credentials{AccessKeyID: key, SecretAccessKey: "x"}, nil
	})
}

var exampleKeys atomic.Int64

// exampleTable creates the table name for T and returns a client for it.
func exampleTable[T any](name string) *dynamodb.Client {
	c := exampleClient()
	if err := mapper.CreateTable[T](context.Background(), c, name); err != nil {
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
	accounts, err := mapper.NewTable[Account](exampleTable[Account]("accounts-put"), "accounts-put")
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
	accounts, err := mapper.NewTable[Account](exampleTable[Account]("accounts-modify"), "accounts-modify")
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
	polls, err := mapper.NewTable[Poll](exampleTable[Poll]("polls"), "polls")
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

type Order struct {
	Customer string `dynamo:"customer,hash"`
	ID       int    `dynamo:"id,range"`
	Total    int    `dynamo:"total"`
}

// Query follows every page by itself. To serve results a page at a time,
// as an HTTP API does, return Limit items and a cursor taken after the
// last one; the next request resumes with StartAfter, in any process.
func ExampleTable_Query() {
	ctx := context.Background()
	orders, err := mapper.NewTable[Order](exampleTable[Order]("orders"), "orders")
	if err != nil {
		log.Fatal(err)
	}
	var placed []*Order
	for i := 1; i <= 7; i++ {
		placed = append(placed, &Order{Customer: "alice", ID: i, Total: 10 * i})
	}
	if err := orders.PutAll(ctx, placed); err != nil {
		log.Fatal(err)
	}

	alice := expression.Key("customer").Equal(expression.Value("alice"))
	large := mapper.Filter(expression.Name("total").GreaterThan(expression.Value(30)))
	var ids []int
	for o, err := range orders.Query(ctx, alice, large, mapper.PageSize(2)) { // 4 calls of 2 orders
		if err != nil {
			log.Fatal(err)
		}
		ids = append(ids, o.ID)
	}
	fmt.Println("over 30:", ids)

	// A handler: the newest orders first, 3 per page. The cursor is an
	// opaque URL-safe string; "" asks for the first page.
	page := func(cursor mapper.Cursor) (ids []int, next mapper.Cursor) {
		var last *Order
		for o, err := range orders.Query(ctx, alice, mapper.Descending(), mapper.Limit(3), mapper.StartAfter(cursor)) {
			if err != nil {
				log.Fatal(err)
			}
			ids, last = append(ids, o.ID), o
		}
		if len(ids) == 3 {
			if next, err = orders.CursorAfter(last); err != nil {
				log.Fatal(err)
			}
		}
		return ids, next
	}
	for cursor := mapper.Cursor(""); ; {
		ids, next := page(cursor)
		fmt.Println(ids)
		if next == "" {
			break
		}
		cursor = next
	}
	// Output:
	// over 30: [4 5 6 7]
	// [7 6 5]
	// [4 3 2]
	// [1]
}

// GetAll reads many items by key in a few calls and says which keys have
// no item. Batch writes cannot check versions, so a versioned type is
// written in a batch only with Unversioned (or checked, in a transaction).
func ExampleTable_GetAll() {
	ctx := context.Background()
	accounts, err := mapper.NewTable[Account](exampleTable[Account]("accounts-getall"), "accounts-getall")
	if err != nil {
		log.Fatal(err)
	}
	opening := []*Account{{ID: "alice", Balance: 100}, {ID: "bob", Balance: 50}}
	err = accounts.PutAll(ctx, opening)
	fmt.Println("refused:", errors.Is(err, mapper.ErrInvalidOption))
	if err := accounts.PutAll(ctx, opening, mapper.Unversioned()); err != nil {
		log.Fatal(err)
	}
	fmt.Println("bob is at version", opening[1].Version)

	got, err := accounts.GetAll(ctx, []Account{{ID: "bob"}, {ID: "carol"}, {ID: "alice"}})
	var missing *mapper.MissingError
	if errors.As(err, &missing) { // errors.Is(err, mapper.ErrNotFound) holds too
		fmt.Println("no item for keys", missing.Keys)
	} else if err != nil {
		log.Fatal(err)
	}
	for _, a := range got {
		if a != nil {
			fmt.Println(a.ID, a.Balance)
		}
	}
	// Output:
	// refused: true
	// bob is at version 1
	// no item for keys [1]
	// bob 50
	// alice 100
}

// PartNo is stored as one string, "BOLT-0007", through attributevalue's
// Marshaler and Unmarshaler interfaces.
type PartNo struct {
	Line string
	N    int
}

func (p PartNo) MarshalDynamoDBAttributeValue() (types.AttributeValue, error) {
	return &types.AttributeValueMemberS{Value: fmt.Sprintf("%s-%04d", p.Line, p.N)}, nil
}

func (p *PartNo) UnmarshalDynamoDBAttributeValue(av types.AttributeValue) error {
	s, ok := av.(*types.AttributeValueMemberS)
	if !ok {
		return fmt.Errorf("PartNo: want a string, got %T", av)
	}
	line, n, _ := strings.Cut(s.Value, "-")
	num, err := strconv.Atoi(n)
	*p = PartNo{Line: line, N: num}
	return err
}

type Part struct {
	No   PartNo `dynamo:"id,hash"`
	Name string `dynamo:"name"`
}

// A type with its own encoding (attributevalue.Marshaler and Unmarshaler)
// works wherever the mapper encodes or decodes: as a key of Get, GetAll,
// Query and cursors, and in the items of Put, PutAll, Query and Scan.
// Conditions and filters see the stored form.
func Example_customEncoding() {
	ctx := context.Background()
	parts, err := mapper.NewTable[Part](exampleTable[Part]("parts"), "parts")
	if err != nil {
		log.Fatal(err)
	}
	err = parts.PutAll(ctx, []*Part{
		{No: PartNo{"BOLT", 7}, Name: "hex bolt"},
		{No: PartNo{"BOLT", 8}, Name: "carriage bolt"},
		{No: PartNo{"NUT", 7}, Name: "wing nut"},
	})
	if err != nil {
		log.Fatal(err)
	}

	got, err := parts.GetAll(ctx, []Part{{No: PartNo{"NUT", 7}}, {No: PartNo{"BOLT", 7}}})
	if err != nil {
		log.Fatal(err)
	}
	for _, p := range got {
		fmt.Printf("%s %d: %s\n", p.No.Line, p.No.N, p.Name)
	}

	bolts := 0
	for _, err := range parts.Scan(ctx, mapper.Filter(expression.Name("id").BeginsWith("BOLT-"))) {
		if err != nil {
			log.Fatal(err)
		}
		bolts++
	}
	fmt.Println(bolts, "bolts")
	// Output:
	// NUT 7: wing nut
	// BOLT 7: hex bolt
	// 2 bolts
}

// A table whose items were written with version 0 by another mapper: with
// VersionZeroExists, version 0 is a version like any other, so the item
// can be changed, and is stored as version 1.
func ExampleTableOptions_versionZeroExists() {
	ctx := context.Background()
	client := exampleTable[Account]("accounts-v0")
	// An item as an older mapper left it: version 0.
	_, err := client.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("accounts-v0"), Item: map[string]types.AttributeValue{
		"id": &types.AttributeValueMemberS{Value: "a1"}, "balance": &types.AttributeValueMemberN{Value: "10"}, "v": &types.AttributeValueMemberN{Value: "0"},
	}})
	if err != nil {
		log.Fatal(err)
	}

	plain, _ := mapper.NewTable[Account](client, "accounts-v0")
	_, err = plain.Modify(ctx, Account{ID: "a1"}, func(a *Account) error { a.Balance += 5; return nil })
	var ce *version.ConflictError
	fmt.Println("by default:", errors.As(err, &ce), ce.Actual, ce.ActualMissing)

	migrated, err := mapper.NewTable[Account](client, "accounts-v0", func(o *mapper.TableOptions) { o.VersionZeroExists = true })
	if err != nil {
		log.Fatal(err)
	}
	a, err := migrated.Modify(ctx, Account{ID: "a1"}, func(a *Account) error { a.Balance += 5; return nil })
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("with VersionZeroExists:", a.Balance, a.Version)
	// Output:
	// by default: true 0 false
	// with VersionZeroExists: 15 1
}

// Values DynamoDB would refuse are found before anything is sent, and the
// error names the attribute.
func ExampleErrInvalidItem() {
	type Reading struct {
		ID    string  `dynamo:"id,hash"`
		Value float64 `dynamo:"value"`
	}
	readings, err := mapper.NewTable[Reading](exampleTable[Reading]("readings-nan"), "readings-nan")
	if err != nil {
		log.Fatal(err)
	}
	zero := 0.0
	err = readings.Put(context.Background(), &Reading{ID: "r1", Value: zero / zero})
	fmt.Println(errors.Is(err, mapper.ErrInvalidItem))
	fmt.Println(err)
	// Output:
	// true
	// mapper: encoding Value: optimist: invalid item: attribute "value" (Value): "NaN" is not a number (DynamoDB has no NaN or infinity)
}
