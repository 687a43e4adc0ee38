package engine

import "sort"

// btree is an ordered set of values of type T under cmp, a B+tree: the
// values sit in the leaves, which are linked both ways so that a cursor
// steps from one to the next in O(1); inner nodes hold, for each child but
// the first, a lower bound of the values under it. Search, insertion and
// deletion cost O(log n). A deletion that empties a leaf unlinks it, and
// an inner node left without children goes too; nodes are not merged
// otherwise, so a tree that shrank keeps its height (its bounds remain
// true: deleting values never invalidates a lower bound).
type btree[T any] struct {
	cmp  func(a, b T) int
	root *bnode[T]
	n    int
}

// Node capacities: a node splits when it would exceed them.
const (
	btreeLeaf  = 64
	btreeInner = 64
)

type bnode[T any] struct {
	// A leaf has vals, prev and next; an inner node kids and keys, keys[i]
	// a lower bound of the values under kids[i] (keys[0] unused).
	vals       []T
	prev, next *bnode[T]
	kids       []*bnode[T]
	keys       []T
}

func (n *bnode[T]) leaf() bool { return n.kids == nil }

func newBtree[T any](cmp func(a, b T) int) *btree[T] {
	return &btree[T]{cmp: cmp, root: &bnode[T]{}}
}

// Len is the number of values in the tree.
func (t *btree[T]) Len() int { return t.n }

// child is the index of the child of inner node n where a search for v
// goes: the last whose lower bound is not above v.
func (t *btree[T]) child(n *bnode[T], v T) int {
	i := sort.Search(len(n.keys)-1, func(i int) bool { return t.cmp(n.keys[i+1], v) > 0 })
	return i
}

// Get returns the value equal to v under cmp.
func (t *btree[T]) Get(v T) (T, bool) {
	n := t.root
	for !n.leaf() {
		n = n.kids[t.child(n, v)]
	}
	i, ok := t.find(n, v)
	if !ok {
		var zero T
		return zero, false
	}
	return n.vals[i], true
}

// find is the position of v in leaf n, or where it would go.
func (t *btree[T]) find(n *bnode[T], v T) (int, bool) {
	i := sort.Search(len(n.vals), func(i int) bool { return t.cmp(n.vals[i], v) >= 0 })
	return i, i < len(n.vals) && t.cmp(n.vals[i], v) == 0
}

// Put adds v, replacing a value equal to it, and returns the value
// replaced.
func (t *btree[T]) Put(v T) (old T, replaced bool) {
	old, replaced, sep, right := t.put(t.root, v)
	if right != nil {
		t.root = &bnode[T]{kids: []*bnode[T]{t.root, right}, keys: []T{sep, sep}}
	}
	if !replaced {
		t.n++
	}
	return old, replaced
}

// put adds v under n; when n splits, it returns the new right sibling and
// its lower bound.
func (t *btree[T]) put(n *bnode[T], v T) (old T, replaced bool, sep T, right *bnode[T]) {
	if n.leaf() {
		i, ok := t.find(n, v)
		if ok {
			old, n.vals[i] = n.vals[i], v
			return old, true, sep, nil
		}
		if len(n.vals) < btreeLeaf {
			n.vals = insertAt(n.vals, i, v)
			return old, false, sep, nil
		}
		right = t.splitLeaf(n, i, v)
		return old, false, right.vals[0], right
	}
	i := t.child(n, v)
	old, replaced, s, r := t.put(n.kids[i], v)
	if r == nil {
		return old, replaced, sep, nil
	}
	n.kids = insertAt(n.kids, i+1, r)
	n.keys = insertAt(n.keys, i+1, s)
	if len(n.kids) <= btreeInner {
		return old, replaced, sep, nil
	}
	mid := len(n.kids) / 2
	right = &bnode[T]{kids: append([]*bnode[T](nil), n.kids[mid:]...), keys: append([]T(nil), n.keys[mid:]...)}
	sep = n.keys[mid]
	clear(n.kids[mid:])
	clear(n.keys[mid:])
	n.kids, n.keys = n.kids[:mid], n.keys[:mid]
	return old, replaced, sep, right
}

// splitLeaf splits the full leaf n to insert v at i and returns the new
// right sibling. A leaf is split in halves, but the last leaf of the tree
// stays full when v goes at its end, so that a load in key order fills
// its leaves. A leaf's values never outgrow btreeLeaf, its capacity.
func (t *btree[T]) splitLeaf(n *bnode[T], i int, v T) *bnode[T] {
	mid := len(n.vals) / 2
	if n.next == nil && i == len(n.vals) {
		mid = len(n.vals)
	}
	right := &bnode[T]{vals: append(make([]T, 0, btreeLeaf), n.vals[mid:]...), prev: n, next: n.next}
	clear(n.vals[mid:])
	n.vals = n.vals[:mid]
	if n.next != nil {
		n.next.prev = right
	}
	n.next = right
	if i <= mid && mid < btreeLeaf {
		n.vals = insertAt(n.vals, i, v)
	} else {
		right.vals = insertAt(right.vals, i-mid, v)
	}
	return right
}

func insertAt[E any](s []E, i int, v E) []E {
	var zero E
	s = append(s, zero)
	copy(s[i+1:], s[i:])
	s[i] = v
	return s
}

// Delete removes the value equal to v and returns it.
func (t *btree[T]) Delete(v T) (old T, ok bool) {
	old, ok, _ = t.del(t.root, v)
	if !ok {
		return old, false
	}
	t.n--
	for !t.root.leaf() && len(t.root.kids) == 1 {
		t.root = t.root.kids[0]
	}
	if !t.root.leaf() && len(t.root.kids) == 0 {
		t.root = &bnode[T]{}
	}
	return old, true
}

// del removes v under n and reports whether n is left empty.
func (t *btree[T]) del(n *bnode[T], v T) (old T, ok, empty bool) {
	if n.leaf() {
		i, found := t.find(n, v)
		if !found {
			return old, false, false
		}
		old = n.vals[i]
		copy(n.vals[i:], n.vals[i+1:])
		var zero T
		n.vals[len(n.vals)-1] = zero
		n.vals = n.vals[:len(n.vals)-1]
		if len(n.vals) > 0 {
			return old, true, false
		}
		if n.prev != nil {
			n.prev.next = n.next
		}
		if n.next != nil {
			n.next.prev = n.prev
		}
		n.prev, n.next = nil, nil
		return old, true, true
	}
	i := t.child(n, v)
	old, ok, empty = t.del(n.kids[i], v)
	if !empty {
		return old, ok, false
	}
	n.kids = append(n.kids[:i], n.kids[i+1:]...)
	n.keys = append(n.keys[:i], n.keys[i+1:]...)
	var zero T
	n.kids[:cap(n.kids)][len(n.kids)] = nil
	n.keys[:cap(n.keys)][len(n.keys)] = zero
	return old, ok, len(n.kids) == 0
}

// cursor is a position in a tree: before vals[i] of leaf n; i may be
// len(n.vals), the end of the leaf.
type cursor[T any] struct {
	n *bnode[T]
	i int
}

// Seek returns the position of the first value v for which after(v) is
// true, where after is false, then true, along the order (the end of the
// tree if there is none).
func (t *btree[T]) Seek(after func(T) bool) cursor[T] {
	n := t.root
	for !n.leaf() {
		i := sort.Search(len(n.keys)-1, func(i int) bool { return after(n.keys[i+1]) })
		n = n.kids[i]
	}
	i := sort.Search(len(n.vals), func(i int) bool { return after(n.vals[i]) })
	return cursor[T]{n, i}
}

// First is the position of the first value.
func (t *btree[T]) First() cursor[T] {
	return t.Seek(func(T) bool { return true })
}

// Next returns the value at c and moves c past it.
func (c *cursor[T]) Next() (T, bool) {
	for c.n != nil && c.i >= len(c.n.vals) {
		if c.n.next == nil {
			var zero T
			return zero, false
		}
		c.n, c.i = c.n.next, 0
	}
	if c.n == nil {
		var zero T
		return zero, false
	}
	v := c.n.vals[c.i]
	c.i++
	return v, true
}

// Prev moves c back one value and returns it.
func (c *cursor[T]) Prev() (T, bool) {
	for c.n != nil && c.i == 0 {
		if c.n.prev == nil {
			var zero T
			return zero, false
		}
		c.n, c.i = c.n.prev, len(c.n.prev.vals)
	}
	if c.n == nil {
		var zero T
		return zero, false
	}
	c.i--
	return c.n.vals[c.i], true
}
