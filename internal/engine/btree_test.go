package engine

import (
	"cmp"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestBtreeAgainstSortedSlice puts and deletes random values, checking
// after each step of the way the tree's contents, lookups and cursors
// against a sorted slice.
func TestBtreeAgainstSortedSlice(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	tr := newBtree(cmp.Compare[int])
	var model []int
	check := func() {
		require.Equal(t, len(model), tr.Len())
		var got []int
		c := tr.First()
		for v, ok := c.Next(); ok; v, ok = c.Next() {
			got = append(got, v)
		}
		require.Equal(t, model, got)
		if len(model) == 0 {
			require.Empty(t, got)
		}
		// Seek to a random bound, then back and forth.
		b := rng.IntN(2000)
		c = tr.Seek(func(v int) bool { return v >= b })
		i, _ := slices.BinarySearch(model, b)
		if v, ok := c.Prev(); i > 0 {
			require.True(t, ok)
			require.Equal(t, model[i-1], v)
			c.Next()
		} else {
			require.False(t, ok)
			c = tr.Seek(func(v int) bool { return v >= b })
		}
		for j := i; j < min(len(model), i+70); j++ {
			v, ok := c.Next()
			require.True(t, ok)
			require.Equal(t, model[j], v)
		}
	}
	// Each step checks with plain comparisons, not testify's, and looks v
	// up in the model by binary search: 20,000 steps of reflection and
	// linear scans made the test slow under the race detector.
	for step := range 20000 {
		v := rng.IntN(2000)
		i, found := slices.BinarySearch(model, v)
		if rng.IntN(3) == 0 || (step > 12000 && rng.IntN(4) != 0) {
			if _, ok := tr.Delete(v); ok != found {
				t.Fatalf("step %d: Delete(%d) found %v, want %v", step, v, ok, found)
			}
			if found {
				model = slices.Delete(model, i, i+1)
			}
		} else {
			if _, replaced := tr.Put(v); replaced != found {
				t.Fatalf("step %d: Put(%d) replaced %v, want %v", step, v, replaced, found)
			}
			if !found {
				model = slices.Insert(model, i, v)
			}
		}
		got, ok := tr.Get(v)
		if _, in := slices.BinarySearch(model, v); ok != in || (ok && got != v) {
			t.Fatalf("step %d: Get(%d) = %d, %v; want it found %v", step, v, got, ok, in)
		}
		if step%97 == 0 {
			check()
		}
	}
	for _, v := range slices.Clone(model) {
		_, ok := tr.Delete(v)
		require.True(t, ok)
	}
	model = nil
	check()
}

// TestBtreeInOrder puts values in ascending and in descending order: the
// tree holds them in order, no leaf outgrows its capacity, and an
// ascending load fills its leaves.
func TestBtreeInOrder(t *testing.T) {
	const n = 5000
	for _, ascending := range []bool{true, false} {
		tr := newBtree(cmp.Compare[int])
		for i := range n {
			if ascending {
				tr.Put(i)
			} else {
				tr.Put(n - 1 - i)
			}
		}
		leaves, i := 0, 0
		for l := tr.First().n; l != nil; l = l.next {
			leaves++
			require.LessOrEqual(t, cap(l.vals), btreeLeaf)
			for _, v := range l.vals {
				require.Equal(t, i, v)
				i++
			}
		}
		require.Equal(t, n, i)
		if ascending {
			require.Equal(t, (n+btreeLeaf-1)/btreeLeaf, leaves)
		}
	}
}
