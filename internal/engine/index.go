package engine

import (
	"hash/fnv"
	"strings"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/optimist-dynamo/optimist/internal/attrs"
)

// Secondary indexes are ordered trees of the items they hold (see
// table.project), kept by every write: sorted by their key strings (see
// keyenc.go), the index's hash key (encoded), then its range key, ties
// broken by the table's key. DynamoDB leaves the order of items with
// equal index keys unspecified; this one is deterministic.

// ixEntry is one item of an index: the table's entry, and where in it the
// index's key string is (see store.newEntry); n is 0 when the index does
// not hold the item.
type ixEntry struct {
	en     entry
	off, n uint32
}

// key is the index's part of the entry's key string.
func (x ixEntry) key() string { return x.en.s[x.off : x.off+x.n] }

// compareIx orders index entries: index partition, index range key (the
// entries' key strings), then the table's key in DynamoDB's order of key
// values. An entry's key string holds the index's keys alone: the table's
// key is read from its item's when two entries tie, which is rare, rather
// than stored again in every entry.
func compareIx(a, b ixEntry) int {
	if c := strings.Compare(a.key(), b.key()); c != 0 {
		return c
	}
	return compareTableKeys(a.en.key(), b.en.key())
}

// ixProbe is an index entry to search for: index key string k, table key
// string tk.
func ixProbe(k, tk string) ixEntry {
	b := make([]byte, entryHead, entryHead+len(tk)+len(k))
	b = append(append(b, tk...), k...)
	setHead(b, len(tk), 0, len(b), 0)
	return ixEntry{en: entry{string(b)}, off: uint32(entryHead + len(tk)), n: uint32(len(k))}
}

// ixState is the tree of one index and the figures DescribeTable reports
// of it: its items are those tree holds; bytes is its size as DynamoDB
// Local reports it, the whole size of every item that has one of the
// index's key attributes other than the table's hash key, whatever the
// projection and whether or not the item is in the index (measured: a GSI
// on (g, sk) of a table keyed (pk, sk) is as large as the table).
type ixState struct {
	hash, rng keyDef
	tableHash string
	tree      *btree[ixEntry]
	bytes     int64
}

func newIxState(t *table, ix *index) *ixState {
	return &ixState{hash: ix.hash, rng: ix.rng, tableHash: t.hash.name, tree: newBtree(compareIx)}
}

// appendKey appends the index's key string of the item whose attributes get
// reads (as a tag and a text), false when the index does not hold it: it
// lacks one of the index's key attributes or has one of another type
// (the test of table.project).
func (x *ixState) appendKey(b []byte, get func(name string) (byte, string)) ([]byte, bool) {
	tag, text := get(x.hash.name)
	if tagType(tag) != x.hash.typ {
		return b, false
	}
	b = appendPartition(b, tag, text)
	if x.rng.name != "" {
		if tag, text = get(x.rng.name); tagType(tag) != x.rng.typ {
			return b, false
		}
		b = appendOrdered(b, tag, text)
	}
	return b, true
}

// counted reports whether an item's size counts in the index's: has
// reports whether the item has an attribute.
func (x *ixState) counted(has func(name string) bool) bool {
	for _, k := range [2]keyDef{x.hash, x.rng} {
		if k.name == "" || k.name == x.tableHash {
			continue
		}
		if has(k.name) {
			return true
		}
	}
	return false
}

// add adds the entry the store built for item (see store.newEntry).
func (x *ixState) add(e ixEntry, item map[string]types.AttributeValue) {
	if e.n > 0 {
		x.tree.Put(e)
	}
	if x.counted(func(name string) bool { _, ok := item[name]; return ok }) {
		x.bytes += int64(e.en.size())
	}
}

// remove takes en out of the index. Its key string in the index is
// computed again from the item, not looked up in the entry, which holds
// the key strings of the indexes the store had when it made the entry.
func (x *ixState) remove(en entry) {
	data := en.data()
	var buf [64]byte
	if b, ok := x.appendKey(buf[:0], func(name string) (byte, string) { return scalarOf(data, name) }); ok {
		x.tree.Delete(ixProbe(string(b), en.key()))
	}
	if x.counted(func(name string) bool { tag, _ := scalarOf(data, name); return tag != 0 }) {
		x.bytes -= int64(en.size())
	}
}

// indexStats counts the items an index holds, and its size (see ixState).
func (t *table) indexStats(ix *index) (n, size int64) {
	return int64(ix.st.tree.Len()), ix.st.bytes
}

// ixRow is the row a read of ix returns for x.
func (t *table) ixRow(ix *index, x ixEntry) row {
	full := x.en.item()
	p := t.project(ix, full)
	size := x.en.size()
	if ix.projType != "ALL" {
		size = attrs.ItemSize(p)
	}
	return row{item: p, full: full, en: x.en, size: size}
}

// ixStart is the position of an ExclusiveStartKey among index entries, as
// an entry to compare with.
func (t *table) ixStart(ix *index, esk map[string]types.AttributeValue) ixEntry {
	b, _ := ix.st.appendKey(nil, func(name string) (byte, string) { return valueParts(esk[name]) })
	var rng types.AttributeValue
	if t.rng.name != "" {
		rng = esk[t.rng.name]
	}
	return ixProbe(string(b), tableKey(esk[t.hash.name], rng))
}

// segmentOf assigns a partition to one of total segments of a parallel
// scan, by a hash of its encoded key: every partition to exactly one
// segment, the same one at every call.
func segmentOf(enc string, total int) int {
	h := fnv.New32a()
	h.Write([]byte(enc))
	return int(h.Sum32() % uint32(total))
}
