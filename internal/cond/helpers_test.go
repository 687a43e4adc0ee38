package cond

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"
)

// Attribute value constructors, short because the tables use them often.

func S(s string) types.AttributeValue  { return &types.AttributeValueMemberS{Value: s} }
func N(s string) types.AttributeValue  { return &types.AttributeValueMemberN{Value: s} }
func B(s string) types.AttributeValue  { return &types.AttributeValueMemberB{Value: []byte(s)} }
func BOOL(b bool) types.AttributeValue { return &types.AttributeValueMemberBOOL{Value: b} }
func NULL() types.AttributeValue       { return &types.AttributeValueMemberNULL{Value: true} }
func SS(s ...string) types.AttributeValue {
	return &types.AttributeValueMemberSS{Value: s}
}
func NS(s ...string) types.AttributeValue {
	return &types.AttributeValueMemberNS{Value: s}
}
func BS(s ...string) types.AttributeValue {
	bs := make([][]byte, len(s))
	for i, e := range s {
		bs[i] = []byte(e)
	}
	return &types.AttributeValueMemberBS{Value: bs}
}
func L(v ...types.AttributeValue) types.AttributeValue {
	return &types.AttributeValueMemberL{Value: v}
}

// M makes a map attribute from name, value pairs.
func M(kv ...any) types.AttributeValue { return &types.AttributeValueMemberM{Value: attrs(kv...)} }

// attrs makes a map of attribute values from name, value pairs.
func attrs(kv ...any) map[string]types.AttributeValue {
	m := make(map[string]types.AttributeValue, len(kv)/2)
	for i := 0; i < len(kv); i += 2 {
		m[kv[i].(string)] = kv[i+1].(types.AttributeValue)
	}
	return m
}

// names makes expression attribute names from #placeholder, name pairs.
func names(kv ...string) map[string]string {
	m := make(map[string]string, len(kv)/2)
	for i := 0; i < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	return m
}

// outcome is what DynamoDB (or Eval) makes of a condition on an item.
type outcome int8

const (
	outFalse   outcome = iota
	outTrue            // the condition holds
	outInvalid         // refused: ValidationException, or ErrInvalid
)

func (o outcome) String() string {
	return [...]string{"false", "true", "invalid"}[o]
}

// evalOutcome runs Parse and Eval; any error other than ErrInvalid is
// returned as such.
func evalOutcome(expr string, item map[string]types.AttributeValue, nm map[string]string, vals map[string]types.AttributeValue) (outcome, error) {
	return outcomeOf(EvalString(expr, nm, vals, item))
}

// outcomeOf turns the results of Eval into an outcome; any error other
// than ErrInvalid is returned as such.
func outcomeOf(ok bool, err error) (outcome, error) {
	switch {
	case errors.Is(err, ErrInvalid):
		return outInvalid, nil
	case err != nil:
		return 0, err
	case ok:
		return outTrue, nil
	}
	return outFalse, nil
}

// isValidation reports whether err is DynamoDB's ValidationException.
func isValidation(err error) bool {
	var ae smithy.APIError
	return errors.As(err, &ae) && ae.ErrorCode() == "ValidationException"
}

// conditionCheck asks DynamoDB whether expr holds on the item at key pk of
// table, with a TransactWriteItems of one ConditionCheck: success is true,
// a cancellation for ConditionalCheckFailed is false, a ValidationException
// is invalid. A ConditionCheck reads the item and writes nothing, so the
// table is left as it was for the next case.
func conditionCheck(ctx context.Context, c *dynamodb.Client, table, pk, expr string, nm map[string]string, vals map[string]types.AttributeValue) (outcome, error) {
	outs, err := conditionChecks(ctx, c, table, []check{{pk, expr, nm, vals}})
	if err != nil {
		if isValidation(err) {
			return outInvalid, nil
		}
		return 0, err
	}
	return outs[0], nil
}

// check is one condition to evaluate on the item at key pk.
type check struct {
	pk    string
	expr  string
	names map[string]string
	vals  map[string]types.AttributeValue
}

// conditionChecks evaluates up to 100 checks, on distinct keys, in one
// TransactWriteItems. DynamoDB Local cancels the transaction with a reason
// for every action, ConditionalCheckFailed for each condition that does not
// hold and None for each that does, so one call answers them all. A
// ValidationException for any of them is returned as an error.
func conditionChecks(ctx context.Context, c *dynamodb.Client, table string, checks []check) ([]outcome, error) {
	acts := make([]types.TransactWriteItem, len(checks))
	for i, ch := range checks {
		cc := &types.ConditionCheck{
			TableName:           aws.String(table),
			Key:                 attrs("pk", S(ch.pk)),
			ConditionExpression: aws.String(ch.expr),
		}
		if len(ch.names) > 0 {
			cc.ExpressionAttributeNames = ch.names
		}
		if len(ch.vals) > 0 {
			cc.ExpressionAttributeValues = ch.vals
		}
		acts[i] = types.TransactWriteItem{ConditionCheck: cc}
	}
	outs := make([]outcome, len(checks))
	_, err := c.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: acts})
	if err == nil {
		for i := range outs {
			outs[i] = outTrue
		}
		return outs, nil
	}
	var tce *types.TransactionCanceledException
	if !errors.As(err, &tce) {
		return nil, err
	}
	if len(tce.CancellationReasons) != len(checks) {
		return nil, fmt.Errorf("%d cancellation reasons for %d checks: %w", len(tce.CancellationReasons), len(checks), err)
	}
	for i, r := range tce.CancellationReasons {
		switch code := aws.ToString(r.Code); code {
		case "None":
			outs[i] = outTrue
		case "ConditionalCheckFailed":
			outs[i] = outFalse
		default:
			return nil, fmt.Errorf("check %d: cancellation reason %s: %s", i, code, aws.ToString(r.Message))
		}
	}
	return outs, nil
}

// format renders an attribute value compactly for failure messages, with
// map keys sorted so that the text is stable.
func format(v types.AttributeValue) string {
	switch v := v.(type) {
	case nil:
		return "<nil>"
	case *types.AttributeValueMemberS:
		return fmt.Sprintf("S%q", v.Value)
	case *types.AttributeValueMemberN:
		return "N(" + v.Value + ")"
	case *types.AttributeValueMemberB:
		return fmt.Sprintf("B%q", v.Value)
	case *types.AttributeValueMemberBOOL:
		return fmt.Sprint(v.Value)
	case *types.AttributeValueMemberNULL:
		return "NULL"
	case *types.AttributeValueMemberSS:
		return fmt.Sprintf("SS%q", v.Value)
	case *types.AttributeValueMemberNS:
		return fmt.Sprintf("NS%v", v.Value)
	case *types.AttributeValueMemberBS:
		return fmt.Sprintf("BS%q", v.Value)
	case *types.AttributeValueMemberL:
		parts := make([]string, len(v.Value))
		for i, e := range v.Value {
			parts[i] = format(e)
		}
		return "[" + strings.Join(parts, ", ") + "]"
	case *types.AttributeValueMemberM:
		return formatMap(v.Value)
	}
	return fmt.Sprintf("%T", v)
}

func formatMap(m map[string]types.AttributeValue) string {
	if m == nil {
		return "<no item>"
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%q: %s", k, format(m[k]))
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

// describe renders a case for a failure message.
func describe(expr string, nm map[string]string, vals, item map[string]types.AttributeValue) string {
	v := "{}"
	if vals != nil {
		v = formatMap(vals)
	}
	return fmt.Sprintf("expr:   %s\nnames:  %v\nvalues: %s\nitem:   %s", expr, nm, v, formatMap(item))
}
