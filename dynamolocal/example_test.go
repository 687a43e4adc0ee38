package dynamolocal_test

import (
	"context"
	"errors"
	"fmt"
	"log"

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

// An engine served in memory alone, with no loopback port: what a test
// in a testing/synctest bubble needs (made inside the bubble, the engine
// runs on the bubble's virtual time, so items expire as time.Sleep moves
// it past their TTL).
func ExampleStartEngine() {
	ctx := context.Background()
	srv, err := dynamolocal.StartEngine(dynamolocal.Options{NoListener: true})
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
	out, err := c.ListTables(ctx, &dynamodb.ListTablesInput{})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(out.TableNames)
	// Output:
	// [sessions]
}
