package update

import (
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/optimist-dynamo/optimist/internal/plan"
)

// Errors a Builder reports, before anything is sent, in three classes.
// Each is wrapped with the action and path it concerns; match them with
// errors.Is.
var (
	// ErrInvalidPath: a path is empty or not of the form
	// name(.name|[index])*, or two actions change the same path, or one
	// changes a path inside the other's (DynamoDB refuses such an update
	// as a whole).
	ErrInvalidPath = plan.ErrInvalidPath
	// ErrInvalidValue: a value cannot be used: Add of a value that is
	// neither a number nor a set, Delete of one that is not a set, an
	// empty set (DynamoDB has none), a set that repeats an element, a
	// value attributevalue cannot marshal or would drop (a channel, a
	// function, a complex number, anywhere inside it), or one DynamoDB
	// would refuse: a NaN or infinite number, one beyond 38 digits or
	// DynamoDB's range (1E-130 to 9.9E+125). The message names the path.
	ErrInvalidValue = plan.ErrInvalidValue
	// ErrNoActions: Build was called on a Builder with no actions.
	ErrNoActions = plan.ErrNoActions
)

// Builder collects the actions of one update expression. Its methods add an
// action and return the Builder, so calls chain; the first invalid action
// is kept as the Builder's error ([Builder.Err]) and later calls are
// ignored, so a chain needs one error check, at Build (or at the mapper's
// Update, which sends nothing when the builder has an error).
//
// A nil *Builder is an empty one. Building does not change a Builder, so a
// complete Builder may be used by several goroutines at once; adding actions
// to it while it is in use is a data race.
//
// (Its fields are those of an internal type, so that the mapper and
// package txn read its actions as structured values.)
type Builder plan.Updates

// actions returns b's actions and first error.
func (b *Builder) actions() ([]plan.Action, error) { return plan.BuilderActions(b) }

// The package-level functions start a Builder with one action.

// Set starts a Builder with [Builder.Set].
func Set(path string, value any) *Builder { return new(Builder).Set(path, value) }

// SetIfNotExists starts a Builder with [Builder.SetIfNotExists].
func SetIfNotExists(path string, value any) *Builder {
	return new(Builder).SetIfNotExists(path, value)
}

// Add starts a Builder with [Builder.Add].
func Add(path string, value any) *Builder { return new(Builder).Add(path, value) }

// Append starts a Builder with [Builder.Append].
func Append(path string, value any) *Builder { return new(Builder).Append(path, value) }

// Prepend starts a Builder with [Builder.Prepend].
func Prepend(path string, value any) *Builder { return new(Builder).Prepend(path, value) }

// Remove starts a Builder with [Builder.Remove].
func Remove(path string) *Builder { return new(Builder).Remove(path) }

// Delete starts a Builder with [Builder.Delete].
func Delete(path string, value any) *Builder { return new(Builder).Delete(path, value) }

// Set sets path to value: SET #p = :v. The value is marshaled with
// attributevalue (tag key "dynamo"); a types.AttributeValue is used as is.
func (b *Builder) Set(path string, value any) *Builder {
	return b.add(plan.Set, path, value)
}

// SetIfNotExists sets path to value unless it already has one:
// SET #p = if_not_exists(#p, :v).
func (b *Builder) SetIfNotExists(path string, value any) *Builder {
	return b.add(plan.SetIfNotExists, path, value)
}

// Add adds a number to the number at path (ADD #p :n), or the elements of a
// set to the set at path. A missing attribute counts as 0 or the empty set.
// Numbers are Go integers and floats (or *types.AttributeValueMemberN);
// sets are []string (a string set), slices of numbers (a number set),
// [][]byte (a binary set), or *types.AttributeValueMemberSS, NS or BS.
func (b *Builder) Add(path string, value any) *Builder {
	return b.add(plan.Add, path, value)
}

// Append adds value to the end of the list at path, creating the list if
// the attribute is missing:
// SET #p = list_append(if_not_exists(#p, :empty), :v). A slice or array
// value (other than []byte) appends its elements; any other value is
// appended as one element. To append a list as one element, wrap it in a
// slice of lists.
func (b *Builder) Append(path string, value any) *Builder {
	return b.add(plan.Append, path, value)
}

// Prepend is [Builder.Append] at the front of the list.
func (b *Builder) Prepend(path string, value any) *Builder {
	return b.add(plan.Prepend, path, value)
}

// Remove removes the attribute, or the list element, at path: REMOVE #p.
func (b *Builder) Remove(path string) *Builder {
	return b.add(plan.Remove, path, nil)
}

// Delete removes the elements of a set from the set at path: DELETE #p :s.
// The value must be a set, as for [Builder.Add].
func (b *Builder) Delete(path string, value any) *Builder {
	return b.add(plan.Delete, path, value)
}

// Err returns the first error of the Builder, or nil.
func (b *Builder) Err() error {
	_, err := b.actions()
	return err
}

// Paths returns the paths the Builder changes, one per action, in order.
func (b *Builder) Paths() []Path {
	acts, _ := b.actions()
	if acts == nil {
		return nil
	}
	out := make([]Path, len(acts))
	for i, a := range acts {
		out[i] = fromPlan(a.Path)
	}
	return out
}

func (b *Builder) add(k plan.ActionKind, p string, value any) *Builder {
	if b == nil {
		b = new(Builder)
	}
	(*plan.Updates)(b).Add(k, p, value)
	return b
}

// UpdateBuilder returns the actions as an expression.UpdateBuilder, so that
// more actions and a condition can be built into the same expression (the
// mapper adds its version increment this way). It returns the Builder's
// error, or [ErrNoActions].
func (b *Builder) UpdateBuilder() (expression.UpdateBuilder, error) {
	var ub expression.UpdateBuilder
	acts, err := b.actions()
	if err != nil {
		return ub, err
	}
	if len(acts) == 0 {
		return ub, ErrNoActions
	}
	for _, a := range acts {
		name := a.Path.Name()
		switch a.Kind {
		case plan.Set:
			ub = ub.Set(name, expression.Value(a.Value))
		case plan.SetIfNotExists:
			ub = ub.Set(name, expression.IfNotExists(name, expression.Value(a.Value)))
		case plan.Add:
			ub = ub.Add(name, expression.Value(a.Value))
		case plan.Delete:
			ub = ub.Delete(name, expression.Value(a.Value))
		case plan.Remove:
			ub = ub.Remove(name)
		case plan.Append:
			ub = ub.Set(name, expression.ListAppend(expression.IfNotExists(name, expression.Value(plan.EmptyList())), expression.Value(a.Value)))
		case plan.Prepend:
			ub = ub.Set(name, expression.ListAppend(expression.Value(a.Value), expression.IfNotExists(name, expression.Value(plan.EmptyList()))))
		}
	}
	return ub, nil
}

// Build returns the update expression, ready for an UpdateItem request: its
// Update(), Names() and Values(). Every attribute name in it is a
// placeholder, so reserved words (status, count, name, data, ttl, ...) are
// safe. It returns the Builder's first error, or [ErrNoActions].
func (b *Builder) Build() (expression.Expression, error) {
	ub, err := b.UpdateBuilder()
	if err != nil {
		return expression.Expression{}, err
	}
	return expression.NewBuilder().WithUpdate(ub).Build()
}
