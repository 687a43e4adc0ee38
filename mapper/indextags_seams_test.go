package mapper

import (
	"reflect"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestTagValues(t *testing.T) {
	cases := []struct {
		tag  reflect.StructTag
		want []string
	}{
		{``, nil},
		{`index:"a-b,hash"`, []string{"a-b,hash"}},
		{`index:"a-b,hash" index:"c-d,range"`, []string{"a-b,hash", "c-d,range"}},
		{`dynamo:"x" index:"a-b,hash"  json:"y" index:"c-d,hash"`, []string{"a-b,hash", "c-d,hash"}},
		{`index:"q\"uote" index:"tab\there"`, []string{`q"uote`, "tab\there"}},
		{`localIndex:"a-b,range"`, nil},                      // another key
		{`xindex:"a-b,hash" indexx:"c"`, nil},                // keys are whole words
		{`index:"a-b,hash" index:c-d`, []string{"a-b,hash"}}, // stops at a malformed pair, as Lookup does
		{`index:"a-b,hash" bad index:"c-d,hash"`, []string{"a-b,hash"}},
		{`index:"unterminated`, nil},
		{`index:"bad \q escape" index:"c-d,hash"`, nil},
	}
	for _, c := range cases {
		got := tagValues(c.tag, "index")
		assert.Equal(t, c.want, got, "%s", c.tag)
		first, ok := c.tag.Lookup("index")
		if assert.Equal(t, ok, len(got) > 0, "%s: Lookup agrees on presence", c.tag) && ok {
			assert.Equal(t, first, got[0], "%s: Lookup agrees on the first value", c.tag)
		}
	}
}

func TestParseIndexTagsRepeated(t *testing.T) {
	got, err := parseIndexTags(`index:"by-a,hash" index:"by-b,range;by-c,hash" localIndex:"by-d,range" localIndex:"by-e,range"`)
	require.NoError(t, err)
	assert.Equal(t, []indexTag{
		{name: "by-a"}, {name: "by-b", rng: true}, {name: "by-c"},
		{name: "by-d", local: true, rng: true}, {name: "by-e", local: true, rng: true},
	}, got)

	for tag, want := range map[reflect.StructTag]string{
		`index:"by-a,hash" index:"by-a,range"`:           "index by-a is named twice on one field",
		`index:"by-a,hash" localIndex:"by-a,range"`:      "index by-a is named twice on one field",
		`index:"by-a,hash" index:""`:                     "empty index tag",
		`index:"by-a,hash" index:"by-b"`:                 "hash or the range key of index by-b",
		`localIndex:"by-a,range" localIndex:"by-b,hash"`: "a local index shares the table's hash key",
	} {
		_, err := parseIndexTags(tag)
		assert.ErrorContains(t, err, want, "%s", tag)
	}
}
