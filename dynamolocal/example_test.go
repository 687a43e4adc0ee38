package dynamolocal_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/optimist-dynamo/optimist/dynamolocal"
)

// A fault inside the engine: the first PutItem of one key is applied and
// its answer lost. The SDK sends it again, and the conditional put meets
// its own first attempt.
func ExampleServer_Inject() {
	ctx := context.Background()
	srv, err := dynamolocal.StartEngine(dynamolocal.Options{})
	if err != nil {
		log.Fatal(err)
	}
	defer srv.Close()
	c := srv.Client()
	_, err = c.CreateTable(ctx, &dynamodb.CreateTableInput{
		TableName:            aws.String("orders"),
		BillingMode:          types.BillingModePayPerRequest,
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("id"), AttributeType: types.ScalarAttributeTypeS}},
		KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("id"), KeyType: types.KeyTypeHash}},
	})
	if err != nil {
		log.Fatal(err)
	}
	key := map[string]types.AttributeValue{"id": &types.AttributeValueMemberS{Value: "o-1"}}
	remove, err := srv.Inject(dynamolocal.Rule{Op: "PutItem", Table: "orders", Key: key, Fault: dynamolocal.FaultLostResponse, Times: 1})
	if err != nil {
		log.Fatal(err)
	}
	defer remove()

	_, err = c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("orders"), Item: key,
		ConditionExpression: aws.String("attribute_not_exists(id)")})
	var ccf *types.ConditionalCheckFailedException
	fmt.Println("the resend failed its condition:", errors.As(err, &ccf))
	fmt.Println("answers lost:", srv.Injected(dynamolocal.FaultLostResponse))
	// Output:
	// the resend failed its condition: true
	// answers lost: 1
}

// An engine on a clock of one's own: an item expires when the clock
// passes its TTL, at the next request.
func ExampleStartEngine() {
	ctx := context.Background()
	clock := &manualClock{now: time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)}
	srv, err := dynamolocal.StartEngine(dynamolocal.Options{Clock: clock})
	if err != nil {
		log.Fatal(err)
	}
	defer srv.Close()
	c := srv.Client()
	_, err = c.CreateTable(ctx, &dynamodb.CreateTableInput{
		TableName:            aws.String("sessions"),
		BillingMode:          types.BillingModePayPerRequest,
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("id"), AttributeType: types.ScalarAttributeTypeS}},
		KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("id"), KeyType: types.KeyTypeHash}},
	})
	if err != nil {
		log.Fatal(err)
	}
	_, err = c.UpdateTimeToLive(ctx, &dynamodb.UpdateTimeToLiveInput{TableName: aws.String("sessions"),
		TimeToLiveSpecification: &types.TimeToLiveSpecification{AttributeName: aws.String("ttl"), Enabled: aws.Bool(true)}})
	if err != nil {
		log.Fatal(err)
	}
	key := map[string]types.AttributeValue{"id": &types.AttributeValueMemberS{Value: "s-1"}}
	_, err = c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("sessions"), Item: map[string]types.AttributeValue{
		"id": key["id"], "ttl": &types.AttributeValueMemberN{Value: fmt.Sprint(clock.Now().Add(time.Hour).Unix())}}})
	if err != nil {
		log.Fatal(err)
	}
	for _, d := range []time.Duration{59 * time.Minute, time.Minute} {
		clock.now = clock.now.Add(d)
		out, err := c.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("sessions"), Key: key})
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("%s later: found %v\n", clock.now.Sub(time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)), out.Item != nil)
	}
	// Output:
	// 59m0s later: found true
	// 1h0m0s later: found false
}

// manualClock moves only when the example says so (one goroutine: no lock).
type manualClock struct{ now time.Time }

func (c *manualClock) Now() time.Time { return c.now }
