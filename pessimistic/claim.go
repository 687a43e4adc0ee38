package pessimistic

import (
	"context"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/optimist-dynamo/optimist/internal/attrs"
	"github.com/optimist-dynamo/optimist/internal/plan"
	"github.com/optimist-dynamo/optimist/internal/retry"
)

// claimed is the outcome of a claim.
type claimed struct {
	// item is the record after our write (won), or as the condition found
	// it (lost; nil if there was none).
	item map[string]types.AttributeValue
	won  bool
	// late is set when the write's response was lost and a read showed it
	// had landed: if the caller's context has ended meanwhile, the caller
	// gives the lease back rather than keep a lease nobody will use.
	late bool
}

// claim is the one acquire-and-resolve path of the package: the lease lock,
// a place in a FIFO queue and an item lock are each taken by one
// conditional UpdateItem (ALL_NEW on success, ALL_OLD on failure) carrying
// a value of ours that no one else writes (a fresh record version, a queue
// entry's id), and ours recognises it in an item.
//
// A write whose response was lost is settled by the executor (plan.Exec,
// which the mapper's writes use too) without writing again: if the
// SDK's retry failed its condition, the item it returned shows whether our
// first attempt had landed; if every attempt's answer was lost, a
// consistent read (with a cleanup context, since the caller's may be why
// the answer never came) does. If the read fails too, claim returns the
// write's error: the outcome stays unknown, and the lease, if it landed,
// runs out on its own (no heartbeats renew it).
func claim(ctx context.Context, c recordClient, req *plan.Request,
	read func(context.Context) (map[string]types.AttributeValue, error),
	ours func(map[string]types.AttributeValue) bool) (claimed, error) {
	res := plan.Exec(ctx, c, req, plan.Call{
		ReturnValues: types.ReturnValueAllNew,
		Settle: plan.Settle{Ours: ours, Read: func(ctx context.Context) (map[string]types.AttributeValue, error) {
			rctx, cancel := cleanupContext(ctx)
			defer cancel()
			return read(rctx)
		}},
	})
	switch {
	case res.Outcome == plan.Applied:
		return claimed{item: res.Item, won: true, late: res.Read}, nil
	case res.ConditionFailed():
		// Refused, or a resend refused with no sign that our lost attempt
		// landed: the item shows who holds it.
		return claimed{item: res.Item}, nil
	}
	return claimed{}, res.Err
}

// acquireRequest is the lease lock's acquisition (Locker.Acquire's one
// write): the record rec is taken for o.Owner with the fresh record version
// rvn when it has no holder, or, with takeover set, when its holder's
// record version is still takeover (a lease that ran out unrenewed).
func acquireRequest(rec *record, o Options, rvn, takeover string) *plan.Request {
	cond := "attribute_not_exists(#o)"
	// prevOwner and prevToken keep the holder this write replaces (NULL:
	// none; SET reads the item as it was), so that the answer (ALL_NEW)
	// tells a takeover from a plain acquisition.
	set := "SET #o = :o, #r = :r, #l = :l, #t = :t, #f = if_not_exists(#f, :base) + :one, #po = if_not_exists(#o, :null), #pt = if_not_exists(#f, :zero)"
	values := map[string]types.AttributeValue{
		":o":    attrs.S(o.Owner),
		":r":    attrs.S(rvn),
		":l":    attrs.N(o.LeaseDuration.Milliseconds()),
		":t":    o.ttlValue(),
		":base": attrs.N(time.Now().UnixMilli()),
		":one":  attrs.N(1),
		":null": &types.AttributeValueMemberNULL{Value: true},
		":zero": attrs.N(0),
	}
	if takeover != "" {
		cond += " OR #r = :stale"
		values[":stale"] = attrs.S(takeover)
	}
	if o.Data != nil {
		set += ", #d = :d"
		values[":d"] = &types.AttributeValueMemberB{Value: o.Data}
	} else {
		set += " REMOVE #d" // a previous holder's
	}
	return rawUpdate(&dynamodb.UpdateItemInput{
		TableName: rec.table,
		Key:       rec.key,
		// The fence starts from the wall clock in milliseconds, so that if
		// TTL ever deletes a long-abandoned lock, the tokens of its next
		// life are still higher than those of its last (they grow by one
		// per acquisition, far slower than the clock).
		UpdateExpression:    aws.String(set),
		ConditionExpression: aws.String(cond),
		ExpressionAttributeNames: map[string]string{"#o": attrOwner, "#r": attrRvn, "#l": attrLease, "#t": attrTTL, "#f": attrFence, "#d": attrData,
			"#po": attrPrevOwner, "#pt": attrPrevToken},
		ExpressionAttributeValues: values,
	})
}

// rawUpdate is an UpdateItem the package writes by hand (its update
// expression does what the plan's actions cannot: arithmetic on the fence
// counter, a copy of one attribute into another), made a request that asks
// for the item as stored when its condition fails.
func rawUpdate(in *dynamodb.UpdateItemInput) *plan.Request {
	in.ReturnValuesOnConditionCheckFailure = types.ReturnValuesOnConditionCheckFailureAllOld
	return &plan.Request{Update: in}
}

// tries caps the package's own retry loops (not the SDK's, which retries
// each call with its own backoff): a FIFO join that met a queue not
// created yet, or the removals of abandoned entries before a Wait(0) join.
// None of them waits between tries (Base 0): each try follows a change it
// saw.
var tries = retry.Policy{MaxAttempts: 8}
