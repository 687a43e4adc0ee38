package mapper

import (
	"fmt"
	"regexp"
	"slices"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
)

// checkIndexRead refuses, before anything is sent, the reads DynamoDB
// would refuse for the index they name: an index the type (its index
// tags) or the design does not declare, unless the call gives its key
// attributes (Index(name, hash, range); never for an entity, whose design
// lists every index it may read); and a strongly consistent read of a
// global secondary index, which DynamoDB cannot serve. An undeclared index
// whose hash key is not the table's is global; one with the table's may be
// local, and is let through.
func (t *Table[T]) checkIndexRead(c *readConfig) error {
	if c.index == "" {
		return nil
	}
	var ix *index
	for _, x := range t.s.indexes {
		if x.name == c.index {
			ix = x
		}
	}
	global := ix != nil && !ix.local
	switch {
	case ix == nil && t.s.ent != nil:
		return fmt.Errorf("%w: index %q is not one of the design's (Design.Indexes)", ErrInvalidOption, c.index)
	case ix == nil && len(c.indexKeys) == 0:
		return fmt.Errorf("%w: index %q is not declared by %v (no index or localIndex tag names it): tag its key fields, or give its key attributes, Index(%q, hash, range)", ErrInvalidOption, c.index, t.s.typ, c.index)
	case ix == nil:
		global = c.indexKeys[0] != t.s.hash.name
	}
	if global && c.consistent {
		return fmt.Errorf("%w: ConsistentRead(true) on the global secondary index %q of %s: DynamoDB reads a global index only eventually consistently", ErrInvalidOption, c.index, t.name)
	}
	return nil
}

// keyAttrs returns the key attributes a Query's key condition may name:
// the index's, or the table's.
func (t *Table[T]) keyAttrs(c *readConfig) []string {
	if c.index != "" {
		for _, x := range t.s.indexes {
			if x.name == c.index {
				out := []string{x.hash.name}
				if x.rng != nil {
					out = append(out, x.rng.name)
				}
				return out
			}
		}
		return c.indexKeys
	}
	out := []string{t.s.hash.name}
	if t.s.rng != nil {
		out = append(out, t.s.rng.name)
	}
	return out
}

var placeholder = regexp.MustCompile(`#[0-9A-Za-z_]+`)

// checkKeyCondition refuses a key condition that names an attribute that
// is not a key of the table or index read (DynamoDB's ValidationException,
// found before sending).
func (t *Table[T]) checkKeyCondition(c *readConfig, e expression.Expression) error {
	kc := e.KeyCondition()
	if kc == nil {
		return nil
	}
	keys := t.keyAttrs(c)
	names := e.Names()
	for _, ph := range placeholder.FindAllString(*kc, -1) {
		if n, ok := names[ph]; ok && !slices.Contains(keys, n) {
			return fmt.Errorf("%w: the key condition names %q, which is not a key attribute of %s (its keys: %q); put a condition on another attribute in a Filter",
				ErrInvalidOption, n, describe(t.name, c.index), keys)
		}
	}
	return nil
}
