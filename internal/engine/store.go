package engine

import (
	"cmp"
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
//
// An item is stored as one string (entry), which every tree holds by
// value: the table's tree, each index's and the TTL order point to the
// same bytes, and a comparison reads them without a pointer between. One
// object per item, not one per tree or per key, is what keeps a large
// table cheap for the garbage collector to trace: its cost grows with
// the objects and pointers the heap holds.

// entry is one stored item: a header, its key string (see keyenc.go), the
// key strings of the indexes that held it when it was stored (see
// ixEntry), then the item encoded (see codec.go). Its bytes never change
// once stored: a write stores a new entry.
//
// The header is entryHead bytes, little-endian: the key string's length
// (2 bytes), itemSize of the item (4), where the encoded item starts (4),
// and the entry's number in the order the store made its entries (4; see
// ttlEntry).
type entry struct{ s string }

const entryHead = 14

// key is the item's key string.
func (e entry) key() string {
	return e.s[entryHead : entryHead+int(e.s[0])|int(e.s[1])<<8]
}

// size is itemSize of the item.
func (e entry) size() int { return int(le32(e.s[2:])) }

// data is the item, encoded.
func (e entry) data() string { return e.s[le32(e.s[6:]):] }

// seq is the entry's number (see store.seq).
func (e entry) seq() uint32 { return le32(e.s[10:]) }

func le32(s string) uint32 {
	return uint32(s[0]) | uint32(s[1])<<8 | uint32(s[2])<<16 | uint32(s[3])<<24
}

func putLE32(b []byte, v int) {
	b[0], b[1], b[2], b[3] = byte(v), byte(v>>8), byte(v>>16), byte(v>>24)
}

// item decodes the stored item: a new map, whose values share the stored
// texts (strings, immutable).
func (e entry) item() map[string]types.AttributeValue { return decodeItem(e.data()) }

// ttl reads the item's TTL attribute name as ttlOf does, without
// decoding it.
func (e entry) ttl(name string) (int64, bool) { return ttlText(scalarOf(e.data(), name)) }

// ttlText is the TTL of a stored value tag/text: an N that is an integer.
func ttlText(tag byte, text string) (int64, bool) {
	if tag != tagN {
		return 0, false
	}
	n, err := strconv.ParseInt(text, 10, 64)
	return n, err == nil
}

// compareEntries orders entries by key string: encoded hash key, then
// range key.
func compareEntries(a, b entry) int { return strings.Compare(a.key(), b.key()) }

// ttlEntry is an item's place in the order of expiry: by TTL, then by
// the entry's number, which the tree holds beside the entry so that
// items with one TTL (many, in a load: every item written in one second
// with a TTL a fixed time ahead) are told apart without reading their
// keys, a memory read each; the key breaks what ties remain (numbers wrap
// after 2^32 entries).
type ttlEntry struct {
	exp int64
	seq uint32
	en  entry
}

func newTTLEntry(exp int64, en entry) ttlEntry { return ttlEntry{exp, en.seq(), en} }

func compareTTL(a, b ttlEntry) int {
	if c := cmp.Compare(a.exp, b.exp); c != 0 {
		return c
	}
	if c := cmp.Compare(a.seq, b.seq); c != 0 {
		return c
	}
	return compareEntries(a.en, b.en)
}

// store is the items of one table.
type store struct {
	tree  *btree[entry]
	count int
	bytes int64

	// ttlAttr is the table's TTL attribute ("" when TTL is off), and ttl
	// its items that have one, by TTL.
	ttlAttr string
	ttl     *btree[ttlEntry]

	// ixs are the table's secondary indexes, kept on every write.
	ixs []*ixState

	// seq numbers the entries put makes.
	seq uint32

	// buf and ixBuf are where put builds an entry and its index entries
	// (the engine's lock is held).
	buf   []byte
	ixBuf []ixEntry
}

func newStore() *store { return &store{tree: newBtree(compareEntries)} }

// encodeKey is the text that identifies a key value (numbers by value):
// its partition part (see keyenc.go).
func encodeKey(v types.AttributeValue) string {
	return string(attrs.AppendKeyValue(nil, v))
}

// keyEntry is an entry with key string k and no item, to search for.
func keyEntry(k string) entry {
	b := make([]byte, entryHead, entryHead+len(k))
	b = append(b, k...)
	setHead(b, len(k), 0, len(b), 0)
	return entry{string(b)}
}

func setHead(b []byte, klen, size, data int, seq uint32) {
	b[0], b[1] = byte(klen), byte(klen>>8)
	putLE32(b[2:], size)
	putLE32(b[6:], data)
	putLE32(b[10:], int(seq))
}

// get returns the entry with the given key values, or nil.
func (s *store) get(hash, rng types.AttributeValue) *entry {
	en, ok := s.tree.Get(keyEntry(tableKey(hash, rng)))
	if !ok {
		return nil
	}
	return &en
}

// put stores item, whose key attributes are named hash and rng ("" for
// none), replacing an item with the same key, and returns the item
// replaced (nil if none).
func (s *store) put(hash, rng string, item map[string]types.AttributeValue) *entry {
	e, ixs := s.newEntry(hash, rng, item)
	old, replaced := s.tree.Put(e)
	var out *entry
	if replaced {
		s.unindex(old)
		out = &old
	} else {
		s.count++
	}
	s.bytes += int64(e.size())
	if s.ttl != nil {
		if exp, ok := ttlText(valueParts(item[s.ttlAttr])); ok {
			s.ttl.Put(newTTLEntry(exp, e))
		}
	}
	for i, x := range s.ixs {
		x.add(ixs[i], item)
	}
	return out
}

// newEntry encodes item as an entry, with the key strings of the store's
// indexes that hold it, and returns with it each index's entry (of
// length 0 for one that does not hold it).
func (s *store) newEntry(hash, rng string, item map[string]types.AttributeValue) (entry, []ixEntry) {
	size := attrs.ItemSize(item)
	var r types.AttributeValue
	if rng != "" {
		r = item[rng]
	}
	var head [entryHead]byte
	b := appendTableKey(append(s.buf[:0], head[:]...), item[hash], r)
	klen := len(b) - entryHead
	ixs := s.ixBuf[:0]
	get := func(name string) (byte, string) { return valueParts(item[name]) }
	for _, x := range s.ixs {
		start := len(b)
		var ok bool
		if b, ok = x.appendKey(b, get); !ok {
			b = b[:start]
		}
		ixs = append(ixs, ixEntry{off: uint32(start), n: uint32(len(b) - start)})
	}
	data := len(b)
	b = appendItem(b, item)
	s.seq++
	setHead(b, klen, size, data, s.seq)
	e := entry{string(b)}
	if cap(b) <= 4096 {
		s.buf = b[:0]
	}
	for i := range ixs {
		ixs[i].en = e
	}
	s.ixBuf = ixs[:0]
	return e, ixs
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
	return &old
}

// unindex takes e out of the TTL order and the indexes, and its size from
// the table's.
func (s *store) unindex(e entry) {
	s.bytes -= int64(e.size())
	if s.ttl != nil {
		if exp, ok := e.ttl(s.ttlAttr); ok {
			s.ttl.Delete(newTTLEntry(exp, e))
		}
	}
	for _, x := range s.ixs {
		x.remove(e)
	}
}

// all calls f for every entry in scan order until f returns false.
func (s *store) all(f func(entry) bool) {
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
	s.all(func(en entry) bool {
		if exp, ok := en.ttl(name); ok {
			s.ttl.Put(newTTLEntry(exp, en))
		}
		return true
	})
}

// syncIndexes makes the indexes the store keeps those of t. An index new
// to it needs its key string in every entry: the items are stored anew.
func (s *store) syncIndexes(t *table) {
	kept := map[*ixState]bool{}
	for _, x := range s.ixs {
		kept[x] = true
	}
	s.ixs = nil
	added := false
	for _, ix := range append(append([]*index(nil), t.gsis...), t.lsis...) {
		if ix.st == nil || !kept[ix.st] {
			ix.st = newIxState(t, ix)
			added = true
		}
		s.ixs = append(s.ixs, ix.st)
	}
	if !added || s.count == 0 {
		return
	}
	var items []map[string]types.AttributeValue
	s.all(func(en entry) bool { items = append(items, en.item()); return true })
	s.tree, s.count, s.bytes = newBtree(compareEntries), 0, 0
	s.setTTL(s.ttlAttr)
	for _, x := range s.ixs {
		x.tree, x.bytes = newBtree(compareIx), 0
	}
	for _, m := range items {
		s.put(t.hash.name, t.rng.name, m)
	}
}
