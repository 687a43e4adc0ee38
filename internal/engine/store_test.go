package engine

import (
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/require"
)

// TestStoreKeepsIndexesAndTTL writes and deletes random items, some
// without an index key or with one of another type, and checks after each
// round that every index's tree, its count and size, the TTL order and the
// table's count and size are what a walk over the items computes.
// The table's hash key is a string, then a number (whose order in ties
// between index entries is read from partition parts).
func TestStoreKeepsIndexesAndTTL(t *testing.T) {
	for _, typ := range []string{"S", "N"} {
		t.Run("hash="+typ, func(t *testing.T) { testStoreKeeps(t, typ) })
	}
}

func testStoreKeeps(t *testing.T, hashType string) {
	tb := &table{hash: keyDef{"pk", hashType}, rng: keyDef{"sk", "N"}, items: newStore()}
	tb.gsis = []*index{{name: "g", global: true, hash: keyDef{"g", "S"}, rng: keyDef{"gr", "N"}, projType: "KEYS_ONLY"},
		{name: "h", global: true, hash: keyDef{"g", "N"}, projType: "ALL"}}
	tb.lsis = []*index{{name: "l", hash: keyDef{"pk", hashType}, rng: keyDef{"l", "S"}, projType: "INCLUDE", nonKey: []string{"x"}}}
	st := tb.items
	st.syncIndexes(tb)
	st.setTTL("exp")
	rng := rand.New(rand.NewPCG(5, 6))
	S := func(s string) types.AttributeValue { return &types.AttributeValueMemberS{Value: s} }
	N := func(i int) types.AttributeValue { return &types.AttributeValueMemberN{Value: strconv.Itoa(i)} }
	randItem := func() map[string]types.AttributeValue {
		m := map[string]types.AttributeValue{"pk": S("p" + strconv.Itoa(rng.IntN(20))), "sk": N(rng.IntN(30) - 10)}
		if hashType == "N" {
			m["pk"] = N(rng.IntN(40) - 20)
		}
		switch rng.IntN(3) {
		case 0:
			m["g"] = S("g" + strconv.Itoa(rng.IntN(5)))
		case 1:
			m["g"] = N(rng.IntN(5))
		}
		if rng.IntN(4) > 0 {
			m["gr"] = N(rng.IntN(10))
		}
		if rng.IntN(2) == 0 {
			m["l"] = S(strconv.Itoa(rng.IntN(10)))
		}
		if rng.IntN(2) == 0 {
			m["exp"] = N(rng.IntN(1000))
		}
		m["x"] = S("xx")
		return m
	}
	// Index "h" comes once the table holds items, and "g" goes: the
	// items are stored anew with their key strings for "h" (see
	// store.syncIndexes), and "g"'s stay in them unused.
	h := tb.gsis[1]
	tb.gsis = tb.gsis[:1]
	st.syncIndexes(tb)
	for round := range 200 {
		switch round {
		case 60:
			tb.gsis = append(tb.gsis, h)
			st.syncIndexes(tb)
		case 120:
			tb.gsis = tb.gsis[1:]
			st.syncIndexes(tb)
		}
		for range 20 {
			m := randItem()
			if rng.IntN(3) == 0 {
				st.remove(m["pk"], m["sk"])
			} else {
				st.put("pk", "sk", m)
			}
		}
		if round%10 != 0 {
			continue
		}
		var all []entry
		var bytes int64
		st.all(func(en entry) bool { all = append(all, en); bytes += int64(en.size()); return true })
		require.True(t, slices.IsSortedFunc(all, func(a, b entry) int {
			return refCompare(a.item(), b.item(), [][2]string{{"pk", "P"}, {"sk", "R"}})
		}))
		require.Equal(t, len(all), st.count)
		require.Equal(t, bytes, st.bytes)
		for _, ix := range append(append([]*index(nil), tb.gsis...), tb.lsis...) {
			var want []entry
			var size int64
			for _, en := range all {
				full := en.item()
				if p := tb.project(ix, full); p != nil {
					want = append(want, en)
				}
				for _, k := range []keyDef{ix.hash, ix.rng} {
					if _, ok := full[k.name]; ok && k.name != "" && k.name != tb.hash.name {
						size += int64(en.size())
						break
					}
				}
			}
			order := [][2]string{{ix.hash.name, "P"}, {ix.rng.name, "R"}, {"pk", "R"}, {"sk", "R"}}
			slices.SortFunc(want, func(a, b entry) int { return refCompare(a.item(), b.item(), order) })
			var got []ixEntry
			c := ix.st.tree.First()
			for x, ok := c.Next(); ok; x, ok = c.Next() {
				got = append(got, x)
			}
			require.Equal(t, len(want), len(got), ix.name)
			for i := range want {
				require.Equal(t, want[i], got[i].en, ix.name)
				m := want[i].item()
				k, ok := ix.st.appendKey(nil, func(name string) (byte, string) { return valueParts(m[name]) })
				require.True(t, ok)
				require.Equal(t, string(k), got[i].key(), ix.name)
			}
			n, sz := tb.indexStats(ix)
			require.Equal(t, int64(len(want)), n)
			require.Equal(t, size, sz, ix.name)
		}
		var ttls []ttlEntry
		for _, en := range all {
			if exp, ok := ttlOf(en.item()["exp"]); ok {
				ttls = append(ttls, newTTLEntry(exp, en))
			}
		}
		slices.SortFunc(ttls, compareTTL)
		var got []ttlEntry
		c := st.ttl.First()
		for x, ok := c.Next(); ok; x, ok = c.Next() {
			got = append(got, x)
		}
		require.Equal(t, ttls, got)
	}
}

// refCompare orders two items as the trees must, by key values rather
// than key strings: by each named attribute in turn, P by its encodeKey
// text (the order of partitions), R in DynamoDB's order of key values;
// an absent attribute (a key the index lacks) compares equal.
func refCompare(a, b map[string]types.AttributeValue, order [][2]string) int {
	for _, o := range order {
		x, y := a[o[0]], b[o[0]]
		if o[0] == "" || x == nil || y == nil {
			continue
		}
		c := compareKeys(x, y)
		if o[1] == "P" {
			c = strings.Compare(encodeKey(x), encodeKey(y))
		}
		if c != 0 {
			return c
		}
	}
	return 0
}
