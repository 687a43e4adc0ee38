package cond

import (
	"sort"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// Projection is a parsed projection expression: document paths separated
// by commas. Use [ParseProjection] to make one; it is immutable.
type Projection struct {
	src   string
	paths [][]elem
	ph    placeholders
}

// String returns the expression's text, as given to ParseProjection.
func (p *Projection) String() string { return p.src }

// ParseProjection parses a projection expression. Errors are [*Error]s
// with DynamoDB's message ("Invalid ProjectionExpression: ...").
func ParseProjection(expr string) (*Projection, error) {
	return parseParam(expr, "ProjectionExpression", false, parseProjection)
}

func parseProjection(c *cursor) (*Projection, error) {
	p := &Projection{src: c.src}
	for {
		path, err := c.path(false)
		if err != nil {
			return nil, err
		}
		p.ph.addPath(path)
		p.paths = append(p.paths, path)
		switch c.peek().kind {
		case tokComma:
			c.next()
			continue
		case tokEOF:
			return p, nil
		}
		return nil, c.fail()
	}
}

// Names returns the #name placeholders the expression uses, each once, in
// the order they first appear.
func (p *Projection) Names() []string { return append([]string(nil), p.ph.names...) }

// Paths resolves the expression's paths with names, in the order written,
// and refuses what DynamoDB refuses: an undefined #name, and two paths that
// overlap (one a prefix of the other) or conflict (a name and an index at
// one level).
func (p *Projection) Paths(names map[string]string) ([]Path, error) {
	paths := make([]Path, len(p.paths))
	for i, el := range p.paths {
		r, err := resolvePath(el, names)
		if err != nil {
			return nil, prefixed(err, "ProjectionExpression")
		}
		paths[i] = r
	}
	if err := checkOverlaps(paths); err != nil {
		return nil, prefixed(err, "ProjectionExpression")
	}
	return paths, nil
}

// checkOverlaps refuses two paths that conflict (reported first, over all
// pairs) or overlap.
func checkOverlaps(paths []Path) error {
	for i := range paths {
		for j := i + 1; j < len(paths); j++ {
			if pathsConflict(paths[i], paths[j]) {
				return invalid(msgTwoDocumentPathsConflictEach, paths[i].listing(), paths[j].listing())
			}
		}
	}
	for i := range paths {
		for j := i + 1; j < len(paths); j++ {
			if pathsOverlap(paths[i], paths[j]) {
				// DynamoDB Local sometimes names as path two another path
				// than the one that overlaps, in an order that this
				// package does not reproduce; see the package doc.
				return invalid(msgTwoDocumentPathsOverlapEach, paths[i].listing(), paths[j].listing())
			}
		}
	}
	return nil
}

// projNode is a node of the tree of projected paths.
type projNode struct {
	leaf    bool
	names   map[string]*projNode
	indexes map[int]*projNode
}

func (n *projNode) child(e PathElem) *projNode {
	if e.IsIndex {
		if n.indexes == nil {
			n.indexes = map[int]*projNode{}
		}
		if n.indexes[e.Index] == nil {
			n.indexes[e.Index] = &projNode{}
		}
		return n.indexes[e.Index]
	}
	if n.names == nil {
		n.names = map[string]*projNode{}
	}
	if n.names[e.Name] == nil {
		n.names[e.Name] = &projNode{}
	}
	return n.names[e.Name]
}

// Project returns the parts of item that paths name, as DynamoDB returns
// them: maps keep the projected keys, lists the projected elements in the
// order of their indexes, compacted (l[2], l[0] gives [l[0], l[2]]); a path
// that leads nowhere contributes nothing, not even an empty map or list.
// A nil item gives nil. The result shares nothing with item.
func Project(item map[string]types.AttributeValue, paths []Path) map[string]types.AttributeValue {
	if item == nil {
		return nil
	}
	root := &projNode{}
	for _, p := range paths {
		n := root
		for _, e := range p {
			n = n.child(e)
		}
		n.leaf = true
	}
	out := map[string]types.AttributeValue{}
	for name, n := range root.names {
		if v := project(item[name], n); v != nil {
			out[name] = v
		}
	}
	return out
}

// project returns the part of v that n selects, or nil for none.
func project(v types.AttributeValue, n *projNode) types.AttributeValue {
	if v == nil {
		return nil
	}
	if n.leaf {
		return Copy(v)
	}
	switch v := v.(type) {
	case *types.AttributeValueMemberM:
		out := map[string]types.AttributeValue{}
		for name, k := range n.names {
			if x := project(v.Value[name], k); x != nil {
				out[name] = x
			}
		}
		if len(out) > 0 {
			return &types.AttributeValueMemberM{Value: out}
		}
	case *types.AttributeValueMemberL:
		idx := make([]int, 0, len(n.indexes))
		for i := range n.indexes {
			if i < len(v.Value) {
				idx = append(idx, i)
			}
		}
		sort.Ints(idx)
		var out []types.AttributeValue
		for _, i := range idx {
			if x := project(v.Value[i], n.indexes[i]); x != nil {
				out = append(out, x)
			}
		}
		if len(out) > 0 {
			return &types.AttributeValueMemberL{Value: out}
		}
	}
	return nil
}
