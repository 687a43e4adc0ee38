// Package update builds DynamoDB update expressions that are safe to send:
// every attribute name is a placeholder (reserved words such as status,
// count, name, data and ttl just work), and mistakes DynamoDB would reject
// at run time are caught before anything is sent.
//
//	u := update.Set("Title", "x").
//		Append("VotedBy", "B").          // SET #p = list_append(if_not_exists(#p, :empty), :v)
//		Prepend("Recent", "B").
//		Add("Votes", 1).                 // numbers, or sets
//		Delete("Tags", []string{"old"}). // remove elements from a set
//		SetIfNotExists("Created", now).
//		Remove("Draft")
//	expr, err := u.Build()               // expression.Expression for UpdateItem
//
// Atomic updates need no read first: appending a vote and counting it is one
// UpdateItem, however many voters do it at once. With the mapper,
// Table.Update also increments the item's version in the same request, so a
// stale full-item Put that comes later still conflicts.
//
// A Builder keeps its first error and reports it from Build (and from the
// mapper, before sending): an empty or malformed path, or two actions on
// overlapping paths such as "a" and "a.b", or the same path twice
// ([ErrInvalidPath]); Add of a value that is neither a number nor a set,
// Delete of a value that is not a set, an empty set, or a value DynamoDB
// would refuse ([ErrInvalidValue]).
//
// Paths are names separated by dots, with list indexes in brackets:
// "a.b[2].c". Sets are written as Go slices: []string is a string set,
// a slice of numbers a number set, [][]byte a binary set.
package update
