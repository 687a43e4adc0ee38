package mapper

import (
	"fmt"
	"reflect"
	"strconv"
	"strings"
)

// The struct tags that name secondary indexes, as guregu/dynamo spells
// them: `index:"Name,hash"`, `index:"Name,range"` (global) and
// `localIndex:"Name,range"` (local). A key may be repeated in one struct
// tag, and a value may list several entries separated by ';'. A field that
// is a key of an index and not of the table is left out of the item when
// empty (see encodeItem): a sparse index.
const (
	indexTagKey      = "index"
	localIndexTagKey = "localIndex"
)

// indexTag is one index a field is a key of.
type indexTag struct {
	name  string
	local bool
	rng   bool // range key of the index; else hash key
}

// parseIndexTags reads the index and localIndex tags of a field. Each
// holds one or more "Name,hash" or "Name,range" entries separated by ';',
// and the key may be repeated, as guregu/dynamo allows:
// `index:"a,hash" index:"b,hash"` names two indexes (reflect's Lookup
// would see only the first).
func parseIndexTags(st reflect.StructTag) ([]indexTag, error) {
	var out []indexTag
	for _, key := range []string{indexTagKey, localIndexTagKey} {
		local := key == localIndexTagKey
		for _, v := range tagValues(st, key) {
			if strings.TrimSpace(v) == "" {
				return nil, fmt.Errorf("empty %s tag", key)
			}
			for _, entry := range strings.Split(v, ";") {
				it, err := parseIndexEntry(key, v, entry, local)
				if err != nil {
					return nil, err
				}
				for _, prev := range out {
					if prev.name == it.name {
						return nil, fmt.Errorf("index %s is named twice on one field", it.name)
					}
				}
				out = append(out, it)
			}
		}
	}
	return out, nil
}

// parseIndexEntry parses one "Name,hash" or "Name,range" entry of the tag
// value v of key.
func parseIndexEntry(key, v, entry string, local bool) (indexTag, error) {
	name, role, _ := strings.Cut(entry, ",")
	if err := checkIndexName(name); err != nil {
		return indexTag{}, fmt.Errorf("%s tag %q: %v", key, v, err)
	}
	it := indexTag{name: name, local: local}
	switch {
	case role == "range":
		it.rng = true
	case role == "hash" && local:
		return it, fmt.Errorf("%s tag %q: a local index shares the table's hash key; tag its range key only: `%s:\"%s,range\"`", key, v, key, name)
	case role == "hash":
	case role == "":
		return it, fmt.Errorf("%s tag %q: say whether the field is the hash or the range key of index %s: %q or %q", key, v, name, name+",hash", name+",range")
	default:
		return it, fmt.Errorf("%s tag %q: unknown option %q (known: hash, range; separate several indexes with ';' or repeat the key)", key, v, role)
	}
	return it, nil
}

// tagValues returns the value of every occurrence of key in the struct
// tag st, in order. It reads the conventional format that
// reflect.StructTag.Lookup reads (space-separated key:"quoted value"
// pairs) and, like Lookup, stops at the first malformed pair; unlike
// Lookup it does not stop at the first match.
func tagValues(st reflect.StructTag, key string) []string {
	var vals []string
	rest := string(st)
	for {
		rest = strings.TrimLeft(rest, " ")
		if rest == "" {
			return vals
		}
		// A key is a run of non-control characters other than space,
		// quote and colon, followed by a colon and a quoted value.
		n := strings.IndexFunc(rest, func(r rune) bool {
			return r <= ' ' || r == ':' || r == '"' || r == 0x7f
		})
		if n <= 0 || !strings.HasPrefix(rest[n:], `:"`) {
			return vals
		}
		k := rest[:n]
		rest = rest[n+1:]
		end := closingQuote(rest)
		if end < 0 {
			return vals
		}
		quoted := rest[:end+1]
		rest = rest[end+1:]
		if k != key {
			continue
		}
		v, err := strconv.Unquote(quoted)
		if err != nil {
			return vals
		}
		vals = append(vals, v)
	}
}

// closingQuote returns the index of the quote that closes the quoted
// string s starts with (skipping escaped characters), or -1.
func closingQuote(s string) int {
	for i := 1; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case '"':
			return i
		}
	}
	return -1
}

// checkIndexName applies DynamoDB's rule for index names: 3 to 255
// characters among a-z, A-Z, 0-9, '_', '-' and '.'.
func checkIndexName(name string) error {
	if len(name) < 3 || len(name) > 255 {
		return fmt.Errorf("index name %q: DynamoDB needs 3 to 255 characters", name)
	}
	for _, r := range name {
		switch {
		case 'a' <= r && r <= 'z', 'A' <= r && r <= 'Z', '0' <= r && r <= '9', r == '_', r == '-', r == '.':
		default:
			return fmt.Errorf("index name %q: DynamoDB allows only letters, digits, '_', '-' and '.'", name)
		}
	}
	return nil
}

// buildIndexes gathers the indexes named in the fields' tags and checks
// each: a global index has one hash key and at most one range key; a local
// index has one range key other than the table's, on a table with a range
// key; index keys are stored as S, N or B; an index name is global or
// local, not both.
func (s *schema) buildIndexes() error {
	byName := map[string]*index{}
	for _, f := range s.fields {
		if len(f.indexes) == 0 {
			continue
		}
		fail := func(format string, args ...any) error {
			return &SchemaError{Type: s.typ, Field: f.goPath, Problem: fmt.Sprintf(format, args...)}
		}
		if f.viaPtr {
			return fail("index key fields must not be reached through an embedded pointer (it may be nil)")
		}
		if _, err := keyType(f.typ, f.tag); err != nil {
			return fail("index key: %v", err)
		}
		if f.tag.nullEmpty || f.tag.nullEmptyElem || f.tag.isSet() {
			return fail("an index key attribute cannot take %s", strings.Join(f.tag.avOptions(), ","))
		}
		for _, it := range f.indexes {
			ix := byName[it.name]
			if ix == nil {
				ix = &index{name: it.name, local: it.local}
				byName[it.name] = ix
				s.indexes = append(s.indexes, ix)
			}
			if err := s.addIndexKey(ix, it, f); err != nil {
				return fail("%s", err)
			}
		}
	}
	for _, ix := range s.indexes {
		if !ix.local && ix.hash == nil {
			return &SchemaError{Type: s.typ, Field: ix.rng.goPath, Problem: fmt.Sprintf(
				"index %s has a range key but no hash key: tag one field `%s:\"%s,hash\"`", ix.name, indexTagKey, ix.name)}
		}
	}
	return nil
}

// addIndexKey makes f the key of index ix that its tag it names, and
// refuses a key the index cannot take.
func (s *schema) addIndexKey(ix *index, it indexTag, f *field) error {
	if ix.local != it.local {
		return fmt.Errorf("index %s is tagged both as a global index (index) and as a local one (localIndex)", it.name)
	}
	switch {
	case it.local:
		if s.rng == nil {
			return fmt.Errorf("local index %s: a local index needs a table with a range key, and %v has none", it.name, s.typ)
		}
		if f == s.rng {
			return fmt.Errorf("local index %s: its range key must differ from the table's range key %s", it.name, s.rng.goPath)
		}
		if ix.rng != nil {
			return fmt.Errorf("local index %s has a second range key (the first is %s)", it.name, ix.rng.goPath)
		}
		ix.hash, ix.rng = s.hash, f
	case it.rng:
		if ix.rng != nil {
			return fmt.Errorf("index %s has a second range key (the first is %s)", it.name, ix.rng.goPath)
		}
		if ix.hash == f {
			return fmt.Errorf("index %s: a field cannot be both its hash and its range key", it.name)
		}
		ix.rng = f
	default:
		if ix.hash != nil {
			return fmt.Errorf("index %s has a second hash key (the first is %s)", it.name, ix.hash.goPath)
		}
		if ix.rng == f {
			return fmt.Errorf("index %s: a field cannot be both its hash and its range key", it.name)
		}
		ix.hash = f
	}
	return nil
}
