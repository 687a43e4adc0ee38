package cond

import (
	"sort"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// Writing into an item: the location a path names (creating nothing that
// DynamoDB would not), and SET, REMOVE, ADD and DELETE at it, with list
// edits applied once every action has been evaluated.

// writer applies the actions of an update to a copy of the item. Changes
// to the length of lists (removals, appends) wait until every action is
// applied, since all indexes refer to the lists before the update.
type writer struct {
	lists map[*types.AttributeValueMemberL]*listEdit
}

// listEdit holds the removals and appends of one list.
type listEdit struct {
	remove map[int]bool
	append map[int]types.AttributeValue
}

func (w *writer) edit(l *types.AttributeValueMemberL) *listEdit {
	e := w.lists[l]
	if e == nil {
		e = &listEdit{remove: map[int]bool{}, append: map[int]types.AttributeValue{}}
		w.lists[l] = e
	}
	return e
}

// finish applies the removals and appends of every list.
func (w *writer) finish() {
	for l, e := range w.lists {
		var out []types.AttributeValue
		for i, v := range l.Value {
			if !e.remove[i] {
				out = append(out, v)
			}
		}
		idx := make([]int, 0, len(e.append))
		for i := range e.append {
			idx = append(idx, i)
		}
		sort.Ints(idx)
		for _, i := range idx {
			out = append(out, e.append[i])
		}
		if out == nil {
			out = []types.AttributeValue{}
		}
		l.Value = out
	}
}

// location is where a path leads in the copy: a key of a map, or an index
// of a list (possibly past its end).
type location struct {
	w     *writer
	m     map[string]types.AttributeValue
	key   string
	l     *types.AttributeValueMemberL
	index int
}

// locate finds the parent of path's last element, which must exist and be
// a map (for a name) or a list (for an index).
func (w *writer) locate(item map[string]types.AttributeValue, path Path) (*location, error) {
	var cur types.AttributeValue = &types.AttributeValueMemberM{Value: item}
	for n, el := range path {
		last := n == len(path)-1
		if el.IsIndex {
			l, ok := cur.(*types.AttributeValueMemberL)
			if !ok {
				return nil, refused(msgBadPath)
			}
			if last {
				return &location{w: w, l: l, index: el.Index}, nil
			}
			if el.Index >= len(l.Value) {
				return nil, refused(msgBadPath)
			}
			cur = l.Value[el.Index]
			continue
		}
		m, ok := cur.(*types.AttributeValueMemberM)
		if !ok {
			return nil, refused(msgBadPath)
		}
		if last {
			return &location{w: w, m: m.Value, key: el.Name}, nil
		}
		next, ok := m.Value[el.Name]
		if !ok {
			return nil, refused(msgBadPath)
		}
		cur = next
	}
	panic("cond: empty path")
}

func (loc *location) get() types.AttributeValue {
	if loc.l == nil {
		return loc.m[loc.key]
	}
	if loc.index < len(loc.l.Value) {
		return loc.l.Value[loc.index]
	}
	return nil
}

func (loc *location) set(v types.AttributeValue) {
	switch {
	case loc.l == nil:
		loc.m[loc.key] = v
	case loc.index < len(loc.l.Value):
		loc.l.Value[loc.index] = v
	default:
		loc.w.edit(loc.l).append[loc.index] = v
	}
}

func (loc *location) remove() {
	switch {
	case loc.l == nil:
		delete(loc.m, loc.key)
	case loc.index < len(loc.l.Value):
		loc.w.edit(loc.l).remove[loc.index] = true
	}
}

// add is ADD: a number added to a number, a set's elements added to a set
// of the same type, or the value itself where there is nothing.
func (loc *location) add(v types.AttributeValue) error {
	cur := loc.get()
	if cur == nil {
		loc.set(Copy(v))
		return nil
	}
	switch v := v.(type) {
	case *types.AttributeValueMemberN:
		c, ok := cur.(*types.AttributeValueMemberN)
		if !ok {
			return refused(msgBadOperand)
		}
		sum, err := addNumbers(c.Value, v.Value, false)
		if err != nil {
			return err
		}
		loc.set(&types.AttributeValueMemberN{Value: sum})
	case *types.AttributeValueMemberSS:
		c, ok := cur.(*types.AttributeValueMemberSS)
		if !ok {
			return refused(msgBadOperand)
		}
		loc.set(&types.AttributeValueMemberSS{Value: union(c.Value, v.Value, func(s string) string { return s })})
	case *types.AttributeValueMemberNS:
		c, ok := cur.(*types.AttributeValueMemberNS)
		if !ok {
			return refused(msgBadOperand)
		}
		// DynamoDB Local writes the elements of a number set it adds to
		// as BigDecimal.toPlainString does.
		added := make([]string, len(v.Value))
		for i, n := range v.Value {
			u, scale := bigDecimal(n)
			added[i] = plainBig(u, scale)
		}
		merged := union(c.Value, added, numberKey)
		for i, n := range merged {
			u, scale := bigDecimal(n)
			merged[i] = plainBig(u, scale)
		}
		loc.set(&types.AttributeValueMemberNS{Value: merged})
	case *types.AttributeValueMemberBS:
		c, ok := cur.(*types.AttributeValueMemberBS)
		if !ok {
			return refused(msgBadOperand)
		}
		loc.set(&types.AttributeValueMemberBS{Value: union(c.Value, v.Value, func(b []byte) string { return string(b) })})
	}
	return nil
}

// delete is DELETE: a set's elements taken from a set of the same type;
// the attribute goes when no element is left.
func (loc *location) delete(v types.AttributeValue) error {
	cur := loc.get()
	if cur == nil {
		return nil
	}
	var left int
	switch v := v.(type) {
	case *types.AttributeValueMemberSS:
		c, ok := cur.(*types.AttributeValueMemberSS)
		if !ok {
			return refused(msgBadOperand)
		}
		c.Value = minus(c.Value, v.Value, func(s string) string { return s })
		left = len(c.Value)
	case *types.AttributeValueMemberNS:
		c, ok := cur.(*types.AttributeValueMemberNS)
		if !ok {
			return refused(msgBadOperand)
		}
		// DynamoDB Local rewrites the elements it keeps as
		// BigDecimal.toPlainString does.
		c.Value = minus(c.Value, v.Value, numberKey)
		for i, n := range c.Value {
			u, scale := bigDecimal(n)
			c.Value[i] = plainBig(u, scale)
		}
		left = len(c.Value)
	case *types.AttributeValueMemberBS:
		c, ok := cur.(*types.AttributeValueMemberBS)
		if !ok {
			return refused(msgBadOperand)
		}
		c.Value = minus(c.Value, v.Value, func(b []byte) string { return string(b) })
		left = len(c.Value)
	}
	if left == 0 {
		loc.remove()
	}
	return nil
}

// numberKey is a text two numbers share exactly when they are equal.
func numberKey(s string) string {
	d, _ := parseDecimal(s)
	return d.key()
}

// union returns a's elements followed by those of b not in a.
func union[E any](a, b []E, key func(E) string) []E {
	in := make(map[string]bool, len(a))
	out := make([]E, 0, len(a)+len(b))
	for _, e := range a {
		in[key(e)] = true
		out = append(out, e)
	}
	for _, e := range b {
		if !in[key(e)] {
			in[key(e)] = true
			out = append(out, e)
		}
	}
	return out
}

// minus returns a's elements that are not in b.
func minus[E any](a, b []E, key func(E) string) []E {
	drop := make(map[string]bool, len(b))
	for _, e := range b {
		drop[key(e)] = true
	}
	var out []E
	for _, e := range a {
		if !drop[key(e)] {
			out = append(out, e)
		}
	}
	return out
}
