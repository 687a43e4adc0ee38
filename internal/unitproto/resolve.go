package unitproto

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/optimist-dynamo/optimist/internal/attrs"
	"github.com/optimist-dynamo/optimist/internal/ddbapi"
	"github.com/optimist-dynamo/optimist/internal/retry"
)

// Resolve turns items (as stored; nil entries allowed) into what a reader
// sees, in place: the last committed state of each, nil for "no item".
//
// What is stored outside a lock is the committed state, but for an item
// whose unit has passed its commit point and not yet applied it. The
// record of each unit whose lock the items show is read once (after the
// items were read: a record that says active or aborted then was so when
// the items were read too). A prepared lock of a committed unit is shown
// from its intent (a put or delete), or, for an update, applied with c
// (one conditional write, which its unit or recovery would make anyway)
// and shown as DynamoDB computed it.
//
// Read atomicity. The items of one call (a Scan or Query page, a batch of
// a GetAll) may be read at different moments (DynamoDB's are; the
// embedded engine reads a page at once), and the unit's record is read
// after them, so without care a call could show some writes of a
// committed unit and not others. The rule: for every unit whose lock some
// item of the call carried when last read (a call read again is judged by
// its last reads), the call shows either all of the unit's writes to its
// items or none of them. The items of a call are those it returned, and
// the keys it read and found no item for when at names them (a GetAll's):
// an item a Scan or Query did not return (one the unit creates, or one
// its filter dropped on the state stored then) is not one of them. A unit
// none of whose locks the items carried is not covered where the items
// were not read at once: an item read after the unit applied it and
// another read before the unit locked it carry no sign of it. A call read
// again is read at once, a hundred items at a time, where c offers
// TransactGetItems. For a state the database held across items, use a
// snapshot ([Snapshot]).
//
// How: a unit whose record says other than committed was not committed
// when the items were read, and none of its writes is shown. For a
// committed unit U, two kinds of item may have been read before U's
// commit point while another shows U's write: an item carrying U's lock
// without intent (U does not write it, or had not yet added its write),
// and an item carrying no lock of U that is on U's item list (read before
// U locked it, or after U applied it; no telling which). U's item list is
// read from its pages in the coordinator table (readKeys: U logs every
// item before it locks it, so the list is complete once U is committed),
// once per unit and call, and only when an item of the call carries no
// lock of U. On either sign every item of the call is read again
// (readAgain, by the keys first read; a deleted item becomes "no item")
// and resolved again with U now known committed before the new reads
// began: then U's lock without intent is on an item U does not write, and
// an item on U's list without U's lock is past U's apply, and both are
// shown as read. An update the reader applies is shown as its own write
// computed it; if another apply came first, Finish returns the item as
// stored then, which may be past U (other units wrote since): in a call
// of more than one item, the items are then read again. Each round adds the units its record reads
// found committed, and a sign needs a committed unit not yet added (or an
// apply); from the third round on it waits a jittered moment first, and
// after resolveRounds rounds it gives up with an error matching
// [ErrLocked] (the items are busy with units: try again).
//
// Cost: nothing more unless an item shows the lock of a committed unit;
// then one GetItem per page of that unit's item list (one for a list of
// up to PageItems) when an item carries no lock of it, and per round one
// TransactGetItems per 100 items of the call (DynamoDB charges a
// transactional read twice a consistent one), or one GetItem per item.
//
// prepared[i] is true when items[i] may be shown otherwise than as first
// stored (its intent, its apply, or a read again), so a condition DynamoDB
// evaluated on the stored item (a filter, an index's key condition) must be
// evaluated again on what is shown.
//
// at names the table and key of items[i], for the apply and the read
// again; it is asked only while items[i] is as first read.
func Resolve(ctx context.Context, items []map[string]types.AttributeValue, read StateReader, c ddbapi.Items,
	at func(i int) (string, map[string]types.AttributeValue)) (prepared []bool, err error) {
	prepared = make([]bool, len(items))
	if !anyLocked(items) {
		return prepared, nil
	}
	refs := itemRefs(len(items), at)
	final := map[string]string{} // states that cannot change any more
	before := map[string]bool{}  // units known committed before this round's reads
	logs := map[string]*keySet{} // committed units' item lists, read once per call
	for round := 0; ; round++ {
		locks, states, err := lockStates(ctx, items, read, final)
		if err != nil {
			return nil, err
		}
		sign := newlyCommitted(locks, states, before)
		if !sign {
			if sign, err = untraced(ctx, c, refs, locks, states, before, logs); err != nil {
				return nil, err
			}
		}
		if !sign {
			views, applied, err := readerViews(ctx, c, items, refs, locks, states)
			if err != nil {
				return nil, err
			}
			// An update a reader applies comes back as DynamoDB stores the
			// item then, which may be past the unit (its own apply came
			// first, and other units wrote since): with other items in the
			// call, those are read again after the apply instead.
			if !applied || len(items) == 1 {
				for i, l := range locks {
					if l != nil {
						prepared[i] = prepared[i] || l.Prepared
						items[i] = views[i]
					}
				}
				return prepared, nil
			}
		}
		if err := nextRound(ctx, c, round, refs, items, states, before, prepared); err != nil {
			return nil, err
		}
	}
}

// anyLocked reports whether some item carries a unit's lock: without one,
// Resolve has nothing to do.
func anyLocked(items []map[string]types.AttributeValue) bool {
	for _, it := range items {
		if _, ok := it[Attr]; ok {
			return true
		}
	}
	return false
}

// itemRefs names each item's table and key through at, while the items are
// as first read; a key that cannot be read again is left nil.
func itemRefs(n int, at func(i int) (string, map[string]types.AttributeValue)) []itemRef {
	refs := make([]itemRef, n)
	for i := range refs {
		if refs[i].table, refs[i].key = at(i); !knownKey(refs[i].key) {
			refs[i].key = nil
		}
	}
	return refs
}

// newlyCommitted reports the first sign: a lock without intent of a unit
// committed and not yet known committed before this round's reads.
func newlyCommitted(locks []*Lock, states map[string]string, before map[string]bool) bool {
	sign := false
	for _, l := range locks {
		if l != nil && !l.Prepared {
			k := StateKey(l.Coordinator, l.Unit)
			if fateOf(states[k]) == Forward && !before[k] {
				sign = true
			}
		}
	}
	return sign
}

// readerViews computes what a reader sees of each locked item (nil entries
// for unlocked ones), applying committed updates with c; applied reports
// that some apply was made first by another, so its item may show writes
// past the unit.
func readerViews(ctx context.Context, c ddbapi.Items, items []map[string]types.AttributeValue, refs []itemRef,
	locks []*Lock, states map[string]string) (views []map[string]types.AttributeValue, applied bool, err error) {
	views = make([]map[string]types.AttributeValue, len(items))
	for i, l := range locks {
		if l == nil {
			continue
		}
		committed := fateOf(states[StateKey(l.Coordinator, l.Unit)]) == Forward
		view, ok := View(items[i], l, committed)
		if !ok {
			var wrote bool
			if view, wrote, err = applyForReader(ctx, c, refs[i].table, refs[i].key, l); err != nil {
				return nil, false, err
			}
			// Only an apply another made first may show the item
			// past the unit.
			applied = applied || !wrote
		}
		views[i] = view
	}
	return views, applied, nil
}

// nextRound prepares Resolve's next round after a sign: it gives up after
// resolveRounds rounds, adds this round's committed units to before, waits
// from the third round on, and reads every item again.
func nextRound(ctx context.Context, c ddbapi.Items, round int, refs []itemRef, items []map[string]types.AttributeValue,
	states map[string]string, before map[string]bool, prepared []bool) error {
	if round+1 == resolveRounds {
		return fmt.Errorf("%w: %d reads in a row met units committing on these items; try again", ErrLocked, resolveRounds)
	}
	if c == nil {
		return errors.New("unit: items need reading again, and the reader has no client for it")
	}
	for k, st := range states {
		if fateOf(st) == Forward {
			before[k] = true
		}
	}
	if round >= 2 {
		// Units keep committing on these items: give them a moment,
		// so that the next round is likelier to find them applied.
		if err := retry.Sleep(ctx, retry.Backoff(round-1, time.Millisecond, 20*time.Millisecond)); err != nil {
			return err
		}
	}
	if err := readAgain(ctx, c, refs, items); err != nil {
		return err
	}
	for i, r := range refs {
		if r.key != nil {
			prepared[i] = true
		}
	}
	return nil
}

// resolveRounds bounds how many times Resolve reads the items.
const resolveRounds = 12

// readAgain reads the items of refs again into items (nil for none): with
// TransactGetItems, 100 at a time, where c offers it, so that each hundred
// is a state the database held (a unit cannot lock one and apply another
// of them between their reads); else, or when DynamoDB cancels the
// transaction (a transactional write in flight on one of them), one
// consistent GetItem each.
func readAgain(ctx context.Context, c ddbapi.Items, refs []itemRef, items []map[string]types.AttributeValue) error {
	var at []int
	for i, r := range refs {
		if r.key != nil {
			at = append(at, i)
		}
	}
	tc, snapshots := c.(ddbapi.TransactGetter)
	for len(at) > 0 {
		n := min(len(at), 100)
		chunk := at[:n]
		at = at[n:]
		if snapshots {
			// One Get per distinct item: a transaction may not name one twice.
			in := &dynamodb.TransactGetItemsInput{}
			first := map[string]int{}
			which := make([]int, len(chunk))
			for j, i := range chunk {
				id := ItemID(refs[i].table, refs[i].key)
				f, dup := first[id]
				if !dup {
					f = len(in.TransactItems)
					first[id] = f
					in.TransactItems = append(in.TransactItems, types.TransactGetItem{Get: &types.Get{TableName: aws.String(refs[i].table), Key: refs[i].key}})
				}
				which[j] = f
			}
			out, err := tc.TransactGetItems(ctx, in)
			var tce *types.TransactionCanceledException
			switch {
			case err == nil:
				for j, i := range chunk {
					var item map[string]types.AttributeValue
					if f := which[j]; f < len(out.Responses) {
						item = out.Responses[f].Item
					}
					items[i] = nilIfEmpty(item)
				}
				continue
			case !errors.As(err, &tce):
				return fmt.Errorf("unit: reading %d items again: %w", len(in.TransactItems), err)
			}
		}
		for _, i := range chunk {
			r := refs[i]
			item, err := ddbapi.ReadItem(ctx, c, aws.String(r.table), r.key)
			if err != nil {
				return fmt.Errorf("unit: reading %s %s again: %w", r.table, attrs.FormatKey(r.key), err)
			}
			items[i] = item
		}
	}
	return nil
}

// itemRef names the table and key of an item of a call (nil key: unknown).
type itemRef struct {
	table string
	key   map[string]types.AttributeValue
}

// knownKey reports whether key names an item: it has attributes, none nil.
func knownKey(key map[string]types.AttributeValue) bool {
	for _, v := range key {
		if v == nil {
			return false
		}
	}
	return len(key) > 0
}

// untraced reports whether an item of the call may have been read before a
// unit that the call shows committed locked it: for each unit whose lock
// some item carries, whose record says committed, and which was not known
// committed before this round's reads, it reads the unit's item list (once
// per call) and looks there for the items that carry no lock of that unit.
// A unit whose lock every item carries needs no list.
func untraced(ctx context.Context, c ddbapi.Getter, refs []itemRef, locks []*Lock, states map[string]string,
	before map[string]bool, logs map[string]*keySet) (bool, error) {
	done := map[string]bool{}
	for _, l := range locks {
		if l == nil {
			continue
		}
		k := StateKey(l.Coordinator, l.Unit)
		if fateOf(states[k]) != Forward || before[k] || done[k] {
			continue
		}
		done[k] = true
		var others []int
		for j, r := range refs {
			if o := locks[j]; r.key != nil && (o == nil || o.Unit != l.Unit || o.Coordinator != l.Coordinator) {
				others = append(others, j)
			}
		}
		if len(others) == 0 {
			continue
		}
		ks, ok := logs[k]
		if !ok {
			if c == nil {
				return false, errors.New("unit: a unit's item list needs reading, and the reader has no client for it")
			}
			var err error
			if ks, err = readKeys(ctx, c, l.Coordinator, l.Unit); err != nil {
				return false, err
			}
			logs[k] = ks
		}
		for _, j := range others {
			if ks.has(ItemID(refs[j].table, refs[j].key)) {
				return true, nil
			}
		}
	}
	return false, nil
}

// lockStates parses the locks of items (nil where none) and reads
// the state of every unit among them whose state is not in final, once per
// unit; states that cannot change any more (committed, aborted, no record)
// are added to final.
func lockStates(ctx context.Context, items []map[string]types.AttributeValue, read StateReader, final map[string]string) ([]*Lock, map[string]string, error) {
	locks := make([]*Lock, len(items))
	ids := map[string][]string{}
	seen := map[string]bool{}
	for i := range items {
		l, ok := Parse(items[i])
		if !ok {
			continue
		}
		locks[i] = l
		k := StateKey(l.Coordinator, l.Unit)
		if _, known := final[k]; !known && !seen[k] {
			seen[k] = true
			ids[l.Coordinator] = append(ids[l.Coordinator], l.Unit)
		}
	}
	states := map[string]string{}
	if len(ids) > 0 {
		var err error
		if states, err = read(ctx, ids); err != nil {
			return nil, nil, err
		}
	}
	for k, st := range states {
		if fateOf(st) != Wait {
			final[k] = st
		}
	}
	for k, st := range final {
		states[k] = st
	}
	return locks, states, nil
}

// preparedStates parses the locks of items (nil where none) and reads,
// once per unit, the state of the units whose locks hold their writes.
func preparedStates(ctx context.Context, items []map[string]types.AttributeValue, read StateReader) ([]*Lock, map[string]string, error) {
	locks := make([]*Lock, len(items))
	ids := map[string][]string{}
	seen := map[string]bool{}
	for i, it := range items {
		l, ok := Parse(it)
		if !ok {
			continue
		}
		locks[i] = l
		if k := StateKey(l.Coordinator, l.Unit); l.Prepared && !seen[k] {
			seen[k] = true
			ids[l.Coordinator] = append(ids[l.Coordinator], l.Unit)
		}
	}
	if len(ids) == 0 {
		return locks, map[string]string{}, nil
	}
	states, err := read(ctx, ids)
	return locks, states, err
}

// applyForReader applies a committed update to the item it is prepared on
// and returns the new state, and whether the apply was this call's own
// (then the state is the unit's write exactly as DynamoDB computed it on
// the item the unit held).
func applyForReader(ctx context.Context, c ddbapi.Items, table string, key map[string]types.AttributeValue, l *Lock) (map[string]types.AttributeValue, bool, error) {
	if c == nil {
		return nil, false, errors.New("unit: a committed update needs applying, and the reader cannot write")
	}
	after, wrote, err := finish(ctx, c, table, key, l.Unit, true, l)
	if err != nil {
		return nil, false, err
	}
	if l2, ok := Parse(after); ok {
		// Another unit locked it right after: what it stores is ours.
		after, _ = View(after, l2, false)
	}
	return after, wrote, nil
}

// GetItemReader reads each record with one consistent GetItem (projected
// to its state).
func GetItemReader(c ddbapi.Getter) StateReader {
	return func(ctx context.Context, ids map[string][]string) (map[string]string, error) {
		out := map[string]string{}
		for table, list := range ids {
			for _, id := range list {
				res, err := c.GetItem(ctx, &dynamodb.GetItemInput{
					TableName:                aws.String(table),
					Key:                      RecordKey(id),
					ConsistentRead:           aws.Bool(true),
					ProjectionExpression:     aws.String("#s"),
					ExpressionAttributeNames: map[string]string{"#s": RecState},
				})
				if err != nil {
					return nil, fmt.Errorf("unit: reading the record of unit %s in %s: %w", id, table, err)
				}
				out[StateKey(table, id)] = str(res.Item[RecState])
			}
		}
		return out, nil
	}
}

// TransactReader reads the records with TransactGetItems, 100 at a time.
func TransactReader(c ddbapi.TransactGetter) StateReader {
	return func(ctx context.Context, ids map[string][]string) (map[string]string, error) {
		type ref struct{ table, id string }
		var refs []ref
		for table, list := range ids {
			for _, id := range list {
				refs = append(refs, ref{table, id})
			}
		}
		out := map[string]string{}
		for len(refs) > 0 {
			n := min(len(refs), 100)
			in := &dynamodb.TransactGetItemsInput{}
			for _, r := range refs[:n] {
				in.TransactItems = append(in.TransactItems, types.TransactGetItem{Get: &types.Get{
					TableName:                aws.String(r.table),
					Key:                      RecordKey(r.id),
					ProjectionExpression:     aws.String("#s"),
					ExpressionAttributeNames: map[string]string{"#s": RecState},
				}})
			}
			res, err := c.TransactGetItems(ctx, in)
			if err != nil {
				return nil, fmt.Errorf("unit: reading units' records: %w", err)
			}
			for i, r := range refs[:n] {
				var st string
				if i < len(res.Responses) {
					st = str(res.Responses[i].Item[RecState])
				}
				out[StateKey(r.table, r.id)] = st
			}
			refs = refs[n:]
		}
		return out, nil
	}
}

// Snapshot reads a consistent snapshot of items with get (a
// TransactGetItems) and returns what a reader sees of it: a state the
// database held. A prepared lock whose unit's record, read after the
// snapshot, is not committed was not committed when the snapshot was
// taken either, so the stored item is its committed state; one whose unit
// has committed may have committed after the snapshot, so the snapshot
// cannot tell: those items are applied (rolled forward, as their unit or
// recovery would) and the snapshot is taken again. It gives up after a few
// snapshots in a row that met committed units.
func Snapshot(ctx context.Context, get func(context.Context) ([]map[string]types.AttributeValue, error), read StateReader, c ddbapi.Items,
	at func(i int) (string, map[string]types.AttributeValue)) ([]map[string]types.AttributeValue, error) {
	const tries = 8
	for range tries {
		items, err := get(ctx)
		if err != nil {
			return nil, err
		}
		locks, states, err := preparedStates(ctx, items, read)
		if err != nil {
			return nil, err
		}
		again := false
		for i, l := range locks {
			if l != nil && l.Prepared && fateOf(states[StateKey(l.Coordinator, l.Unit)]) == Forward {
				table, key := at(i)
				if _, err := Finish(ctx, c, table, key, l.Unit, true, l); err != nil {
					return nil, err
				}
				again = true
			}
		}
		if again {
			continue
		}
		for i, l := range locks {
			if l != nil {
				items[i], _ = View(items[i], l, false)
			}
		}
		return items, nil
	}
	return nil, fmt.Errorf("%w: %d snapshots in a row met units committing on these items; try again", ErrLocked, tries)
}

// ViaTransactions makes the single-item calls of a transaction-only client: each call is
// a transaction of one action, and a failed condition comes back as a
// *types.ConditionalCheckFailedException with the item, as from the
// single-item calls. UpdateItem returns no attributes.
func ViaTransactions(c ddbapi.Transactions) ddbapi.Items { return viaTx{c} }

type viaTx struct{ c ddbapi.Transactions }

func (v viaTx) GetItem(ctx context.Context, in *dynamodb.GetItemInput, _ ...func(*dynamodb.Options)) (*dynamodb.GetItemOutput, error) {
	out, err := v.c.TransactGetItems(ctx, &dynamodb.TransactGetItemsInput{TransactItems: []types.TransactGetItem{{Get: &types.Get{
		TableName: in.TableName, Key: in.Key, ProjectionExpression: in.ProjectionExpression, ExpressionAttributeNames: in.ExpressionAttributeNames,
	}}}})
	if err != nil {
		return nil, err
	}
	res := &dynamodb.GetItemOutput{}
	if len(out.Responses) > 0 {
		res.Item = out.Responses[0].Item
	}
	return res, nil
}

func (v viaTx) write(ctx context.Context, ti types.TransactWriteItem) error {
	_, err := v.c.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{ti}})
	var tce *types.TransactionCanceledException
	if errors.As(err, &tce) && len(tce.CancellationReasons) > 0 && aws.ToString(tce.CancellationReasons[0].Code) == "ConditionalCheckFailed" {
		return &types.ConditionalCheckFailedException{Message: tce.Message, Item: tce.CancellationReasons[0].Item}
	}
	return err
}

const allOld = types.ReturnValuesOnConditionCheckFailureAllOld

func (v viaTx) PutItem(ctx context.Context, in *dynamodb.PutItemInput, _ ...func(*dynamodb.Options)) (*dynamodb.PutItemOutput, error) {
	return &dynamodb.PutItemOutput{}, v.write(ctx, types.TransactWriteItem{Put: &types.Put{TableName: in.TableName, Item: in.Item,
		ConditionExpression: in.ConditionExpression, ExpressionAttributeNames: in.ExpressionAttributeNames,
		ExpressionAttributeValues: in.ExpressionAttributeValues, ReturnValuesOnConditionCheckFailure: allOld}})
}

func (v viaTx) UpdateItem(ctx context.Context, in *dynamodb.UpdateItemInput, _ ...func(*dynamodb.Options)) (*dynamodb.UpdateItemOutput, error) {
	return &dynamodb.UpdateItemOutput{}, v.write(ctx, types.TransactWriteItem{Update: &types.Update{TableName: in.TableName, Key: in.Key,
		UpdateExpression: in.UpdateExpression, ConditionExpression: in.ConditionExpression, ExpressionAttributeNames: in.ExpressionAttributeNames,
		ExpressionAttributeValues: in.ExpressionAttributeValues, ReturnValuesOnConditionCheckFailure: allOld}})
}

func (v viaTx) DeleteItem(ctx context.Context, in *dynamodb.DeleteItemInput, _ ...func(*dynamodb.Options)) (*dynamodb.DeleteItemOutput, error) {
	return &dynamodb.DeleteItemOutput{}, v.write(ctx, types.TransactWriteItem{Delete: &types.Delete{TableName: in.TableName, Key: in.Key,
		ConditionExpression: in.ConditionExpression, ExpressionAttributeNames: in.ExpressionAttributeNames,
		ExpressionAttributeValues: in.ExpressionAttributeValues, ReturnValuesOnConditionCheckFailure: allOld}})
}
