package mapper

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"reflect"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// A Cursor marks a place in the results of a [Table.Query] or [Table.Scan]:
// resuming with [StartAfter](c) returns the items after the one it was
// taken at, so an API can serve page N+1 in a later request, from another
// process. Take one with [Table.CursorAfter].
//
// A cursor is an opaque, URL-safe string: base64url (unpadded) of a small
// JSON document holding the table name, the index name and the item's key
// attributes with their types (S, N or B), the ExclusiveStartKey that
// DynamoDB needs to resume. It holds no state of the process that made it
// and stays valid as long as the table and index do; if the item it was
// taken at is deleted meanwhile, the read still resumes after its key. It is neither
// encrypted nor signed: it shows the key values to whoever holds it, and a
// client can forge one, which can at most make the read resume elsewhere in
// the same table or index (the names are checked).
type Cursor string

type cursorDoc struct {
	Table string                 `json:"t"`
	Index string                 `json:"i,omitempty"`
	Key   map[string]cursorValue `json:"k"`
}

// cursorValue is a key attribute, in DynamoDB's JSON style.
type cursorValue struct {
	S string `json:"S,omitempty"`
	N string `json:"N,omitempty"`
	B []byte `json:"B,omitempty"`
}

// CursorAfter returns the cursor for resuming a Query or Scan after item,
// an item it returned: its key attributes are taken from the struct. It
// makes no call.
//
// For a read of an index, give the same [Index] option, with the index's key
// attributes (Index(name, hash, range)): DynamoDB resumes an index read from
// the index key and the table key together. Without them the error matches
// [ErrInvalidOption]. CursorAfter reads only the Index option, so the
// options of the Query can be passed as they are. Keys (the table's and the
// index's) that are empty are an error matching [ErrInvalidItem].
func (t *Table[T]) CursorAfter(item *T, opts ...ReadOption) (Cursor, error) {
	if err := t.usable(); err != nil {
		return "", err
	}
	if item == nil {
		return "", fmt.Errorf("%w: CursorAfter of a nil item", ErrInvalidOption)
	}
	c, err := newReadConfig(callCursor, opts)
	if err != nil {
		return "", err
	}
	t.s.ent.indexKeys(&c)
	if c.index != "" && len(c.indexKeys) == 0 {
		return "", fmt.Errorf("%w: CursorAfter on index %q needs the index's key attributes: Index(%q, hashKey, rangeKey)", ErrInvalidOption, c.index, c.index)
	}
	v := reflect.ValueOf(item).Elem()
	key, err := t.c.keyOf(v)
	if err == nil {
		err = t.s.ent.cursorKeys(t.s, v, c.indexKeys, key)
	}
	if err != nil {
		return "", err
	}
	for _, name := range c.indexKeys {
		if key[name] != nil {
			continue
		}
		f := t.s.byName[name]
		if f == nil {
			return "", fmt.Errorf("%w: the key attribute %q of index %q is not a field of %v", ErrInvalidOption, name, c.index, t.s.typ)
		}
		fv, ok := fieldByIndex(v, f.index)
		if !ok {
			return "", fmt.Errorf("%w: index key attribute %q (%s) is not set", ErrInvalidItem, name, f.goPath)
		}
		if key[name], err = t.c.keyAttr(f, fv); err != nil {
			return "", err
		}
	}
	return encodeCursor(t.name, c.index, key)
}

// encodeCursor is the Cursor of key on table (and index).
func encodeCursor(table, index string, key map[string]types.AttributeValue) (Cursor, error) {
	doc := cursorDoc{Table: table, Index: index, Key: make(map[string]cursorValue, len(key))}
	for name, av := range key {
		var cv cursorValue
		switch av := av.(type) {
		case *types.AttributeValueMemberS:
			cv.S = av.Value
		case *types.AttributeValueMemberN:
			cv.N = av.Value
		case *types.AttributeValueMemberB:
			cv.B = av.Value
		default:
			return "", fmt.Errorf("%w: CursorAfter: key attribute %q is a %T", ErrInvalidItem, name, av)
		}
		doc.Key[name] = cv
	}
	b, err := json.Marshal(doc)
	if err != nil {
		return "", fmt.Errorf("mapper: CursorAfter: %w", err)
	}
	return Cursor(base64.RawURLEncoding.EncodeToString(b)), nil
}

// startKey decodes the StartAfter cursor, checked against the table and
// index of the call; nil when there is none.
func (t *Table[T]) startKey(c *readConfig) (map[string]types.AttributeValue, error) {
	if c.start == "" {
		return nil, nil
	}
	cd, err := c.start.decode()
	if err != nil {
		return nil, err
	}
	switch {
	case cd.Table != t.name:
		return nil, fmt.Errorf("%w: StartAfter: the cursor was taken on table %q, not %q", ErrInvalidOption, cd.Table, t.name)
	case cd.Index != c.index && cd.Index == "":
		return nil, fmt.Errorf("%w: StartAfter: the cursor was taken on table %q itself, not on its index %q", ErrInvalidOption, t.name, c.index)
	case cd.Index != c.index && c.index == "":
		return nil, fmt.Errorf("%w: StartAfter: the cursor was taken on index %q; give Index(%q)", ErrInvalidOption, cd.Index, cd.Index)
	case cd.Index != c.index:
		return nil, fmt.Errorf("%w: StartAfter: the cursor was taken on index %q, not %q", ErrInvalidOption, cd.Index, c.index)
	}
	key, err := cd.key()
	if err != nil {
		return nil, err
	}
	need := make([]string, 0, 4)
	for _, f := range t.s.keys {
		need = append(need, f.name)
	}
	for _, k := range append(need, c.indexKeys...) {
		if key[k] == nil {
			return nil, fmt.Errorf("%w: StartAfter: the cursor lacks key attribute %q", ErrInvalidOption, k)
		}
	}
	return key, nil
}

func (c Cursor) decode() (*cursorDoc, error) {
	b, err := base64.RawURLEncoding.DecodeString(string(c))
	if err != nil {
		return nil, fmt.Errorf("%w: StartAfter: malformed cursor (%v)", ErrInvalidOption, err)
	}
	var d cursorDoc
	if err := json.Unmarshal(b, &d); err != nil {
		return nil, fmt.Errorf("%w: StartAfter: malformed cursor (%v)", ErrInvalidOption, err)
	}
	if d.Table == "" || len(d.Key) == 0 {
		return nil, fmt.Errorf("%w: StartAfter: malformed cursor (no table or key)", ErrInvalidOption)
	}
	return &d, nil
}

// key returns the cursor's key as attribute values.
func (d *cursorDoc) key() (map[string]types.AttributeValue, error) {
	key := make(map[string]types.AttributeValue, len(d.Key))
	for name, v := range d.Key {
		var av types.AttributeValue
		n := 0
		if v.S != "" {
			av, n = &types.AttributeValueMemberS{Value: v.S}, n+1
		}
		if v.N != "" {
			av, n = &types.AttributeValueMemberN{Value: v.N}, n+1
		}
		if len(v.B) > 0 {
			av, n = &types.AttributeValueMemberB{Value: v.B}, n+1
		}
		if n != 1 {
			return nil, fmt.Errorf("%w: StartAfter: malformed cursor (attribute %q needs one of S, N, B)", ErrInvalidOption, name)
		}
		key[name] = av
	}
	return key, nil
}
