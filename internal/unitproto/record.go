package unitproto

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/optimist-dynamo/optimist/internal/attrs"
	"github.com/optimist-dynamo/optimist/internal/ddbapi"
	"github.com/optimist-dynamo/optimist/internal/errs"
	"github.com/optimist-dynamo/optimist/internal/plan"
)

// Attributes of a unit's record in the coordinator table (hash key RecID),
// and of its item-list pages (RecID "<unit id>#<n>").
const (
	RecID       = "id"
	RecState    = "st"    // StateActive, StateCommitted, StateAborted
	RecBeat     = "hb"    // N: heartbeat counter
	RecOwner    = "owner" // S
	RecLease    = "lease" // N: the lease in milliseconds
	RecStarted  = "start" // N: start time, unix nanoseconds, for wait-die
	RecFinished = "fin"   // BOOL: every item applied or undone
	RecItems    = "items" // SS: on a page, the items logged in it (EncodeKey)
	RecTTL      = "ttl"   // N: epoch seconds: a finished record, and every page
)

// States of a unit's record.
const (
	StateActive    = "active"
	StateCommitted = "committed"
	StateAborted   = "aborted"
)

// Record is what a unit's record says.
type Record struct {
	ID      string // the unit's id, as a scan found it ([Coordinator.Records])
	Found   bool
	State   string
	Beat    string // the heartbeat counter, as stored
	Owner   string
	Lease   time.Duration
	Started int64
	Done    bool // finished: every item applied or undone
}

// ParseRecord reads a record item.
func ParseRecord(item map[string]types.AttributeValue) Record {
	if len(item) == 0 {
		return Record{}
	}
	r := Record{Found: true, State: str(item[RecState]), Owner: str(item[RecOwner]), Done: boolean(item[RecFinished])}
	if v, ok := item[RecBeat].(*types.AttributeValueMemberN); ok {
		r.Beat = v.Value
	}
	if n, ok := attrs.Int64(item[RecLease]); ok {
		r.Lease = time.Duration(n) * time.Millisecond
	}
	r.Started, _ = attrs.Int64(item[RecStarted])
	return r
}

// RecordKey is the key of a unit's record.
func RecordKey(id string) map[string]types.AttributeValue {
	return map[string]types.AttributeValue{RecID: avS(id)}
}

// PageKey is the key of page n of a unit's item list.
func PageKey(id string, n int) map[string]types.AttributeValue {
	return RecordKey(fmt.Sprintf("%s#%d", id, n))
}

// Coordinator owns the items of one coordinator table: the units'
// records and the pages of their item lists. Every read and write of them
// goes through it, so their layout is known here alone. It is a value: a
// client, a table name and the [Memory] its judgements use (copies share
// it); it makes no call until a method is called.
type Coordinator struct {
	c     ddbapi.Items
	Table string // the coordinator table's name
	mem   *Memory
}

// NewCoordinator returns the Coordinator of table, reached through c,
// judging with mem, a memory its caller owns (nil: none, and then no unit
// is ever found dead by its judgements, only over).
func NewCoordinator(c ddbapi.Items, table string, mem *Memory) Coordinator {
	return Coordinator{c: c, Table: table, mem: mem}
}

// Create writes the record of a new unit id (one PutItem, conditional on
// no record of that id): active, counter 0, with rec's owner, lease and
// start. A refusal is taken for an earlier attempt of this same write
// whose answer was lost: the id is random.
func (co Coordinator) Create(ctx context.Context, id string, rec Record) error {
	key := RecordKey(id)
	r := &plan.Request{PutKey: key, Put: &dynamodb.PutItemInput{
		TableName: aws.String(co.Table),
		Item: map[string]types.AttributeValue{
			RecID:      avS(id),
			RecState:   avS(StateActive),
			RecBeat:    attrs.N(0),
			RecOwner:   avS(rec.Owner),
			RecLease:   attrs.N(rec.Lease.Milliseconds()),
			RecStarted: attrs.N(rec.Started),
		},
		ConditionExpression:                 aws.String("attribute_not_exists(#id)"),
		ExpressionAttributeNames:            map[string]string{"#id": RecID},
		ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld,
	}}
	// The id is random: a record of it is ours.
	res := co.exec(ctx, r, func(item map[string]types.AttributeValue) bool { return len(item) > 0 })
	if res.Outcome == plan.Applied || res.Outcome == plan.Refused {
		return nil
	}
	return res.Err
}

// exec sends one write of the coordinator's items through the executor;
// ours recognises the write in the item as stored (nil: it cannot be).
func (co Coordinator) exec(ctx context.Context, r *plan.Request, ours func(map[string]types.AttributeValue) bool) plan.Result {
	return plan.Exec(ctx, co.c, r, plan.Call{Settle: plan.Settle{Ours: ours}})
}

// settledErr is the error of a write the executor left Failed or Unknown.
func settledErr(res plan.Result) error {
	if res.Err != nil {
		return res.Err
	}
	return res.LostErr
}

// ReadRecord reads a unit's record with one consistent GetItem.
func ReadRecord(ctx context.Context, c ddbapi.Getter, coord, id string) (Record, error) {
	item, err := ddbapi.ReadItem(ctx, c, aws.String(coord), RecordKey(id))
	if err != nil {
		return Record{}, fmt.Errorf("unit: reading the record of unit %s: %w", id, err)
	}
	return ParseRecord(item), nil
}

// Read reads unit id's record with one consistent GetItem.
func (co Coordinator) Read(ctx context.Context, id string) (Record, error) {
	return ReadRecord(ctx, co.c, co.Table, id)
}

// scan reads every item of the coordinator table (one consistent Scan,
// following its pages) and calls fn with each unit's record, or with the
// id of each page of a unit's item list, until fn returns false. An item
// that is neither a unit's record nor a page of one ends it with
// ErrNotCoordinator. records projects the records' attributes, and tells
// a page by its id alone (an item-list page's references can be large).
//
// No filter: a filter saves no read capacity (DynamoDB charges for every
// item scanned), and each item is checked to be a unit's record or page,
// so that a table of another kind is refused.
func (co Coordinator) scan(ctx context.Context, records bool, fn func(id string, page bool, rec Record) bool) error {
	in := &dynamodb.ScanInput{TableName: aws.String(co.Table), ConsistentRead: aws.Bool(true)}
	if records {
		in.ProjectionExpression = aws.String("#id, #st, #o, #s, #l, #b, #f")
		in.ExpressionAttributeNames = map[string]string{"#id": RecID, "#st": RecState, "#o": RecOwner, "#s": RecStarted,
			"#l": RecLease, "#b": RecBeat, "#f": RecFinished}
	}
	sc, ok := co.c.(ddbapi.Scanner)
	if !ok {
		return fmt.Errorf("%w: scanning %s needs a client with Scan", errs.ErrInvalidOption, co.Table)
	}
	for {
		out, err := sc.Scan(ctx, in)
		if err != nil {
			return fmt.Errorf("scanning %s: %w", co.Table, err)
		}
		for _, it := range out.Items {
			id, _ := it[RecID].(*types.AttributeValueMemberS)
			_, isRecord := it[RecState]
			isPage := false
			if id != nil && !isRecord {
				_, isPage = it[RecItems]
				isPage = isPage || records && strings.Contains(id.Value, "#")
			}
			if id == nil || !isPage && !isRecord {
				return fmt.Errorf("%w: %s holds an item that is neither a unit's record nor a page of one", ErrNotCoordinator, co.Table)
			}
			rec := ParseRecord(it)
			rec.ID = id.Value
			if !fn(id.Value, isPage, rec) {
				return nil
			}
		}
		if len(out.LastEvaluatedKey) == 0 {
			return nil
		}
		in.ExclusiveStartKey = out.LastEvaluatedKey
	}
}

// Records returns the units' records in the coordinator table, in the
// order of its Scan, finished or not, skipping the pages of their item
// lists (see [Coordinator.scan]); an error ends the sequence.
func (co Coordinator) Records(ctx context.Context) func(yield func(Record, error) bool) {
	return func(yield func(Record, error) bool) {
		err := co.scan(ctx, true, func(_ string, page bool, rec Record) bool {
			return page || yield(rec, nil)
		})
		if err != nil {
			yield(Record{}, err)
		}
	}
}

// SetState moves a unit's record from active to state (committed or
// aborted), conditional on it being active (and, for an abort by another
// process, on the heartbeat counter it observed). It returns the state the
// record is in afterwards: state if the write (or an earlier attempt of
// it) landed, else whatever the record holds ("" for no record).
func (co Coordinator) SetState(ctx context.Context, id, state, beat string) (string, error) {
	cond := "#st = :active"
	names := map[string]string{"#st": RecState}
	values := map[string]types.AttributeValue{":active": avS(StateActive), ":new": avS(state)}
	if beat != "" {
		cond += " AND #hb = :hb"
		names["#hb"] = RecBeat
		values[":hb"] = &types.AttributeValueMemberN{Value: beat}
	}
	r := &plan.Request{Update: &dynamodb.UpdateItemInput{
		TableName: aws.String(co.Table), Key: RecordKey(id),
		UpdateExpression: aws.String("SET #st = :new"), ConditionExpression: aws.String(cond),
		ExpressionAttributeNames: names, ExpressionAttributeValues: values,
		ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld,
	}}
	res := co.exec(ctx, r, func(item map[string]types.AttributeValue) bool { return ParseRecord(item).State == state })
	switch {
	case res.Outcome == plan.Applied:
		return state, nil
	case res.Outcome == plan.Refused:
		return ParseRecord(res.Item).State, nil
	case res.Outcome == plan.Unknown && res.Seen():
		// A record seen in another state than active never goes back to
		// it: our write cannot land any more.
		if st := ParseRecord(res.Item).State; st != StateActive {
			return st, nil
		}
	}
	return "", settledErr(res)
}

// Beat bumps a live unit's heartbeat counter, conditional on its record
// being active. alive is false when the record is not active any more
// (state says what it is); err is a failure to learn it. A bump cannot be
// told from another's, and a second one is harmless: a lost answer is
// settled only by a resend's failed condition.
func (co Coordinator) Beat(ctx context.Context, id string) (alive bool, state string, err error) {
	res := co.exec(ctx, &plan.Request{Update: &dynamodb.UpdateItemInput{
		TableName: aws.String(co.Table), Key: RecordKey(id),
		UpdateExpression:                    aws.String("ADD #hb :one"),
		ConditionExpression:                 aws.String("#st = :active"),
		ExpressionAttributeNames:            map[string]string{"#hb": RecBeat, "#st": RecState},
		ExpressionAttributeValues:           map[string]types.AttributeValue{":one": attrs.N(1), ":active": avS(StateActive)},
		ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld,
	}}, nil)
	switch {
	case res.Outcome == plan.Applied:
		return true, StateActive, nil
	case res.Outcome == plan.Refused, res.Outcome == plan.Unknown && res.Seen():
		return false, ParseRecord(res.Item).State, nil
	}
	return false, "", settledErr(res)
}

// Log adds refs (item references, [EncodeKey]) to page n of unit id's
// item list (one UpdateItem). Pages are string sets, so a retried ADD is
// harmless; each carries a TTL far past any unit of lease d (see
// [PageTTL]), so that no page outlives its unit for long whatever happens.
func (co Coordinator) Log(ctx context.Context, id string, n int, refs []string, d time.Duration) error {
	res := co.exec(ctx, &plan.Request{Update: &dynamodb.UpdateItemInput{
		TableName: aws.String(co.Table), Key: PageKey(id, n),
		UpdateExpression:         aws.String("ADD #items :refs SET #ttl = :ttl"),
		ExpressionAttributeNames: map[string]string{"#items": RecItems, "#ttl": RecTTL},
		ExpressionAttributeValues: map[string]types.AttributeValue{":refs": &types.AttributeValueMemberSS{Value: refs},
			":ttl": attrs.N(time.Now().Add(PageTTL(d)).Unix())},
	}}, func(item map[string]types.AttributeValue) bool { return pageHolds(item, refs) })
	if res.Outcome != plan.Applied {
		return fmt.Errorf("unit: logging items of unit %s: %w", id, settledErr(res))
	}
	return nil
}

// pageHolds reports whether a page item holds every one of refs.
func pageHolds(item map[string]types.AttributeValue, refs []string) bool {
	ss, ok := item[RecItems].(*types.AttributeValueMemberSS)
	if !ok {
		return false
	}
	have := make(map[string]bool, len(ss.Value))
	for _, r := range ss.Value {
		have[r] = true
	}
	for _, r := range refs {
		if !have[r] {
			return false
		}
	}
	return true
}

// PageTTL is how long a page may live: far past any unit (a week, or a
// thousand leases), so that TTL removes only pages a crash left behind.
func PageTTL(lease time.Duration) time.Duration { return max(7*24*time.Hour, 1000*lease) }

// Pages returns the items unit id logged, reading its pages in order
// until one is missing (pages are deleted from the last, so those left
// are always the first ones), and how many pages there are. One GetItem
// per page, and one more.
func (co Coordinator) Pages(ctx context.Context, id string) ([]string, int, error) {
	var refs []string
	for n := 0; ; n++ {
		page, found, err := co.readPage(ctx, PageKey(id, n))
		if err != nil {
			return nil, n, fmt.Errorf("unit: reading page %d of unit %s: %w", n, id, err)
		}
		if !found {
			return refs, n, nil
		}
		refs = append(refs, page...)
	}
}

// Page reads the page whose own id (RecID) is page, as a Scan found it:
// its items, nil if it is gone. One GetItem.
func (co Coordinator) Page(ctx context.Context, page string) ([]string, error) {
	refs, _, err := co.readPage(ctx, RecordKey(page))
	if err != nil {
		return nil, fmt.Errorf("unit: reading page %s: %w", page, err)
	}
	return refs, nil
}

func (co Coordinator) readPage(ctx context.Context, key map[string]types.AttributeValue) (refs []string, found bool, err error) {
	item, err := ddbapi.ReadItem(ctx, co.c, aws.String(co.Table), key)
	if err != nil || item == nil {
		return nil, false, err
	}
	if ss, ok := item[RecItems].(*types.AttributeValueMemberSS); ok {
		refs = ss.Value
	}
	return refs, true, nil
}

// DeletePage deletes the page whose own id (RecID) is page (one
// DeleteItem).
func (co Coordinator) DeletePage(ctx context.Context, page string) error {
	return co.deleteKey(ctx, RecordKey(page))
}

// deleteKey deletes one item of the coordinator table; a lost answer is
// settled by the item being gone.
func (co Coordinator) deleteKey(ctx context.Context, key map[string]types.AttributeValue) error {
	res := co.exec(ctx, &plan.Request{Delete: &dynamodb.DeleteItemInput{TableName: aws.String(co.Table), Key: key}},
		func(item map[string]types.AttributeValue) bool { return len(item) == 0 })
	if res.Outcome != plan.Applied {
		return settledErr(res)
	}
	return nil
}

// Finish deletes unit id's pages, the last first (so that a crash on the
// way leaves the first ones, which recovery reads), then marks its record
// finished and sets its TTL ([RecordTTL]). One DeleteItem per page and
// one UpdateItem; a record that is gone is not an error.
func (co Coordinator) Finish(ctx context.Context, id string, pages int) error {
	for n := pages - 1; n >= 0; n-- {
		if err := co.deleteKey(ctx, PageKey(id, n)); err != nil {
			return fmt.Errorf("unit: deleting page %d of unit %s: %w", n, id, err)
		}
	}
	res := co.exec(ctx, &plan.Request{Update: &dynamodb.UpdateItemInput{
		TableName: aws.String(co.Table), Key: RecordKey(id),
		UpdateExpression:         aws.String("SET #fin = :t, #ttl = :ttl"),
		ConditionExpression:      aws.String("attribute_exists(#id)"),
		ExpressionAttributeNames: map[string]string{"#fin": RecFinished, "#ttl": RecTTL, "#id": RecID},
		ExpressionAttributeValues: map[string]types.AttributeValue{":t": avTrue(),
			":ttl": attrs.N(time.Now().Add(RecordTTL).Unix())},
	}}, func(item map[string]types.AttributeValue) bool { return len(item) == 0 || ParseRecord(item).Done })
	switch {
	case res.Outcome == plan.Applied, res.Outcome == plan.Refused: // refused: the record is gone
		return nil
	}
	return fmt.Errorf("unit: finishing the record of unit %s: %w", id, settledErr(res))
}

// RecordTTL is how long a finished unit's record stays: a reader that saw
// one of its prepared items just before it finished still finds it.
const RecordTTL = time.Hour
