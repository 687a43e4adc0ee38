package pessimistic

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// The lock table's key: every lock is a partition (pk = the lock's name);
// its record has sk = "lock" (and holds the FIFO queue, see fifo.go).
const (
	attrPK     = "pk"
	attrSK     = "sk"
	lockSK     = "lock"
	attrOwner  = "owner"
	attrRvn    = "rvn"     // record version: new on every acquire and heartbeat
	attrLease  = "leaseMs" // the holder's lease duration, for waiters
	attrFence  = "fence"   // the fencing token counter; never goes back
	attrTTL    = "ttl"     // epoch seconds, for DynamoDB's TTL cleanup only
	tableCheck = 30 * time.Second
)

// CreateTable creates a lock table: pk (S) hash key, sk (S) range key,
// on-demand billing, TTL enabled on "ttl"; it waits until the table is
// active. A table that exists already with this key schema is accepted
// (its TTL setting is left as it is). It calls CreateTable, DescribeTable
// until ACTIVE, and UpdateTimeToLive.
func CreateTable(ctx context.Context, c TableClient, name string) error {
	_, err := c.CreateTable(ctx, &dynamodb.CreateTableInput{
		TableName:   aws.String(name),
		BillingMode: types.BillingModePayPerRequest,
		AttributeDefinitions: []types.AttributeDefinition{
			{AttributeName: aws.String(attrPK), AttributeType: types.ScalarAttributeTypeS},
			{AttributeName: aws.String(attrSK), AttributeType: types.ScalarAttributeTypeS},
		},
		KeySchema: []types.KeySchemaElement{
			{AttributeName: aws.String(attrPK), KeyType: types.KeyTypeHash},
			{AttributeName: aws.String(attrSK), KeyType: types.KeyTypeRange},
		},
	})
	var inUse *types.ResourceInUseException
	exists := errors.As(err, &inUse)
	if err != nil && !exists {
		return fmt.Errorf("pessimistic: create table %s: %w", name, err)
	}
	err = dynamodb.NewTableExistsWaiter(c).Wait(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(name)}, 5*time.Minute,
		func(o *dynamodb.TableExistsWaiterOptions) {
			o.MinDelay, o.MaxDelay = 100*time.Millisecond, 2*time.Second
		})
	if err != nil {
		return fmt.Errorf("pessimistic: create table %s: waiting until active: %w", name, err)
	}
	if exists {
		return checkTable(ctx, c, name)
	}
	_, err = c.UpdateTimeToLive(ctx, &dynamodb.UpdateTimeToLiveInput{
		TableName:               aws.String(name),
		TimeToLiveSpecification: &types.TimeToLiveSpecification{AttributeName: aws.String(attrTTL), Enabled: aws.Bool(true)},
	})
	if err != nil {
		return fmt.Errorf("pessimistic: create table %s: enabling TTL: %w", name, err)
	}
	return nil
}

// checkTable makes sure the table has the lock table's key schema.
func checkTable(ctx context.Context, c interface {
	DescribeTable(context.Context, *dynamodb.DescribeTableInput, ...func(*dynamodb.Options)) (*dynamodb.DescribeTableOutput, error)
}, name string) error {
	out, err := c.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(name)})
	if err != nil {
		return fmt.Errorf("pessimistic: describe lock table %s: %w", name, err)
	}
	attrTypes := map[string]types.ScalarAttributeType{}
	for _, d := range out.Table.AttributeDefinitions {
		attrTypes[aws.ToString(d.AttributeName)] = d.AttributeType
	}
	var got []string
	ok := len(out.Table.KeySchema) == 2
	for _, k := range out.Table.KeySchema {
		n := aws.ToString(k.AttributeName)
		got = append(got, fmt.Sprintf("%s %s (%s)", n, k.KeyType, attrTypes[n]))
		want := map[types.KeyType]string{types.KeyTypeHash: attrPK, types.KeyTypeRange: attrSK}[k.KeyType]
		ok = ok && n == want && attrTypes[n] == types.ScalarAttributeTypeS
	}
	if !ok {
		return fmt.Errorf("%w: table %s has key %v; a lock table needs pk (S) as hash key and sk (S) as range key (see CreateTable)", ErrTableSchema, name, got)
	}
	return nil
}
