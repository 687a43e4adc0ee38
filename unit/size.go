package unit

import (
	"errors"
	"fmt"
	"strings"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"

	"github.com/optimist-dynamo/optimist/internal/attrs"
	"github.com/optimist-dynamo/optimist/internal/plan"
)

// Size checks. An item held by a unit stores its state and, in the lock,
// the unit's write: both must fit DynamoDB's 400 KB, and so must the item
// once the write is applied, which happens after the commit point, when it
// can no longer be refused. So they are checked before the commit point:
// before anything is sent when the unit knows the item (it read it), or
// with the item returned by the lock write.

// lockOverhead bounds the size of a lock's own fields.
const lockOverhead = 1 << 10

// fitsAlone refuses an op whose write alone cannot fit beside the item's
// key and the lock.
func (u *Unit) fitsAlone(it *item) error {
	if n := writeSize(it.w) + attrs.ItemSize(it.key) + lockOverhead; n > attrs.MaxItemSize {
		return fmt.Errorf("%w: %s %s: its write is about %d bytes, and a unit's item holds it beside the item's state", errItemTooLarge, it.table, attrs.FormatKey(it.key), n)
	}
	return nil
}

// fitsHeld refuses, before sending, an op on an item the unit read whose
// item would not fit: with the write in its lock, or once applied.
func (u *Unit) fitsHeld(it *item) error {
	if err := u.fitsAlone(it); err != nil {
		return err
	}
	stored := attrs.ItemSize(it.stored)
	if n := stored + writeSize(it.w) + lockOverhead; n > attrs.MaxItemSize {
		return fmt.Errorf("%w: %s %s: the item (%d bytes) and its write in the unit's lock would be about %d bytes", errItemTooLarge, it.table, attrs.FormatKey(it.key), stored, n)
	}
	return u.fitsApplied(it)
}

// fitsApplied refuses an update whose item, once applied, could be over
// the limit: the stored item plus every value the update writes, less the
// top-level attributes it replaces.
func (u *Unit) fitsApplied(it *item) error {
	if it.w.Kind != plan.WriteUpdate {
		return nil
	}
	n := attrs.ItemSize(it.stored)
	for _, a := range it.w.Actions {
		if len(a.Path) == 1 && (a.Kind == plan.Set || a.Kind == plan.Remove) {
			n -= attrs.ItemSize(map[string]types.AttributeValue{a.Path[0].Name: it.stored[a.Path[0].Name]})
		}
		if a.Value != nil {
			n += attrs.ItemSize(map[string]types.AttributeValue{a.Path.String(): a.Value})
		}
	}
	if n > attrs.MaxItemSize {
		return fmt.Errorf("%w: %s %s would be about %d bytes once updated", errItemTooLarge, it.table, attrs.FormatKey(it.key), n)
	}
	return nil
}

// writeSize is the size of what an op writes: its item, or the values of
// its actions.
func writeSize(w *plan.Write) int {
	if w.Kind == plan.WritePut {
		return attrs.ItemSize(w.Item)
	}
	n := 0
	for _, a := range w.Actions {
		if a.Value != nil {
			n += attrs.ItemSize(map[string]types.AttributeValue{a.Path.String(): a.Value})
		}
	}
	return n
}

// tooLarge reports DynamoDB's refusal of an item over its size limit.
func tooLarge(err error) bool {
	var api smithy.APIError
	if errors.As(err, &api) && api.ErrorCode() == "ValidationException" {
		msg := api.ErrorMessage()
		return strings.Contains(msg, "Item size has exceeded") || strings.Contains(msg, "Item size to update has exceeded")
	}
	return false
}
