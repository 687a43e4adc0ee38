package mapper

import (
	"errors"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Bad struct definitions, each refused by NewTable with its own message.
type (
	noHash struct {
		Name string
	}
	twoHash struct {
		A string `dynamo:",hash"`
		B string `dynamo:",hash"`
	}
	twoRange struct {
		A string `dynamo:",hash"`
		B string `dynamo:",range"`
		C int    `dynamo:",range"`
	}
	twoVersion struct {
		A string `dynamo:",hash"`
		V int64  `dynamo:",version"`
		W int64  `dynamo:",version"`
	}
	stringVersion struct {
		A string `dynamo:",hash"`
		V string `dynamo:",version"`
	}
	floatVersion struct {
		A string  `dynamo:",hash"`
		V float64 `dynamo:",version"`
	}
	ptrVersion struct {
		A string `dynamo:",hash"`
		V *int64 `dynamo:",version"`
	}
	boolKey struct {
		A bool `dynamo:",hash"`
	}
	structKey struct {
		A struct{ X string } `dynamo:",hash"`
	}
	sliceKey struct {
		A []string `dynamo:",hash"`
	}
	mapRangeKey struct {
		A string            `dynamo:",hash"`
		B map[string]string `dynamo:",range"`
	}
	unknownOption struct {
		A string `dynamo:",hsh"`
	}
	hashAndRange struct {
		A string `dynamo:",hash,range"`
	}
	versionKey struct {
		A int64 `dynamo:",hash,version"`
	}
	duplicateName struct {
		A string `dynamo:"id,hash"`
		B string `dynamo:"id"`
	}
	repeatedOption struct {
		A string `dynamo:",hash,hash"`
	}
	strayComma struct {
		A string `dynamo:"a,,hash"`
	}
	skippedKey struct {
		A string `dynamo:"-,hash"`
	}
	unexportedTagged struct {
		A string `dynamo:",hash"`
		b string `dynamo:"b"`
	}
	omitemptyKey struct {
		A string `dynamo:",hash,omitempty"`
	}
	setKey struct {
		A []string `dynamo:",hash,stringset"`
	}
	versionWithOption struct {
		A string `dynamo:",hash"`
		V int64  `dynamo:",version,string"`
	}
	omitAndNull struct {
		A string `dynamo:",hash"`
		B string `dynamo:",omitempty,nullempty"`
	}
	twoSets struct {
		A string   `dynamo:",hash"`
		B []string `dynamo:",stringset,numberset"`
	}
	chanField struct {
		A string `dynamo:",hash"`
		C chan int
	}
	embeddedWithOptions struct {
		Base `dynamo:",hash"`
	}
	embeddedTwice struct {
		A string `dynamo:",hash"`
		Left
		Right
	}
	keyViaPointer struct {
		*Base
	}
	hiddenKey struct {
		ID string `dynamo:"id"` // hides Base.ID, which is the hash key
		Base
	}
	tokenClash struct {
		A string `dynamo:",hash"`
		T string `dynamo:"optimist_token"`
	}
)

var _ = unexportedTagged{b: ""} // the field exists to be refused

type Base struct {
	ID string `dynamo:"id,hash"`
}

type Inner struct {
	X string
}

type Left struct{ Inner }
type Right struct{ Inner }

func TestNewTableRejectsBadStructs(t *testing.T) {
	cases := []struct {
		name  string
		build func() error
		field string
		want  string
	}{
		{"no hash key", newTableErr[noHash], "", "no hash key"},
		{"two hash keys", newTableErr[twoHash], "B", "second hash key"},
		{"two range keys", newTableErr[twoRange], "C", "second range key"},
		{"two versions", newTableErr[twoVersion], "W", "second version field"},
		{"string version", newTableErr[stringVersion], "V", "must be an integer"},
		{"float version", newTableErr[floatVersion], "V", "must be an integer"},
		{"pointer version", newTableErr[ptrVersion], "V", "must be an integer"},
		{"bool key", newTableErr[boolKey], "A", "string, number or binary"},
		{"struct key", newTableErr[structKey], "A", "string, number or binary"},
		{"slice key", newTableErr[sliceKey], "A", "string, number or binary"},
		{"map range key", newTableErr[mapRangeKey], "B", "string, number or binary"},
		{"unknown option", newTableErr[unknownOption], "A", `unknown option "hsh"`},
		{"hash and range", newTableErr[hashAndRange], "A", "both hash and range"},
		{"version key", newTableErr[versionKey], "A", "version field cannot be a key"},
		{"duplicate attribute", newTableErr[duplicateName], "B", `attribute name "id" is also used by A`},
		{"repeated option", newTableErr[repeatedOption], "A", `"hash" given twice`},
		{"stray comma", newTableErr[strayComma], "A", "empty option"},
		{"skipped key", newTableErr[skippedKey], "A", `skipped with "-"`},
		{"unexported tagged", newTableErr[unexportedTagged], "b", "unexported"},
		{"omitempty key", newTableErr[omitemptyKey], "A", "cannot take omitempty"},
		{"set key", newTableErr[setKey], "A", "string, number or binary"},
		{"version with option", newTableErr[versionWithOption], "V", "takes no other options"},
		{"omitempty and nullempty", newTableErr[omitAndNull], "B", "contradict"},
		{"two set options", newTableErr[twoSets], "B", "at most one of"},
		{"channel field", newTableErr[chanField], "C", "cannot be stored"},
		{"options on embedded", newTableErr[embeddedWithOptions], "Base", "embedded struct"},
		{"embedded twice", newTableErr[embeddedTwice], "Right.Inner", "embedded twice"},
		{"key through pointer", newTableErr[keyViaPointer], "Base.ID", "embedded pointer"},
		{"hidden key", newTableErr[hiddenKey], "Base.ID", "hidden by ID"},
		{"token clash", newTableErr[tokenClash], "T", "write-token attribute"},
		{"pointer type", newTableErr[*Base], "", "not a pointer"},
		{"not a struct", newTableErr[map[string]any], "", "not map"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var err error
			require.NotPanics(t, func() { err = tc.build() })
			require.Error(t, err)
			assert.ErrorIs(t, err, ErrInvalidSchema)
			var se *SchemaError
			require.ErrorAs(t, err, &se)
			assert.Equal(t, tc.field, se.Field)
			assert.Contains(t, se.Problem, tc.want)
			assert.True(t, strings.HasPrefix(err.Error(), "mapper: "), err.Error())
		})
	}
}

func newTableErr[T any]() error {
	_, err := NewTable[T](nopClient{}, "t")
	return err
}

type nopClient struct{ Client }

type (
	Audit struct {
		Created time.Time `dynamo:"created"`
		By      string    `dynamo:"by,omitempty"`
	}
	good struct {
		PK      string `dynamo:"pk,hash"`
		SK      int64  `dynamo:"sk,range"`
		Version uint32 `dynamo:"v,version"`
		Audit
		Tags    []string          `dynamo:"tags,stringset"`
		Ignored string            `dynamo:"-"`
		Old     string            `dynamodbav:"old_name"`
		Meta    map[string]string `dynamo:",omitempty"`
		private int
	}
)

func TestSchemaOfGoodStruct(t *testing.T) {
	s, err := schemaOf(reflect.TypeOf(good{}))
	require.NoError(t, err)
	assert.Equal(t, "pk", s.hash.name)
	assert.Equal(t, "sk", s.rng.name)
	assert.Equal(t, "v", s.version.name)
	var names []string
	for _, f := range s.fields {
		names = append(names, f.name)
	}
	assert.Equal(t, []string{"pk", "sk", "v", "created", "by", "tags", "old_name", "Meta"}, names)
	assert.True(t, s.byName["tags"].tag.stringSet)
	assert.Equal(t, "Audit.Created", s.byName["created"].goPath)

	again, err := schemaOf(reflect.TypeOf(good{}))
	require.NoError(t, err)
	assert.Same(t, s, again, "schemas are cached per type")
	_ = good{private: 1}
}

func TestSchemaErrorsAreCachedToo(t *testing.T) {
	_, err1 := schemaOf(reflect.TypeOf(noHash{}))
	_, err2 := schemaOf(reflect.TypeOf(noHash{}))
	require.Error(t, err1)
	assert.Same(t, err1, err2)
}

func TestParseTag(t *testing.T) {
	tg, err := parseTag("name,hash")
	require.NoError(t, err)
	assert.Equal(t, tag{name: "name", hash: true}, tg)

	tg, err = parseTag(",version")
	require.NoError(t, err)
	assert.Equal(t, tag{version: true}, tg)

	tg, err = parseTag("-")
	require.NoError(t, err)
	assert.True(t, tg.skip)

	tg, err = parseTag("x,omitempty,stringset,omitemptyelem")
	require.NoError(t, err)
	assert.Equal(t, []string{"omitempty", "omitemptyelem", "stringset"}, tg.avOptions())

	for _, bad := range []string{"a,HASH", "a,hash,", "a,,", "-,omitempty", "a,nullemptyelem,omitemptyelem", "a,range,version"} {
		_, err := parseTag(bad)
		assert.Error(t, err, bad)
	}
}

// FuzzParseTag checks that the tag parser never panics, and that whatever
// it accepts means the same when written back out and parsed again. The
// input is also read as a whole struct tag: the index tags' reader of
// repeated keys finds first what reflect's Lookup finds, and the values it
// finds read back the same from a tag written out again.
func FuzzParseTag(f *testing.F) {
	for _, s := range []string{"", "-", "id,hash", ",range", "v,version", "a,omitempty,stringset", "x,,", "-,hash", "a,hash,range", "é,unixtime,string",
		`index:"by-a,hash" index:"by-b,hash"`, `dynamo:"e" index:"by-a,hash;by-b,range" localIndex:"by-c,range" localIndex:"by-d,range"`,
		`index:"q\"x" index:"by-b,hash"`, `index:"by-a,hash" index:by-b`, `index:"by-a,hash"index:"by-b,hash"`, "index:\"by-a\tb\"", `index:"unterminated`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		st := reflect.StructTag(s)
		for _, key := range []string{indexTagKey, localIndexTagKey, TagKey} {
			vals := tagValues(st, key)
			first, ok := st.Lookup(key)
			if ok != (len(vals) > 0) || ok && vals[0] != first {
				t.Fatalf("%q: tagValues(%s) = %q, Lookup = %q, %v", s, key, vals, first, ok)
			}
			var again []string
			for _, v := range vals {
				again = append(again, key+":"+strconv.Quote(v))
			}
			if back := tagValues(reflect.StructTag(strings.Join(again, " ")), key); !reflect.DeepEqual(back, vals) {
				t.Fatalf("%q: values %q written out read back as %q", s, vals, back)
			}
		}
		if idx, err := parseIndexTags(st); err == nil {
			seen := map[string]bool{}
			for _, it := range idx {
				if seen[it.name] || checkIndexName(it.name) != nil {
					t.Fatalf("%q: accepted %+v", s, idx)
				}
				seen[it.name] = true
			}
		}

		tg, err := parseTag(s)
		if err != nil {
			if tg.skip {
				t.Fatalf("%q: error %v but skip set", s, err)
			}
			return
		}
		if tg.skip {
			if s != "-" {
				t.Fatalf("%q: skip set for a tag other than \"-\"", s)
			}
			return
		}
		if tg.hash && tg.rng || tg.version && (tg.hash || tg.rng) || tg.omitEmpty && tg.nullEmpty {
			t.Fatalf("%q: contradictory options accepted: %+v", s, tg)
		}
		opts := tg.avOptions()
		for _, o := range []struct {
			set  bool
			name string
		}{{tg.hash, "hash"}, {tg.rng, "range"}, {tg.version, "version"}} {
			if o.set {
				opts = append(opts, o.name)
			}
		}
		text := tg.name
		if len(opts) > 0 {
			text += "," + strings.Join(opts, ",")
		}
		again, err := parseTag(text)
		if err != nil {
			t.Fatalf("%q parsed, but its rendering %q did not: %v", s, text, err)
		}
		if again != tg {
			t.Fatalf("%q: %+v, rendered %q: %+v", s, tg, text, again)
		}
		if strings.Count(s, ",") != len(opts) {
			t.Fatalf("%q: %d options kept of %d given", s, len(opts), strings.Count(s, ","))
		}
	})
}

func TestSchemaErrorMessage(t *testing.T) {
	err := newTableErr[stringVersion]()
	assert.Equal(t, "mapper: mapper.stringVersion.V: the version field must be an integer (int, int64, uint32, ...), not string", err.Error())
	assert.True(t, errors.Is(err, ErrInvalidSchema))
}
