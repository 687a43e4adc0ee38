package engine

import (
	"fmt"
	"math/rand/v2"
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// BenchmarkStoreLoad is the storage's share of a load: n items (the
// shape of scale_bench_test.go's, about 104 bytes) put in random key order
// straight into a table's store, with a GSI, an LSI and TTL (indexed) or
// without: no request, JSON or SDK. STORE_ITEMS sets n (default 1000000).
func BenchmarkStoreLoad(b *testing.B) {
	n := 1000000
	if env := os.Getenv("STORE_ITEMS"); env != "" {
		var err error
		if n, err = strconv.Atoi(env); err != nil {
			b.Fatal(err)
		}
	}
	S := func(s string) types.AttributeValue { return &types.AttributeValueMemberS{Value: s} }
	N := func(i int) types.AttributeValue { return &types.AttributeValueMemberN{Value: strconv.Itoa(i)} }
	for _, indexed := range []bool{true, false} {
		b.Run(fmt.Sprintf("items=%d/indexed=%t", n, indexed), func(b *testing.B) {
			for b.Loop() {
				var before, after runtime.MemStats
				runtime.GC()
				runtime.ReadMemStats(&before)
				tb := &table{hash: keyDef{"pk", "S"}, rng: keyDef{"sk", "S"}, items: newStore()}
				if indexed {
					tb.gsis = []*index{{name: "gsi", global: true, hash: keyDef{"gh", "S"}, rng: keyDef{"gr", "N"}, projType: "ALL"}}
					tb.lsis = []*index{{name: "lsi", hash: keyDef{"pk", "S"}, rng: keyDef{"ls", "N"}, projType: "ALL"}}
					tb.items.syncIndexes(tb)
					tb.items.setTTL("exp")
				}
				for _, i := range rand.New(rand.NewPCG(1, 2)).Perm(n) {
					m := map[string]types.AttributeValue{"pk": S(fmt.Sprintf("p%07d", i/100)), "sk": S(fmt.Sprintf("s%05d", i%100)),
						"gh": S(fmt.Sprintf("g%05d", i%max(1, n/100))), "gr": N(i * 7919 % 1000003), "ls": N(99 - i%100),
						"exp": N(1900000000), "d": S(strings.Repeat("x", 58))}
					tb.items.put("pk", "sk", m)
				}
				runtime.GC()
				runtime.ReadMemStats(&after)
				b.ReportMetric(float64(after.HeapAlloc-before.HeapAlloc)/float64(n), "heapB/item")
				runtime.KeepAlive(tb)
			}
		})
	}
}
