package mapper

import (
	"context"
	"fmt"
	"iter"
	"reflect"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/optimist-dynamo/optimist/internal/ddbapi"
)

// A Collection reads the items of several entity types of one [Design]
// with one Query: a customer and its orders in one partition, or the items
// of an overloaded index. Each item is decoded into the struct of the
// entity its type attribute names, and yielded as a pointer to it (*Order,
// *Customer), so the caller writes a type switch:
//
//	for item, err := range coll.Query(ctx, mapper.InPartition(pk)) {
//		if err != nil { ... }
//		switch v := item.(type) {
//		case *Customer: ...
//		case *Order: ...
//		case *mapper.UnknownItem: // a type no member declares
//		}
//	}
//
// Why a type switch over any: Go has no sum types, and a type switch over
// pointers is what Go readers expect (go/ast nodes, database/sql driver
// values). ElectroDB and dynamodb-toolbox return an object or map keyed by
// entity name, one list per type, which in Go would be a map[string][]any
// that loses the types anyway and the order of the items (a sort key order
// such as "the customer, then its orders by date" is often the point of
// the query). Handlers per type are easy to build on the switch.
//
// A Collection is safe for concurrent use.
type Collection struct {
	d      Design
	first  *member
	byType map[string]*member
	byGo   map[reflect.Type]*member
}

// Member is the Table of an entity ([NewEntity]), as [NewCollection] takes
// it. Only a *Table made by NewEntity is a valid member.
type Member interface {
	collectionMember() *member
}

// member is what a Collection needs of one entity's Table, bound to it.
type member struct {
	ent    *entity
	goType reflect.Type // *T
	decode func(item map[string]types.AttributeValue) (any, error)
	cursor func(item any, opts []ReadOption) (Cursor, error)
	// pager reads as the Table's own reads do, showing items a unit of
	// work holds in their committed state.
	pager func(c *readConfig, key *expression.KeyConditionBuilder) (*pager, error)
}

func (t *Table[T]) collectionMember() *member {
	if t == nil || t.s == nil {
		return nil
	}
	return &member{
		ent: t.s.ent, goType: reflect.TypeOf((*T)(nil)),
		decode: func(item map[string]types.AttributeValue) (any, error) { return decodeItem[T](t.c, item) },
		cursor: func(item any, opts []ReadOption) (Cursor, error) {
			p, _ := item.(*T)
			return t.CursorAfter(p, opts...)
		},
		pager: t.pager,
	}
}

// UnknownItem is an item of a collection query whose type attribute names
// no member of the [Collection] (or that has none): it is yielded as it is
// stored, never decoded into a member's struct, and the query goes on. An
// older reader thus keeps working when a newer writer adds an entity type;
// to treat such an item as an error, return one from the type switch.
type UnknownItem struct {
	Type string // the type attribute's value, "" if the item has none
	Item map[string]types.AttributeValue
}

// NewCollection returns a Collection of the entities given, which must be
// Tables made by [NewEntity] of one [Design] (the same table, keys, type
// attribute and indexes), of distinct entity types and distinct Go types.
// Otherwise the error matches [ErrInvalidOption]. It makes no call.
func NewCollection(members ...Member) (*Collection, error) {
	if len(members) == 0 {
		return nil, fmt.Errorf("%w: NewCollection needs at least one entity", ErrInvalidOption)
	}
	c := &Collection{byType: map[string]*member{}, byGo: map[reflect.Type]*member{}}
	for i, mt := range members {
		var m *member
		if !ddbapi.IsNil(mt) {
			m = mt.collectionMember()
		}
		switch {
		case m == nil:
			return nil, fmt.Errorf("%w: NewCollection: member %d is nil", ErrInvalidOption, i+1)
		case m.ent == nil:
			return nil, fmt.Errorf("%w: NewCollection: member %d (%v) is a plain table, not an entity (NewEntity)", ErrInvalidOption, i+1, m.goType.Elem())
		case c.first != nil && !reflect.DeepEqual(m.ent.d, c.d):
			return nil, fmt.Errorf("%w: NewCollection: entity %s is of another design than %s", ErrInvalidOption, m.ent.typ, c.first.ent.typ)
		case c.byType[m.ent.typ] != nil:
			return nil, fmt.Errorf("%w: NewCollection: entity type %q given twice", ErrInvalidOption, m.ent.typ)
		case c.byGo[m.goType] != nil:
			return nil, fmt.Errorf("%w: NewCollection: Go type %v given twice", ErrInvalidOption, m.goType.Elem())
		}
		for _, o := range c.byType {
			if err := keysOverlap(m.ent.typ, m.ent.pk, m.ent.sk, o.ent.typ, o.ent.pk, o.ent.sk); err != nil {
				return nil, fmt.Errorf("NewCollection: %w", err)
			}
		}
		if c.first == nil {
			c.first, c.d = m, m.ent.d
		}
		c.byType[m.ent.typ] = m
		c.byGo[m.goType] = m
	}
	return c, nil
}

// KeyCond is the key condition of a collection query: a partition (the
// rendered PK of the table or of the index read), and optionally a
// condition on the sort key. Make one with [InPartition].
type KeyCond struct {
	pk     string
	op     int // sortNone, sortBegins, sortBetween
	lo, hi string
}

const (
	sortNone = iota
	sortBegins
	sortBetween
)

// InPartition is the key condition of the partition whose rendered PK is
// pk (see [Table.Partition] to render it from a struct).
func InPartition(pk string) KeyCond { return KeyCond{pk: pk} }

// SortBeginsWith narrows k to the items whose sort key begins with prefix,
// such as "ORDER#" for one entity's items.
func (k KeyCond) SortBeginsWith(prefix string) KeyCond {
	k.op, k.lo = sortBegins, prefix
	return k
}

// SortBetween narrows k to the items whose sort key is between lo and hi,
// both included.
func (k KeyCond) SortBetween(lo, hi string) KeyCond {
	k.op, k.lo, k.hi = sortBetween, lo, hi
	return k
}

// callCollection is Collection.Query: no projection (items are decoded
// whole) and no segments.
var callCollection = readCall{"Collection.Query", optConsistent | optIndex | optFilter | optDescending | optLimit | optPageSize | optStartAfter | optCapacity, false}

// Query returns an iterator over the items of the partition key names, in
// sort key order ([Descending] for the reverse), each decoded into its
// entity's struct and yielded as a pointer to it, or as an [*UnknownItem]
// when its type is no member's. It makes one Query call per page, following
// every page, as [Table.Query] does; it does not filter on the type, so
// the pages, costs and [Limit] count every item of the partition (use
// [Filter] or [KeyCond.SortBeginsWith] to narrow it).
//
// With [Index](name) it reads the design's overloaded index of that name,
// where pk is the rendered index PK ([Table.IndexPartition]). Options:
// [Index], [Filter], [Descending], [Limit], [PageSize], [StartAfter] (a
// cursor from [Collection.CursorAfter]), [ConsistentRead] (not on an
// index), [ReadCapacity]; others, and a sort condition on a key without a
// sort key, are the iterator's first and only error, before any call.
//
// Items a unit of work holds are shown in their committed state, as by
// the Table's reads. Each range over the iterator runs the query anew.
func (c *Collection) Query(ctx context.Context, key KeyCond, opts ...ReadOption) iter.Seq2[any, error] {
	return func(yield func(any, error) bool) {
		p, err := c.pager(key, opts)
		if err != nil {
			yield(nil, err)
			return
		}
		iterate(ctx, p, c.decode, yield)
	}
}

// pager returns the pager of a Query of key.
func (c *Collection) pager(key KeyCond, opts []ReadOption) (*pager, error) {
	if c == nil || c.first == nil {
		return nil, fmt.Errorf("%w: a nil or zero Collection; use NewCollection", ErrInvalidOption)
	}
	cfg, err := newReadConfig(callCollection, opts)
	if err != nil {
		return nil, err
	}
	pkAttr, skAttr := c.d.PK, c.d.SK
	if cfg.index != "" {
		found := false
		for _, ix := range c.d.Indexes {
			if ix.Name == cfg.index {
				pkAttr, skAttr, found = ix.PK, ix.SK, true
			}
		}
		if !found {
			return nil, fmt.Errorf("%w: Collection.Query: index %q is not one of the design's", ErrInvalidOption, cfg.index)
		}
		c.first.ent.indexKeys(&cfg)
	}
	if key.pk == "" {
		return nil, fmt.Errorf("%w: Collection.Query needs a partition (InPartition of a non-empty PK)", ErrInvalidOption)
	}
	kc := expression.Key(pkAttr).Equal(expression.Value(key.pk))
	if key.op != sortNone && skAttr == "" {
		return nil, fmt.Errorf("%w: Collection.Query: a sort key condition on %s, which has no sort key", ErrInvalidOption, describe(c.d.Table, cfg.index))
	}
	switch key.op {
	case sortBegins:
		kc = kc.And(expression.Key(skAttr).BeginsWith(key.lo))
	case sortBetween:
		kc = kc.And(expression.Key(skAttr).Between(expression.Value(key.lo), expression.Value(key.hi)))
	}
	return c.first.pager(&cfg, &kc)
}

// decode decodes an item into its member's struct, or wraps it as an
// UnknownItem.
func (c *Collection) decode(item map[string]types.AttributeValue) (any, error) {
	typ, _ := item[c.d.TypeAttr].(*types.AttributeValueMemberS)
	if typ != nil {
		if m := c.byType[typ.Value]; m != nil {
			return m.decode(item)
		}
		return &UnknownItem{Type: typ.Value, Item: item}, nil
	}
	return &UnknownItem{Item: item}, nil
}

// CursorAfter returns the cursor for resuming a [Collection.Query] after
// item, an item it yielded (a member's *T, or an *UnknownItem). Give the
// query's [Index] option for an index read (its key attributes come from
// the design). It makes no call.
func (c *Collection) CursorAfter(item any, opts ...ReadOption) (Cursor, error) {
	if c == nil || c.first == nil {
		return "", fmt.Errorf("%w: a nil or zero Collection; use NewCollection", ErrInvalidOption)
	}
	if u, ok := item.(*UnknownItem); ok && u != nil {
		cfg, err := newReadConfig(callCursor, opts)
		if err != nil {
			return "", err
		}
		c.first.ent.indexKeys(&cfg)
		names := append([]string{c.d.PK}, cfg.indexKeys...)
		if c.d.SK != "" {
			names = append(names, c.d.SK)
		}
		key := map[string]types.AttributeValue{}
		for _, n := range names {
			if u.Item[n] == nil {
				return "", fmt.Errorf("%w: CursorAfter: the item has no key attribute %q", ErrInvalidItem, n)
			}
			key[n] = u.Item[n]
		}
		return encodeCursor(c.d.Table, cfg.index, key)
	}
	if item == nil {
		return "", fmt.Errorf("%w: CursorAfter(nil)", ErrInvalidOption)
	}
	rv := reflect.ValueOf(item)
	m := c.byGo[rv.Type()]
	if m == nil || rv.IsNil() {
		return "", fmt.Errorf("%w: CursorAfter of a %T, which is no member's item", ErrInvalidOption, item)
	}
	return m.cursor(item, opts)
}

// Partition returns the rendered table PK of key (only the fields its PK
// template names are read), for a [Collection.Query] of its partition:
// InPartition(pk). For a plain table the error matches [ErrInvalidOption].
func (t *Table[T]) Partition(key T) (string, error) {
	return t.IndexPartition("", key)
}

// IndexPartition returns the rendered PK of key in the design's
// overloaded index (the table's with index ""), for a [Collection.Query]
// with [Index](index). The entity must be in the index; otherwise, and for
// a plain table, the error matches [ErrInvalidOption].
func (t *Table[T]) IndexPartition(index string, key T) (string, error) {
	if err := t.usable(); err != nil {
		return "", err
	}
	e := t.s.ent
	if e == nil {
		return "", fmt.Errorf("%w: %s is a plain table, not an entity (NewEntity)", ErrInvalidOption, t.name)
	}
	v := reflect.ValueOf(&key).Elem()
	if index == "" {
		return e.render(e.pk, t.s, v)
	}
	for _, ix := range e.indexes {
		if ix.name == index {
			return e.render(ix.pk, t.s, v)
		}
	}
	return "", fmt.Errorf("%w: entity %s is not in index %q", ErrInvalidOption, e.typ, index)
}
