// Package errs holds the error classes that several public packages
// return: each is one value, exported by every package that returns it
// (mapper.ErrInvalidOption, txn.ErrInvalidOption, unit.ErrInvalidOption and
// pessimistic.ErrInvalidOption are all [ErrInvalidOption]), so errors.Is with
// any package's name matches an error of that class from any package.
//
// Their messages carry the library's name rather than a package's, since
// one value serves all; the call sites wrap them with what names the call,
// the option or the item ("optimist: invalid option: NewTable needs a
// client"). A class that one package alone returns stays in that package.
package errs

import (
	"errors"
	"fmt"
)

var (
	// ErrInvalidOption: an option or argument that a call cannot honour or
	// that cannot work, found before anything is sent.
	ErrInvalidOption = errors.New("optimist: invalid option")

	// ErrInvalidItem: a key, value or item DynamoDB would refuse, found
	// before anything is sent (or refused by DynamoDB for that reason).
	ErrInvalidItem = errors.New("optimist: invalid item")

	// ErrItemTooLarge: an item over DynamoDB's 400 KB item limit; a kind of
	// ErrInvalidItem (it matches it).
	ErrItemTooLarge = fmt.Errorf("%w: over DynamoDB's 400 KB item limit", ErrInvalidItem)

	// ErrDone: a transaction or a unit of work used after it was committed,
	// failed or rolled back.
	ErrDone = errors.New("optimist: already committed, failed or rolled back")

	// ErrGlobalTable: a table whose writes the library cannot protect,
	// because it is a global table in multi-Region eventual consistency
	// (a condition is checked only against the writer's Region, and
	// concurrent writes in two Regions are settled by last writer wins),
	// or whose replication could not be learnt.
	ErrGlobalTable = errors.New("optimist: global table: conditional writes cannot be trusted")

	// ErrFenced: a write refused by its fence, because the item holds a
	// higher fencing token than the write's (a newer lock holder wrote).
	ErrFenced = errors.New("optimist: fenced: a newer lock holder wrote")

	// ErrSchemaMismatch: a table that exists with another key schema (or TTL
	// attribute) than the one a call needs.
	ErrSchemaMismatch = errors.New("optimist: table does not match its schema")
)

// Invalid keeps in *err, unless it holds an error already, an error of
// class [ErrInvalidOption] with the message format makes. The option types
// of the public packages keep the first mistake their options find and
// report it when the call runs, before anything is sent.
func Invalid(err *error, format string, args ...any) {
	if *err == nil {
		*err = fmt.Errorf("%w: "+format, append([]any{ErrInvalidOption}, args...)...)
	}
}

// SetCount sets *field to n, the count given to the option name, or keeps
// an [Invalid] error in *err when n is below 1.
func SetCount(err *error, field *int, name string, n int) {
	if n < 1 {
		Invalid(err, "%s(%d): need at least 1", name, n)
		return
	}
	*field = n
}
