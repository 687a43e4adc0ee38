package plan

import (
	"fmt"
	"maps"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// Request is a write rendered once: the one DynamoDB request it is sent as
// (exactly one of Put, Update, Delete and Check is set), with the Write it
// came from (nil for a request a package renders itself). Everything that
// sends or composes the write (the executor, a transaction op, a unit of
// work) takes the Request; nothing renders the Write again, and nothing
// edits the rendered strings. A Request is not changed once rendered: the
// executor sends a copy of the input with its own ReturnValues.
type Request struct {
	W      *Write
	Put    *dynamodb.PutItemInput
	Update *dynamodb.UpdateItemInput
	Delete *dynamodb.DeleteItemInput
	Check  *types.ConditionCheck
	// PutKey is the key of the item a Put without a Write writes (a
	// request a package renders itself), for the read that settles a lost
	// answer.
	PutKey map[string]types.AttributeValue
}

// Render renders w once: its condition, and for an Update its actions, into
// the request it is sent as. A conditional request asks for the item as
// stored when its condition fails (ALL_OLD). The error is a
// *ConditionError for a condition that cannot be rendered, or an error of
// the update's actions.
func (w *Write) Render() (*Request, error) {
	r := &Request{W: w}
	if w.Kind == WriteUpdate {
		// One Compile and one condition: their placeholders never collide
		// (see Compiled), so the maps are merged.
		c, err := Compile(w.Actions, w.Enc)
		if err != nil {
			return nil, err
		}
		cond, cnames, cvalues, err := w.Condition()
		if err != nil {
			return nil, err
		}
		maps.Copy(c.Names, cnames)
		maps.Copy(c.Values, cvalues)
		if len(c.Values) == 0 {
			c.Values = nil // REMOVE alone has no values, and DynamoDB refuses an empty map
		}
		expr := c.Expression
		r.Update = &dynamodb.UpdateItemInput{
			TableName: w.T.NameP, Key: w.Key, UpdateExpression: &expr,
			ConditionExpression: cond, ExpressionAttributeNames: c.Names, ExpressionAttributeValues: c.Values,
		}
		if cond != nil {
			r.Update.ReturnValuesOnConditionCheckFailure = allOld
		}
		return r, nil
	}
	cond, names, values, err := w.Condition()
	if err != nil {
		return nil, err
	}
	onFail := types.ReturnValuesOnConditionCheckFailure("")
	if cond != nil {
		onFail = allOld
	}
	switch w.Kind {
	case WritePut:
		r.Put = &dynamodb.PutItemInput{TableName: w.T.NameP, Item: w.Item, ConditionExpression: cond,
			ExpressionAttributeNames: names, ExpressionAttributeValues: values, ReturnValuesOnConditionCheckFailure: onFail}
	case WriteDelete:
		r.Delete = &dynamodb.DeleteItemInput{TableName: w.T.NameP, Key: w.Key, ConditionExpression: cond,
			ExpressionAttributeNames: names, ExpressionAttributeValues: values, ReturnValuesOnConditionCheckFailure: onFail}
	case WriteCheck:
		if cond == nil {
			return nil, fmt.Errorf("a condition check needs a condition")
		}
		r.Check = &types.ConditionCheck{TableName: w.T.NameP, Key: w.Key, ConditionExpression: cond,
			ExpressionAttributeNames: names, ExpressionAttributeValues: values, ReturnValuesOnConditionCheckFailure: onFail}
	default:
		return nil, fmt.Errorf("a write of no kind")
	}
	return r, nil
}

const allOld = types.ReturnValuesOnConditionCheckFailureAllOld

// Values returns the expression attribute values of the request.
func (r *Request) Values() map[string]types.AttributeValue {
	_, _, values := r.parts()
	return values
}

// Key returns the key of the item the request writes: the input's, or for
// a Put the Write's key (nil if the Write does not hold it).
func (r *Request) Key() map[string]types.AttributeValue {
	_, key, _ := r.parts()
	return key
}

// Table returns the name of the table the request writes to.
func (r *Request) Table() *string {
	table, _, _ := r.parts()
	return table
}

// parts returns what every kind of request names: the table, the key of
// the item (for a Put, which has none of its own, the Write's or PutKey)
// and the expression attribute values.
func (r *Request) parts() (table *string, key, values map[string]types.AttributeValue) {
	switch {
	case r.Update != nil:
		return r.Update.TableName, r.Update.Key, r.Update.ExpressionAttributeValues
	case r.Delete != nil:
		return r.Delete.TableName, r.Delete.Key, r.Delete.ExpressionAttributeValues
	case r.Check != nil:
		return r.Check.TableName, r.Check.Key, r.Check.ExpressionAttributeValues
	case r.Put != nil:
		table, values = r.Put.TableName, r.Put.ExpressionAttributeValues
	}
	key = r.PutKey
	if r.W != nil {
		key = r.W.Key
	}
	return table, key, values
}

// TransactItem returns the request as an action of TransactWriteItems,
// sharing its strings and maps (the action is the request, not a new
// rendering).
func (r *Request) TransactItem() types.TransactWriteItem {
	var ti types.TransactWriteItem
	switch {
	case r.Put != nil:
		in := r.Put
		ti.Put = &types.Put{TableName: in.TableName, Item: in.Item, ConditionExpression: in.ConditionExpression,
			ExpressionAttributeNames: in.ExpressionAttributeNames, ExpressionAttributeValues: in.ExpressionAttributeValues,
			ReturnValuesOnConditionCheckFailure: in.ReturnValuesOnConditionCheckFailure}
	case r.Update != nil:
		in := r.Update
		ti.Update = &types.Update{TableName: in.TableName, Key: in.Key, UpdateExpression: in.UpdateExpression,
			ConditionExpression: in.ConditionExpression, ExpressionAttributeNames: in.ExpressionAttributeNames,
			ExpressionAttributeValues: in.ExpressionAttributeValues, ReturnValuesOnConditionCheckFailure: in.ReturnValuesOnConditionCheckFailure}
	case r.Delete != nil:
		in := r.Delete
		ti.Delete = &types.Delete{TableName: in.TableName, Key: in.Key, ConditionExpression: in.ConditionExpression,
			ExpressionAttributeNames: in.ExpressionAttributeNames, ExpressionAttributeValues: in.ExpressionAttributeValues,
			ReturnValuesOnConditionCheckFailure: in.ReturnValuesOnConditionCheckFailure}
	case r.Check != nil:
		c := *r.Check
		ti.ConditionCheck = &c
	}
	return ti
}

// CopyTransactItem returns a copy of ti that shares nothing a caller could
// change: the structs and the top-level maps are copied (attribute values
// themselves are immutable by convention).
func CopyTransactItem(ti types.TransactWriteItem) types.TransactWriteItem {
	switch {
	case ti.Put != nil:
		p := *ti.Put
		p.Item, p.ExpressionAttributeNames, p.ExpressionAttributeValues = maps.Clone(p.Item), maps.Clone(p.ExpressionAttributeNames), maps.Clone(p.ExpressionAttributeValues)
		ti.Put = &p
	case ti.Update != nil:
		u := *ti.Update
		u.Key, u.ExpressionAttributeNames, u.ExpressionAttributeValues = maps.Clone(u.Key), maps.Clone(u.ExpressionAttributeNames), maps.Clone(u.ExpressionAttributeValues)
		ti.Update = &u
	case ti.Delete != nil:
		d := *ti.Delete
		d.Key, d.ExpressionAttributeNames, d.ExpressionAttributeValues = maps.Clone(d.Key), maps.Clone(d.ExpressionAttributeNames), maps.Clone(d.ExpressionAttributeValues)
		ti.Delete = &d
	case ti.ConditionCheck != nil:
		c := *ti.ConditionCheck
		c.Key, c.ExpressionAttributeNames, c.ExpressionAttributeValues = maps.Clone(c.Key), maps.Clone(c.ExpressionAttributeNames), maps.Clone(c.ExpressionAttributeValues)
		ti.ConditionCheck = &c
	}
	return ti
}
