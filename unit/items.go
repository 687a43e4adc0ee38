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

// Attribute values and names shared by requests (never written to).
var (
	avTrue = &types.AttributeValueMemberBOOL{Value: true}
	lockNP = map[string]string{"#lk": unitlock.Attr, "#u": unitlock.FUnit, "#p": unitlock.FPrepared}
)

func avS(s string) *types.AttributeValueMemberS { return &types.AttributeValueMemberS{Value: s} }

func ccf(err error) (*types.ConditionalCheckFailedException, bool) {
	var e *types.ConditionalCheckFailedException
	return e, errors.As(err, &e)
}

// finishItem applies (commit) or undoes the lock of unit id on one item,
// until the item holds no lock of that unit. l is the lock as last known,
// nil to read it first. Every write is conditional on the lock being the
// unit's, in the state seen, so it is idempotent: a retry, or another
// process finishing the same item, finds the lock gone and stops. A
// refused write returns the item as stored (ALL_OLD), from which the loop
// goes on without another read.
//
//	state of the lock        commit                  undo
//	prepared, deleted        DeleteItem              (as below)
//	prepared                 REMOVE lock             PutItem(before), or DeleteItem if it had none
//	not prepared             REMOVE lock, or DeleteItem of a placeholder
func finishItem(ctx context.Context, c Client, table string, key map[string]types.AttributeValue, id string, commit bool, l *unitlock.Lock) error {
	for range 20 {
		if l == nil {
			out, err := c.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(table), Key: key, ConsistentRead: aws.Bool(true)})
			if err != nil {
				return fmt.Errorf("unit: reading %s %s: %w", table, attrs.FormatKey(key), err)
			}
			var ok bool
			if l, ok = unitlock.Parse(out.Item); !ok {
				return nil
			}
		}
		if l.Unit != id {
			return nil
		}
		cond, names := "#lk.#u = :u AND attribute_not_exists(#lk.#p)", lockNP
		values := map[string]types.AttributeValue{":u": avS(id)}
		if l.Prepared {
			cond = "#lk.#u = :u AND #lk.#p = :t"
			values[":t"] = avTrue
		}
		var err error
		const allOld = types.ReturnValuesOnConditionCheckFailureAllOld
		switch {
		case (l.Prepared && commit && l.Deleted) || (l.Prepared && !commit && l.Before == nil) || (!l.Prepared && l.Placeholder):
			_, err = c.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String(table), Key: key,
				ConditionExpression: aws.String(cond), ExpressionAttributeNames: names, ExpressionAttributeValues: values,
				ReturnValuesOnConditionCheckFailure: allOld})
		case l.Prepared && !commit:
			_, err = c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(table), Item: l.Before,
				ConditionExpression: aws.String(cond), ExpressionAttributeNames: names, ExpressionAttributeValues: values,
				ReturnValuesOnConditionCheckFailure: allOld})
		default:
			_, err = c.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String(table), Key: key,
				UpdateExpression:    aws.String("REMOVE #lk"),
				ConditionExpression: aws.String(cond), ExpressionAttributeNames: names, ExpressionAttributeValues: values,
				ReturnValuesOnConditionCheckFailure: allOld})
		}
		if err == nil {
			return nil
		}
		e, ok := ccf(err)
		if !ok {
			return fmt.Errorf("unit: finishing %s %s: %w", table, attrs.FormatKey(key), err)
		}
		if l, ok = unitlock.Parse(e.Item); !ok {
			return nil
		}
	}
	return fmt.Errorf("unit: finishing %s %s: the item keeps changing", table, attrs.FormatKey(key))
}

// record is what a unit's record says.
type record struct {
	found   bool
	state   string
	beat    string // the heartbeat counter, as stored
	owner   string
	lease   time.Duration
	started int64
	done    bool
}

func parseRecord(item map[string]types.AttributeValue) record {
	if len(item) == 0 {
		return record{}
	}
	r := record{found: true}
	if v, ok := item[unitlock.RecState].(*types.AttributeValueMemberS); ok {
		r.state = v.Value
	}
	if v, ok := item[unitlock.RecBeat].(*types.AttributeValueMemberN); ok {
		r.beat = v.Value
	}
	if v, ok := item[unitlock.RecOwner].(*types.AttributeValueMemberS); ok {
		r.owner = v.Value
	}
	if n, ok := attrs.Int64(item[unitlock.RecLease]); ok {
		r.lease = time.Duration(n) * time.Millisecond
	}
	r.started, _ = attrs.Int64(item[unitlock.RecStarted])
	if v, ok := item[unitlock.RecFinished].(*types.AttributeValueMemberBOOL); ok {
		r.done = v.Value
	}
	return r
}

func recordKey(id string) map[string]types.AttributeValue {
	return map[string]types.AttributeValue{unitlock.RecID: avS(id)}
}

func readRecord(ctx context.Context, c Client, coord, id string) (record, error) {
	out, err := c.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(coord), Key: recordKey(id), ConsistentRead: aws.Bool(true)})
	if err != nil {
		return record{}, fmt.Errorf("unit: reading the record of unit %s: %w", id, err)
	}
	return parseRecord(out.Item), nil
}

// setState moves a unit's record from active to state (committed or
// aborted), conditional on it being active (and, for an abort by another
// process, on the heartbeat counter it observed). It returns the state the
// record is in afterwards: state if the write (or an earlier attempt of
// it) landed, else whatever the record holds.
func setState(ctx context.Context, c Client, coord, id, state, beat string) (string, error) {
	cond := "#st = :active"
	names := map[string]string{"#st": unitlock.RecState}
	values := map[string]types.AttributeValue{":active": avS(unitlock.StateActive), ":new": avS(state)}
	if beat != "" {
		cond += " AND #hb = :hb"
		names["#hb"] = unitlock.RecBeat
		values[":hb"] = &types.AttributeValueMemberN{Value: beat}
	}
	_, err := c.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName: aws.String(coord), Key: recordKey(id),
		UpdateExpression: aws.String("SET #st = :new"), ConditionExpression: aws.String(cond),
		ExpressionAttributeNames: names, ExpressionAttributeValues: values,
		ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld,
	})
	if err == nil {
		return state, nil
	}
	if e, ok := ccf(err); ok {
		return parseRecord(e.Item).state, nil
	}
	return "", err
}

// pageKey is the key of page n of a unit's item list.
func pageKey(id string, n int) map[string]types.AttributeValue {
	return recordKey(fmt.Sprintf("%s#%d", id, n))
}

// readPages returns the items a unit logged, reading its pages in order
// until one is missing.
func readPages(ctx context.Context, c Client, coord, id string) ([]string, int, error) {
	var refs []string
	for n := 0; ; n++ {
		out, err := c.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(coord), Key: pageKey(id, n), ConsistentRead: aws.Bool(true)})
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

// finishRecord marks a unit's record finished (every item applied or
// undone), sets its TTL and deletes its pages.
func finishRecord(ctx context.Context, c Client, coord, id string, pages int) error {
	for n := range pages {
		if _, err := c.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String(coord), Key: pageKey(id, n)}); err != nil {
			return fmt.Errorf("unit: deleting page %d of unit %s: %w", n, id, err)
		}
	}
	_, err := c.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName: aws.String(coord), Key: recordKey(id),
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

// parallel runs fn(i) for i in [0, n) on up to workers goroutines and
// returns the first error (the others are canceled through ctx).
func parallel(ctx context.Context, n, workers int, fn func(ctx context.Context, i int) error) error {
	if n == 0 {
		return nil
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		mu    sync.Mutex
		next  int
		first error
		wg    sync.WaitGroup
	)
	for range min(workers, n) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				mu.Lock()
				if next >= n || first != nil {
					mu.Unlock()
					return
				}
				i := next
				next++
				mu.Unlock()
				if err := fn(ctx, i); err != nil {
					mu.Lock()
					if first == nil {
						first = err
						cancel()
					}
					mu.Unlock()
					return
				}
			}
		}()
	}
	wg.Wait()
	return first
}

// memory keeps, across calls in this process, since when each unit's
// record was seen with its heartbeat counter unchanged, on which clock:
// a unit is dead once that lasted a full lease on the observer's own
// clock. No clocks of different machines are compared.
var memory struct {
	sync.Mutex
	seen map[string]observed
}

type observed struct {
	beat  string
	since time.Time
	clock TimeSource
}

const memoryCap = 1 << 14

// observe records a sighting of unit id's record with counter beat and
// reports whether the counter has stayed so for lease or longer.
func observe(coord, id, beat string, lease time.Duration, clock TimeSource) bool {
	k := coord + "\x00" + id
	now := clock.Now()
	memory.Lock()
	defer memory.Unlock()
	if memory.seen == nil || len(memory.seen) >= memoryCap {
		memory.seen = map[string]observed{}
	}
	o, ok := memory.seen[k]
	if !ok || o.beat != beat || o.clock != clock {
		memory.seen[k] = observed{beat: beat, since: now, clock: clock}
		return false
	}
	return now.Sub(o.since) >= lease
}

func forget(coord, id string) {
	memory.Lock()
	delete(memory.seen, coord+"\x00"+id)
	memory.Unlock()
}
