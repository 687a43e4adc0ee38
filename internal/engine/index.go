package engine

import (
	"hash/fnv"
	"sort"
	"strings"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/optimist-dynamo/optimist/internal/attrs"
)

// Secondary indexes are views computed from the table's items when a read
// needs them: the items the index holds (see table.project), sorted by the
// index's hash key, then its range key, ties broken by the table's key.
// DynamoDB leaves the order of items with equal index keys unspecified;
// this one is deterministic.

// ixRow is one item of an index.
type ixRow struct {
	row
	hash, rng types.AttributeValue // the index's key values; rng nil without a range key
	enc       string               // encodeKey(hash)
}

// rows returns the items ix holds in index order, only those of the index
// partition hash when hash is not nil.
func (t *table) indexRows(ix *index, hash types.AttributeValue) []ixRow {
	var want string
	if hash != nil {
		want = encodeKey(hash)
	}
	var out []ixRow
	t.items.all(func(en *entry) bool {
		p := t.project(ix, en.item)
		if p == nil {
			return true
		}
		h := p[ix.hash.name]
		enc := encodeKey(h)
		if hash != nil && enc != want {
			return true
		}
		r := ixRow{row: row{item: p, en: en, size: attrs.ItemSize(p)}, hash: h, enc: enc}
		if ix.rng.name != "" {
			r.rng = p[ix.rng.name]
		}
		out = append(out, r)
		return true
	})
	sort.Slice(out, func(i, j int) bool { return compareIxRows(&out[i], &out[j]) < 0 })
	return out
}

// compareIxRows orders index rows: index partition, index range key, then
// the table's key.
func compareIxRows(a, b *ixRow) int {
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

// ixStart is the position of an ExclusiveStartKey among index rows, as a
// row to compare with.
func (t *table) ixStart(ix *index, esk map[string]types.AttributeValue) *ixRow {
	en := &entry{hash: esk[t.hash.name]}
	if t.rng.name != "" {
		en.rng = esk[t.rng.name]
	}
	r := &ixRow{row: row{en: en}, hash: esk[ix.hash.name], enc: encodeKey(esk[ix.hash.name])}
	if ix.rng.name != "" {
		r.rng = esk[ix.rng.name]
	}
	return r
}

// segmentOf assigns a partition to one of total segments of a parallel
// scan, by a hash of its encoded key: every partition to exactly one
// segment, the same one at every call.
func segmentOf(enc string, total int) int {
	h := fnv.New32a()
	h.Write([]byte(enc))
	return int(h.Sum32() % uint32(total))
}
