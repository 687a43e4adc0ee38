package mapper

import (
	"reflect"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// For code that makes its own DynamoDB calls on a table's items (other
// optimist packages, stream consumers, hand-built requests): the table's
// key and decoding, without a call.

// Key returns the primary key of item (its key fields only), as the
// attribute values a request's Key takes. It is an error matching
// [ErrInvalidItem] if a key attribute is empty.
func (t *Table[T]) Key(item T) (map[string]types.AttributeValue, error) {
	if err := t.usable(); err != nil {
		return nil, err
	}
	return t.c.keyOf(reflect.ValueOf(&item).Elem())
}

// Decode decodes an item read by other means into a T, as the table's
// reads do.
func (t *Table[T]) Decode(item map[string]types.AttributeValue) (*T, error) {
	if err := t.usable(); err != nil {
		return nil, err
	}
	return decodeItem[T](t.c, item)
}

// Stores reports whether T has a field stored as the attribute name.
func (t *Table[T]) Stores(name string) bool {
	if t.usable() != nil {
		return false
	}
	_, ok := t.s.byName[name]
	return ok
}

// HashKey returns the name of the table's hash key attribute.
func (t *Table[T]) HashKey() string {
	if t.usable() != nil {
		return ""
	}
	return t.s.hash.name
}
