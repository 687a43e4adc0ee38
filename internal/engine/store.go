package engine

import (
	"sort"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/optimist-dynamo/optimist/internal/attrs"
)

// Storage of a table's items. Items are grouped by partition (their hash
// key) and kept sorted by range key within a partition; partitions are
// kept sorted by the encoded hash key, which is the order of a Scan. (On
// DynamoDB a Scan's order follows a hash of the partition key; callers may
// rely on no order, so any stable one serves.)

// entry is one stored item.
type entry struct {
	hash types.AttributeValue // the hash key value
	rng  types.AttributeValue // the range key value, nil for a hash-only table
	item map[string]types.AttributeValue
	size int // attrs.ItemSize of item
}

// partition holds the items of one hash key, sorted by range key.
type partition struct {
	enc     string // encoded hash key
	entries []*entry
}

// store is the items of one table.
type store struct {
	parts map[string]*partition
	order []*partition // sorted by enc
	count int
	bytes int64

	// ttlAttr is the table's TTL attribute ("" when TTL is off), and
	// nextTTL the earliest TTL of its items seen since the last sweep (0:
	// none), so that a sweep reads the items only when one may be due.
	ttlAttr string
	nextTTL int64
}

func newStore() *store { return &store{parts: map[string]*partition{}} }

// encodeKey is the text that identifies a key value (numbers by value).
func encodeKey(v types.AttributeValue) string {
	return string(attrs.AppendKeyValue(nil, v))
}

// find returns the index of rng in p (or where it would go) and whether
// it is there.
func (p *partition) find(rng types.AttributeValue) (int, bool) {
	if rng == nil {
		return 0, len(p.entries) > 0
	}
	i := sort.Search(len(p.entries), func(i int) bool { return compareKeys(p.entries[i].rng, rng) >= 0 })
	return i, i < len(p.entries) && compareKeys(p.entries[i].rng, rng) == 0
}

// get returns the entry with the given key values, or nil.
func (s *store) get(hash, rng types.AttributeValue) *entry {
	p := s.parts[encodeKey(hash)]
	if p == nil {
		return nil
	}
	i, ok := p.find(rng)
	if !ok {
		return nil
	}
	return p.entries[i]
}

// put stores e, replacing an item with the same key, and returns the item
// replaced (nil if none).
func (s *store) put(e *entry) *entry {
	enc := encodeKey(e.hash)
	p := s.parts[enc]
	if p == nil {
		p = &partition{enc: enc}
		s.parts[enc] = p
		i := sort.Search(len(s.order), func(i int) bool { return s.order[i].enc >= enc })
		s.order = append(s.order, nil)
		copy(s.order[i+1:], s.order[i:])
		s.order[i] = p
	}
	s.noteTTL(e.item)
	i, ok := p.find(e.rng)
	if ok {
		old := p.entries[i]
		p.entries[i] = e
		s.bytes += int64(e.size - old.size)
		return old
	}
	p.entries = append(p.entries, nil)
	copy(p.entries[i+1:], p.entries[i:])
	p.entries[i] = e
	s.count++
	s.bytes += int64(e.size)
	return nil
}

// remove deletes the item with the given key values and returns it (nil if
// there was none).
func (s *store) remove(hash, rng types.AttributeValue) *entry {
	enc := encodeKey(hash)
	p := s.parts[enc]
	if p == nil {
		return nil
	}
	i, ok := p.find(rng)
	if !ok {
		return nil
	}
	old := p.entries[i]
	p.entries = append(p.entries[:i], p.entries[i+1:]...)
	s.count--
	s.bytes -= int64(old.size)
	if len(p.entries) == 0 {
		delete(s.parts, enc)
		j := sort.Search(len(s.order), func(i int) bool { return s.order[i].enc >= enc })
		s.order = append(s.order[:j], s.order[j+1:]...)
	}
	return old
}

// all calls f for every entry in scan order until f returns false.
func (s *store) all(f func(*entry) bool) {
	for _, p := range s.order {
		for _, e := range p.entries {
			if !f(e) {
				return
			}
		}
	}
}

// noteTTL lowers nextTTL to the TTL of item, if it has one.
func (s *store) noteTTL(item map[string]types.AttributeValue) {
	if s.ttlAttr == "" {
		return
	}
	if exp, ok := ttlOf(item[s.ttlAttr]); ok && (s.nextTTL == 0 || exp < s.nextTTL) {
		s.nextTTL = exp
	}
}
