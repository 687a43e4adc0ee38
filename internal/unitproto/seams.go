package unitproto

import (
	"context"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/optimist-dynamo/optimist/internal/ddbapi"
)

// The seams: packages mapper, txn and pessimistic meet the unit-of-work
// protocol through these functions alone (and the attribute name [Attr],
// which readers project).
//
//   - guard a write: [plan.Write.Guard] (every write of these packages is
//     planned);
//   - name a refusal: [Locked] turns the item a refused write met into a
//     [*LockedError];
//   - settle a refusal: [Settle];
//   - resolve what a reader is shown: [Resolve] (with [GetItemReader]),
//     [Snapshot] (with [TransactReader] and [ViaTransactions]), and the
//     filter terms [PreparedCond] and [NotPlaceholder], with which a
//     filtered or counting read lets DynamoDB pass the items a reader must
//     judge itself.

// NotPlaceholder is the condition "the item is not one a unit's lock
// made" (a placeholder reads as no item).
func NotPlaceholder() expression.ConditionBuilder {
	return expression.AttributeNotExists(lockField(FPlaceholder))
}

// Settle is what a party does when it meets the lock l of a unit on the
// item with key in table (a plain write, a transaction, another unit): it
// judges the unit ([Coordinator.Judge], with mem, the party's memory) and,
// when the unit is over (committed, aborted, or its record gone) or dead,
// rolls the item forward or back, so that the write can be tried again.
// The verdict says which ([Verdict.Settled], [Verdict.Committed]); a live
// unit's lock is left alone. Cost: one GetItem of the record, and for a
// unit that is over or dead one write on the item (and for a dead one one
// on its record).
func Settle(ctx context.Context, c ddbapi.Items, mem *Memory, table string, key map[string]types.AttributeValue, l *Lock) (Verdict, error) {
	if l.Coordinator == "" {
		return Verdict{}, nil
	}
	v, err := NewCoordinator(c, l.Coordinator, mem).JudgeUnit(ctx, l.Unit)
	if err != nil || v.Action == Wait {
		return v, err
	}
	if _, err := Finish(ctx, c, table, key, l.Unit, v.Action == Forward, nil); err != nil {
		return Verdict{}, err
	}
	return v, nil
}
