package plan

import (
	"context"
	"errors"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/optimist-dynamo/optimist/internal/attempt"
	"github.com/optimist-dynamo/optimist/internal/ddbapi"
)

// Client is what the executor calls: the write, and the read that settles
// a write whose answer was lost. A Put also needs PutItem ([PutClient]);
// the lock table's client, which never puts, need not have it.
type Client interface {
	GetItem(ctx context.Context, params *dynamodb.GetItemInput, optFns ...func(*dynamodb.Options)) (*dynamodb.GetItemOutput, error)
	UpdateItem(ctx context.Context, params *dynamodb.UpdateItemInput, optFns ...func(*dynamodb.Options)) (*dynamodb.UpdateItemOutput, error)
	DeleteItem(ctx context.Context, params *dynamodb.DeleteItemInput, optFns ...func(*dynamodb.Options)) (*dynamodb.DeleteItemOutput, error)
}

// PutClient is a Client that can send a Put.
type PutClient interface {
	Client
	PutItem(ctx context.Context, params *dynamodb.PutItemInput, optFns ...func(*dynamodb.Options)) (*dynamodb.PutItemOutput, error)
}

// Outcome is how a conditional write was settled.
type Outcome uint8

// The outcomes of a write.
const (
	// Failed: not applied; the call failed with every attempt answered
	// (a validation error, a throttle the SDK gave up on), or was not made.
	Failed Outcome = iota
	// Applied: answered with success, or an attempt whose answer was lost
	// is seen, by [Settle.Ours], to have landed.
	Applied
	// Refused: the condition failed, and no attempt's answer was lost.
	// Item is the item as stored (ALL_OLD), nil if none.
	Refused
	// Unknown: an attempt's answer was lost (a timeout, a 5xx after the
	// SDK's retries, a context cancelled mid-call) and nothing showed the
	// write landed: it may have, or may land still.
	Unknown
)

var outcomeNames = [...]string{"failed", "applied", "refused", "unknown"}

func (o Outcome) String() string { return outcomeNames[o] }

// Settle is how a write whose answer was lost is recognised as ours.
type Settle struct {
	// Ours reports whether item (as stored, nil if none) shows the write
	// applied: it holds a value of ours no one else writes (a write token,
	// a record version, a unit id), or, for a delete, it is gone. Nil: the
	// write cannot be recognised, and a lost answer is Unknown.
	Ours func(item map[string]types.AttributeValue) bool
	// Read reads the item when every attempt's answer was lost. Nil: one
	// consistent GetItem of the request's key, and none once ctx has ended.
	Read func(ctx context.Context) (map[string]types.AttributeValue, error)
}

// Call is how a request is sent.
type Call struct {
	ReturnValues types.ReturnValue            // on success ("": none)
	Capacity     types.ReturnConsumedCapacity // "": none
	// NoResend keeps the SDK from resending after an attempt that may
	// have landed: for a write that a resend could apply twice (one with
	// no check that its own landing makes false).
	NoResend bool
	Settle   Settle
}

// Result is a write settled.
type Result struct {
	Outcome Outcome
	// Item is the item the call returned (ReturnValues) or the settling
	// found (Applied after a lost answer), the item as stored when the
	// condition failed (Refused; Unknown after a resend's failed
	// condition), or the item read (Unknown with Read).
	Item map[string]types.AttributeValue
	// Out is the SDK's output of an answered success
	// (*dynamodb.PutItemOutput, UpdateItemOutput or DeleteItemOutput).
	Out any
	// Err is the call's final error: a ConditionalCheckFailedException
	// for a failed condition.
	Err error
	// LostErr is the error of the first attempt whose answer was lost,
	// nil if none was.
	LostErr error
	// Read reports that every answer was lost and Item is what the
	// settling read found.
	Read bool
}

// Lost reports whether an attempt's answer was lost.
func (r *Result) Lost() bool { return r.LostErr != nil }

// ConditionFailed reports whether the call ended on a failed condition.
func (r *Result) ConditionFailed() bool {
	var ccf *types.ConditionalCheckFailedException
	return errors.As(r.Err, &ccf)
}

// Seen reports whether the item as stored was seen after a lost answer
// (in a resend's failed condition, or by the settling read).
func (r *Result) Seen() bool { return r.Lost() && (r.Read || r.ConditionFailed()) }

// Exec sends the request r once (the SDK's own retries aside) and settles
// it: Applied, Refused, Unknown, or Failed. It is the one executor of
// single-item writes (PutItem, UpdateItem, DeleteItem) in the library: the
// mapper's, the lock table's, a unit's locks, the coordinator's records
// and pages, the applies of recovery and readers. No other code sends
// one (a test enforces it); each caller says, with call.Settle.Ours, how
// its own write is recognised in the item as stored.
//
// After a lost answer the write is settled without writing again: if the
// SDK's resend failed its condition, the item it returned shows whether our
// first attempt had landed; if every answer was lost, one read does.
func Exec(ctx context.Context, c Client, r *Request, call Call) Result {
	res := send(ctx, c, r, call)
	switch {
	case res.Err == nil:
		res.Outcome = Applied
	case res.ConditionFailed():
		res.Outcome = refused(&res, call.Settle)
	case !res.Lost():
		res.Outcome = Failed
	default:
		res.Outcome = settle(ctx, c, r, &res, call.Settle)
	}
	return res
}

// send is Exec's first step: the call, watched for attempts whose answer
// was lost (the SDK's retries included).
func send(ctx context.Context, c Client, r *Request, call Call) Result {
	var att attempt.Tracker
	att.NoResend = call.NoResend
	var res Result
	switch {
	case r.Put != nil:
		pc, ok := c.(PutClient)
		if !ok {
			return Result{Err: fmt.Errorf("plan: a client without PutItem cannot send a Put")}
		}
		in := *r.Put
		in.ReturnValues, in.ReturnConsumedCapacity = call.ReturnValues, call.Capacity
		out, err := pc.PutItem(ctx, &in, att.Option)
		if res.Err = err; err == nil {
			res.Item, res.Out = out.Attributes, out
		}
	case r.Update != nil:
		in := *r.Update
		in.ReturnValues, in.ReturnConsumedCapacity = call.ReturnValues, call.Capacity
		out, err := c.UpdateItem(ctx, &in, att.Option)
		if res.Err = err; err == nil {
			res.Item, res.Out = out.Attributes, out
		}
	case r.Delete != nil:
		in := *r.Delete
		in.ReturnValues, in.ReturnConsumedCapacity = call.ReturnValues, call.Capacity
		out, err := c.DeleteItem(ctx, &in, att.Option)
		if res.Err = err; err == nil {
			res.Item, res.Out = out.Attributes, out
		}
	default:
		return Result{Err: fmt.Errorf("plan: a request of no single write")}
	}
	if att.Ambiguous {
		res.LostErr = att.Err
	}
	return res
}

// refused settles a failed condition: a refusal, unless an attempt's answer
// was lost, when the item it returned shows whether that attempt landed.
func refused(res *Result, s Settle) Outcome {
	var ccf *types.ConditionalCheckFailedException
	errors.As(res.Err, &ccf)
	if res.Item = ccf.Item; len(res.Item) == 0 {
		res.Item = nil
	}
	switch {
	case !res.Lost():
		return Refused
	case s.Ours != nil && s.Ours(res.Item):
		return Applied // our lost attempt landed: the resend saw it
	}
	return Unknown
}

// settle settles a write whose every answer was lost, by one read.
func settle(ctx context.Context, c Client, r *Request, res *Result, s Settle) Outcome {
	if s.Ours == nil {
		return Unknown
	}
	item, err := settleRead(ctx, c, r, s.Read)
	if err != nil {
		return Unknown
	}
	res.Item, res.Read = item, true
	if s.Ours(item) {
		return Applied
	}
	return Unknown
}

// settleRead reads the item of r after a lost answer.
func settleRead(ctx context.Context, c Client, r *Request, read func(context.Context) (map[string]types.AttributeValue, error)) (map[string]types.AttributeValue, error) {
	var item map[string]types.AttributeValue
	if read != nil {
		var err error
		if item, err = read(ctx); err != nil {
			return nil, err
		}
	} else {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		var err error
		if item, err = ddbapi.ReadItem(ctx, c, r.Table(), r.Key()); err != nil {
			return nil, err
		}
	}
	if len(item) == 0 {
		item = nil
	}
	return item, nil
}
