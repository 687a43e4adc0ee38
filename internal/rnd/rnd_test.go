package rnd

import (
	"testing"
	"testing/cryptotest"
	"time"
)

// TestSeeded shows that a fixed crypto/rand fixes every draw.
func TestSeeded(t *testing.T) {
	draw := func(t *testing.T) []uint64 {
		cryptotest.SetGlobalRandom(t, 7)
		var b [8]byte
		Read(b[:])
		return []uint64{uint64(b[0]), Uint64(), uint64(N(time.Second)), uint64(Float64() * 1e9), uint64(N(10))}
	}
	var a, b []uint64
	t.Run("a", func(t *testing.T) { a = draw(t) })
	t.Run("b", func(t *testing.T) { b = draw(t) })
	for i := range a {
		if a[i] != b[i] {
			t.Fatalf("draw %d: %d then %d under the same seed", i, a[i], b[i])
		}
	}
	if n := N(3); n < 0 || n >= 3 {
		t.Fatalf("N(3) = %d", n)
	}
}
