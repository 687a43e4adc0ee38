package mapper_test

import (
	"context"
	"encoding/binary"
	"errors"
	"math/big"
	"net/netip"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/optimist-dynamo/optimist/dynamolocal"
	"github.com/optimist-dynamo/optimist/internal/ddbtest"
	"github.com/optimist-dynamo/optimist/mapper"
	"github.com/optimist-dynamo/optimist/version"
)

// money implements encoding.BinaryMarshaler only: stored as B.
type money struct {
	units int64
	cur   string
}

func (m money) MarshalBinary() ([]byte, error) {
	return append(binary.BigEndian.AppendUint64(nil, uint64(m.units)), m.cur...), nil
}

func (m *money) UnmarshalBinary(b []byte) error {
	if len(b) < 8 {
		return errors.New("money: short")
	}
	m.units, m.cur = int64(binary.BigEndian.Uint64(b)), string(b[8:])
	return nil
}

type leaf struct {
	Name *string `dynamo:"name"`
	N    **int   `dynamo:"n"`
}

type Host struct {
	ID      netip.Addr   `dynamo:"id,hash"` // a TextMarshaler as the key
	Addr    netip.Addr   `dynamo:"addr"`
	Prefix  netip.Prefix `dynamo:"prefix"`
	Created time.Time    `dynamo:"created"`
	Expires time.Time    `dynamo:"expires,unixtime"`
	Big     *big.Int     `dynamo:"big"`
	BigV    big.Int      `dynamo:"bigv"`
	Cash    money        `dynamo:"cash"`
	Nested  *struct {
		Leaf  *leaf `dynamo:"leaf"`
		Leafs []*leaf
	} `dynamo:"nested"`
	Tags    []string `dynamo:"tags,stringset"`
	Ports   []int    `dynamo:"ports,numberset"`
	Blobs   [][]byte `dynamo:"blobs,binaryset"`
	Version int64    `dynamo:"v,version"`
}

// TestRoundTripTypes writes values of types attributevalue alone loses
// (netip.Addr was stored as an empty map) and reads them back from DynamoDB
// Local, checking how each is stored too.
func TestRoundTripTypes(t *testing.T) {
	ctx := context.Background()
	raw := dynamolocal.New(t).Client()
	name := ddbtest.CreateTable(t, raw, "id", types.ScalarAttributeTypeS, "", "")
	hosts, err := mapper.NewTable[Host](raw, name)
	require.NoError(t, err)

	big1, _ := new(big.Int).SetString("-123456789012345678901234567890123456789012345678901234567890", 10)
	s, n := "leaf", 7
	pn := &n
	in := Host{
		ID:      netip.MustParseAddr("2001:db8::1"),
		Addr:    netip.MustParseAddr("192.0.2.7"),
		Prefix:  netip.MustParsePrefix("10.0.0.0/8"),
		Created: time.Date(2026, 11, 23, 18, 0, 0, 123456789, time.FixedZone("CET", 3600)),
		Expires: time.Unix(1_800_000_000, 0),
		Big:     big1,
		Cash:    money{units: -4200, cur: "EUR"},
		Tags:    []string{}, // empty sets: not stored, read back nil
		Ports:   nil,
		Blobs:   [][]byte{},
	}
	in.BigV.SetInt64(42)
	in.Nested = &struct {
		Leaf  *leaf `dynamo:"leaf"`
		Leafs []*leaf
	}{Leaf: &leaf{Name: &s, N: &pn}, Leafs: []*leaf{{Name: &s}, nil}}
	require.NoError(t, hosts.Put(ctx, &in))

	item, err := raw.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(name),
		Key: map[string]types.AttributeValue{"id": &types.AttributeValueMemberS{Value: "2001:db8::1"}}})
	require.NoError(t, err)
	require.NotNil(t, item.Item, "the key is stored as the address's text")
	assert.Equal(t, &types.AttributeValueMemberS{Value: "192.0.2.7"}, item.Item["addr"])
	assert.Equal(t, &types.AttributeValueMemberS{Value: "10.0.0.0/8"}, item.Item["prefix"])
	assert.Equal(t, &types.AttributeValueMemberS{Value: big1.String()}, item.Item["big"], "big.Int as text: no digits lost")
	assert.Equal(t, &types.AttributeValueMemberN{Value: "1800000000"}, item.Item["expires"], "unixtime stays a number")
	assert.Equal(t, &types.AttributeValueMemberS{Value: "2026-11-23T18:00:00.123456789+01:00"}, item.Item["created"])
	assert.IsType(t, &types.AttributeValueMemberB{}, item.Item["cash"], "a BinaryMarshaler is stored as B")
	for _, set := range []string{"tags", "ports", "blobs"} {
		assert.NotContains(t, item.Item, set, "an empty set is not stored")
	}

	out, err := hosts.Get(ctx, Host{ID: in.ID})
	require.NoError(t, err)
	assert.Equal(t, in.ID, out.ID)
	assert.Equal(t, in.Addr, out.Addr)
	assert.Equal(t, in.Prefix, out.Prefix)
	assert.True(t, in.Created.Equal(out.Created), "%v != %v", in.Created, out.Created)
	_, offset := out.Created.Zone()
	assert.Equal(t, 3600, offset, "the offset is kept")
	assert.True(t, in.Expires.Equal(out.Expires))
	assert.Equal(t, 0, in.Big.Cmp(out.Big), "%v != %v", in.Big, out.Big)
	assert.Equal(t, 0, in.BigV.Cmp(&out.BigV))
	assert.Equal(t, in.Cash, out.Cash)
	require.NotNil(t, out.Nested)
	require.NotNil(t, out.Nested.Leaf)
	assert.Equal(t, s, *out.Nested.Leaf.Name)
	assert.Equal(t, n, **out.Nested.Leaf.N)
	require.Len(t, out.Nested.Leafs, 2)
	assert.Equal(t, s, *out.Nested.Leafs[0].Name)
	assert.Nil(t, out.Nested.Leafs[0].N)
	assert.Nil(t, out.Nested.Leafs[1])
	assert.Nil(t, out.Tags, "empty sets read back nil, as mapper's doc says")
	assert.Nil(t, out.Ports)
	assert.Nil(t, out.Blobs)
	assert.Equal(t, int64(1), out.Version)

	// Sets with elements read back as written.
	out.Tags, out.Ports, out.Blobs = []string{"a", "b"}, []int{80, 443}, [][]byte{{1}, {2, 3}}
	require.NoError(t, hosts.Put(ctx, out))
	again, err := hosts.Get(ctx, Host{ID: in.ID})
	require.NoError(t, err)
	assert.ElementsMatch(t, out.Tags, again.Tags)
	assert.ElementsMatch(t, out.Ports, again.Ports)
	assert.ElementsMatch(t, out.Blobs, again.Blobs)
}

type Legacy struct {
	ID      string `dynamo:"id,hash"`
	N       int    `dynamo:"n"`
	Version int64  `dynamo:"version,version"`
}

// TestVersionZeroMigration: an item stored with version 0 by raw SDK calls
// (as Java's DynamoDBMapper v1 left them) conflicts by default, with a
// message that says version 0, not "no version attribute"; with
// TableOptions.VersionZeroExists, Modify and Put write it back under
// "v = 0" and store version 1.
func TestVersionZeroMigration(t *testing.T) {
	ctx := context.Background()
	raw := dynamolocal.New(t).Client()
	name := ddbtest.CreateTable(t, raw, "id", types.ScalarAttributeTypeS, "", "")
	putRaw := func(id string, attrs map[string]types.AttributeValue) {
		attrs["id"] = &types.AttributeValueMemberS{Value: id}
		_, err := raw.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(name), Item: attrs})
		require.NoError(t, err)
	}
	putRaw("zero", map[string]types.AttributeValue{"n": &types.AttributeValueMemberN{Value: "5"}, "version": &types.AttributeValueMemberN{Value: "0"}})
	putRaw("none", map[string]types.AttributeValue{"n": &types.AttributeValueMemberN{Value: "5"}})
	inc := func(l *Legacy) error { l.N++; return nil }

	plain, err := mapper.NewTable[Legacy](raw, name)
	require.NoError(t, err)
	_, err = plain.Modify(ctx, Legacy{ID: "zero"}, inc)
	var ce *version.ConflictError
	require.ErrorAs(t, err, &ce)
	assert.False(t, ce.ActualMissing, "the item has version 0")
	assert.Contains(t, err.Error(), "stores version 0")
	assert.Contains(t, err.Error(), "VersionZeroExists")
	assert.NotContains(t, err.Error(), "without a version attribute")
	_, err = plain.Modify(ctx, Legacy{ID: "none"}, inc)
	require.ErrorAs(t, err, &ce)
	assert.True(t, ce.ActualMissing)
	assert.Contains(t, err.Error(), "without a version attribute")

	calls := ddbtest.NewCounting(raw)
	migrated, err := mapper.NewTable[Legacy](calls, name, func(o *mapper.TableOptions) { o.VersionZeroExists = true })
	require.NoError(t, err)
	got, err := migrated.Modify(ctx, Legacy{ID: "zero"}, inc)
	require.NoError(t, err)
	assert.Equal(t, Legacy{ID: "zero", N: 6, Version: 1}, *got)
	assert.Equal(t, int64(1), calls.Count("PutItem"), "one write: v = 0 held")
	stored, err := plain.Get(ctx, Legacy{ID: "zero"})
	require.NoError(t, err)
	assert.Equal(t, Legacy{ID: "zero", N: 6, Version: 1}, *stored, "stored as version 1")

	// Put of a struct read with version 0 (a second legacy item).
	putRaw("zero2", map[string]types.AttributeValue{"n": &types.AttributeValueMemberN{Value: "1"}, "version": &types.AttributeValueMemberN{Value: "0"}})
	l, err := migrated.Get(ctx, Legacy{ID: "zero2"})
	require.NoError(t, err)
	require.Equal(t, int64(0), l.Version)
	stale := *l
	l.N = 10
	require.NoError(t, migrated.Put(ctx, l))
	assert.Equal(t, int64(1), l.Version)
	err = migrated.Put(ctx, &stale)
	require.ErrorAs(t, err, &ce, "version 0 is a version like any other: a stale copy conflicts")
	assert.Equal(t, int64(1), ce.Actual)

	// Creating still works, and an item without a version still conflicts.
	require.NoError(t, migrated.Put(ctx, &Legacy{ID: "new", N: 1}))
	_, err = migrated.Modify(ctx, Legacy{ID: "none"}, inc)
	require.ErrorAs(t, err, &ce)
	assert.True(t, ce.ActualMissing)
}
