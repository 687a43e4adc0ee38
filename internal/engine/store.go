package engine

import (
	"strconv"
	"strings"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/optimist-dynamo/optimist/internal/attrs"
)

// Storage of a table's items: one ordered tree (btree) by the encoded hash
// key, then the range key, which is the order of a Scan. (On DynamoDB a
// Scan's order follows a hash of the partition key; callers may rely on no
// order, so any stable one serves.) Every write keeps beside it, in the
// same call, each secondary index's tree (see ixState), the tree of the
// items' TTLs, and the counts and sizes DescribeTable reports, so that no
// read walks the table.

// entry is one stored item: its key string (see keyenc.go), then the
// item encoded (see codec.go), in one string. Its fields never change
// once stored: a write stores a new entry.
type entry struct {
	s    string
	klen int32 // the length of the key string
	sz   int32 // itemSize of the item
}

// key is the item's key string.
func (e *entry) key() string { return e.s[:e.klen] }

// data is the item, encoded.
func (e *entry) data() string { return e.s[e.klen:] }

// size is itemSize of the item.
func (e *entry) size() int { return int(e.sz) }

// item decodes the stored item: a new map, whose values share the stored
// texts (strings, immutable).
func (e *entry) item() map[string]types.AttributeValue { return decodeItem(e.data()) }

// ttl reads the item's TTL attribute name as ttlOf does, without
// decoding it.
func (e *entry) ttl(name string) (int64, bool) {
	tag, text := scalarOf(e.data(), name)
	if tag != tagN {
		return 0, false
	}
	n, err := strconv.ParseInt(text, 10, 64)
	return n, err == nil
}

// compareEntries orders entries by key string: encoded hash key, then
// range key.
func compareEntries(a, b *entry) int { return strings.Compare(a.key(), b.key()) }

// ttlEntry is an item's place in the order of expiry.
type ttlEntry struct {
	exp int64
	en  *entry
}

func compareTTL(a, b ttlEntry) int {
	switch {
	case a.exp < b.exp:
		return -1
	case a.exp > b.exp:
		return 1
	}
	return compareEntries(a.en, b.en)
}

// store is the items of one table.
type store struct {
	tree  *btree[*entry]
	count int
	bytes int64

	// ttlAttr is the table's TTL attribute ("" when TTL is off), and ttl
	// its items that have one, by TTL.
	ttlAttr string
	ttl     *btree[ttlEntry]

	// ixs are the table's secondary indexes, kept on every write.
	ixs []*ixState
}

func newStore() *store { return &store{tree: newBtree(compareEntries)} }

// encodeKey is the text that identifies a key value (numbers by value):
// its partition part (see keyenc.go).
func encodeKey(v types.AttributeValue) string {
	return string(attrs.AppendKeyValue(nil, v))
}

// newEntry is the entry of item, whose key attributes are named hash and
// rng ("" for none).
func newEntry(hash, rng string, item map[string]types.AttributeValue) *entry {
	size := attrs.ItemSize(item)
	var r types.AttributeValue
	if rng != "" {
		r = item[rng]
	}
	b := appendTableKey(make([]byte, 0, 32+size+size/4), item[hash], r)
	klen := len(b)
	return &entry{s: string(appendItem(b, item)), klen: int32(klen), sz: int32(size)}
}

// get returns the entry with the given key values, or nil.
func (s *store) get(hash, rng types.AttributeValue) *entry {
	en, _ := s.tree.Get(keyEntry(tableKey(hash, rng)))
	return en
}

// keyEntry is an entry with key string k and no item, to search for.
func keyEntry(k string) *entry { return &entry{s: k, klen: int32(len(k))} }

// put stores e, replacing an item with the same key, and returns the item
// replaced (nil if none).
func (s *store) put(e *entry) *entry {
	old, replaced := s.tree.Put(e)
	if replaced {
		s.unindex(old)
	} else {
		old = nil
		s.count++
	}
	s.bytes += int64(e.size())
	s.index(e)
	return old
}

// remove deletes the item with the given key values and returns it (nil if
// there was none).
func (s *store) remove(hash, rng types.AttributeValue) *entry {
	return s.removeKey(tableKey(hash, rng))
}

// removeKey deletes the item with key string k and returns it (nil if
// there was none).
func (s *store) removeKey(k string) *entry {
	old, ok := s.tree.Delete(keyEntry(k))
	if !ok {
		return nil
	}
	s.count--
	s.unindex(old)
	return old
}

// index adds e to the TTL order and the indexes, unindex takes it out
// (and its size from the table's).
func (s *store) index(e *entry) {
	if s.ttl != nil {
		if exp, ok := e.ttl(s.ttlAttr); ok {
			s.ttl.Put(ttlEntry{exp, e})
		}
	}
	for _, x := range s.ixs {
		x.add(e)
	}
}

func (s *store) unindex(e *entry) {
	s.bytes -= int64(e.size())
	if s.ttl != nil {
		if exp, ok := e.ttl(s.ttlAttr); ok {
			s.ttl.Delete(ttlEntry{exp, e})
		}
	}
	for _, x := range s.ixs {
		x.remove(e)
	}
}

// all calls f for every entry in scan order until f returns false.
func (s *store) all(f func(*entry) bool) {
	c := s.tree.First()
	for en, ok := c.Next(); ok; en, ok = c.Next() {
		if !f(en) {
			return
		}
	}
}

// setTTL turns TTL on for attribute name ("": off), ordering the items by
// it.
func (s *store) setTTL(name string) {
	s.ttlAttr, s.ttl = name, nil
	if name == "" {
		return
	}
	s.ttl = newBtree(compareTTL)
	s.all(func(en *entry) bool {
		if exp, ok := en.ttl(name); ok {
			s.ttl.Put(ttlEntry{exp, en})
		}
		return true
	})
}

// syncIndexes makes the indexes the store keeps those of t, filling the
// tree of an index new to it from the items.
func (s *store) syncIndexes(t *table) {
	s.ixs = s.ixs[:0]
	for _, ix := range append(append([]*index(nil), t.gsis...), t.lsis...) {
		if ix.st == nil {
			ix.st = newIxState(t, ix)
			s.all(func(en *entry) bool { ix.st.add(en); return true })
		}
		s.ixs = append(s.ixs, ix.st)
	}
}
