package engine

import (
	"hash/fnv"
	"strings"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/optimist-dynamo/optimist/internal/attrs"
)

// Secondary indexes are ordered trees of the items they hold (see
// table.project), kept by every write: sorted by the index's hash key
// (encoded), then its range key, ties broken by the table's key. DynamoDB
// leaves the order of items with equal index keys unspecified; this one is
// deterministic.

// ixEntry is one item of an index.
type ixEntry struct {
	enc string               // encodeKey of the index's hash key value
	rng types.AttributeValue // the index's range key value; nil without a range key
	en  *entry               // the table's entry
}

// compareIx orders index entries: index partition, index range key, then
// the table's key.
func compareIx(a, b ixEntry) int {
	if c := strings.Compare(a.enc, b.enc); c != 0 {
		return c
	}
	if a.rng != nil {
		if c := compareKeys(a.rng, b.rng); c != 0 {
			return c
		}
	}
	if c := compareKeys(a.en.hash, b.en.hash); c != 0 {
		return c
	}
	if a.en.rng != nil {
		return compareKeys(a.en.rng, b.en.rng)
	}
	return 0
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
	tableRng  string // the table's range key's name, "" for none
	tree      *btree[ixEntry]
	bytes     int64
}

func newIxState(t *table, ix *index) *ixState {
	return &ixState{hash: ix.hash, rng: ix.rng, tableHash: t.hash.name, tableRng: t.rng.name, tree: newBtree(compareIx)}
}

// entryOf is en's entry in the index, false when the index does not hold
// it: it lacks one of the index's key attributes or has one of another
// type (the test of table.project).
func (x *ixState) entryOf(en *entry) (ixEntry, bool) {
	// A key attribute of the table's is the entry's own value (and
	// encoding), shared rather than decoded again: an LSI's hash key, a
	// GSI's keys when they are the table's.
	var out ixEntry
	if x.hash.name == x.tableHash {
		out = ixEntry{enc: en.enc, en: en}
	} else {
		h := en.attr(x.hash.name)
		if h == nil || typeName(h) != x.hash.typ {
			return ixEntry{}, false
		}
		out = ixEntry{enc: encodeKey(h), en: en}
	}
	if x.rng.name != "" {
		r := en.rng
		if x.rng.name != x.tableRng {
			r = en.attr(x.rng.name)
		}
		if r == nil || typeName(r) != x.rng.typ {
			return ixEntry{}, false
		}
		out.rng = r
	}
	return out, true
}

// counted reports whether en's size counts in the index's.
func (x *ixState) counted(en *entry) bool {
	for _, k := range []keyDef{x.hash, x.rng} {
		if k.name != "" && k.name != x.tableHash && en.attr(k.name) != nil {
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
		x.bytes += int64(en.size)
	}
}

func (x *ixState) remove(en *entry) {
	if e, ok := x.entryOf(en); ok {
		x.tree.Delete(e)
	}
	if x.counted(en) {
		x.bytes -= int64(en.size)
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
	size := x.en.size
	if ix.projType != "ALL" {
		size = attrs.ItemSize(p)
	}
	return row{item: p, full: full, en: x.en, size: size}
}

// ixStart is the position of an ExclusiveStartKey among index entries, as
// an entry to compare with.
func (t *table) ixStart(ix *index, esk map[string]types.AttributeValue) ixEntry {
	en := &entry{hash: esk[t.hash.name]}
	if t.rng.name != "" {
		en.rng = esk[t.rng.name]
	}
	x := ixEntry{en: en, enc: encodeKey(esk[ix.hash.name])}
	if ix.rng.name != "" {
		x.rng = esk[ix.rng.name]
	}
	return x
}

// segmentOf assigns a partition to one of total segments of a parallel
// scan, by a hash of its encoded key: every partition to exactly one
// segment, the same one at every call.
func segmentOf(enc string, total int) int {
	h := fnv.New32a()
	h.Write([]byte(enc))
	return int(h.Sum32() % uint32(total))
}
