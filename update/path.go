package update

import "github.com/optimist-dynamo/optimist/internal/plan"

// A Path names an attribute, or a part of one: a top-level name followed
// by map keys (.name) and list indexes ([n]), as in "a.b[2].c". Names may
// hold any character but '.', '[' and ']'; every name becomes a placeholder
// in the expression, so no name needs escaping.
type Path []Step

// A Step is one element of a [Path]: a name, or (Name == "") a list index.
type Step struct {
	Name  string
	Index int
}

// ParsePath parses a path such as "a.b[2].c". It returns an error matching
// [ErrInvalidPath].
func ParsePath(s string) (Path, error) {
	p, err := plan.ParsePath(s)
	if err != nil {
		return nil, err
	}
	return fromPlan(p), nil
}

func fromPlan(p plan.Path) Path {
	out := make(Path, len(p))
	for i, st := range p {
		out[i] = Step(st)
	}
	return out
}

func (p Path) toPlan() plan.Path {
	out := make(plan.Path, len(p))
	for i, st := range p {
		out[i] = plan.Step(st)
	}
	return out
}

// Attribute returns the top-level attribute name of the path.
func (p Path) Attribute() string { return p.toPlan().Attribute() }

// String renders the path in the syntax ParsePath reads.
func (p Path) String() string { return p.toPlan().String() }

// Overlaps reports whether p and q are the same path or one lies inside the
// other ("a" and "a.b", "a[1]" and "a[1].c"); DynamoDB refuses an update
// with overlapping paths.
func (p Path) Overlaps(q Path) bool { return p.toPlan().Overlaps(q.toPlan()) }
