package mapper

import (
	"context"
	"reflect"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/optimist-dynamo/optimist/internal/tabledef"
)

// Bad index and ttl tags, each refused by NewTable with its own message.
type (
	idxUnknownRole struct {
		A string `dynamo:",hash"`
		B string `index:"by-b,hsh"`
	}
	idxNoRole struct {
		A string `dynamo:",hash"`
		B string `index:"by-b"`
	}
	idxRangeNoHash struct {
		A string `dynamo:",hash"`
		B string `index:"by-b,range"`
	}
	idxTwoHash struct {
		A string `dynamo:",hash"`
		B string `index:"by-b,hash"`
		C string `index:"by-b,hash"`
	}
	idxTwoRange struct {
		A string `dynamo:",hash"`
		B string `index:"by-b,hash"`
		C string `index:"by-b,range"`
		D string `index:"by-b,range"`
	}
	idxHashAndRange struct {
		A string `dynamo:",hash"`
		B string `index:"by-b,hash;by-b,range"`
	}
	idxBadType struct {
		A string `dynamo:",hash"`
		B bool   `index:"by-b,hash"`
	}
	idxShortName struct {
		A string `dynamo:",hash"`
		B string `index:"b,hash"`
	}
	idxBadName struct {
		A string `dynamo:",hash"`
		B string `index:"by b,hash"`
	}
	idxEmpty struct {
		A string `dynamo:",hash"`
		B string `index:""`
	}
	idxSet struct {
		A string `dynamo:",hash"`
		B string `dynamo:",nullempty" index:"by-b,hash"`
	}
	idxSkipped struct {
		A string `dynamo:",hash"`
		B string `dynamo:"-" index:"by-b,hash"`
	}
	lsiNoRange struct {
		A string `dynamo:",hash"`
		B string `localIndex:"by-b,range"`
	}
	lsiHash struct {
		A string `dynamo:",hash"`
		S string `dynamo:",range"`
		B string `localIndex:"by-b,hash"`
	}
	lsiTableRange struct {
		A string `dynamo:",hash"`
		S string `dynamo:",range" localIndex:"by-s,range"`
	}
	lsiTwoRange struct {
		A string `dynamo:",hash"`
		S string `dynamo:",range"`
		B string `localIndex:"by-b,range"`
		C string `localIndex:"by-b,range"`
	}
	globalAndLocal struct {
		A string `dynamo:",hash"`
		S string `dynamo:",range"`
		B string `localIndex:"by-b,range"`
		C string `index:"by-b,hash"`
	}
	ttlTwo struct {
		A string `dynamo:",hash"`
		T int64  `dynamo:",ttl"`
		U int64  `dynamo:",ttl"`
	}
	ttlTime struct {
		A string    `dynamo:",hash"`
		T time.Time `dynamo:"exp,ttl"`
	}
	ttlString struct {
		A string `dynamo:",hash"`
		T string `dynamo:",ttl"`
	}
	ttlAsString struct {
		A string `dynamo:",hash"`
		T int64  `dynamo:",ttl,string"`
	}
	ttlFloat struct {
		A string  `dynamo:",hash"`
		T float64 `dynamo:",ttl"`
	}
	ttlKey struct {
		A int64 `dynamo:",hash,ttl"`
	}
)

func TestIndexAndTTLTagsRefused(t *testing.T) {
	cases := []struct {
		name  string
		build func() error
		field string
		want  string
	}{
		{"unknown role", newTableErr[idxUnknownRole], "B", `unknown option "hsh"`},
		{"no role", newTableErr[idxNoRole], "B", "hash or the range key of index by-b"},
		{"range without hash", newTableErr[idxRangeNoHash], "B", "index by-b has a range key but no hash key"},
		{"two hash", newTableErr[idxTwoHash], "C", "index by-b has a second hash key (the first is B)"},
		{"two range", newTableErr[idxTwoRange], "D", "index by-b has a second range key (the first is C)"},
		{"hash and range", newTableErr[idxHashAndRange], "B", "index by-b is named twice on one field"},
		{"bad type", newTableErr[idxBadType], "B", "index key: a key must be stored as a string, number or binary"},
		{"short name", newTableErr[idxShortName], "B", "3 to 255 characters"},
		{"bad name", newTableErr[idxBadName], "B", "only letters, digits"},
		{"empty tag", newTableErr[idxEmpty], "B", "empty index tag"},
		{"nullempty", newTableErr[idxSet], "B", "cannot take nullempty"},
		{"skipped", newTableErr[idxSkipped], "B", "cannot be an index key"},
		{"local index, no range key", newTableErr[lsiNoRange], "B", "needs a table with a range key"},
		{"local index hash", newTableErr[lsiHash], "B", "shares the table's hash key"},
		{"local index on the table's range", newTableErr[lsiTableRange], "S", "must differ from the table's range key"},
		{"local index, two ranges", newTableErr[lsiTwoRange], "C", "local index by-b has a second range key"},
		{"global and local", newTableErr[globalAndLocal], "C", "both as a global index"},
		{"two ttl", newTableErr[ttlTwo], "U", "second ttl field (the first is T)"},
		{"ttl time without unixtime", newTableErr[ttlTime], "T", "tag the time.Time ttl field unixtime"},
		{"ttl string", newTableErr[ttlString], "T", "must be an integer of epoch seconds"},
		{"ttl stored as string", newTableErr[ttlAsString], "T", "not with the string option"},
		{"ttl float", newTableErr[ttlFloat], "T", "must be an integer of epoch seconds"},
		{"ttl key", newTableErr[ttlKey], "A", "ttl field cannot be a key"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.build()
			require.ErrorIs(t, err, ErrInvalidSchema)
			var se *SchemaError
			require.ErrorAs(t, err, &se)
			assert.Equal(t, tc.field, se.Field)
			assert.Contains(t, se.Problem, tc.want)
		})
	}
}

type indexed struct {
	User   string     `dynamo:"user,hash" index:"by-seq,range"`
	At     time.Time  `dynamo:"at,range"`
	Seq    int64      `dynamo:"seq" localIndex:"by-user-seq,range" index:"by-seq,hash"`
	UUID   string     `dynamo:"uuid,omitempty" index:"by-uuid,hash"`
	Email  *string    `dynamo:"email,omitempty" index:"by-email,hash;by-email-seq,hash"`
	Rank   []byte     `dynamo:"rank" index:"by-email-seq,range"`
	Expiry *time.Time `dynamo:"expiry,ttl,unixtime"`
}

func TestIndexSchema(t *testing.T) {
	s, err := schemaOf(reflect.TypeOf(indexed{}))
	require.NoError(t, err)
	assert.Equal(t, "expiry", s.ttl.name)
	type ix struct {
		name      string
		local     bool
		hash, rng string
	}
	var got []ix
	for _, i := range s.indexes {
		x := ix{name: i.name, local: i.local, hash: i.hash.name}
		if i.rng != nil {
			x.rng = i.rng.name
		}
		got = append(got, x)
	}
	assert.Equal(t, []ix{
		{"by-seq", false, "seq", "user"},
		{"by-user-seq", true, "user", "seq"},
		{"by-uuid", false, "uuid", ""},
		{"by-email", false, "email", ""},
		{"by-email-seq", false, "email", "rank"},
	}, got)

	d, err := s.tableDef("t", &CreateOptions{})
	require.NoError(t, err)
	assert.Equal(t, "S", string(d.Range.Type), "time.Time without unixtime is a string")
	in := createInput(t, d)
	defs := map[string]types.ScalarAttributeType{}
	for _, a := range in.AttributeDefinitions {
		defs[aws.ToString(a.AttributeName)] = a.AttributeType
	}
	assert.Equal(t, map[string]types.ScalarAttributeType{"user": "S", "at": "S", "seq": "N", "uuid": "S", "email": "S", "rank": "B"}, defs)
	assert.Len(t, in.GlobalSecondaryIndexes, 4)
	assert.Len(t, in.LocalSecondaryIndexes, 1)
	assert.Equal(t, types.BillingModePayPerRequest, in.BillingMode)
	assert.Nil(t, in.GlobalSecondaryIndexes[0].ProvisionedThroughput)
}

func TestCreateOptions(t *testing.T) {
	s, err := schemaOf(reflect.TypeOf(indexed{}))
	require.NoError(t, err)
	o := CreateOptions{}
	for _, fn := range []CreateOption{Provisioned(5, 4), IndexThroughput("by-uuid", 2, 1), ProjectKeysOnly("by-seq"), ProjectInclude("by-user-seq", "uuid", "email"), MaxWait(time.Second)} {
		fn(&o)
	}
	d, err := s.tableDef("t", &o)
	require.NoError(t, err)
	in := createInput(t, d)
	assert.Equal(t, types.BillingModeProvisioned, in.BillingMode)
	require.NotNil(t, in.ProvisionedThroughput)
	assert.Equal(t, int64(5), aws.ToInt64(in.ProvisionedThroughput.ReadCapacityUnits))
	for _, g := range in.GlobalSecondaryIndexes {
		want := int64(5)
		if aws.ToString(g.IndexName) == "by-uuid" {
			want = 2
		}
		require.NotNil(t, g.ProvisionedThroughput, aws.ToString(g.IndexName))
		assert.Equal(t, want, aws.ToInt64(g.ProvisionedThroughput.ReadCapacityUnits), aws.ToString(g.IndexName))
		wantProj := types.ProjectionTypeAll
		if aws.ToString(g.IndexName) == "by-seq" {
			wantProj = types.ProjectionTypeKeysOnly
		}
		assert.Equal(t, wantProj, g.Projection.ProjectionType)
	}
	assert.Equal(t, types.ProjectionTypeInclude, in.LocalSecondaryIndexes[0].Projection.ProjectionType)
	assert.Equal(t, []string{"uuid", "email", "optimist_unit"}, in.LocalSecondaryIndexes[0].Projection.NonKeyAttributes,
		"units' locks are projected, for readers of the index")
	assert.Equal(t, time.Second, d.Wait)

	for name, opts := range map[string][]CreateOption{
		"projection of unknown index": {ProjectKeysOnly("nope")},
		"include nothing":             {ProjectInclude("by-seq")},
		"index throughput on demand":  {IndexThroughput("by-seq", 1, 1)},
		"zero throughput":             {Provisioned(0, 1)},
		"negative wait":               {MaxWait(-time.Second)},
	} {
		err := CreateTable[indexed](context.Background(), panicClient{}, "t", opts...)
		assert.ErrorIs(t, err, ErrInvalidOption, name)
	}
}

// panicClient fails the test if any call is made.
type panicClient struct{ TableClient }

func createInput(t *testing.T, d *tabledef.Def) *dynamodb.CreateTableInput {
	t.Helper()
	return tabledef.Input(d)
}

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
