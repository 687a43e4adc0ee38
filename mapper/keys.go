package mapper

import (
	"fmt"
	"reflect"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/optimist-dynamo/optimist/internal/attrs"
)

// keyOf encodes the primary key of the struct v (addressable), checking that
// every key attribute is a non-empty S, N or B.
func (c *codec) keyOf(v reflect.Value) (map[string]types.AttributeValue, error) {
	if c.s.ent != nil {
		return c.s.ent.keyOf(c.s, v)
	}
	key := make(map[string]types.AttributeValue, len(c.s.keys))
	for _, f := range c.s.keys {
		av, err := c.keyAttr(f, v.FieldByIndex(f.index))
		if err != nil {
			return nil, err
		}
		key[f.name] = av
	}
	return key, nil
}

func (c *codec) keyAttr(f *field, fv reflect.Value) (types.AttributeValue, error) {
	var av types.AttributeValue
	if fv.Kind() == reflect.String && noMethods(f.typ) {
		av = &types.AttributeValueMemberS{Value: fv.String()} // the common case, without the lookup below
	} else {
		var err error
		if av, err = c.encodeField(c.byField[f], fv, &arena{}); err != nil {
			return nil, fmt.Errorf("mapper: encoding key %s: %w", f.goPath, err)
		}
	}
	return av, checkKeyAttr(f, av)
}

func checkKeyAttr(f *field, av types.AttributeValue) error {
	switch v := av.(type) {
	case *types.AttributeValueMemberS:
		if v.Value != "" {
			return checkKeySize(f, len(v.Value))
		}
	case *types.AttributeValueMemberB:
		if len(v.Value) > 0 {
			return checkKeySize(f, len(v.Value))
		}
	case *types.AttributeValueMemberN:
		if err := attrs.CheckNumber(v.Value); err != nil {
			return fmt.Errorf("%w: key attribute %q (%s): %v", ErrInvalidItem, f.name, f.goPath, err)
		}
		return nil
	default:
		return fmt.Errorf("%w: key attribute %q (%s) must be a string, number or binary, got %T", ErrInvalidItem, f.name, f.goPath, av)
	}
	return fmt.Errorf("%w: key attribute %q (%s) is empty", ErrInvalidItem, f.name, f.goPath)
}

// checkKeySize refuses a key attribute over DynamoDB's limits: 2,048 bytes
// for a hash key, 1,024 for a range key.
func checkKeySize(f *field, n int) error {
	max, kind := attrs.MaxHashKeySize, "hash"
	if !f.tag.hash {
		max, kind = attrs.MaxRangeKeySize, "range"
	}
	if n > max {
		return fmt.Errorf("%w: %s key attribute %q (%s) is %d bytes; DynamoDB allows %d", ErrInvalidItem, kind, f.name, f.goPath, n, max)
	}
	return nil
}
