package cond

import (
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
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
