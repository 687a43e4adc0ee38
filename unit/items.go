package unit

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/optimist-dynamo/optimist/internal/attrs"
	"github.com/optimist-dynamo/optimist/internal/unitlock"
)

// Attribute values shared by requests (never written to).
var avTrue = &types.AttributeValueMemberBOOL{Value: true}

func avS(s string) *types.AttributeValueMemberS { return &types.AttributeValueMemberS{Value: s} }

func ccf(err error) (*types.ConditionalCheckFailedException, bool) {
	var e *types.ConditionalCheckFailedException
	return e, errors.As(err, &e)
}

// readPages returns the items a unit logged, reading its pages in order
// until one is missing (pages are deleted from the last, so those left
// are always the first ones).
func readPages(ctx context.Context, c Client, coord, id string) ([]string, int, error) {
	var refs []string
	for n := 0; ; n++ {
		out, err := c.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(coord), Key: unitlock.PageKey(id, n), ConsistentRead: aws.Bool(true)})
		if err != nil {
			return nil, n, fmt.Errorf("unit: reading page %d of unit %s: %w", n, id, err)
		}
		if len(out.Item) == 0 {
			return refs, n, nil
		}
		if ss, ok := out.Item[unitlock.RecItems].(*types.AttributeValueMemberSS); ok {
			refs = append(refs, ss.Value...)
		}
	}
}

// finishRecord deletes a unit's pages, the last first (so that a crash
// on the way leaves the first ones, which recovery reads), then marks its
// record finished and sets its TTL.
func finishRecord(ctx context.Context, c Client, coord, id string, pages int) error {
	for n := pages - 1; n >= 0; n-- {
		if _, err := c.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String(coord), Key: unitlock.PageKey(id, n)}); err != nil {
			return fmt.Errorf("unit: deleting page %d of unit %s: %w", n, id, err)
		}
	}
	_, err := c.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName: aws.String(coord), Key: unitlock.RecordKey(id),
		UpdateExpression:         aws.String("SET #fin = :t, #ttl = :ttl"),
		ConditionExpression:      aws.String("attribute_exists(#id)"),
		ExpressionAttributeNames: map[string]string{"#fin": unitlock.RecFinished, "#ttl": unitlock.RecTTL, "#id": unitlock.RecID},
		ExpressionAttributeValues: map[string]types.AttributeValue{":t": avTrue,
			":ttl": attrs.N(time.Now().Add(recordTTL).Unix())},
	})
	if _, gone := ccf(err); gone {
		return nil
	}
	if err != nil {
		return fmt.Errorf("unit: finishing the record of unit %s: %w", id, err)
	}
	return nil
}

// recordTTL is how long a finished unit's record stays: a reader that saw
// one of its prepared items just before it finished still finds it.
const recordTTL = time.Hour

// parallel runs fn(i) for i in [0, n) on up to workers goroutines, all of
// them, and returns when they are done.
func parallel(ctx context.Context, n, workers int, fn func(ctx context.Context, i int)) {
	if n == 0 {
		return
	}
	var (
		mu   sync.Mutex
		next int
		wg   sync.WaitGroup
	)
	for range min(workers, n) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				mu.Lock()
				if next >= n {
					mu.Unlock()
					return
				}
				i := next
				next++
				mu.Unlock()
				fn(ctx, i)
			}
		}()
	}
	wg.Wait()
}
