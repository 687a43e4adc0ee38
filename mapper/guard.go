package mapper

import (
	"fmt"
	"reflect"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/optimist-dynamo/optimist/internal/attrs"
	"github.com/optimist-dynamo/optimist/internal/plan"
)

// usable reports why t cannot be used, before anything is built or sent.
func (t *Table[T]) usable() error {
	if t == nil {
		return fmt.Errorf("%w: nil *Table[%v]", ErrInvalidOption, reflect.TypeOf((*T)(nil)).Elem())
	}
	if t.s == nil || t.c == nil || t.client == nil {
		return fmt.Errorf("%w: zero Table[%v] value, not made by NewTable", ErrInvalidOption, reflect.TypeOf((*T)(nil)).Elem())
	}
	return nil
}

// checkSize refuses an item over DynamoDB's 400 KB, naming its largest
// attribute.
func (t *Table[T]) checkSize(item map[string]types.AttributeValue, w *plan.Write) error {
	if n := attrs.ItemSize(item); n > attrs.MaxItemSize {
		name, size := attrs.Largest(item)
		return fmt.Errorf("%w: %s %s is %d bytes by DynamoDB's rules, over %d; its largest attribute is %q (%d bytes)",
			ErrItemTooLarge, t.name, attrs.FormatKey(t.keyOfWrite(w)), n, attrs.MaxItemSize, name, size)
	}
	return nil
}

// checkValues checks the values of an update (and its conditions): each
// one DynamoDB accepts, and together no larger than an item may be.
func (t *Table[T]) checkValues(values map[string]types.AttributeValue, w *plan.Write) error {
	if err := attrs.CheckItem(values); err != nil {
		return fmt.Errorf("%w: %s %s: value %v", ErrInvalidItem, t.name, attrs.FormatKey(t.keyOfWrite(w)), err)
	}
	if n := attrs.ItemSize(values); n > attrs.MaxItemSize {
		return fmt.Errorf("%w: %s %s: the update's values alone are %d bytes, over %d", ErrItemTooLarge, t.name, attrs.FormatKey(t.keyOfWrite(w)), n, attrs.MaxItemSize)
	}
	return nil
}
