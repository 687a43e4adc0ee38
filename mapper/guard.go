package mapper

import (
	"errors"
	"fmt"
	"reflect"
)

// ErrInvalidTable is returned by every method of a [Table] that was not
// made by [NewTable]: a nil *Table, or a zero Table value. Nothing is sent.
var ErrInvalidTable = errors.New("mapper: table not made by NewTable")

// usable reports why t cannot be used, before anything is built or sent.
func (t *Table[T]) usable() error {
	if t == nil {
		return fmt.Errorf("%w: nil *Table[%v]", ErrInvalidTable, reflect.TypeOf((*T)(nil)).Elem())
	}
	if t.s == nil || t.c == nil || t.client == nil {
		return fmt.Errorf("%w: zero Table[%v] value; use NewTable", ErrInvalidTable, reflect.TypeOf((*T)(nil)).Elem())
	}
	return nil
}
