package engine

import (
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/require"
)

// randKeyValue draws a key value of type typ: numbers of many spellings,
// signs and exponents, in stored form; strings and binaries
// with 0x00 and 0xFF bytes and common prefixes.
func randKeyValue(rng *rand.Rand, typ string) types.AttributeValue {
	if typ == "N" {
		spellings := []string{"0", "-0", "0.0", "1", "1.0", "01", "10", "1e1", "-1", "-10", "-1E1", "0.001", "1e-3",
			"-0.001", "99999999999999999999999999999999999999", "-99999999999999999999999999999999999999",
			"1E125", "-1E125", "1e-130", "-1e-130", "123.456", "-123.456", "123.4560", "5", "50", "500", "-5", "-50", "-0.5"}
		text := strconv.FormatFloat((rng.Float64()-0.5)*1e6, 'f', rng.IntN(5), 64)
		if rng.IntN(2) == 0 {
			text = spellings[rng.IntN(len(spellings))]
		}
		n, err := number(text) // the stored form, as compareKeys reads it
		if err != nil {
			panic(err)
		}
		return &types.AttributeValueMemberN{Value: n}
	}
	alphabet := []byte{0, 1, 'a', 'b', 0xFF}
	b := make([]byte, rng.IntN(4))
	for i := range b {
		b[i] = alphabet[rng.IntN(len(alphabet))]
	}
	if typ == "B" {
		return &types.AttributeValueMemberB{Value: b}
	}
	return &types.AttributeValueMemberS{Value: string(b)}
}

// TestOrderedKeyParts holds the ordered parts to DynamoDB's order of key
// values (compareKeys): for every pair, the comparison of the parts, and
// of the parts followed by other bytes (a tail), is that of the values.
func TestOrderedKeyParts(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for _, typ := range []string{"S", "N", "B"} {
		for range 20000 {
			a, b := randKeyValue(rng, typ), randKeyValue(rng, typ)
			ta, xa := valueParts(a)
			tb, xb := valueParts(b)
			pa, pb := string(appendOrdered(nil, ta, xa)), string(appendOrdered(nil, tb, xb))
			// Plain comparisons, not testify's: this runs 60,000 times.
			want := compareKeys(a, b)
			if got := strings.Compare(pa, pb); got != want {
				t.Fatalf("%s %q %q: parts compare %d, want %d", typ, xa, xb, got, want)
			}
			if want != 0 {
				if got := strings.Compare(pa+"\xff\xff", pb+"\x00"); got != want {
					t.Fatalf("%s %q %q with tails: parts compare %d, want %d", typ, xa, xb, got, want)
				}
				if strings.HasPrefix(pa, pb) || strings.HasPrefix(pb, pa) {
					t.Fatalf("%s %q %q: parts are not prefix-free", typ, xa, xb)
				}
			}
		}
	}
}

// TestKeyRange holds keyRange to the key condition it stands for: over
// random range key values of a partition, the key strings in [lo, hi) are
// those of the values the condition accepts.
func TestKeyRange(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	for _, typ := range []string{"S", "N", "B"} {
		var vals []types.AttributeValue
		for range 300 {
			vals = append(vals, randKeyValue(rng, typ))
		}
		ops := []string{"=", "<", "<=", ">", ">=", "BETWEEN"}
		if typ != "N" {
			ops = append(ops, "begins_with")
		}
		pp := encodeKey(&types.AttributeValueMemberS{Value: "p"})
		for range 300 {
			rc := &keyCond{op: ops[rng.IntN(len(ops))], vals: []types.AttributeValue{randKeyValue(rng, typ), randKeyValue(rng, typ)}}
			lo, hi := keyRange(pp, rc)
			for _, v := range vals {
				tag, text := valueParts(v)
				// A plain comparison, not require.Equal: this runs 540,000
				// times, and testify's reflection made the test slow under
				// the race detector.
				want := acceptsRef(rc, v)
				for _, k := range []string{string(appendOrdered([]byte(pp), tag, text)), string(appendOrdered([]byte(pp), tag, text)) + "S1:x"} {
					if got := k >= lo && below(k, hi); got != want {
						t.Fatalf("%s %s %v on %q: in range %v, want %v", typ, rc.op, rc.vals, text, got, want)
					}
				}
			}
		}
		// Other partitions stay out, whatever the condition.
		lo, hi := keyRange(pp, nil)
		for _, other := range []string{"S0:", "S2:pp", "S1:o", "S1:q", "N1:1"} {
			require.False(t, other >= lo && below(other, hi), other)
		}
		require.True(t, pp+"\x00" >= lo && below(pp+"\x00", hi), "a key of the partition")
	}
}

// acceptsRef is what a key condition accepts, by compareKeys.
func acceptsRef(rc *keyCond, v types.AttributeValue) bool {
	c := compareKeys(v, rc.vals[0])
	switch rc.op {
	case "=":
		return c == 0
	case "<":
		return c < 0
	case "<=":
		return c <= 0
	case ">":
		return c > 0
	case ">=":
		return c >= 0
	case "BETWEEN":
		return c >= 0 && compareKeys(v, rc.vals[1]) <= 0
	}
	_, text := valueParts(v)
	_, p := valueParts(rc.vals[0])
	return strings.HasPrefix(text, p)
}

// TestPartitionPart holds appendPartition, which reads stored values, to
// encodeKey, which reads the SDK's, and partitionOf to both.
func TestPartitionPart(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	for _, typ := range []string{"S", "N", "B"} {
		for range 2000 {
			v := randKeyValue(rng, typ)
			tag, text := valueParts(v)
			p := string(appendPartition(nil, tag, text))
			require.Equal(t, encodeKey(v), p)
			require.Equal(t, p, partitionOf(p+string(appendOrdered(nil, tag, text))))
		}
	}
}
