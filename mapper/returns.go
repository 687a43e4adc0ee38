package mapper

import (
	"fmt"
	"reflect"
	"sync"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// Capacity adds up the capacity units DynamoDB reports as consumed
// (ReturnConsumedCapacity=TOTAL) by the calls of the operations given
// [ReadCapacity] or [WriteCapacity]. One Capacity may be passed to several
// operations in turn, and keeps adding; it is not safe for operations
// running at the same time (one parallel Scan is fine).
type Capacity struct {
	Read  float64 // capacity units consumed by reads (GetItem, Query, Scan)
	Write float64 // capacity units consumed by writes (PutItem, UpdateItem, DeleteItem)
	Calls int     // calls whose response reported consumed capacity
}

// Total returns Read + Write.
func (c Capacity) Total() float64 { return c.Read + c.Write }

// capacityAdder adds consumed capacity to a Capacity; its lock serves the
// segments of a parallel scan.
type capacityAdder struct {
	mu sync.Mutex
	c  *Capacity
}

func (a *capacityAdder) add(cc *types.ConsumedCapacity, write bool) {
	if a == nil || cc == nil {
		return
	}
	units := aws.ToFloat64(cc.CapacityUnits)
	a.mu.Lock()
	defer a.mu.Unlock()
	if write {
		a.c.Write += units
	} else {
		a.c.Read += units
	}
	a.c.Calls++
}

// returnCapacity is the ReturnConsumedCapacity of a call: TOTAL when a
// Capacity is to be added to.
func (a *capacityAdder) returnCapacity() types.ReturnConsumedCapacity {
	if a == nil {
		return ""
	}
	return types.ReturnConsumedCapacityTotal
}

// ReadCapacity makes Get, Query, Scan, One, Count and ScanCount ask
// DynamoDB for the capacity each of their calls consumes
// (ReturnConsumedCapacity=TOTAL, at no cost) and add it to c.Read: every
// page of a Query or Scan counts, and each segment of a parallel scan.
// GetAll does not take it ([ErrInvalidOption], before anything is sent).
func ReadCapacity(c *Capacity) ReadOption {
	return func(o *ReadOptions) {
		if c == nil {
			o.fail("ReadCapacity(nil)")
			return
		}
		o.Capacity = c
	}
}

// WriteCapacity makes Put, Save, Update and Delete ask DynamoDB for the
// capacity their call consumes (ReturnConsumedCapacity=TOTAL) and add it to
// c.Write. A write refused by its condition consumes capacity too, but
// DynamoDB does not report it then, so it is not added. Batch writes,
// transaction ops and Modify do not take it, and ExactlyOnce writes
// refuse it ([ErrInvalidOption]).
func WriteCapacity(c *Capacity) CallOption {
	return CallOption{func(o *WriteOptions) {
		if c == nil {
			o.fail("WriteCapacity(nil)")
			return
		}
		o.Capacity = c
	}}
}

// Old makes Put, Save, Update or Delete set *prev to the item as it was
// before the write (nil when there was none), from the same call
// (ReturnValues=ALL_OLD; no extra read, no extra cost). T must be the
// table's type ([ErrInvalidOption] otherwise, before anything is sent).
// *prev is set only when the write succeeds; a refused write reports the
// stored item in its error instead ([version.ConflictError.Item]).
//
// UpdateItem returns the item before or the item after, not both: an
// Update given Old returns a nil item (and sets *prev). Batch writes,
// transaction ops and Modify do not take it, and ExactlyOnce writes refuse
// it ([ErrInvalidOption]). See [ErrOldUnknown] for the rare case where the
// old item is lost.
func Old[T any](prev **T) CallOption {
	return CallOption{func(o *WriteOptions) {
		if prev == nil {
			o.fail("Old(nil)")
			return
		}
		o.old = &oldItem{typ: reflect.TypeFor[T](), set: func(c *codec, item map[string]types.AttributeValue) error {
			if len(item) == 0 {
				*prev = nil
				return nil
			}
			v, err := decodeItem[T](c, item)
			if err != nil {
				return fmt.Errorf("mapper: the write was applied, but its old item does not decode: %w", err)
			}
			*prev = v
			return nil
		}}
	}}
}

// oldItem is where [Old] puts the item a write replaced.
type oldItem struct {
	typ reflect.Type
	set func(*codec, map[string]types.AttributeValue) error
}

// asks returns the ReturnValues and ReturnConsumedCapacity of a write
// whose own ReturnValues is rv: ALL_OLD when Old is given. It refuses an
// Old of another type than the table's.
func (t *Table[T]) asks(o *WriteOptions, rv types.ReturnValue) (types.ReturnValue, types.ReturnConsumedCapacity, error) {
	var rc types.ReturnConsumedCapacity
	if o.Capacity != nil {
		rc = types.ReturnConsumedCapacityTotal
	}
	if o.old != nil {
		if o.old.typ != t.s.typ {
			return rv, "", fmt.Errorf("%w: Old of a %v on a table of %v", ErrInvalidOption, o.old.typ, t.s.typ)
		}
		rv = types.ReturnValueAllOld
	}
	return rv, rc, nil
}

// writeOutput returns what the output of a PutItem, UpdateItem or
// DeleteItem carries: the returned item and the consumed capacity; ok is
// false for anything else (such as nil).
func writeOutput(out any) (item map[string]types.AttributeValue, cc *types.ConsumedCapacity, ok bool) {
	switch r := out.(type) {
	case *dynamodb.PutItemOutput:
		return r.Attributes, r.ConsumedCapacity, true
	case *dynamodb.UpdateItemOutput:
		return r.Attributes, r.ConsumedCapacity, true
	case *dynamodb.DeleteItemOutput:
		return r.Attributes, r.ConsumedCapacity, true
	}
	return nil, nil, false
}

// returned hands what a write's response carries to Old and WriteCapacity.
// out is the call's output, nil when the call failed but the write was
// found to be ours (a resend after a lost response).
func (t *Table[T]) returned(o *WriteOptions, out any) error {
	if o.old == nil && o.Capacity == nil {
		return nil
	}
	old, cc, ok := writeOutput(out)
	if o.Capacity != nil {
		(&capacityAdder{c: o.Capacity}).add(cc, true)
	}
	if o.old == nil {
		return nil
	}
	if !ok {
		return ErrOldUnknown
	}
	return o.old.set(t.c, old)
}
