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

// ixEntry is one item of an index.
type ixEntry struct {
	key string // the index's part of the entry's key string
	en  *entry // the table's entry
}

// compareIx orders index entries: index partition, index range key (the
// entries' key strings), then the table's key in DynamoDB's order of key
// values. An entry's key string holds the index's keys alone: the table's
// key is read from its item's when two entries tie, which is rare, rather
// than stored again in every entry.
func compareIx(a, b ixEntry) int {
	if c := strings.Compare(a.key, b.key); c != 0 {
		return c
	}
	return compareTableKeys(a.en.key(), b.en.key())
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

// entryOf is en's entry in the index, false when the index does not hold
// it.
func (x *ixState) entryOf(en *entry) (ixEntry, bool) {
	var buf [64]byte
	data := en.data()
	b, ok := x.appendKey(buf[:0], func(name string) (byte, string) { return scalarOf(data, name) })
	if !ok {
		return ixEntry{}, false
	}
	return ixEntry{key: string(b), en: en}, true
}

// counted reports whether en's size counts in the index's.
func (x *ixState) counted(en *entry) bool {
	for _, k := range [2]keyDef{x.hash, x.rng} {
		if k.name == "" || k.name == x.tableHash {
			continue
		}
		if tag, _ := scalarOf(en.data(), k.name); tag != 0 {
			return true
		}
	}
	return false
}

func (x *ixState) add(en *entry) {
	if e, ok := x.entryOf(en); ok {
		x.tree.Put(e)
	}
	if x.counted(en) {
		x.bytes += int64(en.size())
	}
}

func (x *ixState) remove(en *entry) {
	if e, ok := x.entryOf(en); ok {
		x.tree.Delete(e)
	}
	if x.counted(en) {
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
	return ixEntry{key: string(b), en: keyEntry(tableKey(esk[t.hash.name], rng))}
}

// segmentOf assigns a partition to one of total segments of a parallel
// scan, by a hash of its encoded key: every partition to exactly one
// segment, the same one at every call.
func segmentOf(enc string, total int) int {
	h := fnv.New32a()
	h.Write([]byte(enc))
	return int(h.Sum32() % uint32(total))
}
